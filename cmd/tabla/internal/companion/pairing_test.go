package companion

import (
	"errors"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/sim"
)

// pairingLit reports whether every LED of the board pulses the pairing
// colour, on the board and in the state.
func pairingLit(t *testing.T, b *sim.Board, s *Session) bool {
	t.Helper()
	leds := b.LEDs()
	for _, l := range leds {
		if l != PairingLight {
			return false
		}
	}
	st := s.State()
	n := 0
	for _, l := range st.LEDs {
		if l.Role != "pairing" {
			return false
		}
		n++
	}
	return len(leds) > 0 && n == len(b.Def().Cells)
}

// TestPairing: a pairing request makes every LED pulse; the board's confirm
// button grants it, but not while the referee asks for a confirmation (the
// press is the referee's then); a request expires; one stands at a time.
func TestPairing(t *testing.T) {
	def := boards.Default("gyges")
	b, err := sim.New(sim.Options{Board: def, Sensors: sim.Presence, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := Open(Options{Header: record.Header{Game: "gyges"}, Board: def, HW: b, Source: "sim", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := NewPlayer(b, s)
	defer p.Close()
	act(t, p, `{"wait":200}`)

	granted, err := s.RequestPairing(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !pairingLit(t, b, s) {
		t.Fatalf("pairing requested: LEDs %v, state %v", b.LEDs(), s.State().LEDs)
	}
	if _, err := s.RequestPairing(time.Minute); !errors.Is(err, ErrPairingBusy) {
		t.Errorf("second request: %v, want ErrPairingBusy", err)
	}
	if st := s.StatusJSON(); st.Pairing == nil || st.Pairing.Seconds < 1 {
		t.Errorf("status while pending: %+v", st.Pairing)
	}

	// With presence sensors a GYGES setup placement asks for a confirmation:
	// the referee's candidates show, and the confirm press is the referee's.
	act(t, p, `{"place":"a1","piece":"1"}`)
	act(t, p, `{"wait":200}`)
	if st := s.State(); st.Mode != "confirm" || pairingLit(t, b, s) {
		t.Fatalf("after a placement: mode %s, pairing shown %v", st.Mode, pairingLit(t, b, s))
	}
	act(t, p, `{"press":"confirm"}`)
	act(t, p, `{"wait":200}`)
	if st := s.State(); len(st.Moves) != 1 || st.Mode == "confirm" {
		t.Fatalf("the confirm press did not settle the referee's question: mode %s moves %v", st.Mode, st.Moves)
	}
	select {
	case <-granted:
		t.Fatal("a press that confirmed a placement also granted the pairing")
	default:
	}
	if !pairingLit(t, b, s) {
		t.Fatal("the request stands again once the referee's question is settled: every LED pulses")
	}
	act(t, p, `{"press":"confirm"}`)
	select {
	case ok := <-granted:
		if !ok {
			t.Fatal("the confirm press refused the request")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the confirm press did not grant the request")
	}
	if pairingLit(t, b, s) || s.StatusJSON().Pairing != nil {
		t.Error("the pulse goes on after the grant")
	}
	if st := s.State(); len(st.Moves) != 1 {
		t.Errorf("the granting press changed the game: %v", st.Moves)
	}

	// a request nobody answers expires
	expired, err := s.RequestPairing(20 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ok := <-expired:
		if ok {
			t.Fatal("an unanswered request was granted")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not expire")
	}
	if pairingLit(t, b, s) {
		t.Error("the pulse goes on after the request expired")
	}
	// a board without buttons cannot pair
	fake := newFake("star")
	fake.info.Buttons = false
	s2, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, HW: fake, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.RequestPairing(0); !errors.Is(err, ErrNoButtons) {
		t.Errorf("no buttons: %v", err)
	}
}
