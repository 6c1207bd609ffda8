package wire_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

// equalMsg compares messages, treating nil and empty slices alike.
func equalMsg(a, b wire.Message) bool {
	return reflect.DeepEqual(formatFields(a), formatFields(b)) && a.Type() == b.Type()
}

func TestRoundTripSamples(t *testing.T) {
	var p wire.Parser
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			for _, seq := range []uint16{0, 1, 0x00FF, 0xFF00, 65535} {
				b, err := wire.AppendFrame([]byte("prefix"), seq, s.msg)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(b, []byte("prefix")) {
					t.Fatalf("AppendFrame overwrote the prefix")
				}
				frame := b[len("prefix"):]
				if bytes.IndexByte(frame, 0) != len(frame)-1 {
					t.Fatalf("frame must end in its only 0x00: % x", frame)
				}
				if len(frame) > wire.MaxWireLen(s.msg) {
					t.Errorf("frame is %d bytes, MaxWireLen says %d", len(frame), wire.MaxWireLen(s.msg))
				}
				f, err := p.Parse(frame)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if f.Seq != seq || !equalMsg(f.Msg, s.msg) {
					t.Fatalf("Parse: got seq %d %v, want seq %d %v", f.Seq, formatFields(f.Msg), seq, formatFields(s.msg))
				}
				body, err := wire.AppendBody(nil, seq, s.msg)
				if err != nil {
					t.Fatal(err)
				}
				if len(body) != wire.BodyLen(s.msg) {
					t.Errorf("body is %d bytes, BodyLen says %d", len(body), wire.BodyLen(s.msg))
				}
				if enc := append(wire.AppendCOBS(nil, body), 0); !bytes.Equal(enc, frame) {
					t.Errorf("AppendCOBS(AppendBody) differs from AppendFrame")
				}
				if f, err := p.ParseBody(body); err != nil || f.Seq != seq || !equalMsg(f.Msg, s.msg) {
					t.Errorf("ParseBody: %v", err)
				}
			}
		})
	}
}

