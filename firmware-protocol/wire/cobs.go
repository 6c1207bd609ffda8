package wire

import (
	"bytes"
	"slices"
)

// COBS (Consistent Overhead Byte Stuffing, Cheshire and Baker) removes every
// 0x00 from a frame so that 0x00 can delimit frames on the wire. The encoding
// used here is the canonical one: a block of 254 non-zero bytes that ends the
// input is not followed by an empty 0x01 block. Decoders accept that extra
// block anyway.

// MaxCOBSLen returns the largest possible length of the COBS encoding of n
// bytes, without the 0x00 delimiter: n + ceil(n/254), and 1 for n == 0.
func MaxCOBSLen(n int) int {
	if n == 0 {
		return 1
	}
	return n + (n+253)/254
}

// AppendCOBS appends the COBS encoding of src to dst and returns the extended
// buffer. It does not append the 0x00 delimiter. The result contains no 0x00.
func AppendCOBS(dst, src []byte) []byte {
	start := len(dst)
	ovh := MaxCOBSLen(len(src)) - len(src)
	dst = slices.Grow(dst, ovh+len(src))
	dst = dst[:start+ovh]
	dst = append(dst, src...)
	return dst[:encodeCOBSInPlace(dst, start, start+ovh)]
}

// encodeCOBSInPlace COBS-encodes b[in:] into b[out:] and returns the end
// index of the encoding. in-out must be at least MaxCOBSLen(len(b)-in) -
// (len(b)-in): the output then never overtakes unread input.
func encodeCOBSInPlace(b []byte, out, in int) int {
	n := len(b)
	for {
		rem := b[in:n]
		lim := min(len(rem), 254)
		k := bytes.IndexByte(rem[:lim], 0)
		if k < 0 {
			// A group without a trailing zero: a full block of 254 or the
			// end of the input.
			k = lim
			copy(b[out+1:], rem[:k])
			b[out] = byte(k + 1)
			out += 1 + k
			in += k
			if in == n {
				return out
			}
			continue
		}
		copy(b[out+1:], rem[:k])
		b[out] = byte(k + 1)
		out += 1 + k
		in += k + 1
		if in == n {
			// The input ended in 0x00: an empty final group stands for it.
			b[out] = 1
			return out + 1
		}
	}
}

// AppendDecodedCOBS appends the decoding of the COBS-encoded src (without
// its 0x00 delimiter) to dst and returns the extended buffer. It returns
// [ErrCOBS] if src is empty, contains 0x00, or ends inside a group.
func AppendDecodedCOBS(dst, src []byte) ([]byte, error) {
	dst = slices.Grow(dst, len(src))
	for i := 0; i < len(src); {
		code := int(src[i])
		if code == 0 {
			return dst, ErrCOBS
		}
		i++
		end := i + code - 1
		if end > len(src) {
			return dst, ErrCOBS
		}
		grp := src[i:end]
		if bytes.IndexByte(grp, 0) >= 0 {
			return dst, ErrCOBS
		}
		dst = append(dst, grp...)
		i = end
		if code != 0xFF && i < len(src) {
			dst = append(dst, 0)
		}
	}
	if len(src) == 0 {
		return dst, ErrCOBS
	}
	return dst, nil
}

// decodeCOBSInPlace decodes the COBS-encoded b over itself and returns the
// decoded length. The decoding is never longer than the encoding and the
// write position never overtakes the read position.
func decodeCOBSInPlace(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, ErrCOBS
	}
	w := 0
	for i := 0; i < len(b); {
		code := int(b[i])
		if code == 0 {
			return 0, ErrCOBS
		}
		i++
		end := i + code - 1
		if end > len(b) {
			return 0, ErrCOBS
		}
		if bytes.IndexByte(b[i:end], 0) >= 0 {
			return 0, ErrCOBS
		}
		w += copy(b[w:], b[i:end])
		i = end
		if code != 0xFF && i < len(b) {
			b[w] = 0
			w++
		}
	}
	return w, nil
}
