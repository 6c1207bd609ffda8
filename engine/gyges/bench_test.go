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

// BenchmarkMoves lists the moves from both home rows 3,2,1,1,2,3 (24 basic,
// 224 advanced moves), and from the 64 committed mid-game positions under
// the basic rules.
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
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
		})
	}
	b.Run("midgame-basic", func(b *testing.B) {
		benchLists(b, midgameGames(b, "basic"))
	})
}

// BenchmarkMidgameMoves lists the moves of the 64 mid-game positions of
// testdata/midgame.txt (advanced rules, about 218 moves each) in turn.
func BenchmarkMidgameMoves(b *testing.B) {
	benchLists(b, midgameGames(b, "advanced"))
}

// BenchmarkMidgameMoveCount runs the searches of BenchmarkMidgameMoves and
// counts their moves (MoveCount) without writing them: the like of a list
// of targets as bitboards per start piece.
func BenchmarkMidgameMoveCount(b *testing.B) {
	games := midgameGames(b, "advanced")
	b.ReportAllocs()
	total, i := 0, 0
	for b.Loop() {
		n, _ := games[i&63].MoveCount()
		total += n
		i++
	}
	b.ReportMetric(float64(total)/float64(i), "moves")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
}

// BenchmarkMidgameTargets fills the undecoded list (Targets: outcomes as
// bit sets per start piece, no move written) of the 64 mid-game positions
// in turn: the like of the Rust engine's undecoded list.
func BenchmarkMidgameTargets(b *testing.B) {
	games := midgameGames(b, "advanced")
	var t Targets
	b.ReportAllocs()
	total, i := 0, 0
	for b.Loop() {
		games[i&63].Targets(&t)
		total += t.Len()
		i++
	}
	b.ReportMetric(float64(total)/float64(i), "moves")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
}

// BenchmarkMidgameTargetsShared is BenchmarkMidgameTargets with one search
// state (chain) for all 64 positions, as the Rust engine's bench runs its 64
// boards with one MoveGen: each game keeps only its position, the state is
// set up anew for each list (countWith), and nothing of one list's searches
// is used by the next (TestTargetsShared). BenchmarkMidgameTargets, kept so
// that the earlier figures stay comparable, cycles through 64 states of
// some 2.5 KB, one per game.
func BenchmarkMidgameTargetsShared(b *testing.B) {
	games := midgameGames(b, "advanced")
	x := new(chain)
	var t Targets
	b.ReportAllocs()
	total, i := 0, 0
	for b.Loop() {
		games[i&63].targets(x, &t)
		total += t.Len()
		i++
	}
	b.ReportMetric(float64(total)/float64(i), "moves")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
}

func benchLists(b *testing.B, games []*Game) {
	buf := make([]engine.Move, 0, 4096)
	b.ReportAllocs()
	total, i := 0, 0
	for b.Loop() {
		total += len(games[i&63].Moves(buf))
		i++
	}
	b.ReportMetric(float64(total)/float64(i), "moves")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
}

// perft3 is enginetest.Perft to depth 3 on the concrete type, with the
// caller's buffers (so it allocates nothing): a full move list at every
// node, the leaves counted as the length of the lists at depth 1.
func perft3(g *Game, bufs *[3][]engine.Move) uint64 {
	var n uint64
	for _, m := range g.Moves(bufs[2]) {
		g.Play(m)
		if g.status != engine.Playing {
			n++
		} else {
			for _, m2 := range g.Moves(bufs[1]) {
				g.Play(m2)
				if g.status != engine.Playing {
					n++
				} else {
					n += uint64(len(g.Moves(bufs[0])))
				}
				g.Undo()
			}
		}
		g.Undo()
	}
	return n
}

// BenchmarkPerft3 is perft 3 from both home rows 3,2,1,1,2,3 with advanced
// rules (16 734 550 leaves).
func BenchmarkPerft3(b *testing.B) {
	g := mustGame(b, "advanced", rowsPosition("321123", "321123", "south"))
	var bufs [3][]engine.Move
	for i := range bufs {
		bufs[i] = make([]engine.Move, 0, 4096)
	}
	var nodes uint64
	b.ReportAllocs()
	for b.Loop() {
		nodes += perft3(g, &bufs)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkPlayout plays random games with advanced rules from both home
// rows 3,2,1,1,2,3 to the end or 200 plies, as enginetest.Playout does
// (with RandomMove when the game has it).
func BenchmarkPlayout(b *testing.B) {
	benchPlayout(b, "advanced", rowsPosition("321123", "321123", "south"))
}

// BenchmarkPlayoutVariants is BenchmarkPlayout in both variants, from the
// 3,2,1,1,2,3 rows and from the empty board (the setup included).
func BenchmarkPlayoutVariants(b *testing.B) {
	for _, v := range []string{"basic", "advanced"} {
		for _, start := range []struct {
			name string
			pos  *engine.Position
		}{{"rows321123", rowsPosition("321123", "321123", "south")}, {"setup", nil}} {
			b.Run(start.name+"-"+v, func(b *testing.B) { benchPlayout(b, v, start.pos) })
		}
	}
}

func benchPlayout(b *testing.B, variant string, start *engine.Position) {
	root := mustGame(b, variant, start)
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
	b.ReportMetric(float64(plies)/float64(b.N), "plies/game")
}
