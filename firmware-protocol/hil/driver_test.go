package hil_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/firmware-protocol/fwboard"
	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/serial"
	"github.com/tabla-board/tabla/hardware/wiremap"
)

const (
	// brightness is the Config brightness the driver test asks for: the
	// pin must show every colour scaled by (brightness+1)/256.
	brightness = 100
	// quiet is how long the driver test leaves the line quiet: the
	// protocol's 3 heartbeat intervals, and a little more.
	quiet = 3200 * time.Millisecond
)

// TestHILDriver runs the firmware of every builtin board, on the Mega and
// (for the four that fit) on the Uno, in simavr, and the RP2040 build of
// DAHA and RAY in rp2040js, under the serial driver itself rather than the
// daemon, and checks what a game may not reach:
//
//   - every command (Config, LEDFrame, LEDSet) the MCU receives is
//     acknowledged once, and the driver matches every Ack (no stray Acks,
//     no disconnection);
//   - Config brightness scales the colours on the LED pin;
//   - a blinking LED blinks on the pin at its period;
//   - after 3 s of quiet line the board has sent a heartbeat every
//     heartbeatms and the driver is still connected;
//   - cell changes on the last cell, and on RAY on cells 256 and above,
//     arrive with their full index while connected;
//   - on the AVR builds, a change is reported after exactly `debounce`
//     scans (3) that read it, counted at the sensor chain's latch;
//   - what a bad line does to the host's frames: a command whose payload
//     was damaged under its CRC, one cut short, garbage before one; the
//     MCU answers each bad frame with Error bad-frame and applies nothing
//     of it, the driver sends the command again, and the pin shows the
//     colours sent.
func TestHILDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("the hardware-in-the-loop driver test runs for about 20 s")
	}
	t.Parallel() // beside TestHIL, in the same places
	e := setup(t)
	builds := []struct{ mcu, board string }{
		{"atmega2560", "daha"}, {"atmega2560", "gyges"}, {"atmega2560", "star"},
		{"atmega2560", "six"}, {"atmega2560", "ray"},
		{"atmega328p", "daha"}, {"atmega328p", "gyges"}, {"atmega328p", "star"}, {"atmega328p", "six"},
		// The RP2040 build (rp2040js) on the smallest board and on RAY (cells
		// past 255, the longest strip), on USB; RAY's on UART0 too. The
		// games play both on the others.
		{"rp2040", "daha"}, {"rp2040", "ray"}, {"rp2040-uart", "ray"},
		// The Arduino sketch (../arduino/tabla) built by arduino-builder,
		// as the Arduino IDE builds it, for both boards.
		{"arduino-mega", "daha"}, {"arduino-uno", "daha"},
	}
	for _, g := range slices.Sorted(func(yield func(string) bool) {
		for g := range boards.Games {
			if !yield(g) {
				return
			}
		}
	}) {
		if !slices.ContainsFunc(builds, func(b struct{ mcu, board string }) bool { return b.board == g }) {
			t.Errorf("no driver test of %s's firmware", g)
		}
	}
	// The runs share the package's places with TestHIL's games (lanes).
	for _, b := range builds {
		t.Run(b.mcu+"/"+b.board, func(t *testing.T) {
			t.Parallel()
			place(t, runWeight(b.mcu, b.board))
			driverRun(t, e, b.mcu, b.board)
		})
	}
}

