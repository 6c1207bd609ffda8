package daha

import (
	"math/bits"
	"slices"
)

// pathsBudget caps the interior masks a board's path index may hold (on
// the default board there are 24,472, 77 KB of kill words); a denser board
// has none and its playouts test ends with graph.reaches.
const pathsBudget = 1 << 16

// pathIndex answers "does a simple path of exactly k steps lead from c to
// t through free cells?" by bit-slicing: every simple path's interior (its
// cells other than c and t; equal interiors of the same c, k, t kept once)
// is one bit, the bits of (c, k) numbered by t, so those of one end are a
// run lo..hi-1. For each word of bits and each cell u, kill holds the bits
// of the interiors through u. The end t is reached when some bit of its run
// survives clearing the kill words of the blocked cells on its paths:
// a few word operations per blocked cell, whatever the number of paths.
type pathIndex struct {
	n    int
	ends []pathEnd // by (c*maxRoll+k-1)*n + t
	kill []uint64  // word w's kill word of cell u at w*n+u
}

// pathEnd is the run of one (c, k, t) and the cells its interiors cross.
type pathEnd struct {
	cells  uint64
	lo, hi uint32
}

// buildPaths enumerates every simple path of one to six steps on g; nil
// when the interiors exceed budget.
func buildPaths(g *graph, budget int) *pathIndex {
	type path struct {
		end   uint8
		cells uint64
	}
	px := &pathIndex{n: g.n, ends: make([]pathEnd, g.n*maxRoll*g.n)}
	var found [maxRoll + 1][]path
	total := 0
	var walk func(c int, visited, interior uint64, depth int)
	walk = func(c int, visited, interior uint64, depth int) {
		if depth > 0 {
			found[depth] = append(found[depth], path{uint8(c), interior})
			total++
		}
		if depth == maxRoll || total > budget {
			return
		}
		for m := g.adj[c] &^ visited; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			in := interior
			if depth > 0 {
				in |= 1 << uint(c)
			}
			walk(j, visited|1<<uint(j), in, depth+1)
		}
	}
	bit := 0           // the next free bit
	var masks []uint64 // per bit, its interior
	for c := 0; c < g.n; c++ {
		for k := range found {
			found[k] = found[k][:0]
		}
		walk(c, 1<<uint(c), 0, 0)
		if total > budget {
			return nil
		}
		for k := 1; k <= maxRoll; k++ {
			ps := found[k]
			slices.SortFunc(ps, func(a, b path) int {
				if a.end != b.end {
					return int(a.end) - int(b.end)
				}
				return cmpUint64(a.cells, b.cells)
			})
			ps = slices.Compact(ps)
			for i := 0; i < len(ps); {
				end := ps[i].end
				e := &px.ends[(c*maxRoll+k-1)*g.n+int(end)]
				e.lo = uint32(bit)
				for ; i < len(ps) && ps[i].end == end; i++ {
					e.cells |= ps[i].cells
					masks = append(masks, ps[i].cells)
					bit++
				}
				e.hi = uint32(bit)
			}
		}
	}
	words := (bit + 63) / 64
	px.kill = make([]uint64, words*g.n)
	for b, m := range masks {
		for ; m != 0; m &= m - 1 {
			px.kill[(b/64)*g.n+bits.TrailingZeros64(m)] |= 1 << uint(b%64)
		}
	}
	return px
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reaches reports whether a path of exactly k steps (k ≥ 1) leads from c
// to t avoiding blocked (t itself is not tested: the caller draws it among
// free cells).
func (px *pathIndex) reaches(c, k, t int, blocked uint64) bool {
	e := &px.ends[(c*maxRoll+k-1)*px.n+t]
	if e.lo == e.hi {
		return false
	}
	b := blocked & e.cells
	for w := e.lo / 64; w <= (e.hi-1)/64; w++ {
		alive := ^uint64(0)
		if w == e.lo/64 {
			alive <<= e.lo % 64
		}
		if w == (e.hi-1)/64 {
			alive &= ^uint64(0) >> (63 - (e.hi-1)%64)
		}
		row := px.kill[int(w)*px.n : int(w+1)*px.n]
		for m := b; m != 0 && alive != 0; m &= m - 1 {
			alive &^= row[bits.TrailingZeros64(m)]
		}
		if alive != 0 {
			return true
		}
	}
	return false
}
