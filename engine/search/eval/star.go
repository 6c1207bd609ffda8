package eval

import (
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/star"
)

// Star evaluates STAR positions. It keeps its own piece lists, read once from
// Position at Reset and updated from the move layout (from and to cell
// indices), since the star engine exports no cheap cell accessor. With them
// it keeps each colour's pair potential and which of its pieces touch, updated
// for the one piece a move displaces (its pairs with the colour's other
// pieces), so that Eval is only the two flood fills.
type Star struct {
	size   int
	n      int
	xs, ys [2][64]int8
	cnt    [2]int
	cellOf [2][64]int16
	pot    [2]int32      // Σ pairWeight over the colour's pairs
	adj    [2][64]uint64 // per piece, the colour's pieces it touches
	// span is 2·size−1, and weights[(dx+size−1)·span + dy+size−1] the pair
	// weight of two pieces dx, dy apart (the board is square).
	span    int
	weights []int32
	at      [2][64]int32 // per piece x·span + y, its index into weights
	hist    []starUndo
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
	if span := 2*e.size - 1; span != e.span {
		e.span = span
		e.weights = make([]int32, span*span)
		for dx := range span {
			for dy := range span {
				e.weights[dx*span+dy] = cappedWeight[chebyshev(dx-e.size+1, dy-e.size+1)]
			}
		}
	}
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
		e.at[c][k] = int32(i%e.size*e.span + i/e.size)
	}
	for c := range 2 {
		e.pot[c], e.adj[c] = e.pairs(c)
	}
}

// pairs computes colour c's pair potential and touching pieces from its
// piece list.
func (e *Star) pairs(c int) (pot int32, adj [64]uint64) {
	n := e.cnt[c]
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := e.dist(c, i, j)
			if d == 1 {
				adj[i] |= 1 << j
				adj[j] |= 1 << i
			}
			if d < len(pairWeight) {
				pot += pairWeight[d]
			}
		}
	}
	return pot, adj
}

// dist is the Chebyshev distance between pieces i and j of colour c.
func (e *Star) dist(c, i, j int) int {
	dx, dy := int(e.xs[c][i])-int(e.xs[c][j]), int(e.ys[c][i])-int(e.ys[c][j])
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	return max(dx, dy)
}

// chebyshev is the Chebyshev distance of a displacement, capped at
// len(pairWeight) (beyond it a pair weighs nothing).
func chebyshev(dx, dy int) int {
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	return min(max(dx, dy), len(pairWeight))
}

// cappedWeight is pairWeight by capped distance (chebyshev).
var cappedWeight = [len(pairWeight) + 1]int32{0, 12, 5, 2, 0}

// place moves piece k of colour c to cell, keeping the pair potential and
// the touching pieces: only k's pairs change. Two pieces touch when their
// pair weighs pairWeight[1].
func (e *Star) place(c, k int, cell int16) {
	nx, ny := int(cell)%e.size, int(cell)/e.size
	e.cellOf[c][k] = cell
	e.xs[c][k], e.ys[c][k] = int8(nx), int8(ny)
	at := &e.at[c]
	off := int32((e.size - 1) * (e.span + 1))
	old := at[k] + off
	now := int32(nx*e.span+ny) + off
	at[k] = now - off
	w := e.weights
	adj := &e.adj[c]
	var mine uint64
	var pot int32
	for j, a := range at[:e.cnt[c]] {
		wn, wo := w[now-a], w[old-a]
		pot += wn - wo
		if wn == pairWeight[1] {
			mine |= 1 << j
		}
	}
	// k's pair with itself: the same cell now and before, both at distance
	// 0, adds nothing; k touches only others.
	e.pot[c] += pot - (w[off] - w[old-at[k]])
	mine &^= 1 << k
	for j := range e.cnt[c] {
		adj[j] = adj[j]&^(1<<k) | (mine>>j&1)<<k
	}
	adj[k] = mine
}

// Played follows a move (bits 0–15 from+1, 16–31 to+1).
func (e *Star) Played(_ engine.State, m engine.Move, seat int) {
	from, to := int16(m&0xffff)-1, int16(m>>16&0xffff)-1
	c := seat
	k := 0
	for e.cellOf[c][k] != from {
		k++
	}
	e.place(c, k, to)
	e.hist = append(e.hist, starUndo{c: int8(c), k: int8(k), from: from, to: to})
}

// Undone takes back the last Played.
func (e *Star) Undone(engine.State) {
	u := e.hist[len(e.hist)-1]
	e.hist = e.hist[:len(e.hist)-1]
	e.place(int(u.c), int(u.k), u.from)
}

// side scores one colour: largest group squared and pair connectivity.
func (e *Star) side(c int) int32 {
	n := e.cnt[c]
	adj := &e.adj[c]
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
	return int32(best*best)*6 + e.pot[c]
}

// Eval is the mover's score minus the opponent's.
func (e *Star) Eval(s engine.State) int32 {
	me := s.ToMove()
	return e.side(me) - e.side(1-me)
}
