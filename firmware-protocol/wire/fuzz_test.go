package wire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

func addVectorSeeds(f *testing.F) {
	vs, err := parseVectors(bytes.NewReader(mustRead(f, vectorsPath)))
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range vs {
		f.Add(v.wire)
	}
	for _, s := range samples() {
		f.Add(stream(1, s.msg))
	}
}

func mustRead(f *testing.F, path string) []byte {
	b, err := readFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzDecode feeds arbitrary bytes to the decoder: it must not panic, must
// end in io.EOF, must report frame errors at increasing offsets inside the
// input, and every frame it accepts must survive re-encoding.
func FuzzDecode(f *testing.F) {
	addVectorSeeds(f)
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0xFF, 0xFF, 0x01})
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, r := range []io.Reader{bytes.NewReader(in), iotest.OneByteReader(bytes.NewReader(in))} {
			d := wire.NewDecoder(r)
			var p wire.Parser
			last := int64(-1)
			for i := 0; ; i++ {
				if i > len(in)+1 {
					t.Fatalf("more results than input bytes")
				}
				fr, err := d.Next()
				if err == io.EOF {
					break
				}
				var fe *wire.FrameError
				if errors.As(err, &fe) {
					if fe.Offset <= last || fe.Offset >= int64(len(in)) {
						t.Fatalf("error offset %d after %d, input %d bytes", fe.Offset, last, len(in))
					}
					last = fe.Offset
					continue
				}
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if s, ok := textOf(fr.Msg); ok && !printable(s) {
					t.Fatalf("decoded %v with text %q: protocol text is printable ASCII", fr.Type(), s)
				}
				re, err := wire.AppendFrame(nil, fr.Seq, fr.Msg)
				if err != nil {
					t.Fatalf("decoded %v does not re-encode: %v", fr.Type(), err)
				}
				// Keep the decoded fields before Parse overwrites nothing of
				// d's: p has its own storage.
				g, err := p.Parse(re)
				if err != nil || g.Seq != fr.Seq || !equalMsg(g.Msg, fr.Msg) {
					t.Fatalf("re-encoded %v does not decode the same: %v", fr.Type(), err)
				}
			}
		}
	})
}

// textOf returns a message's protocol text (Hello's strings joined, Error's
// text) and whether it has any.
func textOf(m wire.Message) (string, bool) {
	switch m := m.(type) {
	case *wire.Hello:
		return m.Vendor + m.Model + m.Serial + m.Firmware, true
	case *wire.Error:
		return m.Text, true
	}
	return "", false
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E {
			return false
		}
	}
	return true
}

// fuzzBytes hands out fields from fuzz input, zeros once it runs out.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) u8() uint8 {
	if len(f.b) == 0 {
		return 0
	}
	v := f.b[0]
	f.b = f.b[1:]
	return v
}
func (f *fuzzBytes) u16() uint16 { return uint16(f.u8()) | uint16(f.u8())<<8 }
func (f *fuzzBytes) u32() uint32 { return uint32(f.u16()) | uint32(f.u16())<<16 }
func (f *fuzzBytes) str() string {
	n := int(f.u8() % 80)
	n = min(n, len(f.b))
	s := string(f.b[:n])
	f.b = f.b[n:]
	return s
}

