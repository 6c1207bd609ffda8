package gyges

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// TestMoveAt checks that the i-th move RandomMove can draw is the i-th move
// of Moves, for every i, on the positions of random games (setup included)
// and the mid-game benchmark positions: RandomMove draws an index uniformly,
// so it draws every legal move, with the same probability, and nothing else.
func TestMoveAt(t *testing.T) {
	check := func(g *Game) {
		var mc moveCounts
		g.count(&mc)
		moves := g.Moves(nil)
		if mc.total == 0 {
			if g.status == engine.Playing && (len(moves) != 1 || moves[0] != Pass) {
				t.Fatalf("%v: count 0, moves %d", g.Position().Pieces, len(moves))
			}
			return
		}
		if mc.total != len(moves) {
			t.Fatalf("%v, %s to move: count %d, %d moves", g.Position().Pieces, seatNames[g.toMove], mc.total, len(moves))
		}
		for i, m := range moves {
			if got := mc.at(i); got != m {
				t.Fatalf("%v, %s to move: move %d is %s, want %s", g.Position().Pieces, seatNames[g.toMove], i, engine.MoveString(g, got), engine.MoveString(g, m))
			}
		}
	}
	n := 0
	for _, variant := range []string{"basic", "advanced"} {
		randomGames(t, variant, enginetest.Scale(60), 200, 17, func(g *Game) { check(g); n++ })
		for _, g := range midgameGames(t, variant) {
			check(g)
			n++
		}
	}
	t.Logf("%d positions", n)
}

func TestRandomMove(t *testing.T) {
	for _, variant := range []string{"basic", "advanced"} {
		for name, start := range map[string]*engine.Position{
			"setup":      nil,
			"rows321123": rowsPosition("321123", "321123", "south"),
			"asym":       rowsPosition("123321", "231213", "north"),
		} {
			t.Run(variant+"/"+name, func(t *testing.T) {
				enginetest.CheckRandomMove(t, mustGame(t, variant, start), 3, 120, 5)
			})
		}
	}
	// Pass, and no move once the game is over.
	rng := rand.New(rand.NewPCG(1, 1))
	g := mustGame(t, "basic", pos("south", ""))
	if m := g.Moves(nil); len(m) != 1 || m[0] != Pass {
		t.Fatalf("want a forced pass, got %d moves", len(m))
	}
	if m := g.RandomMove(rng); m != Pass {
		t.Fatalf("RandomMove %v, want pass", m)
	}
	g.Play(Pass)
	g.Play(g.RandomMove(rng))
	if g.Awaiting() != engine.AwaitNone {
		t.Fatal("two passes did not end the game")
	}
	if m := g.RandomMove(rng); m != engine.NoMove {
		t.Fatalf("RandomMove after the end: %v", m)
	}
	g = mustGame(t, "advanced", rowsPosition("321123", "321123", "south"))
	if n := testing.AllocsPerRun(100, func() { _ = g.RandomMove(rng) }); n != 0 {
		t.Errorf("RandomMove allocates %v times", n)
	}
}

// TestRandomMoveUniform checks that RandomMove draws the legal moves with
// equal frequencies (a chi-square test, seeded) on positions whose nearest
// row holds several pieces, where it draws by rejection, and that the
// draws of each start cell come in proportion to its moves.
func TestRandomMoveUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	perMove := enginetest.Scale(100)
	var chi2, df float64
	positions := 0
	check := func(g *Game) {
		moves := g.Moves(nil)
		index := map[engine.Move]int{}
		for i, m := range moves {
			index[m] = i
		}
		freq := make([]int, len(moves))
		n := perMove * len(moves)
		for range n {
			m := g.RandomMove(rng)
			i, ok := index[m]
			if !ok {
				t.Fatalf("%v: RandomMove gave illegal %s", g.Position().Pieces, engine.MoveString(g, m))
			}
			freq[i]++
		}
		var c float64
		want := float64(perMove)
		for _, f := range freq {
			c += (float64(f) - want) * (float64(f) - want) / want
		}
		d := float64(len(moves) - 1)
		// Six standard deviations above the mean of the distribution.
		if c > d+6*math.Sqrt(2*d) {
			t.Errorf("%v, %s to move: chi-square %.0f for %.0f degrees of freedom", g.Position().Pieces, seatNames[g.toMove], c, d)
		}
		chi2 += c
		df += d
		positions++
	}
	for _, variant := range []string{"basic", "advanced"} {
		check(mustGame(t, variant, rowsPosition("321123", "321123", "south")))
		check(mustGame(t, variant, rowsPosition("123321", "231213", "north")))
		k := 0
		randomGames(t, variant, 6, 80, 23, func(g *Game) {
			if g.Setup() || g.status != engine.Playing || len(g.Moves(nil)) < 2 {
				return
			}
			occ := g.occ & boardMask
			row := rowMask[bits.TrailingZeros64(occ)/cols]
			if g.toMove == NorthSeat {
				row = rowMask[(bits.Len64(occ)-1)/cols]
			}
			if bits.OnesCount64(occ&row) < 2 {
				return
			}
			if k++; k%9 == 0 {
				check(g)
			}
		})
	}
	// All the positions together: within five standard deviations.
	if chi2 > df+5*math.Sqrt(2*df) {
		t.Errorf("%d positions: chi-square %.0f for %.0f degrees of freedom", positions, chi2, df)
	}
	t.Logf("%d positions: chi-square %.0f for %.0f degrees of freedom", positions, chi2, df)
}
