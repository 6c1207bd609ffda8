package daha

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// midGames returns positions with a roll due from random games 20–80 plies
// in, and the same on the state with the DFS generator forced.
func midGames(b *testing.B, n int) []*State {
	rng := rand.New(rand.NewPCG(42, 42))
	buf := make([]engine.Move, 0, 64)
	var out []*State
	for len(out) < n {
		s, _ := newState(engine.Config{})
		target := 20 + rng.IntN(60)
		for s.Plies() < target && enginetest.Step(s, rng, buf) {
		}
		if s.Awaiting() == engine.AwaitRoll {
			out = append(out, s)
		}
	}
	return out
}

// BenchmarkMoves measures a full move list per roll from mid-game
// positions: Roll (which computes the destinations) + Moves + Undo, for each
// of the six faces. ns/op is per move list.
func BenchmarkMoves(b *testing.B) {
	for _, tc := range []struct {
		name string
		dfs  bool
	}{{"table", false}, {"dfs", true}} {
		b.Run(tc.name, func(b *testing.B) {
			states := midGames(b, 64)
			for _, s := range states {
				s.forceDF = tc.dfs
			}
			buf := make([]engine.Move, 0, 64)
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for i := 0; b.Loop(); i++ {
				s := states[i%len(states)]
				f := (i / len(states)) % 6
				_ = s.Roll(f)
				buf = s.Moves(buf)
				n += len(buf)
				s.Undo()
			}
			b.ReportMetric(float64(n)/float64(b.N), "moves/list")
		})
	}
}

// BenchmarkGenerate measures the destination generators alone, for every
// live colour and roll of mid-game positions.
func BenchmarkGenerate(b *testing.B) {
	states := midGames(b, 64)
	type q struct {
		g         *graph
		from, k   int
		blocked   uint64
		wantDests uint64
	}
	var qs []q
	for _, s := range states {
		for c := 0; c < numColours; c++ {
			if s.pos[c] >= 0 {
				for k := 1; k <= 6; k++ {
					qs = append(qs, q{s.g, int(s.pos[c]), k, s.blocked(c), s.gen(c, k)})
				}
			}
		}
	}
	b.Run("table", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			x := &qs[i%len(qs)]
			if x.g.table.dests(x.from, x.k, x.blocked) != x.wantDests {
				b.Fatal("mismatch")
			}
		}
	})
	b.Run("dfs", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			x := &qs[i%len(qs)]
			if x.g.dfsDests(x.from, x.k, x.blocked) != x.wantDests {
				b.Fatal("mismatch")
			}
		}
	})
}

// BenchmarkPlayout plays random games from the start to the end or 400
// plies, and reports playouts/s, how many were won (the rest hit the cap)
// and the average plies per game.
func BenchmarkPlayout(b *testing.B) {
	const limit = 400
	rng := rand.New(rand.NewPCG(7, 7))
	buf := make([]engine.Move, 0, 64)
	s, _ := newState(engine.Config{})
	root := s.Clone().(*State)
	won, plies := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		*s = *root
		s.hist = s.hist[:0]
		enginetest.Playout(s, rng, buf, limit)
		if s.Result().Status == engine.Won {
			won++
		}
		plies += s.Plies()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
	b.ReportMetric(100*float64(won)/float64(b.N), "%won")
	b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
}
