package daha

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// maxRoll is the largest die value, and so the longest path a piece walks.
const maxRoll = 6

// tableBudget caps the number of path masks a board's path table may hold
// (8 bytes each). Boards whose simple paths of up to six steps outnumber it
// (dense graphs) fall back to the depth-first search.
const tableBudget = 1 << 18

// graph is what a board contributes to every game played on it: cell names,
// adjacency bitboards and the path table. It is immutable once built and
// shared by every State (and clone) on boards with the same cells and edges.
type graph struct {
	board *boards.Board
	n     int
	names []string
	index map[string]int
	adj   [64]uint64
	start [numColours]int8 // the board's start cell per colour, -1 if none
	table *pathTable       // nil: use dfsDests
}

// pathTable lists, for every cell c and step count k, every destination that
// some simple path of exactly k steps from c reaches, each with the cell
// masks of all such paths (the start cell excluded, the destination
// included). A destination is legal when one of its masks avoids every
// blocked cell. Equal masks with equal destinations are stored once.
type pathTable struct {
	off    []uint32 // groups of (c, k): groups[off[c*6+k-1]:off[c*6+k]], off[0] = 0
	groups []pathGroup
	masks  []uint64
}

// pathGroup is one destination of one (cell, k) entry: its masks are
// masks[lo:hi].
type pathGroup struct {
	lo, hi uint32
	dest   uint8
}

var (
	graphMu    sync.Mutex
	graphCache = map[string]*graph{}
	defBoard   = sync.OnceValue(func() *boards.Board { return boards.Default("daha") })
)

// graphFor returns the (cached) graph of a board.
func graphFor(b *boards.Board) (*graph, error) {
	if b.Game != "" && b.Game != "daha" {
		return nil, fmt.Errorf("daha: %w: board %s is for %s, not daha", engine.ErrConfig, b.Name, b.Game)
	}
	if len(b.Cells) == 0 {
		return nil, fmt.Errorf("daha: %w: board %s has no cells", engine.ErrConfig, b.Name)
	}
	if len(b.Cells) > 64 {
		return nil, fmt.Errorf("daha: %w: board %s has %d cells, at most 64", engine.ErrConfig, b.Name, len(b.Cells))
	}
	// The cache key spells out everything the graph depends on.
	var key strings.Builder
	for i, c := range b.Cells {
		key.WriteString(c.Name)
		for _, j := range c.Adj {
			if j < 0 || j >= len(b.Cells) || j == i {
				return nil, fmt.Errorf("daha: %w: board %s: cell %s has a bad neighbour index %d", engine.ErrConfig, b.Name, c.Name, j)
			}
			key.WriteByte(' ')
			key.WriteString(strconv.Itoa(j))
		}
		key.WriteByte('\n')
	}
	for _, p := range b.Start {
		key.WriteString("start " + p.Cell + " " + p.Piece + "\n")
	}
	k := key.String()
	graphMu.Lock()
	defer graphMu.Unlock()
	if g, ok := graphCache[k]; ok {
		return g, nil
	}
	g, err := buildGraph(b, tableBudget)
	if err != nil {
		return nil, err
	}
	graphCache[k] = g
	return g, nil
}

func buildGraph(b *boards.Board, budget int) (*graph, error) {
	g := &graph{board: b, n: len(b.Cells), index: make(map[string]int, len(b.Cells))}
	for i, c := range b.Cells {
		if _, dup := g.index[c.Name]; dup || c.Name == "" {
			return nil, fmt.Errorf("daha: %w: board %s: bad or repeated cell name %q", engine.ErrConfig, b.Name, c.Name)
		}
		g.names = append(g.names, c.Name)
		g.index[c.Name] = i
		for _, j := range c.Adj {
			g.adj[i] |= 1 << uint(j)
		}
	}
	for i := range g.start {
		g.start[i] = -1
	}
	for _, p := range b.Start {
		col, ok := colourOf(p.Piece)
		if !ok {
			return nil, fmt.Errorf("daha: %w: board %s: start piece %q is not a colour", engine.ErrConfig, b.Name, p.Piece)
		}
		c, ok := g.index[p.Cell]
		if !ok {
			return nil, fmt.Errorf("daha: %w: board %s: start cell %q is not on the board", engine.ErrConfig, b.Name, p.Cell)
		}
		if g.start[col] >= 0 {
			return nil, fmt.Errorf("daha: %w: board %s: %s has two start cells", engine.ErrConfig, b.Name, col)
		}
		g.start[col] = int8(c)
	}
	g.table = buildTable(&g.adj, g.n, budget)
	return g, nil
}

