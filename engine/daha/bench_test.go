package daha

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// phases are ply ranges of random games, from the start (nothing painted) to
// late games (much of the board painted, colours out).
var phases = []struct {
	name   string
	lo, hi int
}{{"start", 0, 1}, {"early", 1, 20}, {"mid", 20, 80}, {"late", 80, 200}, {"end", 200, 400}}

// phaseStates returns n positions with a roll due, reached by random games
// of lo to hi-1 plies.
func phaseStates(n, lo, hi int) []*State {
	rng := rand.New(rand.NewPCG(42, uint64(lo)))
	buf := make([]engine.Move, 0, 64)
	var out []*State
	for len(out) < n {
		s, _ := newState(engine.Config{})
		target := lo + rng.IntN(hi-lo)
		for s.Plies() < target && enginetest.Step(s, rng, buf) {
		}
		if s.Awaiting() == engine.AwaitRoll && s.Plies() == target {
			out = append(out, s)
		}
	}
	return out
}

// BenchmarkMoves measures a full move list per roll: Roll (which computes
// the destination set, or eliminates) + Moves + Undo, cycling through 64
// positions of each game phase and all six faces. ns/op is per move list.
func BenchmarkMoves(b *testing.B) {
	for _, ph := range phases {
		b.Run(ph.name, func(b *testing.B) {
			states := phaseStates(64, ph.lo, ph.hi)
			buf := make([]engine.Move, 0, 64)
			n := 0
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s := states[i%len(states)]
				_ = s.Roll((i / len(states)) % 6)
				buf = s.Moves(buf)
				n += len(buf)
				s.Undo()
			}
			b.ReportMetric(float64(n)/float64(b.N), "moves/list")
		})
	}
}

// BenchmarkGenerate compares the engine's pruned DFS with the path table of
// table_test.go on the same queries: every colour in play and every roll of
// positions from all phases.
func BenchmarkGenerate(b *testing.B) {
	type query struct {
		from, k int
		blocked uint64
		want    uint64
	}
	var qs []query
	var g *graph
	for _, ph := range phases {
		for _, s := range phaseStates(32, ph.lo, ph.hi) {
			g = s.g
			for c := 0; c < numColours; c++ {
				if s.pos[c] >= 0 {
					for k := 1; k <= maxRoll; k++ {
						qs = append(qs, query{int(s.pos[c]), k, s.blocked(c), s.gen(c, k)})
					}
				}
			}
		}
	}
	table := tableOf(g, 1<<18)
	for _, gen := range []struct {
		name string
		f    func(c, k int, blocked uint64) uint64
	}{{"dfs", g.dests}, {"table", table.dests}} {
		b.Run(gen.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				q := &qs[i%len(qs)]
				if gen.f(q.from, q.k, q.blocked) != q.want {
					b.Fatal("generators disagree")
				}
			}
		})
	}
}

// BenchmarkPlayout plays random games from the start to the end or 400
// plies (DAHA can go on for ever), and reports playouts/s, the share of
// games won (the rest hit the cap) and the average plies per game. The
// "table" run uses the path table instead, for comparison.
func BenchmarkPlayout(b *testing.B) {
	const limit = 400
	for _, gen := range []string{"dfs", "table"} {
		b.Run(gen, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 7))
			buf := make([]engine.Move, 0, 64)
			root, _ := newState(engine.Config{})
			if gen == "table" {
				useTable(b, root)
			}
			s := root.Clone().(*State)
			hist := make([]undo, 0, 2*limit+8)
			won, plies := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				*s = *root
				s.hist = hist[:0]
				enginetest.Playout(s, rng, buf, limit)
				if s.Result().Status == engine.Won {
					won++
				}
				plies += s.Plies()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
			b.ReportMetric(100*float64(won)/float64(b.N), "%won")
			b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
		})
	}
}

// BenchmarkRandomPlayout: MCTS's playouts (RandomPlayout, to the end or a
// cap of 400 plies) from 64 positions of each game phase with a roll due;
// ns/op is per playout, plies/playout their length.
func BenchmarkRandomPlayout(b *testing.B) {
	for _, ph := range phases[:4] {
		b.Run(ph.name, func(b *testing.B) {
			states := phaseStates(64, ph.lo, ph.hi)
			rng := rand.New(rand.NewPCG(11, 11))
			plies := 0
			for i := 0; b.Loop(); i++ {
				s := states[i%len(states)]
				start := s.plies
				s.RandomPlayout(rng, 400, func() { plies += s.plies - start })
			}
			b.ReportMetric(float64(plies)/float64(b.N), "plies/playout")
		})
	}
}
