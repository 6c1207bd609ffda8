package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

type namedReader struct {
	name string
	r    io.Reader
}

// readers returns in behind the testing/iotest readers: a serial port
// delivers bytes in arbitrary pieces. The timeout reader fails its second
// read with iotest.ErrTimeout.
func readers(in []byte) []namedReader {
	return []namedReader{
		{"plain", bytes.NewReader(in)},
		{"one-byte", iotest.OneByteReader(bytes.NewReader(in))},
		{"half", iotest.HalfReader(bytes.NewReader(in))},
		{"data-err", iotest.DataErrReader(bytes.NewReader(in))},
	}
}

func readersWithTimeout(in []byte) []namedReader {
	return append(readers(in),
		namedReader{"timeout", iotest.TimeoutReader(bytes.NewReader(in))},
		namedReader{"timeout-one-byte", iotest.TimeoutReader(iotest.OneByteReader(bytes.NewReader(in)))},
	)
}

// events drains d and describes what it returned: "Type/seq" for frames,
// "Sentinel@offset" for frame errors, "timeout" for iotest.ErrTimeout,
// up to io.EOF.
func events(t *testing.T, d *wire.Decoder) []string {
	t.Helper()
	var ev []string
	for range 10000 {
		f, err := d.Next()
		var fe *wire.FrameError
		switch {
		case err == nil:
			ev = append(ev, fmt.Sprintf("%v/%d", f.Type(), f.Seq))
		case errors.As(err, &fe):
			name := sentinelName(fe.Err)
			if errors.Is(fe.Err, io.ErrUnexpectedEOF) {
				name = "UnexpectedEOF"
			}
			ev = append(ev, fmt.Sprintf("%s@%d", name, fe.Offset))
		case errors.Is(err, iotest.ErrTimeout):
			ev = append(ev, "timeout")
		case err == io.EOF:
			return ev
		default:
			t.Fatalf("unexpected error %v after %v", err, ev)
		}
	}
	t.Fatalf("no io.EOF after %v", ev)
	return nil
}

func dropTimeouts(ev []string) []string {
	var out []string
	for _, e := range ev {
		if e != "timeout" {
			out = append(out, e)
		}
	}
	return out
}

