package six

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// FuzzPlayout plays random games (from the start or a random table) with
// invariant checks at every ply, then undoes them all.
func FuzzPlayout(f *testing.F) {
	for i := range 8 {
		f.Add(uint64(i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, flags uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(flags)))
		variant := variantName(flags&1 != 0)
		seats := 2 + 2*int(flags>>1&1)
		var start *engine.Position
		if flags&4 != 0 {
			start = randomStart(rng, seats, flags&8 != 0)
		}
		s := mustNew(t, variant, seats, start)
		root := s.Hash()
		buf := make([]engine.Move, 0, 4096)
		for s.Awaiting() == engine.AwaitMove && s.Plies() < 400 {
			moves := s.Moves(buf[:0])
			if len(moves) == 0 {
				t.Fatal("no moves while a move is awaited")
			}
			s.Play(moves[rng.IntN(len(moves))])
			checkInvariants(t, s)
		}
		if s.Awaiting() != engine.AwaitNone && s.Plies() < 400 {
			t.Fatalf("stopped at ply %d awaiting %v", s.Plies(), s.Awaiting())
		}
		for s.Plies() > 0 {
			s.Undo()
		}
		checkInvariants(t, s)
		if s.Hash() != root {
			t.Fatal("hash not restored")
		}
	})
}

// FuzzParseMove feeds arbitrary text to ParseMove: it never panics, errors
// wrap ErrNotation or ErrIllegal, and what it accepts is a legal move whose
// notation parses back to it.
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"pass", "-1,0", "0,0>5,0/1,-1", "1,0>2,0", "01,0", "-0,0", "+1,2", "1,2>", "99999999999,1"} {
		f.Add(s)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	states := []*State{mustNew(f, "basic", 2, nil), movementPosition(f, "basic", 2, rng), movementPosition(f, "advanced", 2, rng)}
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range states {
			m, err := s.ParseMove(text)
			if err != nil {
				if !errors.Is(err, engine.ErrNotation) && !errors.Is(err, engine.ErrIllegal) {
					t.Fatalf("%q: %v wraps neither ErrNotation nor ErrIllegal", text, err)
				}
				continue
			}
			if !engine.Legal(s, m) {
				t.Fatalf("%q parses as illegal %s", text, engine.MoveString(s, m))
			}
			back, err := s.ParseMove(engine.MoveString(s, m))
			if err != nil || back != m {
				t.Fatalf("%q: canonical %q parses as %v, %v", text, engine.MoveString(s, m), back, err)
			}
		}
	})
}
