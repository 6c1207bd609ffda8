package daha

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// maxRoll is the largest die value, and so the longest path a piece walks.
const maxRoll = 6

// reachBudget caps the simple paths enumerated per board to build the exact
// reach table. Denser boards get the superset "within k steps" instead, which
// only weakens the pruning.
const reachBudget = 1 << 22

// graph is what a board contributes to every game played on it: cell names,
// adjacency bitboards and the reach table. It is immutable once built and
// shared by every State (and clone) on boards with the same cells and edges.
type graph struct {
	board *boards.Board
	n     int
	cells uint64 // the board's cells
	names []string
	index map[string]int
	adj   [64]uint64
	start [numColours]int8 // the board's start cell per colour, -1 if none
	// reach[c][k] holds the ends of the simple paths of exactly k steps from
	// c on the empty board; where that was too costly to enumerate
	// (exact false), every cell within k steps of c, a superset.
	reach [64][maxRoll + 1]uint64
	exact bool
	// paths, when the board is small enough, tests one end at a time for
	// playouts (nil: they use reaches).
	paths *pathIndex
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
	key.WriteString(b.Name + "\n")
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
	g, err := buildGraph(b, reachBudget)
	if err != nil {
		return nil, err
	}
	graphCache[k] = g
	return g, nil
}

func buildGraph(b *boards.Board, budget int) (*graph, error) {
	g := &graph{board: b, n: len(b.Cells), index: make(map[string]int, len(b.Cells))}
	g.cells = ^uint64(0) >> uint(64-g.n)
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
		for other, sc := range g.start {
			if int(sc) == c {
				return nil, fmt.Errorf("daha: %w: board %s: %s and %s both start on %s", engine.ErrConfig, b.Name, Colour(other), col, p.Cell)
			}
		}
		g.start[col] = int8(c)
	}
	g.exact = g.exactReach(budget)
	if !g.exact {
		g.ballReach()
	} else {
		g.paths = buildPaths(g, pathsBudget)
	}
	return g, nil
}

// exactReach fills reach by enumerating every simple path of up to six steps
// from every cell. It gives up (false) after budget paths.
func (g *graph) exactReach(budget int) bool {
	left := budget
	var walk func(from, c int, visited uint64, depth int) bool
	walk = func(from, c int, visited uint64, depth int) bool {
		if depth > 0 {
			g.reach[from][depth] |= 1 << uint(c)
			if left--; left < 0 {
				return false
			}
		}
		if depth == maxRoll {
			return true
		}
		for m := g.adj[c] &^ visited; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if !walk(from, j, visited|1<<uint(j), depth+1) {
				return false
			}
		}
		return true
	}
	for c := 0; c < g.n; c++ {
		if !walk(c, c, 1<<uint(c), 0) {
			return false
		}
	}
	return true
}

// ballReach fills reach with the cells within k steps of each cell.
func (g *graph) ballReach() {
	for c := 0; c < g.n; c++ {
		frontier, seen := uint64(1)<<uint(c), uint64(1)<<uint(c)
		for k := 1; k <= maxRoll; k++ {
			var next uint64
			for m := frontier; m != 0; m &= m - 1 {
				next |= g.adj[bits.TrailingZeros64(m)]
			}
			frontier = next &^ seen
			seen |= next
			g.reach[c][k] = seen &^ (1 << uint(c))
		}
	}
}

// dests returns the ends of the simple paths of exactly k steps from c that
// enter no blocked cell (c itself must be blocked: a path never returns to
// its start).
//
// It is a depth-first search over simple paths with the visited cells taken
// out of a free-cell bitmask. Two things keep it small: the last five steps
// are loops of bitboard unions instead of calls, and a branch into cell j with r steps
// left is skipped unless reach[j][r] holds a free cell that could still be a
// destination and has not been found yet — once all possible destinations
// are found the search stops.
func (g *graph) dests(c, k int, blocked uint64) uint64 {
	free := ^blocked
	want := g.reach[c][k] & free
	if want == 0 {
		return 0
	}
	var acc uint64
	g.dfs(c, free, k, &acc, want)
	return acc
}

