package ray

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

func newState(t testing.TB, start *engine.Position) *State {
	t.Helper()
	s, err := New(engine.Config{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*State)
}

func roll(t testing.TB, s engine.State, face string) {
	t.Helper()
	for i, f := range s.Info().Die.Faces {
		if f == face {
			if err := s.Roll(i); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no face %q", face)
}

func only(t testing.TB, s engine.State) string {
	t.Helper()
	moves := s.Moves(nil)
	if len(moves) != 1 {
		t.Fatalf("%d moves, want exactly one", len(moves))
	}
	return engine.MoveString(s, moves[0])
}

// The sheet's worked example: red cannot go west; yellow goes south, blue
// west, black north.
func TestSheetExample(t *testing.T) {
	s := newState(t, nil)
	for _, tc := range []struct{ seat, face, want string }{
		{"red", "W", "pass"},
		{"yellow", "S", "ac28"},
		{"blue", "W", "ab1"},
		{"black", "N", "a2"},
		{"red", "E", "b29"},
	} {
		if got := s.Info().Seats[s.ToMove()]; got != tc.seat {
			t.Fatalf("to move %s, want %s", got, tc.seat)
		}
		if s.Awaiting() != engine.AwaitRoll {
			t.Fatalf("awaiting %v", s.Awaiting())
		}
		roll(t, s, tc.face)
		if got := only(t, s); got != tc.want {
			t.Fatalf("%s rolled %s: move %s, want %s", tc.seat, tc.face, got, tc.want)
		}
		m, err := s.ParseMove(tc.want)
		if err != nil {
			t.Fatal(err)
		}
		s.Play(m)
	}
	if s.Plies() != 5 {
		t.Errorf("plies %d", s.Plies())
	}
}

func TestBlockedAndTarget(t *testing.T) {
	start := &engine.Position{ToMove: "red", Pieces: map[string]string{"o14": "red", "o13": "blue", "n15": "yellow"}}
	s := newState(t, start)
	roll(t, s, "S") // o13 is occupied
	if got := only(t, s); got != "pass" {
		t.Errorf("blocked by a piece: %s", got)
	}
	for _, tc := range []struct{ text, err string }{
		{"o13", "the only move is pass"},
		{"zz99", "neither a cell"},
		{"", "neither a cell"},
	} {
		if _, err := s.ParseMove(tc.text); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseMove(%q): %v, want %q", tc.text, err, tc.err)
		}
	}
	s.Play(Pass)
	// Turn order skips black, who is not playing: blue is next.
	if s.Info().Seats[s.ToMove()] != "yellow" {
		t.Fatalf("to move %d", s.ToMove())
	}
	roll(t, s, "S")
	s.Play(s.Moves(nil)[0])
	if got := s.Info().Seats[s.ToMove()]; got != "blue" {
		t.Fatalf("after yellow: %s, want blue (black skipped)", got)
	}
	roll(t, s, "W")
	s.Play(s.Moves(nil)[0])
	roll(t, s, "N") // red o14 → o15, the target
	if got := only(t, s); got != "o15" {
		t.Fatalf("red to the target: %s", got)
	}
	s.Play(s.Moves(nil)[0])
	if r := s.Result(); r.Status != engine.Won || r.Winner != 0 || s.ToMove() != -1 || s.Awaiting() != engine.AwaitNone {
		t.Errorf("after reaching o15: %+v to move %d", r, s.ToMove())
	}
	if err := s.Roll(0); !errors.Is(err, engine.ErrNotNow) {
		t.Errorf("roll after the end: %v", err)
	}
}

func TestEdges(t *testing.T) {
	s := newState(t, nil)
	for _, tc := range []struct{ seat, face string }{
		{"red", "N"}, {"yellow", "E"}, {"blue", "S"}, {"black", "W"},
	} {
		roll(t, s, tc.face)
		if got := only(t, s); got != "pass" {
			t.Errorf("%s rolling %s off the board: %s", tc.seat, tc.face, got)
		}
		s.Play(Pass)
	}
}

func TestStartValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    engine.Position
		err  string
	}{
		{"unknown cell", engine.Position{ToMove: "red", Pieces: map[string]string{"ad1": "red"}}, "no cell \"ad1\""},
		{"unknown colour", engine.Position{ToMove: "red", Pieces: map[string]string{"a1": "green"}}, "holds \"green\""},
		{"to move absent", engine.Position{ToMove: "blue", Pieces: map[string]string{"a1": "red"}}, "blue has no piece"},
		{"to move unknown", engine.Position{ToMove: "pink", Pieces: map[string]string{"a1": "red"}}, "not a seat"},
		{"empty", engine.Position{ToMove: "red", Pieces: map[string]string{}}, "has no piece"},
		{"paint", engine.Position{ToMove: "red", Pieces: map[string]string{"a1": "red"}, Painted: map[string]string{"a2": "red"}}, "only to_move and pieces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(engine.Config{Start: &tc.p})
			if !errors.Is(err, engine.ErrConfig) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
	// A piece already on the target: won.
	s := newState(t, &engine.Position{ToMove: "red", Pieces: map[string]string{"o15": "blue", "a1": "red"}})
	if r := s.Result(); r.Status != engine.Won || r.Winner != 2 {
		t.Errorf("blue on o15 at the start: %+v", r)
	}
}

func TestUndoAndNotation(t *testing.T) {
	enginetest.CheckUndo(t, newState(t, nil), 20, 500, 1)
	near := &engine.Position{ToMove: "yellow", Pieces: map[string]string{"o16": "red", "p15": "yellow", "n14": "black"}}
	enginetest.CheckUndo(t, newState(t, near), 50, 200, 2)
}

func TestPositionRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	buf := make([]engine.Move, 0, 4)
	for g := 0; g < 50; g++ {
		s := newState(t, nil)
		enginetest.Playout(s, rng, buf, rng.IntN(200))
		if s.Awaiting() != engine.AwaitRoll {
			continue
		}
		p := s.Position()
		s2 := newState(t, &p)
		if s2.Hash() != s.Hash() || s2.ToMove() != s.ToMove() {
			t.Fatalf("game %d: round trip differs", g)
		}
	}
}

func TestTransposition(t *testing.T) {
	s := newState(t, nil)
	h := func(faces ...string) uint64 {
		for _, f := range faces {
			roll(t, s, f)
			s.Play(s.Moves(nil)[0])
		}
		x := s.Hash()
		for range faces {
			s.Undo()
			s.Undo()
		}
		return x
	}
	// Red east then west returns; yellow/blue/black pass either way.
	a := h("E", "E", "N", "S", "W", "E", "N", "S")
	b := h("N", "E", "N", "S", "N", "E", "N", "S")
	if a != b {
		t.Errorf("red E,W and N,N (a pass twice) reach the same position but hash %x and %x", a, b)
	}
}

func TestPerft(t *testing.T) {
	// Every ply has exactly one move after a roll of four faces, so from the
	// start (far from the target) perft counts roll sequences: 4^depth.
	s := newState(t, nil)
	for d, want := range []uint64{1, 4, 16, 64, 256, 1024} {
		if got := enginetest.Perft(s, d); got != want {
			t.Errorf("perft(%d) = %d, want %d", d, got, want)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	s := newState(t, nil)
	s.hist = make([]undo, 0, 8)
	buf := make([]engine.Move, 0, 4)
	if a := testing.AllocsPerRun(100, func() {
		s.Roll(1)
		s.Play(s.Moves(buf)[0])
		s.Undo()
		s.Undo()
	}); a != 0 {
		t.Errorf("allocs %v", a)
	}
}

func BenchmarkMoves(b *testing.B) {
	s := newState(b, nil)
	s.Roll(South)
	buf := make([]engine.Move, 0, 4)
	for b.Loop() {
		s.Moves(buf)
	}
}

func BenchmarkPlayout(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]engine.Move, 0, 4)
	s := newState(b, nil)
	s.hist = make([]undo, 0, 1<<16)
	won, plies := 0, 0
	b.ReportAllocs()
	for b.Loop() {
		n := enginetest.Playout(s, rng, buf, 20000)
		if s.Result().Status == engine.Won {
			won++
		}
		plies += s.Plies()
		for range n {
			s.Undo()
		}
	}
	b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
	b.ReportMetric(100*float64(won)/float64(b.N), "%won")
}

// FuzzParseMove: any text either fails with a clear error or names the one
// legal move in its canonical notation.
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"pass", "ac28", "a29", "o15", "a0", "ad1", "Pass", ""} {
		f.Add(s)
	}
	s := newState(f, nil)
	s.Roll(South)
	f.Fuzz(func(t *testing.T, text string) {
		m, err := s.ParseMove(text)
		if err != nil {
			if !errors.Is(err, engine.ErrNotation) && !errors.Is(err, engine.ErrIllegal) {
				t.Fatalf("%q: error %v wraps neither ErrNotation nor ErrIllegal", text, err)
			}
			return
		}
		if got := engine.MoveString(s, m); got != text || !engine.Legal(s, m) {
			t.Fatalf("%q parses to %q", text, got)
		}
	})
}
