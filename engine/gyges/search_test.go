package gyges

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// TestRunSearch checks the chain search the package runs (in assembly on
// amd64) against chain.search, from every piece of the board for both
// movers, on the positions of seeded random games, with x.open and x.known
// carried from one start cell to the next as outcomes carries them.
func TestRunSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	buf := make([]engine.Move, 0, 4096)
	positions := 0
	for game := 0; game < 60; game++ {
		g := mustGame(t, "advanced", rowsPosition("321123", "321123", "south"))
		for g.Awaiting() == engine.AwaitMove && g.Plies() < 120 {
			occ := g.occ & boardMask
			for p := 0; p < 2; p++ {
				var x, y chain
				x.init(g, p)
				y.init(g, p)
				for s := occ; s != 0; s &= s - 1 {
					c := bits.TrailingZeros64(s)
					via := x.t.via[c]
					x.known &^= via
					y.known &^= via
					o := x.all &^ (1 << c)
					x.occ, y.occ = o, o
					got := x.runSearch(c, o)
					y.ends = 0
					y.search(c, y.h[c], 0, o)
					if got != y.ends {
						t.Fatalf("%s, %s from %v: runSearch %#x, search %#x", positionLine(g), seatNames[p], Cell(c), got, y.ends)
					}
					if x.known != y.known {
						t.Fatalf("%s, %s from %v: known %#x, search's %#x", positionLine(g), seatNames[p], Cell(c), x.known, y.known)
					}
					for k := y.known; k != 0; k &= k - 1 {
						if d := bits.TrailingZeros64(k); x.open[d] != y.open[d] {
							t.Fatalf("%s, %s from %v: open[%v] %#x, search's %#x", positionLine(g), seatNames[p], Cell(c), Cell(d), x.open[d], y.open[d])
						}
					}
					x.known &^= via
					y.known &^= via
				}
			}
			positions++
			enginetest.Step(g, rng, buf)
		}
	}
	if positions < 1000 {
		t.Fatalf("only %d positions", positions)
	}
}
