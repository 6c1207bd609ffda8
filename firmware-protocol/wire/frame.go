package wire

import (
	"bytes"
	"io"
	"slices"
)

// Frame is one decoded frame: its sequence number and message.
type Frame struct {
	// Seq is the sender's frame counter. Each side counts its own frames
	// from 0 after reset (board) or connect (host), wrapping after 65535.
	Seq uint16
	// Msg points into storage owned by the Decoder or Parser that returned
	// it; it is valid until that decoder's next call.
	Msg Message
}

// Type returns the type of f.Msg, or 0 if f has no message.
func (f Frame) Type() Type {
	if f.Msg == nil {
		return 0
	}
	return f.Msg.Type()
}

// BodyLen returns the length of m's frame body: header, payload and CRC.
// Compare it with Hello.MaxRX before sending to a board.
func BodyLen(m Message) int { return MinBodyLen + m.payloadLen() }

// MaxWireLen returns the most bytes m's frame takes on the wire, delimiter
// included (the COBS overhead of a body without zero bytes).
func MaxWireLen(m Message) int { return MaxCOBSLen(BodyLen(m)) + 1 }

// AppendBody appends m's unencoded frame body (type, seq, payload, CRC) to
// dst. It is what AppendFrame COBS-encodes; a simulator can corrupt it
// before encoding it with AppendCOBS.
func AppendBody(dst []byte, seq uint16, m Message) ([]byte, error) {
	n, err := bodyLen(m)
	if err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, n)
	return appendBody(dst, seq, m), nil
}

func bodyLen(m Message) (int, error) {
	if err := m.check(); err != nil {
		return 0, err
	}
	n := MinBodyLen + m.payloadLen()
	if n > MaxBodyLen {
		return 0, invalid("%v body of %d bytes, longer than %d", m.Type(), n, MaxBodyLen)
	}
	return n, nil
}

func appendBody(b []byte, seq uint16, m Message) []byte {
	start := len(b)
	b = append(b, byte(m.Type()), byte(seq), byte(seq>>8))
	b = m.appendPayload(b)
	return le.AppendUint16(b, CRC16(b[start:]))
}

// AppendFrame appends m's complete frame to dst: the COBS-encoded body and
// the 0x00 delimiter, exactly the bytes to write to the port. It does not
// allocate when dst has room for MaxWireLen(m) more bytes, and it does not
// retain m. On error (a field out of range, wrapping ErrInvalid) dst is
// returned unchanged.
func AppendFrame(dst []byte, seq uint16, m Message) ([]byte, error) {
	n, err := bodyLen(m)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	ovh := MaxCOBSLen(n) - n
	dst = slices.Grow(dst, ovh+n+1)
	// Write the body ovh bytes further on and encode it backwards into
	// place: the encoding never overtakes the bytes still to be read.
	b := appendBody(dst[:start+ovh], seq, m)
	end := encodeCOBSInPlace(b, start, start+ovh)
	return append(b[:end], 0), nil
}

// messages holds one reusable value of every message type.
type messages struct {
	hello           Hello
	snapshot        Snapshot
	cellChange      CellChange
	roll            Roll
	button          Button
	heartbeat       Heartbeat
	err             Error
	ack             Ack
	helloRequest    HelloRequest
	snapshotRequest SnapshotRequest
	config          Config
	ledFrame        LEDFrame
	ledSet          LEDSet
}

func (s *messages) get(t Type) Message {
	switch t {
	case TypeHello:
		return &s.hello
	case TypeSnapshot:
		return &s.snapshot
	case TypeCellChange:
		return &s.cellChange
	case TypeRoll:
		return &s.roll
	case TypeButton:
		return &s.button
	case TypeHeartbeat:
		return &s.heartbeat
	case TypeError:
		return &s.err
	case TypeAck:
		return &s.ack
	case TypeHelloRequest:
		return &s.helloRequest
	case TypeSnapshotRequest:
		return &s.snapshotRequest
	case TypeConfig:
		return &s.config
	case TypeLEDFrame:
		return &s.ledFrame
	case TypeLEDSet:
		return &s.ledSet
	}
	return nil
}

