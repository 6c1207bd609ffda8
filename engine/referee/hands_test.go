package referee

import (
	"slices"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// Real hands, as the noisy harness plays them on top of its noise (issue
// 23): a piece set down on a wrong cell for a while and carried on, a path
// counted cell by cell with the piece resting on each (GYGES, DAHA), a slow
// slide that rests on the cells it crosses (six, STAR, RAY), a GYGES bounce
// piece lifted to look at and put back while the moving piece is in hand.

// restWrong sets piece p (in hand) down on an empty cell that the move does
// not name, for 150 ms to 2 s, and picks it up again.
func (n *noisy) restWrong(p string, avoid []int) {
	var near, any []int
	for c := range n.b.Cells {
		if !n.has(c) || n.b.Cells[c].Goal || slices.Contains(avoid, c) {
			continue
		}
		if _, occ := n.pieces[c]; occ {
			continue
		}
		if at, ok := n.lastEmptied[c]; ok && n.now-at < 2*n.settle {
			continue
		}
		any = append(any, c)
		for _, a := range avoid {
			if slices.Contains(n.b.Cells[a].Adj, c) {
				near = append(near, c)
				break
			}
		}
	}
	pick := near
	if len(pick) == 0 || n.rng.IntN(3) == 0 {
		pick = any
	}
	if len(pick) == 0 {
		return
	}
	c := pick[n.rng.IntN(len(pick))]
	n.logf("rest %s", n.b.Cells[c].Name)
	n.place(c, p)
	n.advance(n.ms(150, 2000))
	n.lift(c, false)
	n.advance(n.ms(40, 400))
}

// countRest carries piece p along a counted path, resting on each empty
// cell long enough to settle (and, when look is set, lifting an occupied
// cell's piece to see its height and putting it back).
func (n *noisy) countRest(path []int, p string, look bool) {
	for _, c := range path {
		if !n.has(c) {
			continue
		}
		if _, occ := n.pieces[c]; occ {
			if look && n.rng.IntN(3) == 0 {
				q := n.pieces[c]
				n.logf("look %s", n.b.Cells[c].Name)
				delete(n.pieces, c)
				n.contact(c)
				n.advance(n.ms(150, 1000))
				n.pieces[c] = q
				n.contact(c)
				n.advance(n.ms(100, 300))
			}
			continue
		}
		if at, ok := n.lastEmptied[c]; ok && n.now-at < 2*n.settle {
			n.advance(2*n.settle - (n.now - at))
		}
		n.logf("count %s", n.b.Cells[c].Name)
		n.pieces[c] = p
		n.contact(c)
		n.advance(n.ms(150, 600))
		delete(n.pieces, c)
		n.contact(c)
		n.lastEmptied[c] = n.now
		n.advance(n.ms(40, 300))
	}
}

// slowSlide slides piece p from a to b, resting on the empty cells it
// crosses long enough to settle.
func (n *noisy) slowSlide(a, b int, p string) {
	for _, c := range n.crossed(a, b) {
		n.logf("slide rest %s", n.b.Cells[c].Name)
		n.pieces[c] = p
		n.emit(c, n.code(c))
		n.advance(n.ms(150, 500))
		delete(n.pieces, c)
		n.emit(c, CodeEmpty)
		n.lastEmptied[c] = n.now
		n.advance(n.ms(20, 150))
	}
}

// gygesPath finds the cells a GYGES move's chain enters before its end, in
// order (bounce cells included), by the rules of RULES.md §3: nil when no
// chain is found.
func (n *noisy) gygesPath(st engine.State, text string, from, to int, replace bool) []int {
	if from < 0 || to < 0 {
		return nil
	}
	pos := st.Position().Pieces
	height := func(c int) int {
		switch pos[n.b.Cells[c].Name] {
		case "1":
			return 1
		case "2":
			return 2
		case "3":
			return 3
		}
		return 0
	}
	occupied := func(c int) bool { return c != from && height(c) > 0 }
	target := "N"
	if st.Info().Seats[st.ToMove()] == "north" {
		target = "S"
	}
	type edge struct{ a, b int }
	used := map[edge]bool{}
	landed := map[int]bool{from: true}
	var path []int
	budget := 20000
	var step func(cur, left int) bool
	step = func(cur, left int) bool {
		budget--
		if budget < 0 {
			return false
		}
		adj := slices.Clone(n.b.Cells[cur].Adj)
		n.rng.Shuffle(len(adj), func(i, j int) { adj[i], adj[j] = adj[j], adj[i] })
		for _, nb := range adj {
			e := edge{min(cur, nb), max(cur, nb)}
			if used[e] {
				continue
			}
			goal := n.b.Cells[nb].Goal
			if left > 1 {
				if goal || occupied(nb) {
					continue
				}
				used[e] = true
				path = append(path, nb)
				if step(nb, left-1) {
					return true
				}
				path = path[:len(path)-1]
				used[e] = false
				continue
			}
			// the segment's last step
			switch {
			case goal:
				if n.b.Cells[nb].Name == target && nb == to {
					return true
				}
			case !occupied(nb):
				if nb == to && !replace && !landed[nb] {
					return true
				}
			case landed[nb]:
			case replace && nb == to:
				return true
			default:
				used[e] = true
				landed[nb] = true
				path = append(path, nb)
				if step(nb, height(nb)) {
					return true
				}
				path = path[:len(path)-1]
				landed[nb] = false
				used[e] = false
			}
		}
		return false
	}
	if h := height(from); h == 0 || !step(from, h) {
		return nil
	}
	_ = text
	return path
}

// crossed lists the empty cells on the straight line from a to b, nearest
// first.
func (n *noisy) crossed(a, b int) []int {
	ax, ay := n.b.Cells[a].X, n.b.Cells[a].Y
	bx, by := n.b.Cells[b].X, n.b.Cells[b].Y
	dx, dy := bx-ax, by-ay
	l2 := dx*dx + dy*dy
	type hit struct {
		c int
		u float64
	}
	var over []hit
	if l2 == 0 {
		return nil
	}
	for c := range n.b.Cells {
		if c == a || c == b || n.b.Cells[c].Goal || !n.has(c) {
			continue
		}
		if _, occ := n.pieces[c]; occ {
			continue
		}
		cx, cy := n.b.Cells[c].X, n.b.Cells[c].Y
		u := ((cx-ax)*dx + (cy-ay)*dy) / l2
		if u <= 0 || u >= 1 {
			continue
		}
		px, py := ax+u*dx-cx, ay+u*dy-cy
		if px*px+py*py < 0.2 {
			over = append(over, hit{c, u})
		}
	}
	slices.SortFunc(over, func(x, y hit) int {
		switch {
		case x.u < y.u:
			return -1
		case x.u > y.u:
			return 1
		}
		return 0
	})
	out := make([]int, len(over))
	for i, h := range over {
		out[i] = h.c
	}
	return out
}

var _ = time.Millisecond
