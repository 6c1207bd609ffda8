//go:build !amd64 || !gygesasm || purego

package gyges

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// TestDeepSearch checks the Go build's two searches against recSearch, as
// TestRunSearch does, from every piece of the positions of seeded random
// games: deepSearch alone, and search, which hands a search that fills its
// stack of nodes to follow over to deepSearch. Some of the searches must
// hand over (seen in deepSearch's stack, cleared before each search), so
// that the hand-over is checked too.
func TestDeepSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 9))
	buf := make([]engine.Move, 0, 4096)
	searches, handed := 0, 0
	for game := 0; game < 60; game++ {
		g := mustGame(t, "advanced", rowsPosition("321123", "321123", "south"))
		for g.Awaiting() == engine.AwaitMove && g.Plies() < 120 {
			occ := g.occ & boardMask
			for p := 0; p < 2; p++ {
				var x, y, z chain
				x.init(g, p)
				y.init(g, p)
				z.init(g, p)
				for s := occ; s != 0; s &= s - 1 {
					c := bits.TrailingZeros64(s)
					o := x.all &^ (1 << c)
					x.occ, y.occ, z.occ = o, o, o
					x.known, y.known, z.known = 0, 0, 0
					x.arch.stack = [maxFrames]frame{}
					got := x.search(c, o)
					want := y.recSearch(c, 0, o)
					deep := z.deepSearch(c, o)
					if got != want || deep != want {
						t.Fatalf("%s, %s from %v: search %#x, deepSearch %#x, recSearch %#x", positionLine(g), seatNames[p], Cell(c), got, deep, want)
					}
					searches++
					if x.arch.stack != ([maxFrames]frame{}) {
						handed++
					}
				}
			}
			enginetest.Step(g, rng, buf)
		}
	}
	t.Logf("%d searches, %d handed over to deepSearch", searches, handed)
	if handed == 0 {
		t.Fatalf("none of %d searches handed over to deepSearch", searches)
	}
}