// parseBody checks and parses a decoded body. Errors are *FrameError with
// Offset 0.
func (s *messages) parseBody(body []byte) (Frame, error) {
	if len(body) > MaxBodyLen {
		return Frame{}, &FrameError{Err: ErrTooLong}
	}
	if len(body) < MinBodyLen {
		return Frame{}, &FrameError{Err: ErrTooShort}
	}
	n := len(body) - CRCLen
	if CRC16(body[:n]) != le.Uint16(body[n:]) {
		return Frame{}, &FrameError{Err: ErrCRC}
	}
	t := Type(body[0])
	seq := le.Uint16(body[1:])
	m := s.get(t)
	if m == nil {
		return Frame{}, &FrameError{Type: t, Seq: seq, Err: ErrUnknownType}
	}
	if err := m.unmarshal(body[HeaderLen:n]); err != nil {
		return Frame{}, &FrameError{Type: t, Seq: seq, Err: err}
	}
	return Frame{Seq: seq, Msg: m}, nil
}

// A Parser parses single frames, for callers that split the stream
// themselves (with a bufio.Scanner and a Splitter, say). The zero value is
// ready to use. It does not allocate in steady state: messages it returns
// are reused by its next call.
type Parser struct {
	body []byte
	msgs messages
}

// Parse decodes one COBS-encoded frame, with or without its trailing 0x00
// delimiter. It does not modify encoded. Errors are *FrameError with Offset
// 0.
func (p *Parser) Parse(encoded []byte) (Frame, error) {
	if n := len(encoded); n > 0 && encoded[n-1] == 0 {
		encoded = encoded[:n-1]
	}
	if len(encoded) > MaxEncodedLen {
		return Frame{}, &FrameError{Err: ErrTooLong}
	}
	if p.body == nil {
		p.body = make([]byte, 0, MaxEncodedLen)
	}
	body, err := AppendDecodedCOBS(p.body[:0], encoded)
	if err != nil {
		return Frame{}, &FrameError{Err: err}
	}
	return p.msgs.parseBody(body)
}

// ParseBody parses an unencoded frame body (type, seq, payload, CRC), as
// AppendBody makes it. The returned message does not refer to body.
func (p *Parser) ParseBody(body []byte) (Frame, error) {
	return p.msgs.parseBody(body)
}

// Splitter splits a byte stream into COBS-encoded frames for a
// bufio.Scanner:
//
//	sc := bufio.NewScanner(port)
//	sc.Buffer(make([]byte, 0, 2*wire.MaxFrameLen), 2*wire.MaxFrameLen)
//	sc.Split((&wire.Splitter{}).Split)
//	var p wire.Parser
//	for sc.Scan() {
//		f, err := p.Parse(sc.Bytes())
//		...
//	}
//
// Tokens are the bytes between delimiters, without the delimiter; empty
// frames (repeated 0x00) are skipped. When MaxEncodedLen bytes pass
// without a delimiter, Split returns them as one token (which Parse
// rejects with ErrTooLong) and drops the rest up to the next delimiter.
// A partial frame at EOF ends the scan with io.ErrUnexpectedEOF. Use a
// Decoder instead to learn the stream offsets of bad frames.
type Splitter struct {
	discarding bool
}

// Split implements bufio.SplitFunc.
func (s *Splitter) Split(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for {
		i := bytes.IndexByte(data[advance:], 0)
		if s.discarding {
			if i < 0 {
				return len(data), nil, nil
			}
			s.discarding = false
			advance += i + 1
			continue
		}
		switch {
		case i == 0:
			advance++ // an empty frame
		case i > 0:
			return advance + i + 1, data[advance : advance+i], nil
		case len(data)-advance > MaxEncodedLen:
			s.discarding = true
			return len(data), data[advance : advance+MaxEncodedLen+1], nil
		case atEOF && len(data) > advance:
			return len(data), nil, io.ErrUnexpectedEOF
		default:
			return advance, nil, nil
		}
	}
}