func TestDecoderAllSamples(t *testing.T) {
	var msgs []wire.Message
	var want []string
	for i, s := range samples() {
		msgs = append(msgs, s.msg)
		want = append(want, fmt.Sprintf("%v/%d", s.msg.Type(), uint16(65530+i)))
	}
	in := stream(65530, msgs...)
	for _, r := range readersWithTimeout(in) {
		t.Run(r.name, func(t *testing.T) {
			d := wire.NewDecoder(r.r)
			var got []string
			for i := 0; ; {
				f, err := d.Next()
				if errors.Is(err, iotest.ErrTimeout) {
					got = append(got, "timeout")
					continue
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if !equalMsg(f.Msg, msgs[i]) {
					t.Fatalf("frame %d: got %v, want %v", i, formatFields(f.Msg), formatFields(msgs[i]))
				}
				got = append(got, fmt.Sprintf("%v/%d", f.Type(), f.Seq))
				i++
			}
			if strings.HasPrefix(r.name, "timeout") {
				if !strings.Contains(strings.Join(got, " "), "timeout") {
					t.Errorf("timeout not reported: %v", got)
				}
				got = dropTimeouts(got)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("got %v\nwant %v", got, want)
			}
			if d.Offset() != int64(len(in)) {
				t.Errorf("Offset %d at EOF, want %d", d.Offset(), len(in))
			}
			if _, err := d.Next(); err != io.EOF {
				t.Errorf("after EOF: %v, want io.EOF again", err)
			}
		})
	}
}

func TestDecoderResync(t *testing.T) {
	roll := func(seq uint16) []byte { return stream(seq, &wire.Roll{Time: 99, Die: wire.DieD6, Value: 4}) }
	change := func(seq uint16) []byte {
		return stream(seq, &wire.CellChange{Time: 1234, Changes: []wire.Change{{Cell: 400, Code: 255}}})
	}
	corrupt := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 0x40; return b }
	drop := func(b []byte, i int) []byte { return append(bytes.Clone(b[:i]), b[i+1:]...) }
	n := len(roll(0))
	m := len(change(0))
	long := bytes.Repeat([]byte{0x7A}, wire.MaxEncodedLen+1)
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"clean", cat(roll(1), change(2)), "Roll/1 CellChange/2"},
		{"idle delimiters", cat([]byte{0, 0, 0}, roll(1), []byte{0, 0}, change(2), []byte{0}), "Roll/1 CellChange/2"},
		{"garbage before", cat([]byte{0x13, 0x37, 0xFF}, []byte{0}, roll(1)),
			"ErrCOBS@0 Roll/1"},
		{"garbage without delimiter merges", cat([]byte{0x13, 0x37}, roll(1), change(2)),
			"ErrCOBS@0 CellChange/2"},
		{"garbage between", cat(roll(1), []byte{0xFF, 0xFE, 0xFD, 0}, change(2)),
			fmt.Sprintf("Roll/1 ErrCOBS@%d CellChange/2", n)},
		{"corrupted byte", cat(roll(1), corrupt(change(2), 5), roll(3)),
			fmt.Sprintf("Roll/1 ErrCRC@%d Roll/3", n)},
		{"corrupted CRC byte", cat(roll(1), corrupt(change(2), m-3), roll(3)),
			fmt.Sprintf("Roll/1 ErrCRC@%d Roll/3", n)},
		{"lost data byte", cat(roll(1), drop(change(2), 5), roll(3)),
			fmt.Sprintf("Roll/1 ErrCRC@%d Roll/3", n)},
		{"lost code byte", cat(roll(1), drop(change(2), 0), roll(3)),
			fmt.Sprintf("Roll/1 ErrCOBS@%d Roll/3", n)},
		{"lost delimiter", cat(roll(1), drop(change(2), m-1), roll(3), roll(4)),
			fmt.Sprintf("Roll/1 ErrCRC@%d Roll/4", n)}, // two frames merged: valid COBS, bad CRC
		{"truncated final frame", cat(roll(1), change(2)[:m-4]),
			fmt.Sprintf("Roll/1 UnexpectedEOF@%d", n)},
		{"final frame without delimiter", cat(roll(1), change(2)[:m-1]),
			fmt.Sprintf("Roll/1 UnexpectedEOF@%d", n)},
		{"too long", cat(roll(1), long, []byte{1, 2, 3, 0}, roll(2)),
			fmt.Sprintf("Roll/1 ErrTooLong@%d Roll/2", n)},
		{"too long at EOF", cat(roll(1), long, long),
			fmt.Sprintf("Roll/1 ErrTooLong@%d", n)},
		{"too long twice", cat(long, []byte{0}, long, []byte{0}, roll(5)),
			fmt.Sprintf("ErrTooLong@0 ErrTooLong@%d Roll/5", len(long)+1)},
		{"too short", cat([]byte{0x02, 0x20, 0}, roll(7)), "ErrTooShort@0 Roll/7"},
		{"sequence wrap", cat(roll(65534), roll(65535), roll(0), roll(1)), "Roll/65534 Roll/65535 Roll/0 Roll/1"},
	}
	for _, tt := range tests {
		for _, r := range readersWithTimeout(tt.in) {
			t.Run(tt.name+"/"+r.name, func(t *testing.T) {
				d := wire.NewDecoder(r.r)
				got := strings.Join(dropTimeouts(events(t, d)), " ")
				if got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
			})
		}
	}
}

// noZeroBody returns a body of n bytes of type typ without any 0x00, CRC
// included, so that its encoding is exactly MaxCOBSLen(n) long.
func noZeroBody(typ wire.Type, n int) []byte {
	for salt := byte(1); ; salt++ {
		b := bytes.Repeat([]byte{salt}, n-2)
		b[0] = byte(typ)
		b = binaryAppendCRC(b)
		if bytes.IndexByte(b, 0) < 0 {
			return b
		}
	}
}

