//go:build !amd64 || purego

package gyges

import "math/bits"

// chainArch is what the Go search keeps besides x.open: its stack, and the
// group of each known piece.
type chainArch struct {
	// oe[c] holds the boundaries of the group's paths less those that
	// only blocked paths cross (group.te), for the cells in x.known: the
	// paths crossing a boundary crossed before are taken out per
	// boundary of oe, not of group.edges.
	oe [65]uint64 // 65, as x.open
	// pe, pn and ep[c] are the group's offsets into tables.flat, for the
	// cells in x.known.
	pe, pn, ep [65]uint16
	stack      [maxFrames]frame
}

// runSearch runs the chain search from s with bounce set occ.
func (x *chain) runSearch(s int, occ uint64) uint64 {
	return x.search(s, occ)
}

// frame is a node of the chain search that waits while the chain from one
// of its paths' bounces is followed: the paths it has left to follow, its
// boundaries crossed and pieces not landed on, and its paths' offsets in
// tables.flat. One struct, not an array per field: on arm64 a frame's
// address is computed once and its fields read at offsets from it (an
// array per field took an ADD per field there, for one instruction fewer
// per push and pop on amd64 and no time).
type frame struct {
	open, used, bounce uint64
	pe, pn             uint16
}

// maxFrames bounds the search's stack: a bounce takes one piece out of the
// pieces to land on, and a board holds at most 12 pieces (four of each
// height), so a chain has at most 11 bounces.
const maxFrames = 16

// search returns every cell where a segment of a chain from c ends, the
// chain starting with no boundary crossed and the pieces of bounce to land
// on. It is a depth-first search over (cell, boundaries crossed, pieces not
// landed on yet), with its own stack instead of recursion. Outcomes are
// collected as a bit set, so a chain reaching an outcome found before adds
// nothing. A node's paths that no piece blocks are found as a bit set, from
// the paths through each occupied cell nearby, once per piece (x.open); the
// paths that cross a boundary crossed before are taken out by one AND per
// such boundary, so the path loop tests nothing but the bounce.
func (x *chain) search(c0 int, bounce uint64) uint64 {
	var (
		sp         int
		used, ends uint64
		open, oe   uint64
		pe, pn, ep uint16
		grp, flat  = &x.t.grp, &x.t.flat
		pnArr      *[65]uint64
	)
	// c is a cell (0–35) or, to the compiler, a count of trailing zeros
	// (0–64): the per-cell arrays are 65 long and need no mask or check.
	c := uint(c0) & 63
node:
	// The shifts by c&63 and the index p&1 need no checks: in the Go
	// build (the Pi's) each check cost instructions on every node.
	if x.known&(1<<(c&63)) != 0 {
		open = x.open[c]
		oe = x.arch.oe[c]
		pe, pn, ep = x.arch.pe[c], x.arch.pn[c], x.arch.ep[c]
	} else {
		g := &grp[uint8(c*3+uint(x.h[c])-1)]
		open = g.allowed[x.p&1]
		oe = g.edges
		tp := g.tp
		_ = tp[0] // one nil check here, none in the loop
		for o := g.inter & x.occ; o != 0; o &= o - 1 {
			d := bits.TrailingZeros64(o)
			open &= tp[d] // both stored complemented (tables.thr)
			oe &= tp[thrTE+d]
		}
		pe, pn, ep = g.pe, g.pn, g.ep
		x.open[c] = open
		x.arch.oe[c] = oe
		x.arch.pe[c], x.arch.pn[c], x.arch.ep[c] = pe, pn, ep
		x.known |= 1 << (c & 63)
	}
	// The paths crossing a boundary crossed before are out: one AND per
	// such boundary of the group (stored complemented), no test per
	// path.
	if u := used & oe; u != 0 {
		epArr := (*[65]uint64)(flat[ep&flatMask:])
		for u != 0 {
			e := bits.TrailingZeros64(u)
			u &= u - 1
			open &= epArr[e]
		}
	}
paths:
	pnArr = (*[65]uint64)(flat[pn&flatMask:])
	for ; open != 0; open &= open - 1 {
		end := pnArr[bits.TrailingZeros64(open)]
		ends |= end
		if end&bounce != 0 {
			// A frame: the node waits while the chain from this
			// bounce is followed (its paths' offsets, the paths it
			// has left, its boundaries crossed and pieces not landed
			// on), stored field by field (a struct literal is built
			// on the goroutine's stack and copied).
			f := &x.arch.stack[sp&(maxFrames-1)]
			f.open, f.used, f.bounce, f.pe, f.pn = open&(open-1), used, bounce, pe, pn
			sp++
			used |= (*[65]uint64)(flat[pe&flatMask:])[bits.TrailingZeros64(open)]
			bounce ^= end // end is one bit, of bounce
			c = uint(bits.TrailingZeros64(end))
			goto node
		}
	}
	if sp > 0 {
		sp--
		f := &x.arch.stack[sp&(maxFrames-1)]
		open, used, bounce, pe, pn = f.open, f.used, f.bounce, f.pe, f.pn
		goto paths
	}
	return ends
}
