package gyges

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// Board geometry. The board is always 6×6 (the board loader enforces it);
// what the tables read from the board file is its adjacency: the grid links
// and which cells touch each goal.
const (
	cols      = 6
	rows      = 6
	numCells  = cols * rows // grid cells 0..35, a1 = 0, b1 = 1, …, f6 = 35
	boardMask = uint64(1)<<numCells - 1
)

// path is one way a segment of exactly L steps can go from a cell.
type path struct {
	edges uint64 // boundaries crossed (goal links are not tracked: a goal ends the move)
	end   uint64 // the bit of the cell entered by the last step (a grid cell or a goal)
}

// group is the set of paths of one length from one cell, at most 64, so
// that a set of them is one uint64 (bit k: the group's path k).
type group struct {
	// allowed[p] are the paths mover p may use: all but those ending in
	// the other mover's target goal.
	allowed [2]uint64
	inter   uint64 // cells that some path enters before its last step
	edges   uint64 // boundaries that some path crosses
	// ps are the group's paths (in tables.paths); tp[d], for a cell d of
	// inter, are the paths that do not enter d before their last step
	// (the complement of those blocked when d is occupied), in
	// tables.thr.
	ps *[64]path
	// tp[thrTE+d], for a cell d of inter, is the complement of the
	// boundaries that only the paths through d cross (in tables.thr too,
	// not in a field of their own: the group stays 64 bytes): with d
	// occupied, the Go search leaves them out of the boundaries it checks
	// (chainArch.oe).
	tp *[thrTE + 65]uint64
	// pe and pn are where the edges and the ends of the group's paths
	// begin in tables.flat, two arrays indexed by the path's index
	// without scaling it; ep where, for a boundary e of edges, the
	// group's paths that do not cross e are (flat[ep+e], complemented):
	// the Go search takes the paths crossing a boundary used before out
	// of a node's paths, one AND per such boundary, instead of testing
	// every path. Offsets, not pointers: the Go search keeps them per
	// known piece and in its frames, and reads a node's ends and
	// boundaries one load after its cell, not two.
	pe, pn, ep uint16
	_          [10]byte // 64 bytes: a group's address is one shift
}

// tables are the precomputed step paths of one board. They never change
// after New and are shared by clones.
type tables struct {
	// flat holds, for every group, its paths' edges then their ends
	// (group.pe, group.pn), then for every group the paths not crossing
	// each boundary from its lowest to its highest (group.ep), with 65
	// unused words before and after those: an offset masked by flatMask
	// and the 65 words from it are in the array, with no check.
	// First in tables: its address is the tables' own, with no offset
	// to add.
	flat [flatMask + 1 + 65]uint64
	// grp[c*3+l] are the paths of length l from cell c; grp[0] and the
	// groups past numCells*3 are empty, there so that c*3+h for a cell
	// below 64 and a height of type uint8 is in the array: the Go search
	// adds the height to 3c with no check.
	grp   [64*3 + 256]group
	paths []path // followed by 64 unused paths, so that every group has 64

	thr []uint64
	// via[d] are the cells from which some path enters d before its last
	// step.
	via [numCells]uint64
	// goalAdj[p] are the cells from which a step enters player p's target goal.
	goalAdj [2]uint64
	names   [numCells + 2]string
}

// flatMask bounds the offsets into tables.flat (group.pe, pn, ep).
const flatMask = 1<<13 - 1

// thrTE is where tables.thr's second half begins (group.tp): the
// boundaries behind each blocking cell, laid out as the blocking sets of the
// first half (1,177 words and the padding on the default board).
const thrTE = 1536

// rowMask[r] holds the cells of row r (0-based: row 1 is 0).
var rowMask [rows]uint64

// atOrBelow[r] holds rows 0..r, atOrAbove[r] rows r..5.
var atOrBelow, atOrAbove [rows]uint64

func init() {
	for r := 0; r < rows; r++ {
		rowMask[r] = (uint64(1)<<cols - 1) << (cols * r)
	}
	for r := 0; r < rows; r++ {
		for q := 0; q < rows; q++ {
			if q <= r {
				atOrBelow[r] |= rowMask[q]
			}
			if q >= r {
				atOrAbove[r] |= rowMask[q]
			}
		}
	}
}

// shared holds the tables of the boards seen so far, keyed by what
// buildTables reads, so that every game on one board shares one copy (the
// L2 cache holds one; a program with many games would otherwise keep a
// copy of some 140 KB per game: the groups 28 KB, 7 KB of them used, the
// paths 21 KB, the blocking sets and the boundaries behind each blocking
// cell 24 KB, the Go search's array of edges, ends and paths per boundary
// 66 KB, 43 KB of it used).
var shared struct {
	sync.Mutex
	m map[string]*tables
}

