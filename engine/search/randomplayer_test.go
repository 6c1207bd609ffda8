package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestRandomPlayer: a game's own RandomPlayout (DAHA's) ends where the
// loop of playout would (the game over or the cap reached), leaves the
// position as it found it, and plays the loop's distribution of games:
// from positions of every phase, who wins (or the cap) is distributed
// alike over 3,000 playouts each way (a chi-square test of the two
// samples at five standard deviations).
func TestRandomPlayer(t *testing.T) {
	s := mustNew(t, "daha", engine.Config{})
	rp, ok := s.(RandomPlayer)
	if !ok {
		t.Fatal("DAHA is not a RandomPlayer")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 3000
	outcome := func() int {
		if r := s.Result(); r.Status == engine.Won {
			return r.Winner
		}
		return 4 // the cap
	}
	compared := 0
	for s.Awaiting() != engine.AwaitNone && s.Plies() < 90 {
		if s.Plies()%15 == 0 && s.Awaiting() == engine.AwaitRoll || s.Plies()%15 == 7 && s.Awaiting() == engine.AwaitMove {
			capPlies := s.Plies() + 60
			hash, plies := s.Hash(), s.Plies()
			var loop, own [5]float64
			for range n {
				k := 0
				for s.Awaiting() != engine.AwaitNone && s.Plies() < capPlies {
					if s.Awaiting() == engine.AwaitRoll {
						if err := s.Roll(rng.IntN(len(s.Info().Die.Faces))); err != nil {
							t.Fatal(err)
						}
					} else {
						s.Play(s.(engine.RandomMover).RandomMove(rng))
					}
					k++
				}
				loop[outcome()]++
				for ; k > 0; k-- {
					s.Undo()
				}
				rp.RandomPlayout(rng, capPlies, func() {
					if s.Awaiting() != engine.AwaitNone && s.Plies() != capPlies {
						t.Fatalf("ply %d: the playout ended at ply %d, neither over nor at the cap %d", plies, s.Plies(), capPlies)
					}
					own[outcome()]++
				})
				if s.Hash() != hash || s.Plies() != plies {
					t.Fatalf("ply %d: the position is %x (%d plies) after the playout, want %x", plies, s.Hash(), s.Plies(), hash)
				}
			}
			// Two-sample chi-square over the outcomes either sample saw.
			var chi float64
			df := -1.0
			for i := range loop {
				if loop[i]+own[i] > 0 {
					d := loop[i] - own[i]
					chi += d * d / (loop[i] + own[i])
					df++
				}
			}
			if df > 0 && chi > df*math.Pow(1-2/(9*df)+5*math.Sqrt(2/(9*df)), 3) {
				t.Errorf("ply %d: outcomes of the loop %v, of RandomPlayout %v (chi-square %.1f, %g degrees of freedom)", plies, loop, own, chi, df)
			}
			compared++
		}
		if s.Awaiting() == engine.AwaitRoll {
			s.Roll(rng.IntN(6))
		} else {
			s.Play(s.(engine.RandomMover).RandomMove(rng))
		}
	}
	if compared < 8 {
		t.Fatalf("only %d positions compared", compared)
	}
}
