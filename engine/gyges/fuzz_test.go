package gyges

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// FuzzPlayout plays a random game from a fuzzed seed and start and checks
// that nothing panics and every legal move's notation parses back to it.
func FuzzPlayout(f *testing.F) {
	f.Add(uint64(1), uint8(0))
	f.Add(uint64(2), uint8(7))
	f.Add(uint64(99), uint8(12))
	f.Fuzz(func(t *testing.T, seed uint64, flags uint8) {
		cfg := engine.Config{}
		if flags&1 != 0 {
			cfg.Variant = "advanced"
		}
		if flags&2 != 0 {
			cfg.First = "north"
		}
		switch flags >> 2 & 3 {
		case 1:
			cfg.Start = rowsPosition("321123", "321123", "south")
		case 2:
			cfg.Start = rowsPosition("123321", "231213", "north")
		}
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(flags)))
		buf := make([]engine.Move, 0, 4096)
		var text []byte
		for g.Plies() < 300 {
			moves := g.Moves(buf)
			if len(moves) == 0 {
				if g.Awaiting() != engine.AwaitNone {
					t.Fatal("no moves while a move is awaited")
				}
				return
			}
			for _, m := range moves {
				text = g.AppendMove(text[:0], m)
				back, err := g.ParseMove(string(text))
				if err != nil || back != m {
					t.Fatalf("ply %d: %q parses back as %v, %v", g.Plies(), text, back, err)
				}
			}
			g.Play(moves[rng.IntN(len(moves))])
		}
	})
}
