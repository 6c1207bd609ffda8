package gyges

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// rowsPosition sets both home rows to the given heights (a to f).
func rowsPosition(south, north, toMove string) *engine.Position {
	pos := &engine.Position{ToMove: toMove, Pieces: map[string]string{}}
	for i := 0; i < 6; i++ {
		col := string(rune('a' + i))
		pos.Pieces[col+"1"] = south[i : i+1]
		pos.Pieces[col+"6"] = north[i : i+1]
	}
	return pos
}

func mustGame(tb testing.TB, variant string, pos *engine.Position) *Game {
	tb.Helper()
	g, err := NewGame(engine.Config{Variant: variant, Start: pos})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func BenchmarkMoves(b *testing.B) {
	for _, v := range []string{"basic", "advanced"} {
		b.Run("rows321123-"+v, func(b *testing.B) {
			g := mustGame(b, v, rowsPosition("321123", "321123", "south"))
			buf := make([]engine.Move, 0, 4096)
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				n = len(g.Moves(buf))
			}
			b.ReportMetric(float64(n), "moves")
		})
		b.Run("midgame-"+v, func(b *testing.B) {
			// Positions reached by random play from the 3,2,1,1,2,3 start.
			rng := rand.New(rand.NewPCG(1, 2))
			var games []*Game
			buf := make([]engine.Move, 0, 4096)
			for len(games) < 64 {
				g := mustGame(b, v, rowsPosition("321123", "321123", "south"))
				plies := 4 + rng.IntN(30)
				for g.Plies() < plies && enginetest.Step(g, rng, buf) {
				}
				if g.Awaiting() == engine.AwaitMove {
					games = append(games, g)
				}
			}
			b.ReportAllocs()
			total, i := 0, 0
			for b.Loop() {
				total += len(games[i&63].Moves(buf))
				i++
			}
			b.ReportMetric(float64(total)/float64(i), "moves")
		})
	}
}

// BenchmarkPlayout plays random games to the end or 200 plies: from the
// 3,2,1,1,2,3 rows, and from the empty board (the setup included).
func BenchmarkPlayout(b *testing.B) {
	for _, v := range []string{"basic", "advanced"} {
		for name, start := range map[string]*engine.Position{
			"rows321123": rowsPosition("321123", "321123", "south"),
			"setup":      nil,
		} {
			b.Run(name+"-"+v, func(b *testing.B) {
				root := mustGame(b, v, start)
				rng := rand.New(rand.NewPCG(3, 4))
				buf := make([]engine.Move, 0, 4096)
				hist := make([]undo, 0, 256)
				g := &Game{}
				plies := 0
				b.ReportAllocs()
				for b.Loop() {
					*g = *root
					g.hist = hist[:0]
					plies += enginetest.Playout(g, rng, buf, 200)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
				b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
			})
		}
	}
}
