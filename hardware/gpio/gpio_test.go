package gpio

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi/spitest"
	"periph.io/x/devices/v3/apa102"
	"periph.io/x/devices/v3/nrzled"

	"github.com/tabla-board/tabla/hardware"
)

// column is a matrix column: it reads low when an active (low) row has a
// piece in this column.
type column struct {
	*gpiotest.Pin
	c      int
	rows   []*gpiotest.Pin
	pieces *[3][4]bool
}

func (p *column) Read() gpio.Level {
	for r, row := range p.rows {
		if row.Read() == gpio.Low && p.pieces[r][p.c] {
			return gpio.Low
		}
	}
	return gpio.High
}

func TestMatrix(t *testing.T) {
	var pieces [3][4]bool
	pieces[0][0], pieces[1][3], pieces[2][1], pieces[2][2] = true, true, true, true
	var rows []*gpiotest.Pin
	var outs []gpio.PinOut
	for i := range 3 {
		p := &gpiotest.Pin{N: "ROW", Num: i}
		rows, outs = append(rows, p), append(outs, p)
	}
	var ins []gpio.PinIn
	var cols []*column
	for c := range 4 {
		p := &column{Pin: &gpiotest.Pin{N: "COL", Num: c}, c: c, rows: rows, pieces: &pieces}
		cols, ins = append(cols, p), append(ins, p)
	}
	m, err := NewMatrix(outs, ins, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		if c.Pull() != gpio.PullUp {
			t.Errorf("column %d pull %v, want up", c.c, c.Pull())
		}
	}
	got := make([]bool, m.Sensors())
	if err := m.Scan(got); err != nil {
		t.Fatal(err)
	}
	for r := range 3 {
		for c := range 4 {
			if got[r*4+c] != pieces[r][c] {
				t.Errorf("sensor %d (row %d col %d): got %v", r*4+c, r, c, got[r*4+c])
			}
		}
		if rows[r].Read() != gpio.High {
			t.Errorf("row %d left active", r)
		}
	}
}

// latchPin counts latch pulses.
type latchPin struct {
	gpiotest.Pin
	mu     sync.Mutex
	pulses int
}

func (p *latchPin) Out(l gpio.Level) error {
	p.mu.Lock()
	if l == gpio.Low {
		p.pulses++
	}
	p.mu.Unlock()
	return p.Pin.Out(l)
}

func TestShiftChainPlayback(t *testing.T) {
	play := &spitest.Playback{Playback: conntest.Playback{Ops: []conntest.IO{
		// Chip 0 input A and chip 1 inputs H and C pulled low (pieces).
		{W: nil, R: []byte{0xFE, 0x7B}},
		{W: nil, R: []byte{0xFF, 0xFF}},
	}}}
	conn, err := play.Connect(physic.MegaHertz, 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	latch := &latchPin{Pin: gpiotest.Pin{N: "LATCH"}}
	s, err := NewShiftChain(conn, latch, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]bool, s.Sensors())
	if err := s.Scan(got); err != nil {
		t.Fatal(err)
	}
	var on []int
	for i, v := range got {
		if v {
			on = append(on, i)
		}
	}
	if want := []int{0, 10, 15}; !slices.Equal(on, want) {
		t.Errorf("sensors %v, want %v", on, want)
	}
	if err := s.Scan(got); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, true) {
		t.Errorf("second scan: %v", got)
	}
	if latch.pulses != 2 || latch.Read() != gpio.High {
		t.Errorf("%d latch pulses, latch %v", latch.pulses, latch.Read())
	}
	if err := play.Close(); err != nil {
		t.Error(err)
	}
}

