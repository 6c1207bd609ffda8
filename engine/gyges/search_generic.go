//go:build !amd64 || !gygesasm || purego

package gyges

import "math/bits"

// chainArch is what the Go search keeps besides x.open: its stacks, and the
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
	work       [maxWork]work    // search's
	root       work             // search's first node
	stack      [maxFrames]frame // deepSearch's
}

// runSearch runs the chain search from s with bounce set occ.
func (x *chain) runSearch(s int, occ uint64) uint64 {
	return x.search(s, occ)
}

// work is a node that search has still to follow: its cell, the
// boundaries crossed on the way and the pieces not landed on yet.
type work struct {
	c, used, bounce uint64
}

// maxWork bounds search's stack of nodes to follow. A node may add as many
// as it has paths that end on a piece (less the first, kept in registers),
// so no small bound holds them all; 16 held every search of the 64
// mid-game positions (at most 12) and all but 56 of TestDeepSearch's
// 146,400, and search hands a search that needs more to deepSearch.
const maxWork = 16

// search returns every cell where a segment of a chain from c ends, the
// chain starting with no boundary crossed and the pieces of bounce to land
// on. It is a search over (cell, boundaries crossed, pieces not landed on
// yet) with a stack of the nodes still to follow: a node's paths are
// followed to the end in one loop, every bounce adding a node to the
// stack, and the next node is taken from the stack. Outcomes are
// collected as a bit set, so a chain reaching an outcome found before adds
// nothing. A node's paths that no piece blocks are found as a bit set, from
// the paths through each occupied cell nearby, once per piece (x.open); the
// paths that cross a boundary crossed before are taken out by one AND per
// such boundary, so the path loop tests nothing but the bounce.
//
// Why not deepSearch's frames: there a node's next bounce waits for the
// chain of dependent loads from the bounce before it (the cell, its paths,
// the boundaries crossed, a path's end); here the cell of every node on the
// stack is known when the node is taken, a node's loads need not wait for
// the node before, and a bounce costs three stores and a pop three loads,
// where a frame took five of each (BENCHMARKS.md, issue 39's ninth pass:
// 0.97 of deepSearch's CPU time a mid-game list).
//
// A node's first bounce is not pushed: it is the next node, kept in
// registers, and the node's other paths are followed by a second loop that
// pushes their bounces. From one node to the next of a chain the search
// then waits for the loads of the first bounce's path, not for those of
// the last one's and a store and a load through the stack (issue 39's
// eleventh pass: 0.95 of the CPU time a mid-game list).
func (x *chain) search(c0 int, bounce0 uint64) uint64 {
	var (
		ends       uint64
		open, oe   uint64
		pe, pn, ep uint16
		grp, flat  = &x.t.grp, &x.t.flat
	)
	// The root, where deepSearch finds it: c0 and bounce0 kept for it in
	// registers took moves on every path.
	x.arch.root = work{c: uint64(c0), bounce: bounce0}
	c1, used, bounce := uint(c0)&63, uint64(0), bounce0
nodes:
	for sp := uint(0); ; {
		// c is a cell (0–35), used as it comes, from a count of
		// trailing zeros or the stack: the compiler checks it against
		// the per-cell arrays' 65, a branch, not a mask between a
		// node's end and the next node's loads.
		c := c1
		// The shifts by c&63 and the index p&1 need no checks: in the Go
		// build (the Pi's) each check cost instructions on every node.
		if x.known&(1<<(c&63)) != 0 {
			open = x.open[c]
			oe = x.arch.oe[c]
			pe, pn, ep = x.arch.pe[c], x.arch.pn[c], x.arch.ep[c]
		} else {
			g := &grp[c*3+uint(x.h[c])]
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
			// This node's paths by all the group's boundaries (a
			// superset: the others only remove blocked paths), so
			// that their ANDs need not wait for the blocking loop.
			oe = g.edges
		}
		// The paths crossing a boundary crossed before are out: one AND
		// per such boundary of the group (stored complemented), no test
		// per path.
		if u := used & oe; u != 0 {
			epArr := (*[65]uint64)(flat[ep&flatMask:])
			for u != 0 {
				e := bits.TrailingZeros64(u)
				u &= u - 1
				open &= epArr[e]
			}
		}
		pnArr := (*[65]uint64)(flat[pn&flatMask:])
		peArr := (*[65]uint64)(flat[pe&flatMask:])
		for ; open != 0; open &= open - 1 {
			end := pnArr[bits.TrailingZeros64(open)]
			ends |= end
			if end&bounce != 0 {
				// The first bounce is the next node, kept in
				// registers; the other paths' bounces are
				// pushed.
				nu := used | peArr[bits.TrailingZeros64(open)]
				nc := end
				for open &= open - 1; open != 0; open &= open - 1 {
					end := pnArr[bits.TrailingZeros64(open)]
					ends |= end
					if end&bounce != 0 {
						if sp == maxWork {
							goto deep
						}
						w := &x.arch.work[sp&(maxWork-1)]
						w.bounce = end ^ bounce // end is one bit, of bounce
						w.used = used | peArr[bits.TrailingZeros64(open)]
						w.c = uint64(bits.TrailingZeros64(end))
						sp++
					}
				}
				c1, used, bounce = uint(bits.TrailingZeros64(nc)), nu, bounce^nc
				continue nodes
			}
		}
		if sp == 0 {
			return ends
		}
		sp--
		w := &x.arch.work[sp&(maxWork-1)]
		c1, used, bounce = uint(w.c), w.used, w.bounce
	}
deep:
	// The stack is full. The outcomes so far are a part of the whole;
	// x.open and x.known stay valid.
	return x.restart()
}

// restart runs deepSearch from search's root. A call of its own, reached by
// a goto from the path loop: with deepSearch's arguments loaded in search,
// the arm64 build moved the outcomes between two registers on every path.
//
//go:noinline
func (x *chain) restart() uint64 {
	return x.deepSearch(int(x.arch.root.c), x.arch.root.bounce)
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

// deepSearch is search with a stack of the nodes whose paths are being
// followed, not of the nodes still to follow: at most one frame per bounce
// of a chain, so maxFrames always holds them. search runs it when its own
// stack is full. It is a depth-first search over (cell, boundaries crossed,
// pieces not landed on yet), with its own stack instead of recursion. Outcomes are
// collected as a bit set, so a chain reaching an outcome found before adds
// nothing. A node's paths that no piece blocks are found as a bit set, from
// the paths through each occupied cell nearby, once per piece (x.open); the
// paths that cross a boundary crossed before are taken out by one AND per
// such boundary, so the path loop tests nothing but the bounce.
func (x *chain) deepSearch(c0 int, bounce uint64) uint64 {
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
		g := &grp[c*3+uint(x.h[c])]
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