func driverRun(t *testing.T, e *env, mcu, name string) {
	start := time.Now()
	def, err := boards.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := fwboard.New(def, fwboard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "ttyTABLA")
	h := startHarnessOn(t, e, mcu, lay, link)
	h.send("go")
	select {
	case <-h.ready:
	case <-h.done:
		t.Fatalf("harness ended: %q", h.problems())
	case <-time.After(10 * time.Second):
		t.Fatal("harness not ready")
	}
	defer func() {
		if p := h.problems(); len(p) > 0 {
			t.Errorf("the simulated board reports: %q", p)
		}
		h.checkUSB(mcu, name)
	}()

	cfg := wire.DefaultConfig
	cfg.Brightness = brightness
	cfg.HeartbeatMs = 1000
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The heartbeats are checked in MCU time below; the driver's own
	// watchdog (wall time) is given 10 intervals, so that a harness that
	// falls a second or two behind the wall clock on a loaded machine does
	// not count as a lost board.
	line := &faultyLine{}
	sc := serial.Config{Dial: line.dialer(serial.PortDialer(link, 115200, nil)), Board: &cfg,
		Heartbeat: time.Second, MissedHeartbeats: 10}
	if isRP2040(mcu) {
		// rp2040js needs a third of a core or more to emulate a second of
		// the firmware (BENCHMARKS.md): on a loaded machine it can fall
		// behind the wall clock, and the driver's reply timeout (wall
		// time, 200 ms by default) would expire. The replies are checked
		// in MCU time (unanswered) all the same.
		sc.ReplyTimeout = 2 * time.Second
	}
	board, err := serial.Open(ctx, sc)
	if err != nil {
		t.Fatalf("serial.Open: %v", err)
	}
	ev := watch(board)
	defer func() {
		board.Close()
		ev.wait()
		if d := ev.disconnects(); len(d) > 0 {
			t.Errorf("the driver lost the board: %v", d)
		}
		st := board.Stats()
		if st.StrayAcks != 0 {
			t.Errorf("%d stray Acks: %+v", st.StrayAcks, st)
		}
		missing, stray, _, _ := unanswered(h.lineLog(), 300)
		if len(missing) > 0 || len(stray) > 0 {
			t.Errorf("commands the MCU received and never answered: %q; Acks of nothing: %q", missing, stray)
		}
		t.Logf("%s on %s: %d commands answered, %d timeouts, %d retransmissions; %.1f s",
			name, mcu, st.Commands, st.Timeouts, st.Retransmits, time.Since(start).Seconds())
	}()
	if info := board.Info(); info.Sensors != lay.Cells || info.LEDs != lay.LEDs {
		t.Fatalf("Hello says %d cells, %d LEDs; the board file %d, %d", info.Sensors, info.LEDs, lay.Cells, lay.LEDs)
	}

	// Steady colours at the configured brightness.
	n := lay.LEDs
	frame := make([]hardware.LED, n)
	frame[0] = hardware.LED{R: 200, G: 100, B: 50}
	frame[n/2] = hardware.LED{R: 255, G: 255, B: 255}
	frame[n-1] = hardware.LED{R: 10, G: 20, B: 250}
	if err := board.SetLEDs(frame); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 3*n)
	for i, l := range frame {
		want[3*i], want[3*i+1], want[3*i+2] = scaled(l.R), scaled(l.G), scaled(l.B)
	}
	if err := waitPin(h, want, 5*time.Second); err != nil {
		t.Fatalf("steady LEDs at brightness %d: %v", brightness, err)
	}

	// A blinking LED, then a quiet line: heartbeats, and the blink on the pin.
	blinker := n / 3
	if blinker == 0 || blinker == n/2 {
		blinker = n - 2
	}
	frame[blinker] = hardware.LED{G: 180, Blink: hardware.Fast}
	if err := board.SetLEDs(frame); err != nil {
		t.Fatal(err)
	}
	on := slices.Clone(want)
	on[3*blinker+1] = scaled(180)
	if err := waitPin(h, on, 5*time.Second); err != nil {
		t.Fatalf("blinking LED never on: %v", err)
	}
	// The window is measured in MCU time (a harness that falls behind the
	// wall clock on a busy machine runs fewer MCU milliseconds): from the
	// last frame on the line to quiet later.
	lines := h.lineLog()
	if len(lines) == 0 {
		t.Fatal("no frame on the line")
	}
	from, to := lines[len(lines)-1].ms, lines[len(lines)-1].ms+quiet.Milliseconds()
	deadline := time.After(quiet + 15*time.Second)
	for lines[len(lines)-1].ms < to {
		if !h.next(deadline) {
			t.Fatalf("the MCU clock did not reach %d ms (last frame at %d ms)", to, lines[len(lines)-1].ms)
		}
		lines = h.lineLog()
	}
	window := slices.DeleteFunc(lines, func(f lineFrame) bool { return f.ms <= from || f.ms > to })
	pin := slices.DeleteFunc(h.pinLog(), func(f pinFrame) bool { return f.ms <= from || f.ms > to })
	checkQuiet(t, window, int64(cfg.HeartbeatMs))
	checkBlink(t, pin, blinker, on, int64(wiremap.BlinkUnits(hardware.Fast))*wire.BlinkUnitMs)
	if d := ev.disconnects(); len(d) > 0 {
		t.Fatalf("disconnected during %v of quiet: %v", quiet, d)
	}

	checkDebounce(t, h, ev, lay, mcu, int(cfg.Debounce))
	checkLineFaults(t, h, board, line, frame, want)

	// Cell changes with their full index, while connected.
	cells := []int{lay.Cells - 1}
	if lay.Cells > 256 {
		cells = []int{256, 300, 511, 512, lay.Cells - 1}
	}
	code := byte(hardware.Occupied)
	if lay.Identifying() {
		code = lay.Codes[0]
	}
	// Each change is awaited before the next: no spacing in MCU time to
	// keep, so the commands go untimed (a harness behind the wall clock,
	// as rp2040js can be on a loaded machine, would otherwise be given the
	// whole quiet window's wall time to catch up first).
	h.untimed()
	for _, c := range cells {
		for _, v := range []struct {
			raw  int
			code byte
		}{{1, code}, {0, hardware.Empty}} {
			h.send("set %d %d", c, v.raw)
			got, err := ev.change(5 * time.Second)
			if err != nil {
				t.Fatalf("cell %d to %d: %v", c, v.code, err)
			}
			if got.Sensor != c || got.Code != v.code {
				t.Fatalf("cell %d to %d: the driver got cell %d to %d", c, v.code, got.Sensor, got.Code)
			}
		}
	}
}

