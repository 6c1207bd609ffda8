package eval

import (
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/star"
)

// Star evaluates STAR positions. It keeps its own piece lists, read once from
// Position at Reset and updated from the move layout (from and to cell
// indices), since the star engine exports no cheap cell accessor.
type Star struct {
	size   int
	n      int
	xs, ys [2][64]int8
	cnt    [2]int
	cellOf [2][64]int16
	hist   []starUndo
}

type starUndo struct {
	c, k     int8
	from, to int16
}

var pairWeight = [...]int32{0, 12, 5, 2} // by Chebyshev distance

// Reset reads the pieces of s.
func (e *Star) Reset(s engine.State) {
	st := s.(*star.State)
	b := st.Board()
	e.size, e.n = b.Cols, st.N()
	e.cnt = [2]int{}
	e.hist = e.hist[:0]
	for name, piece := range s.Position().Pieces {
		i := b.MustIndex(name)
		c := 0
		if piece == "white" {
			c = 1
		}
		k := e.cnt[c]
		e.cnt[c]++
		e.cellOf[c][k] = int16(i)
		e.xs[c][k], e.ys[c][k] = int8(i%e.size), int8(i/e.size)
	}
}

// Played follows a move (bits 0–15 from+1, 16–31 to+1).
func (e *Star) Played(_ engine.State, m engine.Move, seat int) {
	from, to := int16(m&0xffff)-1, int16(m>>16&0xffff)-1
	c := seat
	k := 0
	for e.cellOf[c][k] != from {
		k++
	}
	e.cellOf[c][k] = to
	e.xs[c][k], e.ys[c][k] = int8(int(to)%e.size), int8(int(to)/e.size)
	e.hist = append(e.hist, starUndo{c: int8(c), k: int8(k), from: from, to: to})
}

// Undone takes back the last Played.
func (e *Star) Undone(engine.State) {
	u := e.hist[len(e.hist)-1]
	e.hist = e.hist[:len(e.hist)-1]
	e.cellOf[u.c][u.k] = u.from
	e.xs[u.c][u.k], e.ys[u.c][u.k] = int8(int(u.from)%e.size), int8(int(u.from)/e.size)
}

// side scores one colour: largest group squared and pair connectivity.
func (e *Star) side(c int) int32 {
	n := e.cnt[c]
	xs, ys := &e.xs[c], &e.ys[c]
	var adj [64]uint64
	var pot int32
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := int(xs[i])-int(xs[j]), int(ys[i])-int(ys[j])
			if dx < 0 {
				dx = -dx
			}
			if dy < 0 {
				dy = -dy
			}
			d := max(dx, dy)
			if d == 1 {
				adj[i] |= 1 << j
				adj[j] |= 1 << i
			}
			if d < len(pairWeight) {
				pot += pairWeight[d]
			}
		}
	}
	// Largest group by bit-set flood fill.
	var done uint64
	best := 0
	for i := 0; i < n; i++ {
		if done>>i&1 != 0 {
			continue
		}
		grp, front := uint64(1)<<i, uint64(1)<<i
		for front != 0 {
			var next uint64
			for f := front; f != 0; f &= f - 1 {
				next |= adj[bitIndex(f)]
			}
			front = next &^ grp
			grp |= next
		}
		done |= grp
		if k := popcount(grp); k > best {
			best = k
		}
	}
	return int32(best*best)*6 + pot
}

// Eval is the mover's score minus the opponent's.
func (e *Star) Eval(s engine.State) int32 {
	me := s.ToMove()
	return e.side(me) - e.side(1-me)
}
