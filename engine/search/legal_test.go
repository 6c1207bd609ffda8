package search

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// TestLegalFirst: alpha-beta that tries the table's move and the killers
// before listing a node's moves (GYGES and six, legalCheckers) searches
// exactly what it searches listing every node's moves: the same move,
// score, principal variation and node count, at positions of random games
// of both variants at level 3, with one worker and (every other position)
// two.
func TestLegalFirst(t *testing.T) {
	for _, game := range []string{"gyges", "six"} {
		t.Run(game, func(t *testing.T) { testLegalFirst(t, game) })
	}
}

func testLegalFirst(t *testing.T, game string) {
	if _, ok := mustNew(t, game, engine.Config{}).(legalChecker); !ok {
		t.Fatalf("%s is not a legalChecker", game)
	}
	rng := rand.New(rand.NewPCG(21, 21))
	searched, moving := 0, 0
	plies, games := 40, 3
	if game == "six" {
		plies = 90 // past the placements (42 hexagons), where the game goes on
		if enginetest.Reduced() {
			games = 1 // six's searches are the slow ones under the race detector
		}
	}
	for _, variant := range []string{"basic", "advanced"} {
		for g := 0; g < games; g++ {
			s := mustNew(t, game, engine.Config{Variant: variant})
			for ply := 0; ply < plies && s.Awaiting() != engine.AwaitNone; ply++ {
				if ply%4 == 3 {
					if p, ok := s.(interface{ Placing() bool }); ok && !p.Placing() {
						moving++
					}
					for _, workers := range []int{1, 2}[:1+ply%8/4] {
						opts := Options{Level: 3, Workers: workers, Algo: AlphaBeta}
						useLegal = false
						list := Search(s, opts)
						useLegal = true
						lazy := Search(s, opts)
						list.Time, lazy.Time = 0, 0
						if !reflect.DeepEqual(list, lazy) {
							t.Fatalf("%s game %d ply %d, %d workers: listing every node %+v, legal moves first %+v", variant, g, ply, workers, list, lazy)
						}
						searched++
					}
				}
				moves := s.Moves(nil)
				s.Play(moves[rng.IntN(len(moves))])
			}
		}
	}
	if searched < 12*games || game == "six" && moving < 4 {
		t.Fatalf("only %d searches (%d in six's movement phase)", searched, moving)
	}
	t.Logf("%d searches, %d of them in six's movement phase", searched, moving)
}