// scaled is the firmware's brightness scale (tabla_fw.c).
func scaled(c uint8) uint8 { return uint8(uint16(c) * (brightness + 1) >> 8) }

func waitPin(h *harness, want []byte, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		got := h.shown()
		if slices.Equal(got, want) {
			return nil
		}
		if !h.next(deadline) {
			for i := 0; i+2 < len(want) && i+2 < len(got); i += 3 {
				if !slices.Equal(got[i:i+3], want[i:i+3]) {
					return fmt.Errorf("LED %d shows #%x, want #%x (and maybe more)", i/3, got[i:i+3], want[i:i+3])
				}
			}
			return fmt.Errorf("%d LED bytes on the pin, want %d", len(got), len(want))
		}
	}
}

// checkQuiet: on a quiet line the board sends a heartbeat every interval
// (the MCU's main loop may be a scan and a strip refresh late; its Timer0
// milliseconds run 0.3 % fast of simavr's cycle count).
func checkQuiet(t *testing.T, log []lineFrame, interval int64) {
	t.Helper()
	var beats []int64
	for _, f := range log {
		if f.up && f.typ == typeHeartbeat {
			beats = append(beats, f.ms)
		}
		if !f.up {
			t.Errorf("the host sent type 0x%02x on a quiet line", f.typ)
		}
	}
	if len(beats) < 3 {
		t.Errorf("%d heartbeats in %v of quiet (MCU times %v), want 3 or more", len(beats), quiet, beats)
		return
	}
	for i := 1; i < len(beats); i++ {
		if d := beats[i] - beats[i-1]; d < interval*99/100 || d > interval+60 {
			t.Errorf("heartbeats %d ms apart (MCU times %v), want %d", d, beats, interval)
		}
	}
}

// checkBlink: the LED is on for half of each period, off for the other.
func checkBlink(t *testing.T, pin []pinFrame, led int, on []byte, period int64) {
	t.Helper()
	var edges []int64
	state := -1
	for _, f := range pin {
		if len(f.rgb) < 3*led+3 {
			continue
		}
		px := f.rgb[3*led : 3*led+3]
		s := -1
		switch {
		case slices.Equal(px, on[3*led:3*led+3]):
			s = 1
		case px[0] == 0 && px[1] == 0 && px[2] == 0:
			s = 0
		default:
			t.Errorf("blinking LED %d shows #%x at %d ms, neither on nor off", led, px, f.ms)
			return
		}
		if s != state {
			if state >= 0 {
				edges = append(edges, f.ms)
			}
			state = s
		}
	}
	want := int(quiet.Milliseconds()/(period/2)) - 3
	if len(edges) < want {
		t.Errorf("blinking LED changed %d times in %v, want %d or more (period %d ms)", len(edges), quiet, want, period)
		return
	}
	var halves []int64
	for i := 1; i < len(edges); i++ {
		halves = append(halves, edges[i]-edges[i-1])
	}
	sort.Slice(halves, func(i, j int) bool { return halves[i] < halves[j] })
	if med := halves[len(halves)/2]; med < period/2-15 || med > period/2+15 {
		t.Errorf("blink half-periods %v ms, median %d, want %d", halves, med, period/2)
	}
}

