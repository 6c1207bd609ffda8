package six

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestLastRemoved: after every move of random advanced games, LastRemoved
// names exactly the hexagons that left the board other than the one that
// moved (none after a placement), and nothing before the first move.
func TestLastRemoved(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	splits := 0
	for game := 0; game < 30; game++ {
		st, err := New(engine.Config{Variant: "advanced"})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		s.LastRemoved(func(q, r int) { t.Fatalf("removal %d,%d before any move", q, r) })
		for ply := 0; ply < 300 && s.Awaiting() == engine.AwaitMove; ply++ {
			before := s.Position().Pieces
			moves := s.Moves(nil)
			m := moves[rng.IntN(len(moves))]
			s.Play(m)
			after := s.Position().Pieces
			gone := map[string]bool{}
			for cell := range before {
				if _, ok := after[cell]; !ok {
					gone[cell] = true
				}
			}
			if m&3 == kindStep {
				fq, fr := moveFrom(m)
				delete(gone, strconv.Itoa(int(fq))+","+strconv.Itoa(int(fr)))
			}
			got := map[string]bool{}
			s.LastRemoved(func(q, r int) { got[strconv.Itoa(q)+","+strconv.Itoa(r)] = true })
			if len(got) != len(gone) {
				t.Fatalf("game %d ply %d: LastRemoved %v, the board lost %v", game, ply, got, gone)
			}
			for c := range gone {
				if !got[c] {
					t.Fatalf("game %d ply %d: LastRemoved %v, the board lost %v", game, ply, got, gone)
				}
			}
			if len(got) > 0 {
				splits++
			}
		}
	}
	if splits == 0 {
		t.Error("no move of 30 random advanced games split anything: the test tells nothing")
	}
}