// dfs adds to *acc the ends of the simple paths of r steps from c through
// free cells; free excludes every cell already on the path.
func (g *graph) dfs(c int, free uint64, r int, acc *uint64, want uint64) {
	switch r {
	case 1:
		*acc |= g.adj[c] & free
		return
	case 2:
		// c–j–x: x ≠ j as no cell neighbours itself, x ≠ c as c ∉ free.
		var x uint64
		for m := g.adj[c] & free; m != 0; m &= m - 1 {
			x |= g.adj[bits.TrailingZeros64(m)]
		}
		*acc |= x & free
		return
	case 3:
		// c–j–x–y, unions as for 2 with j taken out of free.
		a := *acc
		for m := g.adj[c] & free; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if g.reach[j][2]&want&^a == 0 {
				continue
			}
			fj := free &^ (1 << uint(j))
			var y uint64
			for n := g.adj[j] & fj; n != 0; n &= n - 1 {
				y |= g.adj[bits.TrailingZeros64(n)]
			}
			a |= y & fj
		}
		*acc = a
		return
	case 4:
		// c–j–x–y–z: the unions of 3 from each x.
		a := *acc
		for m := g.adj[c] & free; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if g.reach[j][3]&want&^a == 0 {
				continue
			}
			fj := free &^ (1 << uint(j))
			for n := g.adj[j] & fj; n != 0; n &= n - 1 {
				x := bits.TrailingZeros64(n)
				if g.reach[x][2]&want&^a == 0 {
					continue
				}
				fx := fj &^ (1 << uint(x))
				var z uint64
				for o := g.adj[x] & fx; o != 0; o &= o - 1 {
					z |= g.adj[bits.TrailingZeros64(o)]
				}
				a |= z & fx
			}
		}
		*acc = a
		return
	case 5:
		// c–j–x–y–z–w: the unions of 4 from each x.
		a := *acc
		for m := g.adj[c] & free; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if g.reach[j][4]&want&^a == 0 {
				continue
			}
			fj := free &^ (1 << uint(j))
			for n := g.adj[j] & fj; n != 0; n &= n - 1 {
				x := bits.TrailingZeros64(n)
				if g.reach[x][3]&want&^a == 0 {
					continue
				}
				fx := fj &^ (1 << uint(x))
				for o := g.adj[x] & fx; o != 0; o &= o - 1 {
					y := bits.TrailingZeros64(o)
					if g.reach[y][2]&want&^a == 0 {
						continue
					}
					fy := fx &^ (1 << uint(y))
					var w uint64
					for q := g.adj[y] & fy; q != 0; q &= q - 1 {
						w |= g.adj[bits.TrailingZeros64(q)]
					}
					a |= w & fy
				}
			}
		}
		*acc = a
		return
	}
	for m := g.adj[c] & free; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		if g.reach[j][r-1]&want&^*acc == 0 {
			continue
		}
		g.dfs(j, free&^(1<<uint(j)), r-1, acc, want)
	}
}

// reaches reports whether a simple path of exactly r steps (r ≥ 1) leads
// from c to cell t through free cells: every cell after c is free, c is
// not, t is. It is dfs aimed at one end: a branch into j is followed only
// if reach[j] still holds t, t is entered only by the last step, the last
// two steps are one test (a free cell next to both ends), and the search
// stops at the first path found.
func (g *graph) reaches(c int, free uint64, r, t int) bool {
	tb := uint64(1) << uint(t)
	switch r {
	case 1:
		return g.adj[c]&tb != 0
	case 2:
		// c–j–t: j ≠ t as no cell neighbours itself.
		return g.adj[c]&free&g.adj[t] != 0
	case 3:
		// c–j–x–t: x ≠ j, x ≠ t (no cell neighbours itself), x ≠ c (not free).
		nt := g.adj[t] & free
		for m := g.adj[c] & free &^ tb; m != 0; m &= m - 1 {
			if g.adj[bits.TrailingZeros64(m)]&nt != 0 {
				return true
			}
		}
		return false
	}
	for m := g.adj[c] & free &^ tb; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		if g.reach[j][r-1]&tb != 0 && g.reaches(j, free&^(1<<uint(j)), r-1, t) {
			return true
		}
	}
	return false
}
