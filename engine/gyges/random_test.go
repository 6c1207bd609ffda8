package gyges

import (
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
