package search

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestLegalFirst: alpha-beta that tries the table's move and the killers
// before listing a node's moves (GYGES, a legalChecker) searches exactly
// what it searches listing every node's moves: the same move, score,
// principal variation and node count, at positions of random games of both
// variants at level 3, with one worker and (every other position) two.
func TestLegalFirst(t *testing.T) {
	if _, ok := mustNew(t, "gyges", engine.Config{}).(legalChecker); !ok {
		t.Fatal("GYGES is not a legalChecker")
	}
	rng := rand.New(rand.NewPCG(21, 21))
	searched := 0
	for _, variant := range []string{"basic", "advanced"} {
		for game := 0; game < 3; game++ {
			s := mustNew(t, "gyges", engine.Config{Variant: variant})
			for ply := 0; ply < 40 && s.Awaiting() != engine.AwaitNone; ply++ {
				if ply%4 == 3 {
					for _, workers := range []int{1, 2}[:1+ply%8/4] {
						opts := Options{Level: 3, Workers: workers, Algo: AlphaBeta}
						useLegal = false
						list := Search(s, opts)
						useLegal = true
						lazy := Search(s, opts)
						list.Time, lazy.Time = 0, 0
						if !reflect.DeepEqual(list, lazy) {
							t.Fatalf("%s game %d ply %d, %d workers: listing every node %+v, legal moves first %+v", variant, game, ply, workers, list, lazy)
						}
						searched++
					}
				}
				moves := s.Moves(nil)
				s.Play(moves[rng.IntN(len(moves))])
			}
		}
	}
	if searched < 40 {
		t.Fatalf("only %d searches", searched)
	}
}
