package companion

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/sim"
)

// pairingLit reports whether a pairing request shows: exactly one LED of
// the board pulses the pairing colour, and the state shows exactly one cell
// with role "pairing", on that LED.
func pairingLit(t *testing.T, b *sim.Board, s *Session) bool {
	t.Helper()
	cell, ok := pairingCell(t, b, s)
	return ok && cell != ""
}

// pairingCell is the one cell showing the pairing request ("" none); ok is
// false when more than one shows it or the board and the state disagree.
func pairingCell(t *testing.T, b *sim.Board, s *Session) (cell string, ok bool) {
	t.Helper()
	def := b.Def()
	var onBoard []string
	for i, l := range b.LEDs() {
		if l == PairingLight {
			for c, led := range def.LEDs {
				if led == i {
					onBoard = append(onBoard, def.Cells[c].Name)
				}
			}
		}
	}
	var inState []string
	for c, l := range s.State().LEDs {
		if l.Role == "pairing" {
			inState = append(inState, c)
		}
	}
	if len(onBoard) > 1 || len(inState) > 1 || len(onBoard) != len(inState) || (len(onBoard) == 1 && onBoard[0] != inState[0]) {
		t.Logf("pairing on the board %v, in the state %v", onBoard, inState)
		return "", false
	}
	if len(onBoard) == 0 {
		return "", true
	}
	return onBoard[0], true
}

// TestPairing: a pairing request makes one corner pulse; the board's confirm
// button grants it, but not while the referee asks for a confirmation (the
// press is the referee's then, and the move it confirms cancels the
// request); a request expires; one stands at a time.
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
	// the confirmed placement is a move: it cancels the request, it grants
	// nothing
	select {
	case ok := <-granted:
		if ok {
			t.Fatal("a press that confirmed a placement also granted the pairing")
		}
	default:
		t.Fatal("the placement confirmed (a move) did not cancel the request")
	}
	if pairingLit(t, b, s) {
		t.Fatal("the corner pulses after the request was cancelled")
	}
	if granted, err = s.RequestPairing(time.Minute); err != nil {
		t.Fatal(err)
	}
	if !pairingLit(t, b, s) {
		t.Fatal("a new request: no corner pulses")
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

// TestPairingKeepsGuidance: while a phone asks, a lifted piece's legal
// destinations stay lit on the board and in the state, one corner alone
// shows the request, and a move made on the board cancels it.
func TestPairingKeepsGuidance(t *testing.T) {
	def := boards.Default("star")
	b, err := sim.New(sim.Options{Board: def, Sensors: sim.Identifying, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: b, Source: "sim", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := NewPlayer(b, s)
	defer p.Close()
	act(t, p, `{"wait":200}`)
	act(t, p, `{"lift":"b1"}`)
	act(t, p, `{"wait":200}`)
	dests := map[string]referee.LED{}
	for c, l := range s.State().LEDs {
		if l.Role == "dest" {
			dests[c] = l
		}
	}
	if len(dests) == 0 {
		t.Fatalf("no destinations lit for the lifted b1: %v", s.State().LEDs)
	}
	before := b.LEDs()

	granted, err := s.RequestPairing(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cell, ok := pairingCell(t, b, s)
	if !ok || cell == "" {
		t.Fatalf("the request shows on %q (ok %v), want one corner", cell, ok)
	}
	if _, lit := dests[cell]; lit {
		t.Errorf("the request covers the destination %s", cell)
	}
	st := s.State()
	for c, l := range dests {
		if got := st.LEDs[c]; got != l {
			t.Errorf("destination %s while a phone asks: %+v, want %+v", c, got, l)
		}
	}
	after := b.LEDs()
	changed := 0
	for i := range after {
		if after[i] != before[i] {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("the request changed %d LEDs of the board, want 1", changed)
	}
	if !strings.Contains(st.Message, cell) {
		t.Errorf("the message does not say which cell pulses: %q", st.Message)
	}

	// a move on the board cancels the request
	act(t, p, `{"place":"f3"}`)
	act(t, p, `{"wait":200}`)
	if got := s.State().Moves; len(got) != 1 {
		t.Fatalf("moves %v, want b1-f3", got)
	}
	select {
	case ok := <-granted:
		if ok {
			t.Fatal("a move granted the request")
		}
	default:
		t.Fatal("a move did not cancel the request")
	}
	if pending, _ := s.Pairing(); pending || pairingLit(t, b, s) {
		t.Error("the request stands after a move")
	}
}

// TestPairCorners: the corners of every builtin board have LEDs, a square
// board's first is a1.
func TestPairCorners(t *testing.T) {
	for _, game := range []string{"daha", "star", "gyges", "ray", "six"} {
		def := boards.Default(game)
		c := pairCorners(def)
		if len(c) == 0 {
			t.Errorf("%s: no corner", game)
			continue
		}
		for _, i := range c {
			if def.LEDs[i] < 0 || def.Cells[i].Goal {
				t.Errorf("%s: corner %s has no LED or is a goal", game, def.Cells[i].Name)
			}
		}
		if def.Kind == boards.Square && def.Cells[c[0]].Name != "a1" {
			t.Errorf("%s: first corner %s, want a1", game, def.Cells[c[0]].Name)
		}
	}
}
