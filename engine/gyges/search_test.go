package gyges

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// recSearch is the chain search as a plain recursion over (cell,
// boundaries crossed, pieces not landed on), every path tested against the
// boundaries crossed, with the same cache of unblocked paths per piece as
// chain.search: the search the package ran before chain.search had a stack
// and the boundaries' paths (group.ep), kept to check both.
func (x *chain) recSearch(c int, used, bounce uint64) uint64 {
	g := &x.t.grp[c*3+int(x.h[c])]
	var open uint64
	if x.known&(1<<c) != 0 {
		open = x.open[c]
	} else {
		open = g.allowed[x.p]
		for o := g.inter & x.occ; o != 0; o &= o - 1 {
			open &= g.tp[bits.TrailingZeros64(o)] // stored complemented
		}
		x.open[c] = open
		x.known |= 1 << c
	}
	var ends uint64
	for ; open != 0; open &= open - 1 {
		p := g.ps[bits.TrailingZeros64(open)]
		if p.edges&used != 0 {
			continue
		}
		ends |= p.end
		if p.end&bounce != 0 {
			e := bits.TrailingZeros64(p.end)
			ends |= x.recSearch(e, used|p.edges, bounce&^p.end)
		}
	}
	return ends
}

// TestRunSearch checks the chain search the package runs (in assembly on
// amd64 with -tags gygesasm, chain.search in Go otherwise) against
// recSearch, from every piece of the board for both movers, on the
// positions of seeded random games, with x.open and x.known carried from
// one start cell to the next as outcomes carries them.
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
					want := y.recSearch(c, 0, o)
					if got != want {
						t.Fatalf("%s, %s from %v: runSearch %#x, recSearch %#x", positionLine(g), seatNames[p], Cell(c), got, want)
					}
					if x.known != y.known {
						t.Fatalf("%s, %s from %v: known %#x, recSearch's %#x", positionLine(g), seatNames[p], Cell(c), x.known, y.known)
					}
					for k := y.known; k != 0; k &= k - 1 {
						if d := bits.TrailingZeros64(k); x.open[d] != y.open[d] {
							t.Fatalf("%s, %s from %v: open[%v] %#x, recSearch's %#x", positionLine(g), seatNames[p], Cell(c), Cell(d), x.open[d], y.open[d])
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
