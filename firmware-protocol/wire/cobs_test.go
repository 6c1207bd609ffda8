package wire

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestCRC16(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x29B1 || CRC16Check != 0x29B1 {
		t.Fatalf("CRC16(123456789) = %#04x, want 0x29B1", got)
	}
	// Bitwise reference: _crc_xmodem_update from avr-libc, seeded 0xFFFF.
	ref := func(b []byte) uint16 {
		crc := uint16(0xFFFF)
		for _, c := range b {
			crc ^= uint16(c) << 8
			for range 8 {
				if crc&0x8000 != 0 {
					crc = crc<<1 ^ 0x1021
				} else {
					crc <<= 1
				}
			}
		}
		return crc
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if got, want := CRC16(b), ref(b); got != want {
			t.Fatalf("len %d: CRC16 = %#04x, reference %#04x", n, got, want)
		}
		k := r.IntN(n + 1)
		if got := UpdateCRC16(UpdateCRC16(CRC16Init, b[:k]), b[k:]); got != ref(b) {
			t.Fatalf("len %d split %d: incremental CRC %#04x, want %#04x", n, k, got, ref(b))
		}
	}
	if got := CRC16(nil); got != 0xFFFF {
		t.Errorf("CRC16(nil) = %#04x, want 0xFFFF", got)
	}
}

func seqBytes(from, to int) []byte {
	var b []byte
	for i := from; i <= to; i++ {
		b = append(b, byte(i))
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestCOBSExamples(t *testing.T) {
	// The examples from Cheshire and Baker's paper, as Wikipedia lists them.
	tests := []struct {
		name      string
		raw, cobs []byte
	}{
		{"empty", nil, []byte{0x01}},
		{"zero", []byte{0x00}, []byte{0x01, 0x01}},
		{"two zeros", []byte{0x00, 0x00}, []byte{0x01, 0x01, 0x01}},
		{"mixed", []byte{0x00, 0x11, 0x00}, []byte{0x01, 0x02, 0x11, 0x01}},
		{"inner zero", []byte{0x11, 0x22, 0x00, 0x33}, []byte{0x03, 0x11, 0x22, 0x02, 0x33}},
		{"no zero", []byte{0x11, 0x22, 0x33, 0x44}, []byte{0x05, 0x11, 0x22, 0x33, 0x44}},
		{"trailing zeros", []byte{0x11, 0x00, 0x00, 0x00}, []byte{0x02, 0x11, 0x01, 0x01, 0x01}},
		{"254 non-zero", seqBytes(0x01, 0xFE), cat([]byte{0xFF}, seqBytes(0x01, 0xFE))},
		{"zero then 254", seqBytes(0x00, 0xFE), cat([]byte{0x01, 0xFF}, seqBytes(0x01, 0xFE))},
		{"255 non-zero", seqBytes(0x01, 0xFF), cat([]byte{0xFF}, seqBytes(0x01, 0xFE), []byte{0x02, 0xFF})},
		{"254 then zero", cat(seqBytes(0x02, 0xFF), []byte{0x00}), cat([]byte{0xFF}, seqBytes(0x02, 0xFF), []byte{0x01, 0x01})},
		{"253, zero, one", cat(seqBytes(0x03, 0xFF), []byte{0x00, 0x01}), cat([]byte{0xFE}, seqBytes(0x03, 0xFF), []byte{0x02, 0x01})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendCOBS([]byte{0xAA}, tt.raw)
			if !bytes.Equal(got[1:], tt.cobs) || got[0] != 0xAA {
				t.Errorf("AppendCOBS:\n got % x\nwant aa % x", got, tt.cobs)
			}
			dec, err := AppendDecodedCOBS([]byte{0xBB}, tt.cobs)
			if err != nil || !bytes.Equal(dec[1:], tt.raw) {
				t.Errorf("AppendDecodedCOBS: got % x, %v; want bb % x", dec, err, tt.raw)
			}
			in := bytes.Clone(tt.cobs)
			n, err := decodeCOBSInPlace(in)
			if err != nil || !bytes.Equal(in[:n], tt.raw) {
				t.Errorf("decodeCOBSInPlace: got % x, %v; want % x", in[:n], err, tt.raw)
			}
			if len(tt.cobs) > MaxCOBSLen(len(tt.raw)) {
				t.Errorf("encoding of %d bytes is %d long, MaxCOBSLen says %d", len(tt.raw), len(tt.cobs), MaxCOBSLen(len(tt.raw)))
			}
		})
	}
}

func TestCOBSDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"zero code", []byte{0x00}},
		{"zero inside group", []byte{0x03, 0x11, 0x00}},
		{"group past end", []byte{0x05, 0x11, 0x22}},
		{"second group past end", []byte{0x02, 0x11, 0x04, 0x22}},
		{"full block cut", cat([]byte{0xFF}, seqBytes(1, 100))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := AppendDecodedCOBS(nil, tt.in); !errors.Is(err, ErrCOBS) {
				t.Errorf("AppendDecodedCOBS(% x): got %v, want ErrCOBS", tt.in, err)
			}
			if _, err := decodeCOBSInPlace(bytes.Clone(tt.in)); !errors.Is(err, ErrCOBS) {
				t.Errorf("decodeCOBSInPlace(% x): got %v, want ErrCOBS", tt.in, err)
			}
		})
	}
	// A redundant empty group after a final full block is accepted.
	dec, err := AppendDecodedCOBS(nil, cat([]byte{0xFF}, seqBytes(1, 254), []byte{0x01}))
	if err != nil || !bytes.Equal(dec, seqBytes(1, 254)) {
		t.Errorf("non-canonical trailing group: got %d bytes, %v", len(dec), err)
	}
}

func TestCOBSRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := r.IntN(1200)
		b := make([]byte, n)
		zeroRate := r.IntN(4) // 0: no zeros, else 1 in 2^k
		for i := range b {
			b[i] = byte(r.Uint32())
			if zeroRate == 0 && b[i] == 0 {
				b[i] = 1
			} else if zeroRate > 0 && r.IntN(1<<zeroRate) == 0 {
				b[i] = 0
			}
		}
		enc := AppendCOBS(nil, b)
		if bytes.IndexByte(enc, 0) >= 0 {
			t.Fatalf("encoding contains 0x00")
		}
		if len(enc) > MaxCOBSLen(n) {
			t.Fatalf("len %d encodes to %d > MaxCOBSLen %d", n, len(enc), MaxCOBSLen(n))
		}
		if zeroRate == 0 && len(enc) != MaxCOBSLen(n) {
			t.Fatalf("len %d without zeros encodes to %d, want exactly %d", n, len(enc), MaxCOBSLen(n))
		}
		dec, err := AppendDecodedCOBS(nil, enc)
		if err != nil || !bytes.Equal(dec, b) {
			t.Fatalf("round trip of %d bytes failed: %v", n, err)
		}
		k, err := decodeCOBSInPlace(enc)
		if err != nil || !bytes.Equal(enc[:k], b) {
			t.Fatalf("in-place round trip of %d bytes failed: %v", n, err)
		}
	}
}

func TestAppendCOBSAllocs(t *testing.T) {
	src := seqBytes(0, 600)
	dst := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { dst = AppendCOBS(dst[:0], src) }); n != 0 {
		t.Errorf("AppendCOBS allocates %v times per call", n)
	}
	enc := AppendCOBS(nil, src)
	out := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { out, _ = AppendDecodedCOBS(out[:0], enc) }); n != 0 {
		t.Errorf("AppendDecodedCOBS allocates %v times per call", n)
	}
}