// tablesFor returns the tables of board b, built once per distinct board.
func tablesFor(b *boards.Board) (*tables, error) {
	var k strings.Builder
	k.WriteString(b.Game + "\x00" + string(b.Kind) + "\x00" + strconv.Itoa(b.Cols) + "x" + strconv.Itoa(b.Rows))
	for _, c := range b.Cells {
		k.WriteString("\x00" + c.Name + strconv.FormatBool(c.Goal))
		for _, j := range c.Adj {
			k.WriteString("," + strconv.Itoa(j))
		}
	}
	key := k.String()
	shared.Lock()
	defer shared.Unlock()
	if t, ok := shared.m[key]; ok {
		return t, nil
	}
	t, err := buildTables(b)
	if err != nil {
		return nil, err
	}
	if shared.m == nil || len(shared.m) >= 64 {
		shared.m = map[string]*tables{}
	}
	shared.m[key] = t
	return t, nil
}

// buildTables reads the board's adjacency and precomputes every segment path.
func buildTables(b *boards.Board) (*tables, error) {
	if b.Game != "gyges" {
		return nil, fmt.Errorf("%w: gyges: board %q is for %s", engine.ErrConfig, b.Name, b.Game)
	}
	if b.Kind != boards.Square || b.Cols != cols || b.Rows != rows {
		return nil, fmt.Errorf("%w: gyges: board %q is not a 6×6 grid", engine.ErrConfig, b.Name)
	}
	t := &tables{}
	// Board cell index → internal cell: grid cells keep their index (the
	// loader lists them row by row from a1), the goals become North/South.
	internal := make([]int, len(b.Cells))
	for i := range internal {
		internal[i] = -1
	}
	for i := 0; i < numCells; i++ {
		want := boards.SquareName(i%cols+1, i/cols+1)
		if b.Cells[i].Name != want || b.Cells[i].Goal {
			return nil, fmt.Errorf("%w: gyges: board %q: cell %d is %q, want %s", engine.ErrConfig, b.Name, i, b.Cells[i].Name, want)
		}
		internal[i] = i
		t.names[i] = want
	}
	for _, g := range []Cell{North, South} {
		i, ok := b.Index(g.String())
		if !ok || !b.Cells[i].Goal {
			return nil, fmt.Errorf("%w: gyges: board %q has no goal %s", engine.ErrConfig, b.Name, g)
		}
		internal[i] = int(g)
		t.names[g] = g.String()
	}
	var adj [numCells][]int
	var edge [numCells][numCells]int
	nEdges := 0
	for i := 0; i < numCells; i++ {
		for _, j := range b.Cells[i].Adj {
			switch k := internal[j]; {
			case k < 0:
				return nil, fmt.Errorf("%w: gyges: board %q: %s touches unknown cell %q", engine.ErrConfig, b.Name, t.names[i], b.Cells[j].Name)
			case k == int(North):
				t.goalAdj[0] |= 1 << i
			case k == int(South):
				t.goalAdj[1] |= 1 << i
			default:
				adj[i] = append(adj[i], k)
				if k > i {
					nEdges++
					if nEdges > 64 {
						return nil, fmt.Errorf("%w: gyges: board %q has more than 64 links between cells", engine.ErrConfig, b.Name)
					}
					edge[i][k] = nEdges - 1
					edge[k][i] = nEdges - 1
				}
			}
		}
	}
	goals := [2]int{int(North), int(South)}
	var the []uint64 // group.tp[thrTE:], laid out as t.thr
	// Each group's first path in t.paths and the index in t.thr of the
	// paths through cell 0 (before the padding in front).
	var off, thr [numCells * 3]int
	for c := 0; c < numCells; c++ {
		for l := 1; l <= 3; l++ {
			// Walks of exactly l steps with no boundary used twice; a
			// last step into a goal only from a cell next to it.
			type walk struct {
				inter, edges uint64
				end          int
			}
			var list []walk
			var step func(at, left int, inter, edges uint64)
			step = func(at, left int, inter, edges uint64) {
				if left == 1 {
					for p, goal := range goals {
						if t.goalAdj[p]&(1<<at) != 0 {
							list = append(list, walk{inter, edges, goal})
						}
					}
				}
				for _, n := range adj[at] {
					e := uint64(1) << edge[at][n]
					if edges&e != 0 {
						continue
					}
					if left == 1 {
						list = append(list, walk{inter, edges | e, n})
						continue
					}
					step(n, left-1, inter|1<<n, edges|e)
				}
			}
			step(c, l, 0, 0)
			if len(list) > 64 {
				return nil, fmt.Errorf("%w: gyges: board %q: more than 64 ways to go %d steps from %s", engine.ErrConfig, b.Name, l, t.names[c])
			}
			g := &t.grp[c*3+l]
			off[c*3+l-1] = len(t.paths)
			lo, hi := numCells, -1
			for k, w := range list {
				t.paths = append(t.paths, path{edges: w.edges, end: 1 << w.end})
				for p := range goals {
					if w.end != goals[1-p] {
						g.allowed[p] |= 1 << k
					}
				}
				g.inter |= w.inter
				for d := w.inter; d != 0; d &= d - 1 {
					t.via[bits.TrailingZeros64(d)] |= 1 << c
				}
				g.edges |= w.edges
				if w.inter != 0 {
					lo = min(lo, bits.TrailingZeros64(w.inter))
					hi = max(hi, bits.Len64(w.inter)-1)
				}
			}
			thr[c*3+l-1] = len(t.thr) - lo
			for d := lo; d <= hi; d++ {
				var m uint64
				for k, w := range list {
					if w.inter&(1<<d) != 0 {
						m |= 1 << k
					}
				}
				t.thr = append(t.thr, m)
				// The boundaries that only paths through d cross.
				var through, other uint64
				for _, w := range list {
					if w.inter&(1<<d) != 0 {
						through |= w.edges
					} else {
						other |= w.edges
					}
				}
				the = append(the, through&^other)
			}
		}
	}
	// Room for a group's 64 paths after the last one's start.
	t.paths = append(t.paths, make([]path, 64)...)
	// Room for 64 cells before and after every group's cells.
	if len(t.thr)+128 > thrTE {
		return nil, fmt.Errorf("%w: gyges: board %q: %d blocking sets, more than %d", engine.ErrConfig, b.Name, len(t.thr), thrTE-128)
	}
	blk := make([]uint64, 2*thrTE+1) // +1: group.tp is thrTE+65 long
	copy(blk[64:], t.thr)
	copy(blk[thrTE+64:], the)
	// Both halves complemented: the searches AND them in from memory
	// (an AND-NOT is three instructions without BMI, GOAMD64=v1).
	for i := range blk {
		blk[i] = ^blk[i]
	}
	t.thr = blk
	for i := range numCells * 3 {
		g := &t.grp[i+1]
		g.ps = (*[64]path)(t.paths[off[i]:])
		g.tp = (*[thrTE + 65]uint64)(t.thr[thr[i]+64:])
	}
	// The Go search's arrays: a group's paths are numbered 0..n-1, their
	// edges then their ends from group.pe; after all groups', 65 unused
	// words, the paths not crossing each boundary per group, from the
	// lowest boundary of the group's edges to the highest, then 65
	// unused words.
	var flat []uint64
	for i := range numCells * 3 {
		g := &t.grp[i+1]
		n := bits.Len64(g.allowed[0] | g.allowed[1])
		g.pe, g.pn = uint16(len(flat)), uint16(len(flat)+n)
		for k := 0; k < n; k++ {
			flat = append(flat, g.ps[k].edges)
		}
		for k := 0; k < n; k++ {
			flat = append(flat, g.ps[k].end)
		}
	}
	flat = append(flat, make([]uint64, 65)...)
	for i := range numCells * 3 {
		g := &t.grp[i+1]
		if g.edges == 0 {
			continue
		}
		lo, hi := bits.TrailingZeros64(g.edges), bits.Len64(g.edges)-1
		g.ep = uint16(len(flat) - lo)
		n := bits.Len64(g.allowed[0] | g.allowed[1])
		for e := lo; e <= hi; e++ {
			var m uint64
			for k := 0; k < n; k++ {
				if g.ps[k].edges>>e&1 != 0 {
					m |= 1 << k
				}
			}
			// Complemented, as the blocking sets: the Go search
			// ANDs them in.
			flat = append(flat, ^m)
		}
	}
	if len(flat)+65 > flatMask+1 {
		return nil, fmt.Errorf("%w: gyges: board %q: %d words of paths, more than %d", engine.ErrConfig, b.Name, len(flat), flatMask+1-65)
	}
	copy(t.flat[:], flat)
	return t, nil
}