func TestDecoderMaxSize(t *testing.T) {
	maxBody := noZeroBody(0x7F, wire.MaxBodyLen)
	maxFrame := append(wire.AppendCOBS(nil, maxBody), 0)
	if len(maxFrame) != wire.MaxFrameLen {
		t.Fatalf("max frame is %d bytes, want MaxFrameLen %d", len(maxFrame), wire.MaxFrameLen)
	}
	overBody := noZeroBody(0x7F, wire.MaxBodyLen+1)
	overFrame := append(wire.AppendCOBS(nil, overBody), 0)

	colors := make([]wire.Color, wire.MaxLEDFrameColors)
	for i := range colors {
		colors[i] = wire.Color{R: 1 + uint8(i%255), G: 2, B: 3}
	}
	bigLED := stream(3, &wire.LEDFrame{Start: 7, Colors: colors})
	bigSnap := stream(4, &wire.Snapshot{Cells: bytes.Repeat([]byte{42}, wire.MaxCells)})
	in := cat(maxFrame, bigLED, overFrame, bigSnap, maxFrame)
	want := fmt.Sprintf("ErrUnknownType@0 LEDFrame/3 ErrTooLong@%d Snapshot/4 ErrUnknownType@%d",
		len(maxFrame)+len(bigLED), len(in)-len(maxFrame))
	for _, r := range readersWithTimeout(in) {
		t.Run(r.name, func(t *testing.T) {
			got := strings.Join(dropTimeouts(events(t, wire.NewDecoder(r.r))), " ")
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// emptyReader returns (0, nil) forever, like go.bug.st/serial on timeout.
type emptyReader struct{ calls int }

func (r *emptyReader) Read([]byte) (int, error) { r.calls++; return 0, nil }

func TestDecoderNoProgress(t *testing.T) {
	er := &emptyReader{}
	d := wire.NewDecoder(io.MultiReader(bytes.NewReader(stream(1, &wire.Heartbeat{})[:4]), er))
	_, err := d.Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("got %v, want io.ErrNoProgress", err)
	}
	if er.calls != 100 {
		t.Errorf("%d empty reads before giving up, want 100", er.calls)
	}
	if d.Buffered() != 4 {
		t.Errorf("Buffered %d, want 4: a timeout must not drop the partial frame", d.Buffered())
	}
	// Not sticky: it tries again.
	if _, err := d.Next(); !errors.Is(err, io.ErrNoProgress) || er.calls != 200 {
		t.Errorf("second call: %v after %d reads", err, er.calls)
	}
}

// stutterReader fails with errFlaky every other read and returns data in
// between: a port wrapper that reports each read timeout.
type stutterReader struct {
	r    io.Reader
	fail bool
}

var errFlaky = errors.New("flaky read")

func (s *stutterReader) Read(p []byte) (int, error) {
	s.fail = !s.fail
	if s.fail {
		return 0, errFlaky
	}
	return s.r.Read(p[:min(len(p), 3)])
}

func TestDecoderReadErrorsNotSticky(t *testing.T) {
	in := stream(10, &wire.Roll{Time: 1, Die: wire.DieNSEW, Value: 2}, &wire.Button{Time: 2, Button: wire.ButtonNew})
	d := wire.NewDecoder(&stutterReader{r: bytes.NewReader(in)})
	var got []string
	for {
		f, err := d.Next()
		if errors.Is(err, errFlaky) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%v/%d", f.Type(), f.Seq))
	}
	if want := "Roll/10 Button/11"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

func TestDecoderReset(t *testing.T) {
	d := wire.NewDecoder(bytes.NewReader(stream(1, &wire.Heartbeat{})[:5]))
	if _, err := d.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	d.Reset(bytes.NewReader(stream(2, &wire.Heartbeat{Time: 5})))
	f, err := d.Next()
	if err != nil || f.Seq != 2 || f.Msg.(*wire.Heartbeat).Time != 5 {
		t.Fatalf("after Reset: %v %v", f, err)
	}
}

// loopReader replays b forever, in chunks of at most n bytes.
type loopReader struct {
	b []byte
	i int
	n int
}

func (l *loopReader) Read(p []byte) (int, error) {
	k := copy(p[:min(len(p), l.n)], l.b[l.i:])
	l.i = (l.i + k) % len(l.b)
	return k, nil
}

func TestDecoderAllocs(t *testing.T) {
	for _, s := range samples() {
		in := stream(1, s.msg)
		for _, chunk := range []int{1, 64, 4096} {
			d := wire.NewDecoder(&loopReader{b: in, n: chunk})
			if _, err := d.Next(); err != nil { // warm up: sizes the slices
				t.Fatal(err)
			}
			n := testing.AllocsPerRun(50, func() {
				if _, err := d.Next(); err != nil {
					t.Fatal(err)
				}
			})
			if n != 0 {
				t.Errorf("%s, %d-byte reads: Next allocates %v times per frame", s.name, chunk, n)
			}
		}
	}
}