// buildTable enumerates every simple path of 1..6 steps from every cell. It
// gives up (nil) once the masks would exceed budget.
func buildTable(adj *[64]uint64, n int, budget int) *pathTable {
	type entry struct {
		dest uint8
		mask uint64
	}
	t := &pathTable{off: make([]uint32, n*maxRoll+1)}
	var buckets [maxRoll + 1][]entry
	total := 0
	var walk func(c int, mask uint64, depth int) bool
	walk = func(c int, mask uint64, depth int) bool {
		if depth > 0 {
			buckets[depth] = append(buckets[depth], entry{uint8(c), mask})
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
			slices.SortFunc(es, func(a, b entry) int {
				if a.dest != b.dest {
					return int(a.dest) - int(b.dest)
				}
				switch {
				case a.mask < b.mask:
					return -1
				case a.mask > b.mask:
					return 1
				}
				return 0
			})
			es = slices.Compact(es)
			for i := 0; i < len(es); {
				j := i
				for j < len(es) && es[j].dest == es[i].dest {
					t.masks = append(t.masks, es[j].mask)
					j++
				}
				t.groups = append(t.groups, pathGroup{lo: uint32(len(t.masks) - (j - i)), hi: uint32(len(t.masks)), dest: es[i].dest})
				i = j
			}
			t.off[c*maxRoll+k] = uint32(len(t.groups))
		}
	}
	t.masks = slices.Clip(t.masks)
	t.groups = slices.Clip(t.groups)
	return t
}

// dests returns the destinations reachable from c in exactly k steps along a
// simple path avoiding blocked cells.
func (t *pathTable) dests(c, k int, blocked uint64) uint64 {
	var d uint64
	i := c*maxRoll + k
	gs := t.groups[t.off[i-1]:t.off[i]]
	for gi := range gs {
		g := &gs[gi]
		if blocked>>g.dest&1 != 0 {
			continue
		}
		for _, m := range t.masks[g.lo:g.hi] {
			if m&blocked == 0 {
				d |= 1 << g.dest
				break
			}
		}
	}
	return d
}

// dfsDests is the table-free generator: a depth-first search over simple
// paths with a visited bitmask. It stops early once every cell that could be
// a destination at all (free cells within k steps through free cells) has
// been found, which keeps dense boards cheap.
func (g *graph) dfsDests(c, k int, blocked uint64) uint64 {
	free := ^blocked &^ (1 << uint(c))
	// Upper bound: free cells at distance 1..k through free cells.
	var bound uint64
	frontier := uint64(1) << uint(c)
	seen := frontier
	for step := 0; step < k && frontier != 0; step++ {
		var next uint64
		for m := frontier; m != 0; m &= m - 1 {
			next |= g.adj[bits.TrailingZeros64(m)]
		}
		next &= free &^ seen
		seen |= next
		bound |= next
		frontier = next
	}
	if bound == 0 {
		return 0
	}
	var acc uint64
	g.dfs(c, free, k, &acc, bound)
	return acc
}

// dfs adds to *acc the ends of the simple paths of r steps from c through
// free cells (free excludes every cell already on the path). It reports true
// once *acc reaches full, to stop the search.
func (g *graph) dfs(c int, free uint64, r int, acc *uint64, full uint64) bool {
	if r == 1 {
		*acc |= g.adj[c] & free
		return *acc == full
	}
	for m := g.adj[c] & free; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		if g.dfs(j, free&^(1<<uint(j)), r-1, acc, full) {
			return true
		}
	}
	return false
}
