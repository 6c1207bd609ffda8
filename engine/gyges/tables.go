package gyges

import (
	"fmt"

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

// path is one way a segment of exactly L steps can go from a cell, in 16
// bytes so that all paths of a mover stay in the L1 cache.
type path struct {
	// Bits 0–37: the cells entered before the last step (they must be
	// empty). Bits 58–63: the cell entered by the last step (a grid cell or
	// the goal).
	inter uint64
	edges uint64 // boundaries crossed (goal links are not tracked: a goal ends the move)
}

const endShift = 58

func mkPath(inter, edges uint64, end int) path {
	return path{inter: inter | uint64(end)<<endShift, edges: edges}
}

// tables are the precomputed step paths of one board. They never change
// after New and are shared by clones.
type tables struct {
	// paths[p] are the paths for mover p (0 south, 1 north); the paths of a
	// segment of length l from cell c are paths[p][off[p][c*3+l-1]:off[p][c*3+l]].
	// Paths ending in a goal end in the mover's target goal only.
	paths [2][]path
	off   [2][numCells*3 + 1]uint16
	// goalAdj[p] are the cells from which a step enters player p's target goal.
	goalAdj [2]uint64
	names   [numCells + 2]string
}

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
	for p := 0; p < 2; p++ {
		goal := int(North)
		if p == 1 {
			goal = int(South)
		}
		var list []path
		for c := 0; c < numCells; c++ {
			for l := 1; l <= 3; l++ {
				t.off[p][c*3+l-1] = uint16(len(list))
				// Walks of exactly l steps with no boundary used twice.
				var walk func(at, left int, inter, edges uint64)
				walk = func(at, left int, inter, edges uint64) {
					if left == 1 && t.goalAdj[p]&(1<<at) != 0 {
						list = append(list, mkPath(inter, edges, goal))
					}
					for _, n := range adj[at] {
						e := uint64(1) << edge[at][n]
						if edges&e != 0 {
							continue
						}
						if left == 1 {
							list = append(list, mkPath(inter, edges|e, n))
							continue
						}
						walk(n, left-1, inter|1<<n, edges|e)
					}
				}
				walk(c, l, 0, 0)
			}
		}
		t.off[p][numCells*3] = uint16(len(list))
		t.paths[p] = list
	}
	return t, nil
}
