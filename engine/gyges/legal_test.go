package gyges

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestLegal: Legal is true exactly for the moves Moves lists, at positions
// of random games of both variants (setup, movement, passes, the end):
// every listed move, every step and placement of every cell, the pass, and
// random replaces and malformed moves.
func TestLegal(t *testing.T) {
	for _, variant := range []string{"basic", "advanced"} {
		rng := rand.New(rand.NewPCG(12, 34))
		positions, legal, farRow := 0, 0, 0
		for game := 0; game < 30; game++ {
			g := mustGame(t, variant, nil)
			for ply := 0; ply < 120; ply++ {
				moves := g.Moves(nil)
				in := make(map[engine.Move]bool, len(moves))
				for _, m := range moves {
					in[m] = true
					if !g.Legal(m) {
						t.Fatalf("%s game %d ply %d: listed move %s is not Legal", variant, game, ply, engine.MoveString(g, m))
					}
					if _, from, _, _, _ := Unpack(m); m != Pass && !g.Setup() && g.h[from] > 0 {
						near := 0
						if g.toMove == NorthSeat {
							near = rows - 1
						}
						if from.Row()-1 != near {
							farRow++
						}
					}
				}
				check := func(m engine.Move) {
					if got := g.Legal(m); got != in[m] {
						t.Fatalf("%s game %d ply %d: Legal(%#x) = %v, listed %v", variant, game, ply, uint64(m), got, in[m])
					}
				}
				for from := Cell(0); from < North; from++ {
					for to := Cell(0); to <= South; to++ {
						check(Step(from, to))
					}
					for h := 0; h <= 3; h++ {
						check(Place(h, from))
					}
				}
				check(Pass)
				for range 300 {
					check(Replace(Cell(rng.IntN(38)), Cell(rng.IntN(38)), Cell(rng.IntN(38))))
					check(engine.Move(rng.Uint64() & (1<<23 - 1)))
				}
				for _, m := range moves {
					if _, from, to, _, _ := Unpack(m); m&(7<<kindShift) == engine.Move(KindReplace)<<kindShift {
						check(Replace(from, to, Cell(rng.IntN(36))))
					}
				}
				legal += len(moves)
				positions++
				if len(moves) == 0 {
					break
				}
				g.Play(moves[rng.IntN(len(moves))])
			}
		}
		if positions < 1000 || farRow == 0 {
			t.Errorf("%s: %d positions, %d moves from beyond the nearest row: too few to tell", variant, positions, farRow)
		}
		t.Logf("%s: %d positions, %d legal moves, %d from beyond the nearest row", variant, positions, legal, farRow)
	}
}
