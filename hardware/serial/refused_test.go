package serial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

// TestOpenRefusedKeepsTrying: with Config.Expected, a board Accept refuses
// at Open does not fail Open — the Board comes back disconnected, saying
// why (a Status Disconnected and a Fault wrapping ErrWrongBoard, before
// anything else), Info is the expected board, no refused board's event
// reaches Events, and the right board plugged in later is used: its
// snapshot, Connected, its changes, the LED frame asked for while waiting.
func TestOpenRefusedKeepsTrying(t *testing.T) {
	accept := func(info hardware.Info) error {
		if info.Sensors != 16 {
			return fmt.Errorf("the board says %d sensors, the board file has 16", info.Sensors)
		}
		return nil
	}
	want := hardware.Info{Name: "pipe16", Sensors: 16, LEDs: 16}
	mcus := make(chan *fakeMCU, 4)
	cfg := Config{Heartbeat: 20 * time.Millisecond, MissedHeartbeats: 3, BackoffMin: time.Millisecond, BackoffMax: 20 * time.Millisecond,
		Accept: accept, Expected: &want}
	cfg.Dial = func(ctx context.Context) (ioRWC, error) {
		host, dev := net.Pipe()
		mcus <- newFakeMCU(t, dev)
		return host, nil
	}
	type res struct {
		b   *Board
		err error
	}
	done := make(chan res, 1)
	go func() {
		b, err := Open(context.Background(), cfg)
		done <- res{b, err}
	}()
	// A board of 841 cells is on the line.
	wrong := <-mcus
	wrong.await(wire.TypeHelloRequest)
	h := testHello
	h.Cells, h.LEDs = 841, 841
	wrong.send(&h)
	r := <-done
	if r.err != nil {
		t.Fatalf("Open: %v, want the board, disconnected", r.err)
	}
	b := r.b
	defer b.Close()
	if got := b.Info(); got != want {
		t.Errorf("Info %+v, want the expected %+v until a board is accepted", got, want)
	}
	ev := <-b.Events()
	if ev.Kind != hardware.Status || ev.Conn != hardware.Disconnected || !errors.Is(ev.Err, ErrWrongBoard) {
		t.Fatalf("first event %v (%v), want Disconnected with the refusal", ev, ev.Err)
	}
	ev = <-b.Events()
	if ev.Kind != hardware.Fault || !errors.Is(ev.Err, ErrWrongBoard) || !strings.Contains(ev.Err.Error(), "the board says 841 sensors, the board file has 16") {
		t.Fatalf("second event %v (%v), want the refusal's Fault naming the sizes", ev, ev.Err)
	}
	// the page's LEDs, asked for while no board is accepted, wait for it
	frame := make([]hardware.LED, 16)
	frame[5] = hardware.LED{R: 9}
	if err := b.SetLEDs(frame); err != nil {
		t.Fatalf("SetLEDs while waiting for the board: %v", err)
	}
	for f := range wrong.host {
		if f.Type() == wire.TypeAck || f.Type() == wire.TypeConfig || f.Type() == wire.TypeLEDFrame {
			t.Errorf("the refused board was sent %v", f.Type())
		}
	}

	// The driver dials on; the wrong board answers again (refused, said
	// once), then the right board is plugged in.
	again := <-mcus
	again.await(wire.TypeHelloRequest)
	again.send(&h)
	for range again.host {
	}
	var right *fakeMCU
	for right == nil {
		next := <-mcus
		select {
		case f, ok := <-next.host:
			if ok && f.Type() == wire.TypeHelloRequest {
				right = next
			}
		case <-time.After(2 * time.Second):
			t.Fatal("no HelloRequest after the refusal")
		}
	}
	h = testHello
	right.send(&h)
	right.await(wire.TypeAck)
	cells := make([]byte, 16)
	cells[2] = 255
	right.send(&wire.Snapshot{Reason: wire.ReasonConnect, Cells: cells})
	for {
		ev := nextEvent(t, b, hardware.Snapshot, hardware.Change, hardware.Fault, hardware.Status)
		if ev.Kind == hardware.Fault {
			t.Fatalf("the refusal was said again: %v", ev.Err)
		}
		if ev.Kind == hardware.Change {
			t.Fatalf("a change before the right board's snapshot: %v", ev)
		}
		if ev.Kind == hardware.Snapshot {
			if ev.Codes[2] != 255 {
				t.Fatalf("snapshot %v, want the right board's", ev.Codes)
			}
			break
		}
	}
	if ev := nextEvent(t, b, hardware.Status); ev.Conn != hardware.Connected {
		t.Fatalf("got %v, want Connected", ev)
	}
	if got := b.Info(); got.Sensors != 16 || got.Name == want.Name {
		t.Errorf("Info %+v, want the right board's Hello", got)
	}
	right.send(&wire.CellChange{Time: 9, Changes: []wire.Change{{Cell: 4, Code: 255}}})
	if ev := nextEvent(t, b, hardware.Change); ev.Sensor != 4 {
		t.Fatalf("got %v, want the right board's change", ev)
	}
	// the frame asked for while waiting reaches the right board (the
	// fake answers its commands)
	timeout := time.After(2 * time.Second)
	for shown := false; !shown; {
		select {
		case f, ok := <-right.host:
			if !ok {
				t.Fatal("line closed before the LED frame")
			}
			switch m := f.Msg.(type) {
			case *wire.LEDFrame:
				shown = int(m.Start) <= 5 && 5 < int(m.Start)+len(m.Colors) && m.Colors[5-int(m.Start)].R == 9
			case *wire.LEDSet:
				for _, r := range m.Ranges {
					shown = shown || m.Color.R == 9 && int(r.Start) <= 5 && 5 < int(r.Start)+int(r.Count)
				}
			}
		case <-timeout:
			t.Fatal("the LED frame asked for while waiting never reached the right board")
		}
	}
}

// Without Config.Expected a refused board fails Open, as before.
func TestOpenRefusedFailsWithoutExpected(t *testing.T) {
	mcus := make(chan *fakeMCU, 4)
	cfg := Config{Heartbeat: 20 * time.Millisecond, Accept: func(hardware.Info) error { return errors.New("no") }}
	cfg.Dial = func(ctx context.Context) (ioRWC, error) {
		host, dev := net.Pipe()
		mcus <- newFakeMCU(t, dev)
		return host, nil
	}
	done := make(chan error, 1)
	go func() {
		b, err := Open(context.Background(), cfg)
		if b != nil {
			b.Close()
		}
		done <- err
	}()
	m := <-mcus
	m.await(wire.TypeHelloRequest)
	h := testHello
	m.send(&h)
	if err := <-done; !errors.Is(err, ErrWrongBoard) {
		t.Fatalf("got %v, want ErrWrongBoard", err)
	}
}
