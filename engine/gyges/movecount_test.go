package gyges

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestMoveCount: MoveCount counts the moves Moves lists, and sees a move
// onto a goal exactly when the list has one, at every position of random
// games of both variants (setup, movement, the end).
func TestMoveCount(t *testing.T) {
	for _, variant := range []string{"basic", "advanced"} {
		rng := rand.New(rand.NewPCG(3, 9))
		positions, goals := 0, 0
		for game := 0; game < 40; game++ {
			st, err := New(engine.Config{Variant: variant})
			if err != nil {
				t.Fatal(err)
			}
			g := st.(*Game)
			for ply := 0; ply < 200; ply++ {
				moves := g.Moves(nil)
				n, goal := g.MoveCount()
				wantN, wantGoal := len(moves), false
				for _, m := range moves {
					if _, _, to, _, _ := Unpack(m); m != Pass && (to == North || to == South) {
						wantGoal = true
					}
				}
				if g.Setup() || g.Awaiting() == engine.AwaitNone {
					wantN, wantGoal = 0, false
				}
				if n != wantN || goal != wantGoal {
					t.Fatalf("%s game %d ply %d: MoveCount %d, %v; Moves lists %d, goal %v", variant, game, ply, n, goal, wantN, wantGoal)
				}
				if len(moves) == 0 {
					break
				}
				positions++
				if goal {
					goals++
				}
				g.Play(moves[rng.IntN(len(moves))])
			}
		}
		if goals == 0 || positions < 1000 {
			t.Errorf("%s: %d positions, %d with a move onto a goal: too few to tell", variant, positions, goals)
		}
	}
}
