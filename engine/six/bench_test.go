package six

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// benchPositions: a placement-phase position, and the movement positions of
// testdata/positions.json.
func benchPositions(b *testing.B) []struct {
	name string
	s    *State
} {
	data, err := os.ReadFile("testdata/positions.json")
	if err != nil {
		b.Fatal(err)
	}
	var named map[string]engine.Position
	if err := json.Unmarshal(data, &named); err != nil {
		b.Fatal(err)
	}
	placing := mustNew(b, "basic", 2, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for placing.Plies() < 20 {
		moves := placing.Moves(nil)
		placing.Play(moves[rng.IntN(len(moves))])
	}
	middle, late := named["middle"], named["late"]
	return []struct {
		name string
		s    *State
	}{
		{"placement", placing},
		{"movement-basic", mustNew(b, "basic", 2, &middle)},
		{"movement-advanced", mustNew(b, "advanced", 2, &middle)},
		{"late-advanced", mustNew(b, "advanced", 2, &late)},
	}
}

// BenchmarkMoves times one full legal move list.
func BenchmarkMoves(b *testing.B) {
	for _, p := range benchPositions(b) {
		b.Run(p.name, func(b *testing.B) {
			buf := make([]engine.Move, 0, 4096)
			n := len(p.s.Moves(buf))
			b.ReportAllocs()
			for b.Loop() {
				buf = p.s.Moves(buf[:0])
			}
			b.ReportMetric(float64(n), "moves/list")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/move")
		})
	}
}

// BenchmarkPlayUndo times Play followed by Undo over a movement position's
// moves.
func BenchmarkPlayUndo(b *testing.B) {
	for _, p := range benchPositions(b)[1:] {
		b.Run(p.name, func(b *testing.B) {
			moves := p.s.Moves(nil)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				p.s.Play(moves[i])
				p.s.Undo()
				if i++; i == len(moves) {
					i = 0
				}
			}
		})
	}
}

const playoutCap = 1000

// playout plays one random game to its end or playoutCap plies.
func playout(s *State, rng *rand.Rand, buf []engine.Move) {
	for s.status == engine.Playing && s.plies < playoutCap {
		moves := s.Moves(buf[:0])
		s.Play(moves[rng.IntN(len(moves))])
	}
}

// BenchmarkPlayout times random games from the start to the end (or the
// ply cap), undoing each afterwards.
func BenchmarkPlayout(b *testing.B) {
	for _, adv := range []bool{false, true} {
		for _, seats := range []int{2, 4} {
			b.Run(fmt.Sprintf("%s/%dp", variantName(adv), seats), func(b *testing.B) {
				s := mustNew(b, variantName(adv), seats, nil)
				rng := rand.New(rand.NewPCG(42, uint64(seats)))
				buf := make([]engine.Move, 0, 4096)
				plies := 0
				b.ReportAllocs()
				for b.Loop() {
					playout(s, rng, buf)
					plies += s.plies
					for s.plies > 0 {
						s.Undo()
					}
				}
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N)/sec, "playouts/s")
				b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(plies), "ns/ply")
			})
		}
	}
}

// TestPlayoutStats prints how random games end. It runs only with
// SIX_STATS set (to the number of games per configuration, default 10000):
//
//	SIX_STATS=10000 go test ./engine/six -run TestPlayoutStats -v
func TestPlayoutStats(t *testing.T) {
	env := os.Getenv("SIX_STATS")
	if env == "" {
		t.Skip("set SIX_STATS=<games> to run")
	}
	games, err := strconv.Atoi(env)
	if err != nil || games <= 0 {
		games = 10000
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| config | games | mean plies | median plies | line | triangle | ring | ≤5 left | double pass | cap %d | µs/game |\n", playoutCap)
	table.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, adv := range []bool{false, true} {
		for _, seats := range []int{2, 4} {
			s := mustNew(t, variantName(adv), seats, nil)
			rng := rand.New(rand.NewPCG(2024, uint64(seats)))
			buf := make([]engine.Move, 0, 4096)
			var ends [ByPasses + 2]int
			lens := make([]int, 0, games)
			total := 0
			begin := time.Now()
			for g := 0; g < games; g++ {
				playout(s, rng, buf)
				e := int(s.ending)
				if s.status == engine.Playing {
					e = int(ByPasses) + 1
				}
				ends[e]++
				lens = append(lens, s.plies)
				total += s.plies
				for s.plies > 0 {
					s.Undo()
				}
			}
			el := time.Since(begin)
			slices.Sort(lens)
			pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(games)) }
			fmt.Fprintf(&table, "| %s %dp | %d | %.1f | %d | %s | %s | %s | %s | %s | %s | %.0f |\n",
				variantName(adv), seats, games, float64(total)/float64(games), lens[games/2],
				pct(ends[ByLine]), pct(ends[ByTriangle]), pct(ends[ByRing]), pct(ends[ByFewer]),
				pct(ends[ByPasses]), pct(ends[ByPasses+1]), float64(el.Microseconds())/float64(games))
		}
	}
	t.Log("\n" + table.String())
}
