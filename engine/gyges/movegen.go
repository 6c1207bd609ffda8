package gyges

import (
	"math/bits"
	"slices"

	"github.com/tabla-board/tabla/engine"
)

// chain is the state of the bounce-chain searches from the start cells of
// one position.
type chain struct {
	t   *tables
	h   *[numCells + 2]uint8
	p   int    // the mover
	all uint64 // occupied cells
	// The search from one start cell.
	occ uint64 // occupied cells, the start cell left out (it counts as empty)
	// open[c] are the paths of the piece on c that no piece blocks, for
	// the cells in known: a chain often comes back to a piece by another
	// route, and a search from another start cell too. Only the pieces
	// with a path through the start cell see it empty; they are known for
	// that search alone.
	known uint64
	open  [65]uint64 // 65, not numCells: indexed by a count of trailing zeros with no check
	arch  chainArch  // what the search of the build keeps besides (search_*.go)
}

// init starts the searches of player p on g's board.
func (x *chain) init(g *Game, p int) {
	x.t, x.h, x.p, x.all, x.known = g.t, &g.h, p, g.occ&boardMask, 0
}

// searcher returns g's chain, set up for the searches of player p. The
// chain is kept in g rather than declared per call: a fresh one would be
// zeroed every time (over a kilobyte in the Go build: some 100 instructions
// a list when it was 850 bytes), and
// nothing in it outlives x.known, which init clears. A Game is not for
// concurrent use, and the callers never nest.
func (g *Game) searcher(p int) *chain {
	x := &g.x
	x.init(g, p)
	return x
}

// outcomes runs the chain search from cell s and returns the cells where a
// move from s can end (an empty cell or the target goal) and the pieces a
// segment can land on. A piece ended on twice in a chain was landed on the
// first time, so every piece a segment ends on is a landing.
func (x *chain) outcomes(s Cell) (ends, lands uint64) {
	// The pieces with a path through s see it empty in this search only.
	via := x.t.via[s]
	x.known &^= via
	occ := x.all &^ (1 << s)
	x.occ = occ
	all := x.runSearch(int(s), occ)
	x.known &^= via
	return all &^ occ &^ (1 << s), all & occ
}

