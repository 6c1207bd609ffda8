package search

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestFindMates prints positions with a forced win in exactly 2 (for
// hand-picking test positions). Run with TABLA_FIND=gyges or six.
func TestFindMates(t *testing.T) {
	game := os.Getenv("TABLA_FIND")
	if game == "" {
		t.Skip("set TABLA_FIND=game")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	found := 0
	for g := 0; g < 200 && found < 4; g++ {
		s := mustNew(t, game, engine.Config{})
		for s.Awaiting() == engine.AwaitMove && s.Plies() < 200 {
			if !anyWinAtOnce(s) {
				r := Search(s, Options{Depth: 3, Nodes: 2_000_000})
				if r.Score == Win-3 {
					b, _ := json.Marshal(s.Position())
					t.Logf("ply %d: %s move %s", s.Plies(), b, engine.MoveString(s, r.Move))
					found++
					break
				}
			}
			moves := s.Moves(nil)
			s.Play(moves[rng.IntN(len(moves))])
		}
	}
}
