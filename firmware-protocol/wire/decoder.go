package wire

import (
	"bytes"
	"errors"
	"io"
)

// maxEmptyReads is how many consecutive (0, nil) reads Next tolerates
// before it returns io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

const decoderBufSize = MaxFrameLen + 4096

var errBadReadCount = errors.New("wire: reader returned an invalid count")

// A Decoder reads frames from a byte stream, such as a serial port.
//
// Next returns the next good frame. A bad frame (ErrCOBS, ErrCRC,
// ErrTooLong, ErrTooShort, ErrUnknownType, ErrTruncated, ErrInvalid) is
// returned as a *FrameError with the stream offset of its first byte, and
// the decoder resynchronises at the next 0x00 delimiter: the following call
// returns the following frame. A stream that ends inside a frame gives a
// *FrameError wrapping io.ErrUnexpectedEOF, then io.EOF.
//
// Read errors other than io.EOF are returned unwrapped and are not sticky:
// the decoder keeps what it has buffered, and the next call reads again.
// So a port wrapper may turn a read timeout into an error to wake the
// caller, and the caller may call Next again afterwards.
//
// go.bug.st/serial returns (0, nil) when a read times out. The decoder
// retries such reads, and after 100 in a row returns io.ErrNoProgress
// (not sticky either). With a read timeout T that is 100·T of silence;
// wrap the port to learn of each timeout sooner.
//
// A Decoder allocates its 8 KiB buffer once; decoding does not allocate
// in steady state. The Frame it returns points into storage it reuses:
// it is valid until the next call to Next. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	r          io.Reader
	buf        []byte
	start, end int   // buffered bytes are buf[start:end]
	off        int64 // stream offset of buf[start]
	discarding bool  // dropping the rest of an overlong frame
	err        error // read error to report once the buffer is drained
	msgs       messages
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: r, buf: make([]byte, decoderBufSize)}
}

// Reset makes d read from r, dropping buffered bytes, and restarts stream
// offsets at 0. It keeps the buffers.
func (d *Decoder) Reset(r io.Reader) {
	d.r, d.start, d.end, d.off, d.discarding, d.err = r, 0, 0, 0, false, nil
}

// Offset returns the stream offset of the next byte Next will look at.
func (d *Decoder) Offset() int64 { return d.off }

// Buffered returns how many bytes are read but not yet decoded.
func (d *Decoder) Buffered() int { return d.end - d.start }

func (d *Decoder) consume(n int) {
	d.start += n
	d.off += int64(n)
	if d.start == d.end {
		d.start, d.end = 0, 0
	}
}

// Next returns the next frame. See the Decoder documentation for errors.
func (d *Decoder) Next() (Frame, error) {
	for {
		data := d.buf[d.start:d.end]
		if i := bytes.IndexByte(data, 0); i >= 0 {
			off := d.off
			frame := data[:i]
			d.consume(i + 1)
			if d.discarding {
				d.discarding = false
				continue
			}
			if i == 0 {
				continue // an empty frame: idle delimiter
			}
			return d.decode(frame, off)
		}
		if d.discarding {
			d.consume(len(data))
		} else if len(data) > MaxEncodedLen {
			off := d.off
			d.consume(len(data))
			d.discarding = true
			return Frame{}, &FrameError{Offset: off, Err: ErrTooLong}
		}
		if d.err != nil {
			err := d.err
			if err != io.EOF {
				d.err = nil
				return Frame{}, err
			}
			if d.end > d.start {
				off := d.off
				d.consume(d.end - d.start)
				return Frame{}, &FrameError{Offset: off, Err: io.ErrUnexpectedEOF}
			}
			d.discarding = false
			return Frame{}, io.EOF
		}
		d.fill()
	}
}

// fill reads once into the buffer, retrying empty reads.
func (d *Decoder) fill() {
	if d.end == len(d.buf) {
		// Buffered bytes are less than MaxFrameLen (else they were
		// dropped as too long), so moving them down makes room.
		copy(d.buf, d.buf[d.start:d.end])
		d.end -= d.start
		d.start = 0
	}
	for range maxEmptyReads {
		n, err := d.r.Read(d.buf[d.end:])
		if n < 0 || n > len(d.buf)-d.end {
			d.err = errBadReadCount
			return
		}
		d.end += n
		if err != nil {
			d.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	d.err = io.ErrNoProgress
}

func (d *Decoder) decode(frame []byte, off int64) (Frame, error) {
	if len(frame) > MaxEncodedLen {
		return Frame{}, &FrameError{Offset: off, Err: ErrTooLong}
	}
	n, err := decodeCOBSInPlace(frame)
	if err != nil {
		return Frame{}, &FrameError{Offset: off, Err: err}
	}
	f, err := d.msgs.parseBody(frame[:n])
	if err != nil {
		err.(*FrameError).Offset = off
	}
	return f, err
}