// events collects what the driver reports.
type events struct {
	changes chan hardware.Event
	mu      sync.Mutex
	lost    []error
	done    chan struct{}
}

func watch(b *serial.Board) *events {
	e := &events{changes: make(chan hardware.Event, 64), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		for ev := range b.Events() {
			switch {
			case ev.Kind == hardware.Change:
				e.changes <- ev
			case ev.Kind == hardware.Status && ev.Conn == hardware.Disconnected:
				e.mu.Lock()
				e.lost = append(e.lost, ev.Err)
				e.mu.Unlock()
			}
		}
	}()
	return e
}

func (e *events) wait() { <-e.done }

func (e *events) disconnects() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.lost)
}

func (e *events) change(timeout time.Duration) (hardware.Event, error) {
	select {
	case ev := <-e.changes:
		return ev, nil
	case <-time.After(timeout):
		return hardware.Event{}, fmt.Errorf("no cell change within %v", timeout)
	}
}

// checkDebounce sets a cell with the chain's latches reported and counts
// the scans that read the new value before the MCU's CellChange: exactly
// the Config debounce (PROTOCOL.md §6.11: a change counts when the sensor
// read the same new value for `debounce` consecutive scans). AVR builds
// only: hil_sim sees the latch pin; rp2040js's harness does not report it
// (the debounce code is the same C).
func checkDebounce(t *testing.T, h *harness, ev *events, lay *fwboard.Layout, mcu string, debounce int) {
	t.Helper()
	if isRP2040(mcu) {
		return
	}
	cell := 0
	code := byte(hardware.Occupied)
	if lay.Identifying() {
		code = lay.Codes[0]
	}
	h.untimed()
	h.scanLog(true)
	for _, v := range []struct {
		raw  int
		code byte
	}{{1, code}, {0, hardware.Empty}} {
		h.send("set %d %d", cell, v.raw)
		got, err := ev.change(5 * time.Second)
		if err != nil {
			t.Fatalf("debounce: cell %d to %d: %v", cell, v.code, err)
		}
		if got.Sensor != cell || got.Code != v.code {
			t.Fatalf("debounce: cell %d to %d: the driver got cell %d to %d", cell, v.code, got.Sensor, got.Code)
		}
	}
	// The CellChanges as hil_sim saw them leave the MCU (the driver may
	// have them before this test has read hil_sim's line).
	deadline := time.After(5 * time.Second)
	for changes := 0; changes < 2; {
		changes = 0
		h.mu.Lock()
		for _, e := range h.scans {
			if e.kind == "change" {
				changes++
			}
		}
		h.mu.Unlock()
		if changes < 2 && !h.next(deadline) {
			t.Fatalf("debounce: hil_sim reported %d CellChanges, want 2", changes)
		}
	}
	log := h.scanLog(false)
	// Each set, the scans after it, up to the CellChange.
	var counts []int
	var trace []string
	n := -1
	for _, e := range log {
		trace = append(trace, fmt.Sprintf("%s@%d", e.kind, e.ms))
		switch e.kind {
		case "set":
			n = 0
		case "scan":
			if n >= 0 {
				n++
			}
		case "change":
			if n >= 0 {
				counts = append(counts, n)
			}
			n = -1
		}
	}
	if len(counts) != 2 || counts[0] != debounce || counts[1] != debounce {
		if len(trace) > 40 {
			trace = trace[len(trace)-40:]
		}
		t.Fatalf("debounce %d: changes reported after %v scans that read them, want %d each (last events: %s)",
			debounce, counts, debounce, strings.Join(trace, " "))
	}
}

// faultyLine wraps the serial line the driver writes to and damages the
// next command frames it is told to, once each: the driver's resend goes
// out intact. A fault is "crc" (one payload bit flipped, the CRC left as
// it was: the frame decodes but fails its CRC), "truncated" (the frame
// cut in the middle, the delimiter sent) or "garbage" (line noise and a
// delimiter before the intact frame).
type faultyLine struct {
	mu      sync.Mutex
	faults  []string
	damaged []string // what was sent, for the failure message
}

