//go:build !amd64 || purego

package gyges

import "math/bits"

// chainArch is what the Go search keeps besides x.open: its stack, and the
// group of each known piece.
type chainArch struct {
	// grp[c] is the index in tables.grp of the paths of the piece on c
	// (its cell and height), for the cells in x.known.
	grp [65]uint8 // 65, as x.open
	// oe[c] holds the boundaries of the group's paths less those that
	// only blocked paths cross (group.te), for the cells in x.known: the
	// paths crossing a boundary crossed before are taken out per
	// boundary of oe, not of group.edges.
	oe [65]uint64
	// The search's stack, a frame's fields in arrays of their own: a
	// field is read or written by one instruction from the frame's
	// index, with no multiplication by the frame's size.
	stOpen, stUsed, stBounce [maxFrames]uint64
	stG                      [maxFrames]uint8
}

// runSearch runs the chain search from s with bounce set occ.
func (x *chain) runSearch(s int, occ uint64) uint64 {
	return x.search(s, occ)
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
// paths that cross a boundary crossed before are taken out by one AND-NOT
// per such boundary, so the path loop tests nothing but the bounce.
func (x *chain) search(c0 int, bounce uint64) uint64 {
	var (
		sp         int
		gi         uint8
		used, ends uint64
		open, oe   uint64
		g          *group
		pn         *[65]uint64
	)
	grp := &x.t.grp
	// c is a cell (0–35) or, to the compiler, a count of trailing zeros
	// (0–64): the per-cell arrays are 65 long and need no mask or check.
	c := uint(c0) & 63
node:
	// The shifts by c&63 and the index p&1 need no checks: in the Go
	// build (the Pi's) each check cost instructions on every node.
	if x.known&(1<<(c&63)) != 0 {
		open = x.open[c]
		oe = x.arch.oe[c]
		gi = x.arch.grp[c]
		g = &grp[gi]
	} else {
		gi = uint8(c*3 + uint(x.h[c]) - 1)
		g = &grp[gi]
		open = g.allowed[x.p&1]
		oe = g.edges
		tp := g.tp
		_ = tp[0] // one nil check here, none in the loop
		for o := g.inter & x.occ; o != 0; o &= o - 1 {
			d := bits.TrailingZeros64(o)
			open &= tp[d] // both stored complemented (tables.thr)
			oe &= tp[thrTE+d]
		}
		x.open[c] = open
		x.arch.oe[c] = oe
		x.arch.grp[c] = gi
		x.known |= 1 << (c & 63)
	}
	// The paths crossing a boundary crossed before are out: one AND per
	// such boundary of the group (group.ep is stored complemented), no
	// test per path.
	if u := used & oe; u != 0 {
		ep := g.ep
		_ = ep[0] // one nil check here, none in the loop
		for u != 0 {
			e := bits.TrailingZeros64(u)
			u &= u - 1
			open &= ep[e]
		}
	}
paths:
	pn = g.pn
	_ = pn[0] // one nil check here, none in the loop
	for ; open != 0; open &= open - 1 {
		end := pn[bits.TrailingZeros64(open)]
		ends |= end
		if end&bounce != 0 {
			// A frame: the node waits while the chain from this
			// bounce is followed (its group, the paths it has left,
			// its boundaries crossed and pieces not landed on).
			f := sp & (maxFrames - 1)
			x.arch.stOpen[f], x.arch.stUsed[f], x.arch.stBounce[f], x.arch.stG[f] = open&(open-1), used, bounce, gi
			sp++
			used |= g.pe[bits.TrailingZeros64(open)]
			bounce ^= end // end is one bit, of bounce
			c = uint(bits.TrailingZeros64(end))
			goto node
		}
	}
	if sp > 0 {
		sp--
		f := sp & (maxFrames - 1)
		open, used, bounce, gi = x.arch.stOpen[f], x.arch.stUsed[f], x.arch.stBounce[f], x.arch.stG[f]
		g = &grp[gi]
		goto paths
	}
	return ends
}
