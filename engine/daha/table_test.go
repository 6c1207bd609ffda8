package daha

import (
	"math/bits"
	"slices"
	"sync"
	"testing"
)

// This file keeps the path-table generator that was measured against the
// depth-first search of graph.go (see BenchmarkGenerate): it lists every
// simple path of each length from each cell with its cell mask, so legality
// is a mask test per path. On the default board it needs about 24,000 masks
// (425 KB with its indexes) and lost to the pruned DFS in every game phase
// and in playouts, so the engine does not use it. It stays as a second,
// structurally different generator that the tests compare with the engine
// and the reference.

// pathTable lists, for every cell c and step count k, every destination that
// some simple path of exactly k steps from c reaches, each with the cell
// masks of all such paths (the start cell excluded, the destination
// included). A destination is legal when one of its masks avoids every
// blocked cell. Equal masks with equal destinations are stored once.
//
// The masks of one destination are clustered by the path's first two cells
// (one for k ≤ 2). Each destination and each cluster carries the AND of its
// masks: cells every path of it crosses. One test of that against the blocked
// set skips a whole destination or cluster, so crowded positions cost about
// as little as sparse ones.
type pathTable struct {
	off    []uint32 // groups of (c, k): groups[off[c*6+k-1]:off[c*6+k]], off[0] = 0
	groups []pathGroup
	subs   []pathSub
	masks  []uint64
}

// pathGroup is one destination of one (cell, k) entry: its clusters are
// subs[lo:hi]; and is the AND of all their masks (the destination included).
type pathGroup struct {
	and    uint64
	lo, hi uint32
	dest   uint8
}

// pathSub is a cluster of masks, masks[lo:hi], with their AND.
type pathSub struct {
	and    uint64
	lo, hi uint32
}

// buildTable enumerates every simple path of 1..6 steps from every cell. It
// gives up (nil) once the masks would exceed budget.
func buildTable(adj *[64]uint64, n int, budget int) *pathTable {
	type entry struct {
		mask          uint64
		dest          uint8
		first, second uint8 // the path's cluster key
	}
	t := &pathTable{off: make([]uint32, n*maxRoll+1)}
	var buckets [maxRoll + 1][]entry
	var path [maxRoll + 1]uint8
	total := 0
	var walk func(c int, mask uint64, depth int) bool
	walk = func(c int, mask uint64, depth int) bool {
		path[depth] = uint8(c)
		if depth > 0 {
			e := entry{mask: mask, dest: uint8(c), first: path[1], second: 0xff}
			if depth >= 3 {
				e.second = path[2]
			}
			buckets[depth] = append(buckets[depth], e)
			total++
			if total > budget {
				return false
			}
		}
		if depth == maxRoll {
			return true
		}
		for m := adj[c] &^ mask; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if !walk(j, mask|1<<uint(j), depth+1) {
				return false
			}
		}
		return true
	}
	for c := 0; c < n; c++ {
		for k := range buckets {
			buckets[k] = buckets[k][:0]
		}
		// The start cell is in the visited mask while walking, and taken
		// out of the stored masks (the mover's own cell is always blocked).
		if !walk(c, 1<<uint(c), 0) {
			return nil
		}
		for k := 1; k <= maxRoll; k++ {
			es := buckets[k]
			for i := range es {
				es[i].mask &^= 1 << uint(c)
			}
			// Deduplicate (dest, mask), then cluster by (dest, first, second).
			slices.SortFunc(es, func(a, b entry) int {
				if a.dest != b.dest {
					return int(a.dest) - int(b.dest)
				}
				return cmpU64(a.mask, b.mask)
			})
			es = slices.CompactFunc(es, func(a, b entry) bool { return a.dest == b.dest && a.mask == b.mask })
			slices.SortStableFunc(es, func(a, b entry) int {
				if a.dest != b.dest {
					return int(a.dest) - int(b.dest)
				}
				if a.first != b.first {
					return int(a.first) - int(b.first)
				}
				return int(a.second) - int(b.second)
			})
			for i := 0; i < len(es); {
				g := pathGroup{and: ^uint64(0), lo: uint32(len(t.subs)), dest: es[i].dest}
				for i < len(es) && es[i].dest == g.dest {
					sub := pathSub{and: ^uint64(0), lo: uint32(len(t.masks))}
					f, sc := es[i].first, es[i].second
					for i < len(es) && es[i].dest == g.dest && es[i].first == f && es[i].second == sc {
						t.masks = append(t.masks, es[i].mask)
						sub.and &= es[i].mask
						i++
					}
					sub.hi = uint32(len(t.masks))
					g.and &= sub.and
					t.subs = append(t.subs, sub)
				}
				g.hi = uint32(len(t.subs))
				t.groups = append(t.groups, g)
			}
			t.off[c*maxRoll+k] = uint32(len(t.groups))
		}
	}
	t.masks = slices.Clip(t.masks)
	t.subs = slices.Clip(t.subs)
	t.groups = slices.Clip(t.groups)
	return t
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dests returns the destinations reachable from c in exactly k steps along a
// simple path avoiding blocked cells.
func (t *pathTable) dests(c, k int, blocked uint64) uint64 {
	var d uint64
	i := c*maxRoll + k
	gs := t.groups[t.off[i-1]:t.off[i]]
	for gi := range gs {
		g := &gs[gi]
		if g.and&blocked != 0 {
			continue
		}
	subs:
		for _, sub := range t.subs[g.lo:g.hi] {
			if sub.and&blocked != 0 {
				continue
			}
			for _, m := range t.masks[sub.lo:sub.hi] {
				if m&blocked == 0 {
					d |= 1 << g.dest
					break subs
				}
			}
		}
	}
	return d
}

var (
	tablesMu sync.Mutex
	tables   = map[*graph]*pathTable{}
)

// tableOf builds (once) the path table of g, nil when the board has more
// than budget paths.
func tableOf(g *graph, budget int) *pathTable {
	tablesMu.Lock()
	defer tablesMu.Unlock()
	t, ok := tables[g]
	if !ok {
		t = buildTable(&g.adj, g.n, budget)
		tables[g] = t
	}
	return t
}

// useTable makes s generate with the path table.
func useTable(t testing.TB, s *State) {
	tab := tableOf(s.g, 1<<18)
	if tab == nil {
		t.Fatal("no path table for this board")
	}
	s.altGen = tab.dests
}
