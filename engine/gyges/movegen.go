package gyges

import (
	"math/bits"
	"slices"

	"github.com/tabla-board/tabla/engine"
)

// chain is the state of one bounce-chain search from one start cell.
type chain struct {
	t    *tables
	h    *[numCells + 2]uint8
	p    int    // the mover
	occ  uint64 // occupied cells, the start cell left out (it counts as empty)
	ends uint64 // cells where a segment can end: empty cells, the goal, pieces
}

// search follows every segment of length l from c, given the boundaries
// already crossed and the pieces no segment has ended on yet. Outcomes are
// collected as a bit set, so a chain reaching an outcome found before adds
// nothing. The paths no piece blocks are found as a bit set, from the paths
// through each occupied cell nearby.
func (x *chain) search(c int, l uint8, used, bounce uint64) {
	g := &x.t.grp[c*3+int(l)-1]
	open := g.allowed[x.p]
	for o := g.inter & x.occ; o != 0; o &= o - 1 {
		open &^= x.t.thr[int(g.thr)+bits.TrailingZeros64(o)]
	}
	ps := (*[64]path)(x.t.paths[g.off:])
	var ends uint64
	for ; open != 0; open &= open - 1 {
		p := &ps[bits.TrailingZeros64(open)&63]
		// No branch on the boundaries: whether a path crosses one crossed
		// before is hard to predict.
		_, crossed := bits.Sub64(0, p.edges&used, 0) // 1 when p crosses one
		end := p.end & (crossed - 1)
		ends |= end
		if end&bounce != 0 {
			e := bits.TrailingZeros64(end)
			x.search(e, x.h[e], used|p.edges, bounce&^end)
		}
	}
	x.ends |= ends
}

// outcomes runs the chain search from cell s for player p and returns the
// cells where a move from s can end (an empty cell or the target goal) and the
// pieces a segment can land on. A piece ended on twice in a chain was landed
// on the first time, so every piece a segment ends on is a landing.
func (g *Game) outcomes(p int, s Cell) (ends, lands uint64) {
	occ := g.occ &^ (1 << s) & boardMask
	x := chain{t: g.t, h: &g.h, p: p, occ: occ}
	x.search(int(s), g.h[s], 0, occ)
	return x.ends &^ occ &^ (1 << s), x.ends & occ
}

// dispCells is where the displaced piece of a replace from s may go: empty
// grid cells (s included) not behind the opponent's nearest row, that row
// computed with the mover on its landing cell and the displaced piece off the
// board, i.e. on the board as it is less s. The mover's piece is on the
// board, so the opponent always has a nearest row.
func (g *Game) dispCells(p int, s Cell) uint64 {
	after := g.occ &^ (1 << s) & boardMask
	free := ^after & boardMask
	if p == SouthSeat {
		// The opponent is north: nothing above north's nearest row.
		return free & atOrBelow[(bits.Len64(after)-1)/cols]
	}
	return free & atOrAbove[bits.TrailingZeros64(after)/cols]
}

// appendFrom appends the moves starting at s.
func (g *Game) appendFrom(buf []engine.Move, p int, s Cell) []engine.Move {
	ends, lands := g.outcomes(p, s)
	base := engine.Move(KindMove)<<kindShift | engine.Move(s)<<fromShift
	for ; ends != 0; ends &= ends - 1 {
		buf = append(buf, base|engine.Move(bits.TrailingZeros64(ends))<<toShift)
	}
	if !g.advanced || lands == 0 {
		return buf
	}
	// Every landing cell takes the same displacement cells.
	var dm [numCells]engine.Move
	nd := 0
	for d := g.dispCells(p, s); d != 0; d &= d - 1 {
		dm[nd] = engine.Move(bits.TrailingZeros64(d)) << dispShift
		nd++
	}
	if nd == 0 {
		return buf
	}
	ds := dm[:nd]
	start := len(buf)
	buf = slices.Grow(buf, bits.OnesCount64(lands)*nd)
	base = engine.Move(KindReplace)<<kindShift | engine.Move(s)<<fromShift
	for ; lands != 0; lands &= lands - 1 {
		b := base | engine.Move(bits.TrailingZeros64(lands))<<toShift
		out := buf[start : start+nd]
		for i, d := range ds {
			out[i] = b | d
		}
		start += nd
	}
	return buf[:start]
}

// Moves appends the legal moves to buf[:0].
func (g *Game) Moves(buf []engine.Move) []engine.Move {
	buf = buf[:0]
	if g.status != engine.Playing {
		return buf
	}
	p := int(g.toMove)
	if g.inH[0]|g.inH[1] != 0 {
		home := rowMask[0]
		if p == NorthSeat {
			home = rowMask[rows-1]
		}
		free := home &^ g.occ
		for h := 1; h <= 3; h++ {
			if g.hand[p][h] == 0 {
				continue
			}
			base := engine.Move(KindPlace)<<kindShift | engine.Move(h)<<hShift
			for f := free; f != 0; f &= f - 1 {
				buf = append(buf, base|engine.Move(bits.TrailingZeros64(f))<<toShift)
			}
		}
		return buf
	}
	occ := g.occ & boardMask
	// Rows from the mover's nearest outwards; the first row with a legal
	// move is the one to move from.
	r, dr := 0, 1
	if p == NorthSeat {
		r, dr = rows-1, -1
	}
	for ; r >= 0 && r < rows; r += dr {
		for s := occ & rowMask[r]; s != 0; s &= s - 1 {
			buf = g.appendFrom(buf, p, Cell(bits.TrailingZeros64(s)))
		}
		if len(buf) > 0 {
			return buf
		}
	}
	return append(buf, Pass)
}

// movableRow is the row (0-based) the mover must move from, -1 when they
// have no legal move (or the game is not in its movement phase).
func (g *Game) movableRow() int {
	if g.status != engine.Playing || g.inH[0]|g.inH[1] != 0 {
		return -1
	}
	p := int(g.toMove)
	occ := g.occ & boardMask
	r, dr := 0, 1
	if p == NorthSeat {
		r, dr = rows-1, -1
	}
	for ; r >= 0 && r < rows; r += dr {
		for s := occ & rowMask[r]; s != 0; s &= s - 1 {
			c := Cell(bits.TrailingZeros64(s))
			ends, lands := g.outcomes(p, c)
			if ends != 0 || (g.advanced && lands != 0 && g.dispCells(p, c) != 0) {
				return r
			}
		}
	}
	return -1
}
