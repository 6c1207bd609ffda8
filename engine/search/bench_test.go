package search

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// BenchmarkPlayout: random playouts from the start to the end or the ply cap,
// as MCTS runs them (playouts/s = 1e9 / ns/op).
func BenchmarkPlayout(b *testing.B) {
	for _, game := range []string{"daha", "star", "gyges", "ray", "six"} {
		b.Run(game, func(b *testing.B) {
			s := mustNew(b, game, engine.Config{})
			w := newMCTSWorker(s, Options{MaxPlies: DefaultMaxPlies}, 1, 1)
			w.capPlies = DefaultMaxPlies
			if game == "ray" {
				w.capPlies = 1 << 30 // play to the end
			}
			var rew [4]float32
			plies := 0
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for s.Awaiting() != engine.AwaitNone && s.Plies() < w.capPlies {
					if s.Awaiting() == engine.AwaitRoll {
						s.Roll(w.rng.IntN(w.nfaces))
					} else if w.rm != nil {
						s.Play(w.rm.RandomMove(w.rng))
					} else {
						moves := s.Moves(w.buf[:0])
						s.Play(moves[w.rng.IntN(len(moves))])
					}
					n++
				}
				plies += n
				w.rewards(&rew)
				for ; n > 0; n-- {
					s.Undo()
				}
			}
			b.ReportMetric(float64(plies)/float64(b.N), "plies/playout")
		})
	}
}

// BenchmarkAlphaBeta: one level-3 search (30,000 nodes) from a middle-game
// position; nodes/s is reported.
func BenchmarkAlphaBeta(b *testing.B) {
	for _, game := range []string{"star", "gyges", "six"} {
		b.Run(game, func(b *testing.B) {
			s := mustNew(b, game, engine.Config{})
			rng := rand.New(rand.NewPCG(5, 6))
			// A random middle game position that is not decided yet.
			for s.Plies() < 16 || IsWin(Search(s, Options{Level: 2}).Score) {
				if s.Awaiting() != engine.AwaitMove {
					s = mustNew(b, game, engine.Config{})
				}
				moves := s.Moves(nil)
				s.Play(moves[rng.IntN(len(moves))])
			}
			var nodes int64
			b.ReportAllocs()
			for b.Loop() {
				nodes += Search(s, Options{Level: 3}).Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// BenchmarkMCTS: one level-2 search (500 iterations); iterations/s reported.
func BenchmarkMCTS(b *testing.B) {
	for _, game := range []string{"daha", "star", "gyges"} {
		b.Run(game, func(b *testing.B) {
			s := mustNew(b, game, engine.Config{})
			if s.Awaiting() == engine.AwaitRoll {
				s.Roll(2)
			}
			var iters int64
			for b.Loop() {
				iters += Search(s, Options{Level: 2, Algo: MCTS}).Nodes
			}
			b.ReportMetric(float64(iters)/b.Elapsed().Seconds(), "iterations/s")
		})
	}
}

// BenchmarkRayOdds: the exact RAY odds of the start (table cached).
func BenchmarkRayOdds(b *testing.B) {
	s := mustNew(b, "ray", engine.Config{})
	Search(s, Options{})
	for b.Loop() {
		Search(s, Options{})
	}
}
