package gyges

import (
	"math/bits"
	"math/rand/v2"

	"github.com/tabla-board/tabla/engine"
)

var _ engine.RandomMover = (*Game)(nil)

// moveCounts is what RandomMove needs to name the i-th legal move of the
// list Moves would write without writing it: the outcomes of every start
// cell of the row to move from, in the order of Moves.
type moveCounts struct {
	total int
	n     int // start cells
	from  [cols]Cell
	ends  [cols]uint64
	lands [cols]uint64
	disp  [cols]uint64 // displacement cells of the replaces (advanced, lands != 0)
	count [cols]int
	// setup: placements
	place     bool
	free      uint64  // the free cells of the home row
	heights   [3]int8 // the heights in hand
	nHeights  int
	freeCount int
}

// count fills mc for the position. mc.total is 0 when the game is over, and
// when the mover must pass.
func (g *Game) count(mc *moveCounts) {
	mc.total, mc.n, mc.place = 0, 0, false
	if g.status != engine.Playing {
		return
	}
	p := int(g.toMove)
	if g.inH[0]|g.inH[1] != 0 {
		home := rowMask[0]
		if p == NorthSeat {
			home = rowMask[rows-1]
		}
		mc.place = true
		mc.free = home &^ g.occ
		mc.freeCount = bits.OnesCount64(mc.free)
		mc.nHeights = 0
		for h := 1; h <= 3; h++ {
			if g.hand[p][h] != 0 {
				mc.heights[mc.nHeights] = int8(h)
				mc.nHeights++
			}
		}
		mc.total = mc.nHeights * mc.freeCount
		return
	}
	occ := g.occ & boardMask
	r, dr := 0, 1
	if p == NorthSeat {
		r, dr = rows-1, -1
	}
	for ; r >= 0 && r < rows; r += dr {
		n := 0
		for s := occ & rowMask[r]; s != 0 && n < cols; s &= s - 1 {
			c := Cell(bits.TrailingZeros64(s))
			ends, lands := g.outcomes(p, c)
			k := bits.OnesCount64(ends)
			var dc uint64
			if g.advanced && lands != 0 {
				dc = g.dispCells(p, c)
				k += bits.OnesCount64(lands) * bits.OnesCount64(dc)
			}
			mc.from[n], mc.ends[n], mc.lands[n], mc.disp[n], mc.count[n] = c, ends, lands, dc, k
			mc.total += k
			n++
		}
		if mc.total > 0 {
			mc.n = n
			return
		}
	}
}

// nth returns the cell of the i-th set bit (from 0) of set.
func nth(set uint64, i int) Cell {
	for ; i > 0; i-- {
		set &= set - 1
	}
	return Cell(bits.TrailingZeros64(set))
}

// at returns the i-th move (0 ≤ i < mc.total) of the list Moves writes.
func (mc *moveCounts) at(i int) engine.Move {
	if mc.place {
		h := mc.heights[i/mc.freeCount%3]
		return Place(int(h), nth(mc.free, i%mc.freeCount))
	}
	k := 0
	for ; k < mc.n-1 && i >= mc.count[k]; k++ {
		i -= mc.count[k]
	}
	k %= cols
	s, ends := mc.from[k], mc.ends[k]
	ne := bits.OnesCount64(ends)
	if i < ne {
		return Step(s, nth(ends, i))
	}
	i -= ne
	dc := mc.disp[k]
	nd := bits.OnesCount64(dc)
	return Replace(s, nth(mc.lands[k], i/nd), nth(dc, i%nd))
}

// RandomMove returns a uniformly random legal move, or engine.NoMove when
// the game is over. It runs the chain searches of the row to move from, as
// Moves does, but writes only the move drawn. It allocates nothing.
func (g *Game) RandomMove(rng *rand.Rand) engine.Move {
	if g.status != engine.Playing {
		return engine.NoMove
	}
	var mc moveCounts
	g.count(&mc)
	if mc.total == 0 {
		return Pass
	}
	return mc.at(rng.IntN(mc.total))
}
