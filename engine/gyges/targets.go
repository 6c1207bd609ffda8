package gyges

import (
	"iter"
	"math/bits"

	"github.com/tabla-board/tabla/engine"
)

// Targets is a position's move list undecoded: for every start piece of
// the row the mover moves from, the cells its moves end on and, in the
// advanced variant, the pieces it may land on and replace and the cells a
// replaced piece may go to, as bit sets; in the setup, the free cells of
// the home row and the heights in hand. The replaces (most of an advanced
// list) are expanded only when asked for: Len counts the moves, At names
// one, All yields them one by one and Append writes them, each in the
// order of Moves. A Targets is filled by Game.Targets and holds nothing
// that refers to the game, so it stays valid after the game moves on.
type Targets struct {
	mc   moveCounts
	pass bool // the mover has no legal move: the single move Pass
}

// Targets fills t with the moves Moves would list, without writing them:
// the chain searches of Moves, their outcomes kept as bit sets. It
// allocates nothing.
func (g *Game) Targets(t *Targets) { t.pass = g.countWith(&g.x, &t.mc) }

// targets is Targets with the search state x, which need not be g's (see
// countWith).
func (g *Game) targets(x *chain, t *Targets) { t.pass = g.countWith(x, &t.mc) }

// Len is the number of moves Moves lists: 0 when the game is over, 1 for a
// pass.
func (t *Targets) Len() int {
	if t.pass {
		return 1
	}
	return t.mc.total
}

// At returns the i-th move (0 ≤ i < Len) of the list Moves writes. It
// counts its way to the move (a few bit operations per start piece and per
// move skipped within a bit set), so All and Append are the way through
// the whole list.
func (t *Targets) At(i int) engine.Move {
	if t.pass {
		return Pass
	}
	return t.mc.at(i)
}

// Starts is the number of start pieces with their moves in t (0 in the
// setup and for a pass); From, Ends, Lands and Disp read them.
func (t *Targets) Starts() int {
	if t.mc.place {
		return 0
	}
	return t.mc.n
}

// From is the cell of start piece k (0 ≤ k < Starts).
func (t *Targets) From(k int) Cell { return t.mc.from[k%cols] }

// Ends are the cells where a move from start piece k ends: empty grid
// cells and the mover's target goal (bit c for cell c).
func (t *Targets) Ends(k int) uint64 { return t.mc.ends[k%cols] }

// Lands are the pieces start piece k may land on and replace (advanced
// variant; 0 in the basic one).
func (t *Targets) Lands(k int) uint64 {
	if t.mc.disp[k%cols] == 0 {
		return 0
	}
	return t.mc.lands[k%cols]
}

// Disp are the cells a piece replaced by start piece k may go to, the same
// for every piece it lands on (0 when it replaces none).
func (t *Targets) Disp(k int) uint64 {
	if t.mc.lands[k%cols] == 0 {
		return 0
	}
	return t.mc.disp[k%cols]
}

// All yields the moves in the order of Moves, one at a time, without
// writing the list.
func (t *Targets) All() iter.Seq[engine.Move] {
	return func(yield func(engine.Move) bool) {
		mc := &t.mc
		switch {
		case t.pass:
			yield(Pass)
			return
		case mc.place:
			for k := 0; k < mc.nHeights; k++ {
				base := engine.Move(KindPlace)<<kindShift | engine.Move(mc.heights[k])<<hShift
				for f := mc.free; f != 0; f &= f - 1 {
					if !yield(base | engine.Move(bits.TrailingZeros64(f))<<toShift) {
						return
					}
				}
			}
			return
		}
		for k := 0; k < mc.n; k++ {
			s := mc.from[k%cols]
			base := engine.Move(KindMove)<<kindShift | engine.Move(s)<<fromShift
			for e := mc.ends[k%cols]; e != 0; e &= e - 1 {
				if !yield(base | engine.Move(bits.TrailingZeros64(e))<<toShift) {
					return
				}
			}
			dc := mc.disp[k%cols]
			if dc == 0 {
				continue
			}
			base = engine.Move(KindReplace)<<kindShift | engine.Move(s)<<fromShift
			for l := mc.lands[k%cols]; l != 0; l &= l - 1 {
				bl := base | engine.Move(bits.TrailingZeros64(l))<<toShift
				for d := dc; d != 0; d &= d - 1 {
					if !yield(bl | engine.Move(bits.TrailingZeros64(d))<<dispShift) {
						return
					}
				}
			}
		}
	}
}

// Append appends the moves to buf, in the order of Moves: Moves(buf) and
// Append(buf[:0]) of the same position are equal.
func (t *Targets) Append(buf []engine.Move) []engine.Move {
	for m := range t.All() {
		buf = append(buf, m)
	}
	return buf
}