// outcomes runs the chain search from cell s for player p.
func (g *Game) outcomes(p int, s Cell) (ends, lands uint64) {
	return g.searcher(p).outcomes(s)
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

// appendFrom appends the moves starting at s: the steps to every end cell,
// then for every landing cell the replaces to every displacement cell.
// The moves are written by functions of their own that call nothing, so
// their loops keep their values in registers (written here, after the
// slice's growth, they reloaded two values from the stack on every move).
func (g *Game) appendFrom(buf []engine.Move, x *chain, p int, s Cell) []engine.Move {
	// x.outcomes(s), written out: a call less per start piece.
	via := x.t.via[s]
	x.known &^= via
	o := x.all &^ (1 << s)
	x.occ = o
	all := x.runSearch(int(s), o)
	x.known &^= via
	ends, lands := all&^o&^(1<<s), all&o
	ne, nr, nd := bits.OnesCount64(ends), 0, 0
	var dc uint64
	if g.advanced && lands != 0 {
		dc = g.dispCells(p, s)
		nd = bits.OnesCount64(dc)
		nr = bits.OnesCount64(lands) * nd
	}
	n := len(buf)
	buf = slices.Grow(buf, ne+nr)[:n+ne+nr]
	writeSteps(buf[n:n+ne], engine.Move(KindMove)<<kindShift|engine.Move(s)<<fromShift, ends)
	if nr == 0 {
		return buf
	}
	n += ne
	writeReplaces(buf[n:n+nr], nd, engine.Move(KindReplace)<<kindShift|engine.Move(s)<<fromShift, lands, dc)
	return buf
}

// writeSteps writes base | c<<toShift for every cell c of ends into out,
// which is as long as ends has bits. It is not inlined: in appendFrom its
// loop would reload spilled values again.
//
//go:noinline
func writeSteps(out []engine.Move, base engine.Move, ends uint64) {
	k := 0
	for ; ends != 0; ends &= ends - 1 {
		out[k] = base | engine.Move(bits.TrailingZeros64(ends))<<toShift
		k++
	}
}

// writeReplaces writes into out (nd times as long as lands has bits) the
// replaces base | l<<toShift | d<<dispShift for every landing l of lands
// and each of the nd displacement cells d of dc. Every landing takes the
// same displacement cells, so the replaces of the first landing are written
// from the cells, those of the others from the first's, with the landing
// field changed.
func writeReplaces(out []engine.Move, nd int, base engine.Move, lands, dc uint64) {
	first := engine.Move(bits.TrailingZeros64(lands))
	base |= first << toShift
	ds := out[:nd]
	k := 0
	for ; dc != 0; dc &= dc - 1 {
		ds[k] = base | engine.Move(bits.TrailingZeros64(dc))<<dispShift
		k++
	}
	for n := nd; n < len(out); n += nd {
		lands &= lands - 1
		b := (first ^ engine.Move(bits.TrailingZeros64(lands))) << toShift
		out := out[n : n+nd : n+nd]
		i := 0
		for ; i+8 <= nd; i += 8 {
			s, o := ds[i:i+8:i+8], out[i:i+8:i+8]
			o[0], o[1], o[2], o[3] = b^s[0], b^s[1], b^s[2], b^s[3]
			o[4], o[5], o[6], o[7] = b^s[4], b^s[5], b^s[6], b^s[7]
		}
		if i+4 <= nd {
			s, o := ds[i:i+4:i+4], out[i:i+4:i+4]
			o[0], o[1], o[2], o[3] = b^s[0], b^s[1], b^s[2], b^s[3]
			i += 4
		}
		for ; i < nd; i++ {
			out[i] = b ^ ds[i]
		}
	}
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
	x := g.searcher(p)
	for ; r >= 0 && r < rows; r += dr {
		for s := occ & rowMask[r]; s != 0; s &= s - 1 {
			buf = g.appendFrom(buf, x, p, Cell(bits.TrailingZeros64(s)))
		}
		if len(buf) > 0 {
			return buf
		}
	}
	return append(buf, Pass)
}

// MoveCount is how many moves Moves would list in the movement phase (1 for
// a pass) and whether one of them ends on a goal, found by the same searches
// without writing the moves. It is for evaluations that only count: the
// replaces of an advanced game, most of the list, are counted as landings
// times displacement cells. It is (0, false) in the setup phase and when
// the game is over.
func (g *Game) MoveCount() (n int, goal bool) {
	if g.status != engine.Playing || g.inH[0]|g.inH[1] != 0 {
		return 0, false
	}
	p := int(g.toMove)
	occ := g.occ & boardMask
	r, dr := 0, 1
	if p == NorthSeat {
		r, dr = rows-1, -1
	}
	x := g.searcher(p)
	const goals = 1<<North | 1<<South
	for ; r >= 0 && r < rows; r += dr {
		for s := occ & rowMask[r]; s != 0; s &= s - 1 {
			c := Cell(bits.TrailingZeros64(s))
			ends, lands := x.outcomes(c)
			n += bits.OnesCount64(ends)
			goal = goal || ends&goals != 0
			if g.advanced && lands != 0 {
				n += bits.OnesCount64(lands) * bits.OnesCount64(g.dispCells(p, c))
			}
		}
		if n > 0 {
			return n, goal
		}
	}
	return 1, false // a pass
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
	x := g.searcher(p)
	for ; r >= 0 && r < rows; r += dr {
		for s := occ & rowMask[r]; s != 0; s &= s - 1 {
			c := Cell(bits.TrailingZeros64(s))
			ends, lands := x.outcomes(c)
			if ends != 0 || (g.advanced && lands != 0 && g.dispCells(p, c) != 0) {
				return r
			}
		}
	}
	return -1
}

// Legal reports whether m is one of the moves Moves lists, without listing
// them: a placement is checked against the hand and the home row; a move or
// replace from s runs the chain search from s alone (its ends, its
// landings, the displacement cells), and from the pieces of the rows
// nearer the mover, which must have no legal move (the row rule); a pass
// is legal when no row has one. Alpha-beta tries its table's move and its
// killers with it before it lists a node's moves (engine/search).
func (g *Game) Legal(m engine.Move) bool {
	if g.status != engine.Playing {
		return false
	}
	k, from, to, disp, h := Unpack(m)
	p := int(g.toMove)
	if g.inH[0]|g.inH[1] != 0 {
		home := rowMask[0]
		if p == NorthSeat {
			home = rowMask[rows-1]
		}
		return k == KindPlace && m == Place(h, to) && h >= 1 && g.hand[p][h] > 0 && to < North && (home&^g.occ)>>to&1 != 0
	}
	switch {
	case k == KindPass:
		return m == Pass && g.movableRow() < 0
	case k == KindMove && m == Step(from, to):
	case k == KindReplace && g.advanced && m == Replace(from, to, disp):
	default:
		return false
	}
	occ := g.occ & boardMask
	if from >= North || occ>>from&1 == 0 {
		return false
	}
	x := g.searcher(p)
	ends, lands := x.outcomes(from)
	if k == KindMove {
		if ends>>to&1 == 0 {
			return false
		}
	} else if lands>>to&1 == 0 || disp >= North || g.dispCells(p, from)>>disp&1 == 0 {
		return false
	}
	// The rows nearer the mover than from's must have no legal move.
	r, dr, stop := 0, 1, from.Row()-1
	if p == NorthSeat {
		r, dr = rows-1, -1
	}
	for ; r != stop; r += dr {
		for s := occ & rowMask[r]; s != 0; s &= s - 1 {
			c := Cell(bits.TrailingZeros64(s))
			e, l := x.outcomes(c)
			if e != 0 || (g.advanced && l != 0 && g.dispCells(p, c) != 0) {
				return false
			}
		}
	}
	return true
}