func (f *faultyLine) dialer(d serial.Dialer) serial.Dialer {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		rw, err := d(ctx)
		if err != nil {
			return nil, err
		}
		return &faultyPort{ReadWriteCloser: rw, line: f}, nil
	}
}

func (f *faultyLine) arm(faults ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, faults...)
}

type faultyPort struct {
	io.ReadWriteCloser
	line *faultyLine
}

// Write takes one whole frame (the driver writes each frame at once).
func (p *faultyPort) Write(b []byte) (int, error) {
	f := p.line
	f.mu.Lock()
	fault := ""
	body, err := wire.AppendDecodedCOBS(nil, bytes.TrimSuffix(b, []byte{0}))
	if len(f.faults) > 0 && err == nil && len(body) > 5 &&
		slices.Contains([]wire.Type{wire.TypeConfig, wire.TypeLEDFrame, wire.TypeLEDSet}, wire.Type(body[0])) {
		fault, f.faults = f.faults[0], f.faults[1:]
		f.damaged = append(f.damaged, fmt.Sprintf("%s %v seq %d", fault, wire.Type(body[0]), uint16(body[1])|uint16(body[2])<<8))
	}
	f.mu.Unlock()
	var out []byte
	switch fault {
	case "":
		return p.ReadWriteCloser.Write(b)
	case "crc":
		body[len(body)-3] ^= 0x40 // the last payload byte (a colour), under the CRC
		out = append(wire.AppendCOBS(nil, body), 0)
	case "truncated":
		out = append(slices.Clone(b[:len(b)/2]), 0)
	case "garbage":
		out = append([]byte("\xff\x13AT+GMR\r\n\x7f\x05\x05\x05\x00\x11\x22\x33\x44\x55\x66\x00"), b...)
	}
	if _, err := p.ReadWriteCloser.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// checkLineFaults sends LED frames through damaged command frames: each
// bad frame must be answered by Error bad-frame (PROTOCOL.md §5.2 and
// §5.4) and applied in no part, the command sent again must be applied.
func checkLineFaults(t *testing.T, h *harness, board *serial.Board, line *faultyLine, frame []hardware.LED, want []byte) {
	t.Helper()
	n := len(frame)
	// Wait until every command so far is answered, so that the Errors
	// below answer the damaged frames.
	deadline := time.After(10 * time.Second)
	for {
		missing, _, _, _ := unanswered(h.lineLog(), 0)
		if len(missing) == 0 {
			break
		}
		if !h.next(deadline) {
			t.Fatalf("commands unanswered before the line faults: %q", missing)
		}
	}
	for i, fault := range [][]string{{"crc"}, {"truncated"}, {"garbage"}, {"crc", "truncated"}} {
		before := len(h.lineLog())
		line.arm(fault...)
		// A new colour on the first and the last LED each time.
		frame[0] = hardware.LED{R: uint8(40 + 30*i), G: 7, B: uint8(200 - 20*i)}
		frame[n-1] = hardware.LED{R: 3, G: uint8(90 + 25*i), B: 60}
		if err := board.SetLEDs(frame); err != nil {
			t.Fatal(err)
		}
		w := slices.Clone(want)
		for _, k := range []int{0, n - 1} {
			w[3*k], w[3*k+1], w[3*k+2] = scaled(frame[k].R), scaled(frame[k].G), scaled(frame[k].B)
		}
		if err := waitPin(h, w, 5*time.Second); err != nil {
			line.mu.Lock()
			t.Fatalf("line faults %v (damaged %q): %v", fault, line.damaged, err)
		}
		// Every bad frame answered with Error bad-frame, and nothing
		// acknowledged that the MCU did not receive intact.
		deadline := time.After(5 * time.Second)
		for {
			log := h.lineLog()[before:]
			bad, errs := 0, 0
			for _, f := range log {
				if f.bad && !f.up {
					bad++
				}
				if f.up && f.typ == typeError && f.isRef && f.refType == 0 {
					errs++
				}
			}
			if bad >= len(fault) && errs >= bad {
				break
			}
			if !h.next(deadline) {
				line.mu.Lock()
				t.Fatalf("line faults %v (damaged %q): %d bad frames reached the MCU, it answered %d with Error bad-frame",
					fault, line.damaged, bad, errs)
			}
		}
	}
	copy(want, h.shown())
}
