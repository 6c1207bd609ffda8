package wire

import (
	"errors"
	"strconv"
)

// Sentinel errors. Decoding errors reach the caller wrapped in a
// *[FrameError]; test for them with errors.Is.
var (
	// ErrCOBS: the bytes between two delimiters are not valid COBS.
	ErrCOBS = errors.New("wire: invalid COBS encoding")
	// ErrCRC: the body's CRC does not match its contents.
	ErrCRC = errors.New("wire: CRC mismatch")
	// ErrTooLong: more than MaxEncodedLen bytes without a delimiter, or a
	// body longer than MaxBodyLen.
	ErrTooLong = errors.New("wire: frame too long")
	// ErrTooShort: a body shorter than header and CRC.
	ErrTooShort = errors.New("wire: frame too short")
	// ErrUnknownType: a frame with a valid CRC and a type this version
	// does not know. A host talking to a board with a newer minor version
	// ignores such frames (but still counts their sequence number).
	ErrUnknownType = errors.New("wire: unknown message type")
	// ErrTruncated: a frame with a valid CRC whose payload is shorter than
	// its type requires.
	ErrTruncated = errors.New("wire: truncated payload")
	// ErrInvalid: a field holds a value the protocol forbids (decoding),
	// or a message cannot be encoded (encoding).
	ErrInvalid = errors.New("wire: invalid field value")
	// ErrIncompatible: the peer speaks another major protocol version.
	ErrIncompatible = errors.New("wire: incompatible protocol version")
)

// FrameError describes one bad frame in a stream. The decoder skips the bad
// frame; the next call returns the frame after it.
type FrameError struct {
	// Offset is the stream offset of the frame's first byte (for
	// Parser.Parse, 0).
	Offset int64
	// Type is the frame's type when its CRC was valid (ErrUnknownType,
	// ErrTruncated, ErrInvalid), else 0.
	Type Type
	// Seq is the frame's sequence number when Type is not 0. A host keeps
	// its sequence gap detection right by counting it.
	Seq uint16
	// Err is the reason: one of the sentinels above or
	// io.ErrUnexpectedEOF.
	Err error
}

func (e *FrameError) Error() string {
	b := make([]byte, 0, 80)
	b = append(b, "wire: bad frame at offset "...)
	b = strconv.AppendInt(b, e.Offset, 10)
	if e.Type != 0 {
		b = append(b, " ("...)
		b = append(b, e.Type.String()...)
		b = append(b, " seq "...)
		b = strconv.AppendUint(b, uint64(e.Seq), 10)
		b = append(b, ')')
	}
	b = append(b, ": "...)
	msg := "<nil>"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	if len(msg) > 6 && msg[:6] == "wire: " {
		msg = msg[6:]
	}
	b = append(b, msg...)
	return string(b)
}

// Unwrap returns Err.
func (e *FrameError) Unwrap() error { return e.Err }

// HasHeader reports whether the frame passed its CRC check, so that Type
// and Seq are meaningful.
func (e *FrameError) HasHeader() bool { return e.Type != 0 }

// VersionError is returned by [Hello.CheckVersion] when the board speaks a
// major version this package does not. It wraps [ErrIncompatible].
type VersionError struct {
	BoardMajor, BoardMinor uint8
	HostMajor, HostMinor   uint8
}

func (e *VersionError) Error() string {
	return "wire: board speaks protocol " + strconv.Itoa(int(e.BoardMajor)) + "." +
		strconv.Itoa(int(e.BoardMinor)) + ", host speaks " +
		strconv.Itoa(int(e.HostMajor)) + "." + strconv.Itoa(int(e.HostMinor)) +
		": major versions differ; update the " + e.older()
}

func (e *VersionError) older() string {
	if e.BoardMajor < e.HostMajor {
		return "board firmware"
	}
	return "host software"
}

// Unwrap returns ErrIncompatible.
func (e *VersionError) Unwrap() error { return ErrIncompatible }
