package serial_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/serial"
	"github.com/tabla-board/tabla/sim"
)

// ptyRig is a virtual board served on a pty and the serial driver on it.
type ptyRig struct {
	t   *testing.T
	vb  *sim.Board
	pty *sim.PTY
	hw  *serial.Board

	mu     sync.Mutex
	events []hardware.Event
	state  []byte // the consumer's view: last snapshot + changes
	check  []string
	done   chan struct{}
}

// newPTYRig needs a pty: in CI (CI set) failing to make one fails the test.
func newPTYRig(t *testing.T, game string, kind sim.SensorKind) *ptyRig {
	t.Helper()
	vb, err := sim.New(sim.Options{Board: boards.Default(game), Sensors: kind, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p, err := sim.NewPTY(ctx, vb)
	if err != nil {
		cancel()
		vb.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("no pty in CI: %v", err)
		}
		t.Skipf("no pty here: %v", err)
	}
	hw, err := serial.Open(ctx, serial.Config{
		Dial:             serial.PortDialer(p.Path(), 0, nil),
		Heartbeat:        40 * time.Millisecond,
		MissedHeartbeats: 5,
		HelloInterval:    100 * time.Millisecond,
		HandshakeTimeout: 2 * time.Second,
		BackoffMin:       20 * time.Millisecond,
		BackoffMax:       100 * time.Millisecond,
	})
	if err != nil {
		cancel()
		vb.Close()
		t.Fatalf("Open: %v", err)
	}
	r := &ptyRig{t: t, vb: vb, pty: p, hw: hw, done: make(chan struct{})}
	go r.consume()
	t.Cleanup(func() {
		hw.Close()
		<-r.done
		cancel()
		p.Close()
		vb.Close()
	})
	return r
}

// consume plays the referee: it keeps the board state from snapshots and
// changes and checks after each event that it equals the virtual board's
// truth as of that frame.
func (r *ptyRig) consume() {
	defer close(r.done)
	var lastSeq int = -1
	for ev := range r.hw.Events() {
		r.mu.Lock()
		r.events = append(r.events, ev)
		switch ev.Kind {
		case hardware.Snapshot:
			r.state = slices.Clone(ev.Codes)
			lastSeq = int(ev.Seq)
			r.verify(ev)
		case hardware.Change:
			if r.state == nil {
				r.check = append(r.check, "change before any snapshot: "+ev.String())
				break
			}
			if int(ev.Seq) <= lastSeq {
				r.check = append(r.check, "change out of order: "+ev.String())
			}
			lastSeq = int(ev.Seq)
			if r.state[ev.Sensor] == ev.Code {
				r.check = append(r.check, "change that changes nothing: "+ev.String())
			}
			r.state[ev.Sensor] = ev.Code
			r.verify(ev)
		case hardware.Status:
			if ev.Conn == hardware.Connected {
				lastSeq = int(ev.Seq) - 1
			}
		}
		r.mu.Unlock()
	}
}

// verify: the consumer's state after ev equals the truth as of ev's frame.
// Changes of one frame are checked after each; the sim sends one per frame.
func (r *ptyRig) verify(ev hardware.Event) {
	want, ok := r.pty.StateAt(ev.Seq)
	if !ok {
		r.check = append(r.check, "event with a sequence number the board never sent: "+ev.String())
		return
	}
	if !slices.Equal(r.state, want) {
		r.check = append(r.check, "after "+ev.String()+": consumer state differs from the board's (lost or invented change)")
	}
}

// settle waits until the consumer's state equals the truth and the board
// is connected, then checks every event seen.
func (r *ptyRig) settle() {
	r.t.Helper()
	if err := r.vb.Flush(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		truth := r.vb.Truth()
		r.mu.Lock()
		same := slices.Equal(r.state, truth)
		problems := slices.Clone(r.check)
		r.mu.Unlock()
		if len(problems) > 0 {
			r.t.Fatalf("consumer checks failed:\n%v", problems)
		}
		if same {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("consumer state never matched the truth:\n got  %v\n want %v\nstats %+v", r.state, truth, r.hw.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *ptyRig) do(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

func (r *ptyRig) eventsOf(kind hardware.EventKind) []hardware.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []hardware.Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func TestPTYHandshakeAndMoves(t *testing.T) {
	r := newPTYRig(t, "star", sim.Identifying)
	info := r.hw.Info()
	if want := len(r.vb.Def().Sensors); info.Sensors != want || !info.Identifying || info.LEDs != r.vb.Def().LEDCount {
		t.Fatalf("info %+v", info)
	}
	r.settle()
	start := r.vb.Def().Start[0].Cell
	r.do(r.vb.Lift(start))
	r.vb.Advance(sim.ActionTime)
	r.do(r.vb.Place("c3", ""))
	r.do(r.vb.Roll("4"))
	r.do(r.vb.Press(hardware.ButtonHint))
	r.settle()
	waitFor(t, func() bool { return len(r.eventsOf(hardware.Press)) == 1 && len(r.eventsOf(hardware.Roll)) == 1 })
	if got := r.eventsOf(hardware.Roll)[0].Face; got != "4" {
		t.Errorf("roll face %q", got)
	}
	if got := r.eventsOf(hardware.Press)[0].Button; got != hardware.ButtonHint {
		t.Errorf("button %v", got)
	}
	if n := len(r.eventsOf(hardware.Change)); n != 2 {
		t.Errorf("%d changes, want 2", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 2 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var _ = errors.New

func TestPTYLEDs(t *testing.T) {
	r := newPTYRig(t, "gyges", sim.Presence)
	r.settle()
	n := r.hw.Info().LEDs
	frame := make([]hardware.LED, n)
	frame[0] = hardware.LED{R: 255}
	frame[n-1] = hardware.LED{G: 255, Blink: hardware.Slow}
	for i := 5; i < 15; i++ {
		frame[i] = hardware.LED{B: 50}
	}
	r.do(r.hw.SetLEDs(frame))
	waitFor(t, func() bool { return slices.Equal(r.vb.LEDs(), frame) })
	frame[7] = hardware.Off
	r.do(r.hw.SetLEDs(frame))
	waitFor(t, func() bool { return slices.Equal(r.vb.LEDs(), frame) })
	// The board loses its LEDs in a pull; they come back on replug, with a
	// frame set while it was away.
	r.do(r.vb.Unplug())
	waitFor(t, func() bool { return hasStatus(r, hardware.Disconnected) })
	frame[8] = hardware.LED{R: 1, G: 2, B: 3}
	r.do(r.hw.SetLEDs(frame))
	r.do(r.vb.SetLEDs(nil)) // a reset board is dark
	r.do(r.vb.Replug())
	waitFor(t, func() bool { return slices.Equal(r.vb.LEDs(), frame) })
	if err := r.hw.SetLEDs(make([]hardware.LED, n+1)); err == nil {
		t.Error("a frame longer than the strip was accepted")
	}
}

// BenchmarkPTYRoundTrip measures a sensor change on the virtual board to
// the LED frame the host sends in answer, through a real pty.
func BenchmarkPTYRoundTrip(b *testing.B) {
	vb, err := sim.New(sim.Options{Board: boards.Default("gyges"), Empty: true})
	if err != nil {
		b.Fatal(err)
	}
	defer vb.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := sim.NewPTY(ctx, vb)
	if err != nil {
		if os.Getenv("CI") != "" {
			b.Fatal(err)
		}
		b.Skip(err)
	}
	defer p.Close()
	hw, err := serial.Open(ctx, serial.Config{Dial: serial.PortDialer(p.Path(), 0, nil), HelloInterval: 50 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer hw.Close()
	lit := make(chan bool, 1)
	vb.OnLEDs(func(f []hardware.LED) {
		select {
		case lit <- f[0].Lit():
		default:
		}
	})
	frame := make([]hardware.LED, hw.Info().LEDs)
	go func() {
		for ev := range hw.Events() {
			if ev.Kind == hardware.Change {
				frame[0] = hardware.Off
				if ev.Code != 0 {
					frame[0] = hardware.LED{G: 255}
				}
				hw.SetLEDs(frame)
			}
		}
	}()
	for len(lit) > 0 {
		<-lit
	}
	on := false
	for b.Loop() {
		on = !on
		if on {
			vb.Place("c3", "1")
		} else {
			vb.Lift("c3")
		}
		for got := range lit {
			if got == on {
				break
			}
		}
	}
}
