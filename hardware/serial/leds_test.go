package serial

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/wiremap"
)

// apply decodes frames and applies them to a board showing leds, counting
// the LEDs the frames carried.
func apply(t *testing.T, leds []hardware.LED, frames []byte) (carried int) {
	t.Helper()
	d := wire.NewDecoder(bytes.NewReader(frames))
	for {
		f, err := d.Next()
		if errors.Is(err, io.EOF) {
			return carried
		}
		if err != nil {
			t.Fatal(err)
		}
		if wire.BodyLen(f.Msg) > 64 {
			t.Fatalf("%v body of %d bytes, board takes 64", f.Type(), wire.BodyLen(f.Msg))
		}
		switch m := f.Msg.(type) {
		case *wire.LEDFrame:
			for i, c := range m.Colors {
				leds[int(m.Start)+i] = hardware.LED{R: c.R, G: c.G, B: c.B}
				carried++
			}
		case *wire.LEDSet:
			for _, r := range m.Ranges {
				for i := range int(r.Count) {
					leds[int(r.Start)+i] = hardware.LED{R: m.Color.R, G: m.Color.G, B: m.Color.B, Blink: wiremap.Blink(m.Blink)}
					carried++
				}
			}
		default:
			t.Fatalf("unexpected %v", f.Type())
		}
	}
}

func TestLEDEncoderPartialFrames(t *testing.T) {
	red, green := hardware.LED{R: 255}, hardware.LED{G: 200}
	blink := hardware.LED{B: 100, Blink: hardware.Fast}
	base := make([]hardware.LED, 60)
	tests := []struct {
		name       string
		sent, want func() []hardware.LED
		maxCarried int
	}{
		{"nothing changed", func() []hardware.LED { return slices.Clone(base) }, func() []hardware.LED { return slices.Clone(base) }, 0},
		{"one LED", func() []hardware.LED { return slices.Clone(base) }, func() []hardware.LED {
			w := slices.Clone(base)
			w[17] = red
			return w
		}, 1},
		{"two close LEDs merge", func() []hardware.LED { return slices.Clone(base) }, func() []hardware.LED {
			w := slices.Clone(base)
			w[10], w[13] = red, green
			return w
		}, 4},
		{"two far LEDs", func() []hardware.LED { return slices.Clone(base) }, func() []hardware.LED {
			w := slices.Clone(base)
			w[1], w[50] = red, green
			return w
		}, 2},
		{"blinking group", func() []hardware.LED { return slices.Clone(base) }, func() []hardware.LED {
			w := slices.Clone(base)
			w[3], w[4], w[5], w[40] = blink, blink, blink, blink
			w[20] = hardware.LED{R: 1, Blink: hardware.Slow}
			return w
		}, 5},
		{"unknown board: everything, split to MaxRX", func() []hardware.LED { return nil }, func() []hardware.LED {
			w := slices.Clone(base)
			w[0], w[59] = red, blink
			return w
		}, 60},
		{"blink to steady", func() []hardware.LED {
			s := slices.Clone(base)
			s[7] = blink
			return s
		}, func() []hardware.LED {
			w := slices.Clone(base)
			w[7] = hardware.LED{B: 100}
			return w
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e ledEncoder
			var seq uint16
			sent, want := tc.sent(), tc.want()
			out, frames, err := e.appendUpdate(nil, &seq, sent, want, 64)
			if err != nil {
				t.Fatal(err)
			}
			if int(seq) != frames {
				t.Errorf("seq %d after %d frames", seq, frames)
			}
			board := slices.Clone(sent)
			if board == nil {
				board = make([]hardware.LED, len(want))
				for i := range board {
					board[i] = hardware.LED{R: 7, G: 7, B: 7, Blink: hardware.Slow} // unknown
				}
			}
			carried := apply(t, board, out)
			if !slices.Equal(board, want) {
				t.Errorf("board shows\n%v\nwant\n%v", board, want)
			}
			if carried > tc.maxCarried {
				t.Errorf("frames carried %d LEDs, want at most %d", carried, tc.maxCarried)
			}
		})
	}
}

func TestLEDEncoderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	colours := []hardware.LED{{}, {R: 255}, {G: 255}, {R: 1, Blink: hardware.Slow}, {B: 9, Blink: hardware.Fast}}
	var e ledEncoder
	var seq uint16
	board := make([]hardware.LED, 200)
	sent := slices.Clone(board)
	for range 300 {
		want := slices.Clone(sent)
		for range r.IntN(12) {
			want[r.IntN(len(want))] = colours[r.IntN(len(colours))]
		}
		out, _, err := e.appendUpdate(nil, &seq, sent, want, 64)
		if err != nil {
			t.Fatal(err)
		}
		apply(t, board, out)
		if !slices.Equal(board, want) {
			t.Fatal("board and wanted frame differ")
		}
		sent = want
	}
}

func TestLEDEncoderAllocs(t *testing.T) {
	var e ledEncoder
	var seq uint16
	sent := make([]hardware.LED, 841)
	want := slices.Clone(sent)
	want[100], want[420] = hardware.LED{R: 1}, hardware.LED{G: 1, Blink: hardware.Slow}
	buf := make([]byte, 0, 8192)
	e.appendUpdate(buf, &seq, sent, want, 4096)
	if n := testing.AllocsPerRun(100, func() { e.appendUpdate(buf[:0], &seq, sent, want, 4096) }); n != 0 {
		t.Errorf("%v allocations per LED update, want 0", n)
	}
}

func BenchmarkLEDEncode(b *testing.B) {
	sent := make([]hardware.LED, 841) // RAY 29×29
	changed := slices.Clone(sent)
	for _, i := range []int{12, 13, 14, 200, 201, 530, 531, 532, 533, 800} {
		changed[i] = hardware.LED{G: 200}
	}
	changed[420] = hardware.LED{R: 255, Blink: hardware.Slow}
	buf := make([]byte, 0, 16384)
	var seq uint16
	b.Run("partial-11-of-841", func(b *testing.B) {
		var e ledEncoder
		b.ReportAllocs()
		for b.Loop() {
			buf, _, _ = e.appendUpdate(buf[:0], &seq, sent, changed, 4096)
		}
		b.ReportMetric(float64(len(buf)), "wire-bytes")
	})
	b.Run("full-841", func(b *testing.B) {
		var e ledEncoder
		b.ReportAllocs()
		for b.Loop() {
			buf, _, _ = e.appendUpdate(buf[:0], &seq, nil, changed, 4096)
		}
		b.ReportMetric(float64(len(buf)), "wire-bytes")
	})
}