func TestAppendFrameAllocs(t *testing.T) {
	buf := make([]byte, 0, wire.MaxFrameLen)
	for _, s := range samples() {
		m := s.msg
		n := testing.AllocsPerRun(100, func() {
			var err error
			buf, err = wire.AppendFrame(buf[:0], 7, m)
			if err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: AppendFrame allocates %v times per call", s.name, n)
		}
	}
}

func TestAppendFrameInvalid(t *testing.T) {
	long := strings.Repeat("x", wire.MaxStringLen+1)
	tests := []struct {
		name string
		msg  wire.Message
	}{
		{"hello no cells", &wire.Hello{Major: 1, MaxRX: 100}},
		{"hello too many cells", &wire.Hello{Major: 1, Cells: wire.MaxCells + 1, MaxRX: 100}},
		{"hello too many LEDs", &wire.Hello{Major: 1, Cells: 1, LEDs: wire.MaxLEDs + 1, MaxRX: 100}},
		{"hello small maxrx", &wire.Hello{Major: 1, Cells: 1, MaxRX: wire.MinRX - 1}},
		{"hello big maxrx", &wire.Hello{Major: 1, Cells: 1, MaxRX: wire.MaxBodyLen + 1}},
		{"hello long string", &wire.Hello{Major: 1, Cells: 1, MaxRX: 100, Model: long}},
		{"snapshot too big", &wire.Snapshot{Cells: make([]uint8, wire.MaxCells+1)}},
		{"cell change empty", &wire.CellChange{}},
		{"cell change too many", &wire.CellChange{Changes: make([]wire.Change, wire.MaxChanges+1)}},
		{"cell change bad cell", &wire.CellChange{Changes: []wire.Change{{Cell: wire.MaxCells}}}},
		{"roll no die", &wire.Roll{Value: 1}},
		{"roll zero", &wire.Roll{Die: wire.DieD6}},
		{"roll d6 seven", &wire.Roll{Die: wire.DieD6, Value: 7}},
		{"roll nsew five", &wire.Roll{Die: wire.DieNSEW, Value: 5}},
		{"button zero", &wire.Button{}},
		{"error code zero", &wire.Error{}},
		{"error long text", &wire.Error{Code: 1, Text: long}},
		{"error text newline", &wire.Error{Code: 1, Text: "bad\n"}},
		{"error text DEL", &wire.Error{Code: 1, Text: "\x7F"}},
		{"hello model control byte", &wire.Hello{Major: 1, Cells: 1, MaxRX: 64, Model: "st\x01ar"}},
		{"hello firmware high byte", &wire.Hello{Major: 1, Cells: 1, MaxRX: 64, Firmware: "1.0\xE9"}},
		{"ack type zero", &wire.Ack{}},
		{"config zero rate", &wire.Config{Debounce: 1}},
		{"config zero debounce", &wire.Config{ScanHz: 1}},
		{"led frame too long", &wire.LEDFrame{Colors: make([]wire.Color, wire.MaxLEDFrameColors+1)}},
		{"led frame past end", &wire.LEDFrame{Start: wire.MaxLEDs - 1, Colors: make([]wire.Color, 2)}},
		{"led set too many", &wire.LEDSet{Ranges: make([]wire.Range, wire.MaxRanges+1)}},
		{"led set past end", &wire.LEDSet{Ranges: []wire.Range{{Start: 4000, Count: 97}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte{1, 2, 3}
			got, err := wire.AppendFrame(dst, 0, tt.msg)
			if !errors.Is(err, wire.ErrInvalid) {
				t.Errorf("AppendFrame: got %v, want ErrInvalid", err)
			}
			if !bytes.Equal(got, dst) {
				t.Errorf("AppendFrame changed dst on error: % x", got)
			}
			if _, err := wire.AppendBody(nil, 0, tt.msg); !errors.Is(err, wire.ErrInvalid) {
				t.Errorf("AppendBody: got %v, want ErrInvalid", err)
			}
		})
	}
	// The largest legal messages encode.
	for _, m := range []wire.Message{
		&wire.Snapshot{Cells: bytes.Repeat([]byte{7}, wire.MaxCells)},
		&wire.LEDFrame{Colors: make([]wire.Color, wire.MaxLEDFrameColors)},
		&wire.CellChange{Changes: make([]wire.Change, wire.MaxChanges)},
		&wire.LEDSet{Ranges: make([]wire.Range, wire.MaxRanges)},
	} {
		if _, err := wire.AppendFrame(nil, 0, m); err != nil {
			t.Errorf("%v at its limit: %v", m.Type(), err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	good := stream(9, &wire.Roll{Time: 1, Die: wire.DieD6, Value: 2})
	body, _ := wire.AppendBody(nil, 9, &wire.Roll{Time: 1, Die: wire.DieD6, Value: 2})
	withCRC := func(b []byte) []byte { return append(wire.AppendCOBS(nil, binaryAppendCRC(b)), 0) }
	tests := []struct {
		name    string
		in      []byte
		want    error
		typ     wire.Type
		wantSeq uint16
	}{
		{"crc", append([]byte{good[0], good[1] ^ 0x10}, good[2:]...), wire.ErrCRC, 0, 0},
		{"cobs", []byte{9, 1, 2, 0}, wire.ErrCOBS, 0, 0},
		{"short", append(wire.AppendCOBS(nil, body[:4]), 0), wire.ErrTooShort, 0, 0},
		{"empty body", []byte{1, 0}, wire.ErrTooShort, 0, 0},
		{"long", bytes.Repeat([]byte{1}, wire.MaxEncodedLen+1), wire.ErrTooLong, 0, 0},
		{"long body", append(wire.AppendCOBS(nil, make([]byte, wire.MaxBodyLen+1)), 0), wire.ErrTooLong, 0, 0},
		{"unknown", withCRC([]byte{0x3F, 2, 1}), wire.ErrUnknownType, 0x3F, 0x0102},
		{"reserved zero type", withCRC([]byte{0x00, 2, 0}), wire.ErrUnknownType, 0, 2},
		{"truncated", withCRC(body[:len(body)-3]), wire.ErrTruncated, wire.TypeRoll, 9},
		{"snapshot stray bit", withCRC([]byte{2, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x08}), wire.ErrInvalid, wire.TypeSnapshot, 1},
		{"snapshot zero code", withCRC([]byte{2, 1, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0x01, 0}), wire.ErrInvalid, wire.TypeSnapshot, 1},
		{"snapshot missing code", withCRC([]byte{2, 1, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0x03, 5}), wire.ErrTruncated, wire.TypeSnapshot, 1},
		{"snapshot too many cells", withCRC([]byte{2, 1, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x08}), wire.ErrInvalid, wire.TypeSnapshot, 1},
		{"hello long string", withCRC(append([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0, 65}, make([]byte, 65)...)), wire.ErrInvalid, wire.TypeHello, 0},
		{"hello cut string", withCRC([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0, 3, 'a'}), wire.ErrTruncated, wire.TypeHello, 0},
		{"hello missing strings", withCRC([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0}), wire.ErrTruncated, wire.TypeHello, 0},
		{"hello vendor control byte", withCRC([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0, 2, 'a', 0x07, 0, 0, 0}), wire.ErrInvalid, wire.TypeHello, 0},
		{"hello serial high byte", withCRC([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0, 0, 0, 1, 0x80, 0}), wire.ErrInvalid, wire.TypeHello, 0},
		{"error text control byte", withCRC([]byte{7, 0, 0, 1, 0, 0, 0, 0, 0, 3, 'o', 'k', 0x1B}), wire.ErrInvalid, wire.TypeError, 0},
		{"error cut text", withCRC([]byte{7, 0, 0, 1, 0, 0, 0, 0, 0, 5, 'a'}), wire.ErrTruncated, wire.TypeError, 0},
		{"led set past end", withCRC([]byte{0x44, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0x0F, 2, 0}), wire.ErrInvalid, wire.TypeLEDSet, 0},
		{"led frame past end", withCRC([]byte{0x43, 0, 0, 0xFF, 0x0F, 2, 0}), wire.ErrInvalid, wire.TypeLEDFrame, 0},
		{"cell change zero count", withCRC([]byte{3, 0, 0, 0, 0, 0, 0, 0}), wire.ErrInvalid, wire.TypeCellChange, 0},
		{"cell change bad cell", withCRC([]byte{3, 0, 0, 0, 0, 0, 0, 1, 0, 8, 1}), wire.ErrInvalid, wire.TypeCellChange, 0},
		{"ack type zero", withCRC([]byte{0x20, 0, 0, 0, 0, 0}), wire.ErrInvalid, wire.TypeAck, 0},
		{"button zero", withCRC([]byte{5, 0, 0, 0, 0, 0, 0, 0}), wire.ErrInvalid, wire.TypeButton, 0},
		{"error code zero", withCRC([]byte{7, 0, 0, 0, 0, 0, 0, 0, 0, 0}), wire.ErrInvalid, wire.TypeError, 0},
	}
	var p wire.Parser
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Parse(tt.in)
			var fe *wire.FrameError
			if !errors.As(err, &fe) || !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want FrameError wrapping %v", err, tt.want)
			}
			if fe.Type != tt.typ || fe.Seq != tt.wantSeq {
				t.Errorf("got type %v seq %d, want %v seq %d", fe.Type, fe.Seq, tt.typ, tt.wantSeq)
			}
		})
	}
}

// TestTextNamesFieldAndByte: protocol text that is not printable ASCII is
// refused with an error naming the field, the byte and where it is.
func TestTextNamesFieldAndByte(t *testing.T) {
	withCRC := func(b []byte) []byte { return append(wire.AppendCOBS(nil, binaryAppendCRC(b)), 0) }
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"hello vendor", withCRC([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0, 2, 'a', 0x07, 0, 0, 0}),
			"wire: bad frame at offset 0 (Hello seq 0): invalid field value: hello vendor: byte 0x07 at position 1 is not printable ASCII"},
		{"hello firmware", withCRC([]byte{1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 100, 0, 0, 0, 0, 1, 0xFF}),
			"wire: bad frame at offset 0 (Hello seq 0): invalid field value: hello firmware: byte 0xFF at position 0 is not printable ASCII"},
		{"error text", withCRC([]byte{7, 0, 0, 1, 0, 0, 0, 0, 0, 3, 'o', 'k', '\n'}),
			"wire: bad frame at offset 0 (Error seq 0): invalid field value: error text: byte 0x0A at position 2 is not printable ASCII"},
	}
	var p wire.Parser
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Parse(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
	// Every printable byte is accepted, both ways.
	var all []byte
	for c := byte(0x20); c <= 0x7E; c++ {
		all = append(all, c)
	}
	m := &wire.Error{Code: 1, Text: string(all[:64])}
	b, err := wire.AppendFrame(nil, 0, m)
	if err != nil {
		t.Fatal(err)
	}
	if fr, err := p.Parse(b[:len(b)-1]); err != nil || fr.Msg.(*wire.Error).Text != m.Text {
		t.Errorf("printable text: got %v, want %q", err, m.Text)
	}
}

