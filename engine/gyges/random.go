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
func (g *Game) count(mc *moveCounts) { g.countWith(&g.x, mc) }

// countWith is count with the search state x, which need not be g's:
// x.init sets it up for g's board and clears x.known, so nothing of the
// searches of another position is used (BenchmarkMidgameTargetsShared runs
// the 64 mid-game positions with one x, as the Rust engine's bench runs
// its boards with one MoveGen). It reports whether the mover must pass
// (for Targets, which is then small enough to be inlined).
func (g *Game) countWith(x *chain, mc *moveCounts) (pass bool) {
	mc.total, mc.n, mc.place = 0, 0, false
	if g.status != engine.Playing {
		return false
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
		return false
	}
	occ := g.occ & boardMask
	r, dr := 0, 1
	if p == NorthSeat {
		r, dr = rows-1, -1
	}
	x.init(g, p)
	// The displacement cells of a replace from s are the free cells not
	// behind the opponent's nearest row, s included: the row is the
	// board's, unless s is the opponent side's last piece (dispCells).
	free, edge := ^occ&boardMask, bits.Len64(occ)-1
	if p == SouthSeat {
		free &= atOrBelow[edge/cols%rows]
	} else {
		edge = bits.TrailingZeros64(occ)
		free &= atOrAbove[edge/cols%rows]
	}
	for ; r >= 0 && r < rows; r += dr {
		n := 0
		for s := occ & rowMask[r]; s != 0 && n < cols; s &= s - 1 {
			c := Cell(bits.TrailingZeros64(s))
			// x.outcomes(c), written out: a call less per start piece.
			via := x.t.via[c]
			x.known &^= via
			o := x.all &^ (1 << c)
			x.occ = o
			all := x.runSearch(int(c), o)
			x.known &^= via
			ends, lands := all&^o&^(1<<c), all&o
			k := bits.OnesCount64(ends)
			var dc uint64
			if g.advanced && lands != 0 {
				dc = free | 1<<c
				if int(c) == edge {
					dc = g.dispCells(p, c)
				}
				k += bits.OnesCount64(lands) * bits.OnesCount64(dc)
			}
			mc.from[n], mc.ends[n], mc.lands[n], mc.disp[n], mc.count[n] = c, ends, lands, dc, k
			mc.total += k
			n++
		}
		if mc.total > 0 {
			mc.n = n
			return false
		}
	}
	return true
}

// search runs the chain search from mc.from[k] and sets the outcomes and
// the number of moves of that start cell.
func (mc *moveCounts) search(g *Game, x *chain, k int) {
	k %= cols
	c := mc.from[k]
	ends, lands := x.outcomes(c)
	n := bits.OnesCount64(ends)
	var dc uint64
	if g.advanced && lands != 0 {
		dc = g.dispCells(x.p, c)
		n += bits.OnesCount64(lands) * bits.OnesCount64(dc)
	}
	mc.ends[k], mc.lands[k], mc.disp[k], mc.count[k] = ends, lands, dc, n
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
	return mc.from1(k, i)
}

// from1 returns the i-th move (0 ≤ i < mc.count[k]) from mc.from[k], in the
// order of Moves.
func (mc *moveCounts) from1(k, i int) engine.Move {
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
// the game is over. It allocates nothing, and writes only the move drawn.
//
// When the row to move from holds several pieces, it draws by rejection
// rather than running the chain search of every piece: each start cell s
// gets as many slots as it could have moves at most (every empty cell and
// the goal, then a replace for every other piece and every cell the
// displaced piece may go to); a slot is drawn uniformly, s is searched if
// it was not yet, and the draw is kept when the slot is one of s's moves,
// its i-th in the order of Moves, and made again otherwise. Every legal
// move has one slot, so a kept draw is uniform over them; on average the
// draws run fewer searches than the row has pieces. Once every piece of
// the row was searched it draws among their moves directly; a row without
// a legal move is left for the rows after it, as Moves does.
func (g *Game) RandomMove(rng *rand.Rand) engine.Move {
	if g.status != engine.Playing {
		return engine.NoMove
	}
	if g.inH[0]|g.inH[1] == 0 {
		if m := g.randomFromRow(rng); m != engine.NoMove {
			return m
		}
	}
	var mc moveCounts
	g.count(&mc)
	if mc.total == 0 {
		return Pass
	}
	return mc.at(rng.IntN(mc.total))
}

// randomFromRow draws a move from the mover's nearest row by rejection (see
// RandomMove), or returns engine.NoMove when no piece of that row has a
// legal move.
func (g *Game) randomFromRow(rng *rand.Rand) engine.Move {
	p := int(g.toMove)
	occ := g.occ & boardMask
	var row uint64
	if p == SouthSeat {
		row = rowMask[bits.TrailingZeros64(occ)/cols%rows]
	} else {
		row = rowMask[(bits.Len64(occ)-1)/cols%rows]
	}
	row &= occ
	var mc moveCounts
	x := g.searcher(p)
	// The most moves a start cell can have: every empty cell (the start
	// cell is never an end) and the goal, then a replace for every other
	// piece and every cell its displaced piece may go to.
	ends := bits.OnesCount64(^occ&boardMask) + 1
	pieces := bits.OnesCount64(occ) - 1
	var bound [cols]int
	slots, n := 0, 0
	for s := row; s != 0 && n < cols; s &= s - 1 {
		c := Cell(bits.TrailingZeros64(s))
		mc.from[n] = c
		bound[n] = ends
		if g.advanced {
			bound[n] += pieces * bits.OnesCount64(g.dispCells(p, c))
		}
		slots += bound[n]
		n++
	}
	mc.n = n
	var searched uint
	for searched != 1<<n-1 {
		i := rng.IntN(slots)
		k := 0
		for ; k < n-1 && i >= bound[k]; k++ {
			i -= bound[k]
		}
		if searched&(1<<k) == 0 {
			mc.search(g, x, k)
			searched |= 1 << k
		}
		if i < mc.count[k%cols] {
			return mc.from1(k, i)
		}
	}
	// Every piece of the row searched: draw among their moves.
	for k := 0; k < n; k++ {
		mc.total += mc.count[k]
	}
	if mc.total == 0 {
		return engine.NoMove
	}
	return mc.at(rng.IntN(mc.total))
}