func fuzzMessage(data []byte) wire.Message {
	f := &fuzzBytes{b: data}
	t := wire.Types[int(f.u8())%len(wire.Types)]
	switch t {
	case wire.TypeHello:
		major := uint8(wire.VersionMajor)
		if f.u8() == 0xEE {
			major = f.u8()
		}
		return &wire.Hello{Major: major, Minor: f.u8(), Abilities: wire.Abilities(f.u16()), Buttons: f.u8(),
			Cells: f.u16() % (wire.MaxCells + 10), LEDs: f.u16() % (wire.MaxLEDs + 10), MaxRX: f.u16() % (wire.MaxBodyLen + 10),
			Vendor: f.str(), Model: f.str(), Serial: f.str(), Firmware: f.str()}
	case wire.TypeSnapshot:
		s := &wire.Snapshot{Time: f.u32(), Reason: wire.SnapshotReason(f.u8()), Cells: make([]uint8, f.u16()%(wire.MaxCells+10))}
		for i := range s.Cells {
			s.Cells[i] = f.u8()
		}
		return s
	case wire.TypeCellChange:
		c := &wire.CellChange{Time: f.u32(), Changes: make([]wire.Change, f.u16()%(wire.MaxChanges+5))}
		for i := range c.Changes {
			c.Changes[i] = wire.Change{Cell: f.u16() % (wire.MaxCells + 5), Code: f.u8()}
		}
		return c
	case wire.TypeRoll:
		return &wire.Roll{Time: f.u32(), Die: wire.Die(f.u8()), Value: f.u8()}
	case wire.TypeButton:
		return &wire.Button{Time: f.u32(), Button: wire.ButtonID(f.u8())}
	case wire.TypeHeartbeat:
		return &wire.Heartbeat{Time: f.u32(), ScanRate: f.u16(), RxErrors: f.u16()}
	case wire.TypeError:
		return &wire.Error{Code: wire.ErrorCode(f.u8()), Seq: f.u16(), Ref: wire.Type(f.u8()), Detail: f.u16(), Text: f.str()}
	case wire.TypeAck:
		return &wire.Ack{Seq: f.u16(), Ref: wire.Type(f.u8())}
	case wire.TypeHelloRequest:
		return &wire.HelloRequest{Major: f.u8(), Minor: f.u8()}
	case wire.TypeSnapshotRequest:
		return &wire.SnapshotRequest{}
	case wire.TypeConfig:
		return &wire.Config{ScanHz: f.u16(), Debounce: f.u8(), HeartbeatMs: f.u16(), SnapshotMs: f.u32(), Brightness: f.u8()}
	case wire.TypeLEDFrame:
		l := &wire.LEDFrame{Start: f.u16() % (wire.MaxLEDs + 5), Colors: make([]wire.Color, f.u16()%(wire.MaxLEDFrameColors+5))}
		for i := range l.Colors {
			l.Colors[i] = wire.Color{R: f.u8(), G: f.u8(), B: f.u8()}
		}
		return l
	case wire.TypeLEDSet:
		l := &wire.LEDSet{Color: wire.Color{R: f.u8(), G: f.u8(), B: f.u8()}, Blink: f.u8(), Ranges: make([]wire.Range, f.u16()%(wire.MaxRanges+5))}
		for i := range l.Ranges {
			l.Ranges[i] = wire.Range{Start: f.u16() % (wire.MaxLEDs + 5), Count: f.u16() % 300}
		}
		return l
	}
	panic("unreachable")
}

// FuzzRoundTrip builds a message from the fuzz input; whatever AppendFrame
// accepts must decode to the same message and sequence number, through
// the Decoder and the Parser.
func FuzzRoundTrip(f *testing.F) {
	for i := range wire.Types {
		f.Add(uint16(i), []byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	}
	f.Add(uint16(65535), []byte{1, 0, 7, 0x0B, 0, 0x1F, 0x49, 0x03, 0x49, 0x03, 0, 0x10, 3, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, seq uint16, data []byte) {
		m := fuzzMessage(data)
		enc, err := wire.AppendFrame(nil, seq, m)
		if err != nil {
			if !errors.Is(err, wire.ErrInvalid) {
				t.Fatalf("AppendFrame: %v, want nil or ErrInvalid", err)
			}
			return
		}
		if s, ok := textOf(m); ok && !printable(s) {
			t.Fatalf("AppendFrame encoded %v with text %q: protocol text is printable ASCII", m.Type(), s)
		}
		if bytes.IndexByte(enc, 0) != len(enc)-1 || len(enc) > wire.MaxWireLen(m) || len(enc) > wire.MaxFrameLen {
			t.Fatalf("bad frame shape: %d bytes, zero at %d", len(enc), bytes.IndexByte(enc, 0))
		}
		d := wire.NewDecoder(iotest.HalfReader(bytes.NewReader(enc)))
		fr, err := d.Next()
		if err != nil {
			t.Fatalf("Decoder: %v", err)
		}
		if fr.Seq != seq || !equalMsg(fr.Msg, m) {
			t.Fatalf("Decoder: got seq %d %q, want seq %d %q", fr.Seq, formatFields(fr.Msg), seq, formatFields(m))
		}
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("after the frame: %v, want io.EOF", err)
		}
		var p wire.Parser
		if fr, err := p.Parse(enc); err != nil || fr.Seq != seq || !equalMsg(fr.Msg, m) {
			t.Fatalf("Parser: %v", err)
		}
	})
}