func TestFrameErrorMessage(t *testing.T) {
	e := &wire.FrameError{Offset: 42, Err: wire.ErrCRC}
	if got, want := e.Error(), "wire: bad frame at offset 42: CRC mismatch"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &wire.FrameError{Offset: 7, Type: 0x7E, Seq: 3, Err: wire.ErrUnknownType}
	if got, want := e.Error(), "wire: bad frame at offset 7 (Type(0x7E) seq 3): unknown message type"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !e.HasHeader() {
		t.Error("HasHeader false for a frame with a type")
	}
	e = &wire.FrameError{Offset: 1, Err: io.ErrUnexpectedEOF}
	if got, want := e.Error(), "wire: bad frame at offset 1: unexpected EOF"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHelloVersion(t *testing.T) {
	h := &wire.Hello{Major: 1, Minor: 9}
	if err := h.CheckVersion(); err != nil {
		t.Errorf("newer minor: %v", err)
	}
	for _, major := range []uint8{0, 2} {
		h := &wire.Hello{Major: major, Minor: 1}
		err := h.CheckVersion()
		var ve *wire.VersionError
		if !errors.Is(err, wire.ErrIncompatible) || !errors.As(err, &ve) {
			t.Fatalf("major %d: got %v, want VersionError", major, err)
		}
		t.Logf("major %d: %v", major, err)
		if !strings.Contains(err.Error(), "major versions differ") {
			t.Errorf("message %q does not say why", err)
		}
	}
	// A Hello of another major round-trips as major and minor alone.
	var p wire.Parser
	f, err := p.Parse(stream(0, &wire.Hello{Major: 3, Minor: 1, Cells: 5, Model: "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if h := f.Msg.(*wire.Hello); h.Major != 3 || h.Minor != 1 || h.Cells != 0 || h.Model != "" {
		t.Errorf("got %+v", h)
	}
	hb := &wire.Hello{Abilities: wire.AbilityButtons, Buttons: wire.ButtonHint.ButtonMask()}
	if !hb.HasButton(wire.ButtonHint) || hb.HasButton(wire.ButtonNew) {
		t.Error("HasButton wrong")
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{wire.TypeCellChange.String(), "CellChange"},
		{wire.Type(0x99).String(), "Type(0x99)"},
		{(wire.AbilityIdentify | wire.AbilityButtons).String(), "identify|buttons"},
		{wire.Abilities(0).String(), "none"},
		{wire.Abilities(0x8001).String(), "identify|0x8000"},
		{wire.ButtonNew.String(), "new"},
		{wire.ButtonID(9).String(), "ButtonID(9)"},
		{wire.DieNSEW.String(), "nsew"},
		{wire.ReasonPeriodic.String(), "periodic"},
		{wire.ErrCodeOverflow.String(), "overflow"},
		{wire.Color{R: 255, G: 16, B: 1}.String(), "#ff1001"},
		{(&wire.Error{Code: wire.ErrCodeOutOfRange, Seq: 4, Ref: wire.TypeLEDFrame, Detail: 900, Text: "x"}).Error(),
			"board error out-of-range for LEDFrame seq 4 (detail 900): x"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	for _, typ := range wire.Types {
		if !typ.Known() || typ.FromBoard() == typ.FromHost() && typ != wire.TypeAck {
			t.Errorf("%v: known %v, from board %v, from host %v", typ, typ.Known(), typ.FromBoard(), typ.FromHost())
		}
	}
}

func TestLEDFrameCapacity(t *testing.T) {
	for _, maxBody := range []int{wire.MinRX, 220, 1000, wire.MaxBodyLen, 1 << 20} {
		n := wire.LEDFrameCapacity(maxBody)
		l := &wire.LEDFrame{Colors: make([]wire.Color, n)}
		if got := wire.BodyLen(l); got > min(maxBody, wire.MaxBodyLen) {
			t.Errorf("maxBody %d: %d colours make a %d-byte body", maxBody, n, got)
		}
		l.Colors = append(l.Colors, wire.Color{})
		if got := wire.BodyLen(l); got <= min(maxBody, wire.MaxBodyLen) {
			t.Errorf("maxBody %d: %d colours would still fit", maxBody, n+1)
		}
	}
	if wire.LEDFrameCapacity(3) != 0 {
		t.Error("capacity of a tiny body not 0")
	}
}

func TestSplitterScanner(t *testing.T) {
	in := cat(
		[]byte{0, 0},
		stream(1, &wire.Button{Time: 1, Button: wire.ButtonHint}),
		[]byte{0x55, 0x66, 0},                             // garbage
		bytes.Repeat([]byte{0x42}, wire.MaxEncodedLen+10), // an overlong frame
		[]byte{0},
		stream(2, &wire.Heartbeat{Time: 2}),
		[]byte{0x03, 0x04}, // cut at EOF
	)
	for _, r := range readers(in) {
		t.Run(r.name, func(t *testing.T) {
			sc := bufio.NewScanner(r.r)
			sc.Buffer(make([]byte, 0, 64), 2*wire.MaxFrameLen)
			sc.Split((&wire.Splitter{}).Split)
			var p wire.Parser
			var got []string
			for sc.Scan() {
				f, err := p.Parse(sc.Bytes())
				if err != nil {
					got = append(got, sentinelName(err))
				} else {
					got = append(got, f.Type().String())
				}
			}
			want := []string{"Button", "ErrCOBS", "ErrTooLong", "Heartbeat"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("got %v, want %v", got, want)
			}
			if !errors.Is(sc.Err(), io.ErrUnexpectedEOF) {
				t.Errorf("scanner error %v, want io.ErrUnexpectedEOF", sc.Err())
			}
		})
	}
}