// nrz encodes RGB bytes the way a WS2812 strip on SPI at 2.5 MHz wants
// them: GRB order, each bit as 4 SPI bits (1110 for one, 1000 for zero),
// with 3 bytes of latch silence before and after.
func nrz(rgb []byte) []byte {
	out := make([]byte, 3, 6+4*len(rgb))
	bit := func(b byte) {
		var w uint32
		for i := 7; i >= 0; i-- {
			w <<= 4
			if b&(1<<i) != 0 {
				w |= 0xE
			} else {
				w |= 0x8
			}
		}
		out = append(out, byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
	}
	for i := 0; i < len(rgb); i += 3 {
		bit(rgb[i+1])
		bit(rgb[i])
		bit(rgb[i+2])
	}
	return append(out, 0, 0, 0)
}

// scripted is a scanner whose readings the test sets; every Scan reports
// on scanned.
type scripted struct {
	mu      sync.Mutex
	present []bool
	scanned chan struct{}
}

func (s *scripted) Sensors() int { return len(s.present) }
func (s *scripted) Scan(p []bool) error {
	s.mu.Lock()
	copy(p, s.present)
	s.mu.Unlock()
	s.scanned <- struct{}{}
	return nil
}
func (s *scripted) set(i int, v bool) { s.mu.Lock(); s.present[i] = v; s.mu.Unlock() }

type rig struct {
	t     *testing.T
	clock *clockwork.FakeClock
	sc    *scripted
	b     *Board
}

func (r *rig) scans(n int) {
	r.t.Helper()
	for range n {
		r.clock.BlockUntilContext(context.Background(), 2)
		r.clock.Advance(10 * time.Millisecond)
		<-r.sc.scanned
	}
}

func (r *rig) drain() []hardware.Event {
	var out []hardware.Event
	for {
		select {
		case ev := <-r.b.Events():
			out = append(out, ev)
		case <-time.After(20 * time.Millisecond):
			return out
		}
	}
}

func TestBoardDebounceAndWS2812(t *testing.T) {
	// Each frame the board writes, as the SPI bytes nrzled must send.
	red := []byte{255, 0, 0, 0, 0, 0, 0, 0, 0}
	frames := [][]byte{
		red,                           // SetLEDs, steady red on LED 0
		{255, 0, 0, 0, 0, 0, 0, 0, 9}, // LED 2 blinking fast, on half
		red,                           // … off half
		{0, 0, 0, 0, 0, 0, 0, 0, 0},   // Close darkens the strip
	}
	var ops []conntest.IO
	for _, f := range frames {
		ops = append(ops, conntest.IO{W: nrz(f)})
	}
	play := &spitest.Playback{Playback: conntest.Playback{Ops: ops, DontPanic: true}}
	strip, err := nrzled.NewSPI(play, &nrzled.Opts{NumPixels: 3, Channels: 3, Freq: 2500 * physic.KiloHertz})
	if err != nil {
		t.Fatal(err)
	}
	clock := clockwork.NewFakeClock()
	sc := &scripted{present: make([]bool, 6), scanned: make(chan struct{}, 64)}
	sc.present[4] = true
	b, err := New(Parts{Sensors: sc, LEDs: strip, NumLEDs: 3, Clock: clock, ScanInterval: 10 * time.Millisecond,
		BlinkInterval: 200 * time.Millisecond, Debounce: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, clock: clock, sc: sc, b: b}
	r.scans(3)
	evs := r.drain()
	if len(evs) != 2 || evs[0].Kind != hardware.Snapshot || evs[0].Codes[4] != hardware.Occupied || evs[1].Conn != hardware.Connected {
		t.Fatalf("start: %v", evs)
	}
	// A bounce shorter than the debounce is not a change.
	sc.set(1, true)
	r.scans(2)
	sc.set(1, false)
	r.scans(3)
	if evs := r.drain(); len(evs) != 0 {
		t.Fatalf("bounce got through: %v", evs)
	}
	sc.set(1, true)
	sc.set(4, false)
	r.scans(3)
	evs = r.drain()
	if len(evs) != 2 || evs[0].Sensor != 1 || evs[0].Code != hardware.Occupied || evs[1].Sensor != 4 || evs[1].Code != 0 {
		t.Fatalf("changes: %v", evs)
	}
	// LEDs at board time 110 ms.
	b.SetLEDs([]hardware.LED{{R: 255}})
	waitWrites(t, play, 1)
	b.SetLEDs([]hardware.LED{{R: 255}, {}, {B: 9, Blink: hardware.Fast}})
	waitWrites(t, play, 2)
	// At 210 ms the blink ticker (every 200 ms) redraws: a fast blink
	// (250 ms period) is in its off half.
	clock.BlockUntilContext(context.Background(), 2)
	clock.Advance(100 * time.Millisecond)
	waitWrites(t, play, 3)
	b.Close()
	if err := play.Close(); err != nil {
		t.Error(err)
	}
	if err := b.SetLEDs(make([]hardware.LED, 4)); err == nil {
		t.Error("frame longer than the strip accepted")
	}
}

func waitWrites(t *testing.T, p *spitest.Playback, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		p.Lock()
		c := p.Count
		p.Unlock()
		if c >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d SPI writes, want %d", c, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAPA102Playback(t *testing.T) {
	// Dark strip of 2: start frame, two 0xFF-led black pixels, end frame.
	dark := []byte{0, 0, 0, 0, 0xFF, 0, 0, 0, 0xFF, 0, 0, 0, 0xFF}
	play := &spitest.Playback{Playback: conntest.Playback{Ops: []conntest.IO{{W: dark}}}}
	d, err := apa102.New(play, &apa102.Opts{NumPixels: 2, Intensity: 255, Temperature: apa102.NeutralTemp, DisableGlobalPWM: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Write(make([]byte, 6)); err != nil {
		t.Fatal(err)
	}
	if err := play.Close(); err != nil {
		t.Error(err)
	}
}

func TestParseConfig(t *testing.T) {
	good := `# tabla.conf
[daemon]
port = 8080
[gpio]
sensors = matrix
rows = GPIO5, GPIO6 GPIO13
cols = GPIO17,GPIO27
active = low
debounce = 4
leds = ws2812
led_spi = SPI0.0
led_count = 6
brightness = 64
`
	c, err := ParseConfig("tabla.conf", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sensors != "matrix" || !slices.Equal(c.Rows, []string{"GPIO5", "GPIO6", "GPIO13"}) || len(c.Cols) != 2 ||
		c.Debounce != 4 || c.ScanHz != 100 || c.LEDs != "ws2812" || c.LEDCount != 6 || c.Brightness != 64 {
		t.Errorf("config %+v", c)
	}
	for _, tc := range []struct{ text, want string }{
		{"[gpio]\nsensors = matrix\nrows = A\ncols = B\ncolour = red\n", `x:5: unknown key "colour"`},
		{"[gpio]\nsensors = matrix\nsensors = matrix\n", "sensors given twice"},
		{"[gpio]\nsensors\n", "want key = value"},
		{"[gpio]\nsensors = 74hc165\nlatch = GPIO25\nchips = many\n", "chips: want a whole number"},
		{"[gpio]\nsensors = dials\n", `sensors "dials"`},
		{"[gpio]\nsensors = matrix\nrows = A\ncols = B\nleds = ws2812\n", "need led_count"},
		{"[daemon]\nport = 1\n", "no [gpio] section"},
	} {
		_, err := ParseConfig("x", strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
	}
	var ce *ConfigError
	_, err = ParseConfig("x", strings.NewReader("[gpio]\nbad line\n"))
	if !errors.As(err, &ce) || ce.Line != 2 {
		t.Errorf("got %v", err)
	}
}
