package six

// An independent, deliberately naive reference implementation of the rules:
// maps of coordinates, a flood fill per candidate lift, and a brute-force scan
// of the whole table for shapes after every move. It shares nothing with the
// engine but the rules text.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/engine"
)

type rc struct{ q, r int }

func (c rc) String() string { return strconv.Itoa(c.q) + "," + strconv.Itoa(c.r) }

var refDirs = []rc{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}}

func (c rc) nb() []rc {
	out := make([]rc, 6)
	for i, d := range refDirs {
		out[i] = rc{c.q + d.q, c.r + d.r}
	}
	return out
}

type refState struct {
	adv    bool
	seats  int
	pieces map[rc]int // 0 black, 1 red
	hand   [4]int
	toMove int
	passes int
	status engine.Status
	winner int
	ending Ending
}

func refFrom(p engine.Position, adv bool, seats int) *refState {
	names := []string{"black", "red"}
	if seats == 4 {
		names = []string{"black1", "red1", "black2", "red2"}
	}
	r := &refState{adv: adv, seats: seats, pieces: map[rc]int{}, winner: -1}
	for cell, col := range p.Pieces {
		parts := strings.Split(cell, ",")
		q, _ := strconv.Atoi(parts[0])
		rr, _ := strconv.Atoi(parts[1])
		r.pieces[rc{q, rr}] = map[string]int{"black": 0, "red": 1}[col]
	}
	for i, n := range names {
		if v, ok := p.Hands[n]; ok {
			r.hand[i] = v.(int)
		}
		if n == p.ToMove {
			r.toMove = i
		}
	}
	return r
}

func (r *refState) placing() bool { return r.hand[0]+r.hand[1]+r.hand[2]+r.hand[3] > 0 }

// refGroups splits the cells of set into edge-connected groups by flood fill.
func refGroups(set map[rc]bool) [][]rc {
	seen := map[rc]bool{}
	var out [][]rc
	keys := make([]rc, 0, len(set))
	for c := range set {
		keys = append(keys, c)
	}
	slices.SortFunc(keys, func(a, b rc) int {
		if a.q != b.q {
			return a.q - b.q
		}
		return a.r - b.r
	})
	for _, c := range keys {
		if seen[c] {
			continue
		}
		g := []rc{c}
		seen[c] = true
		for h := 0; h < len(g); h++ {
			for _, n := range g[h].nb() {
				if set[n] && !seen[n] {
					seen[n] = true
					g = append(g, n)
				}
			}
		}
		out = append(out, g)
	}
	return out
}

func (r *refState) moves() []string {
	if r.status != engine.Playing {
		return nil
	}
	col := r.toMove % 2
	set := map[string]bool{}
	if r.placing() {
		if r.hand[r.toMove] > 0 {
			first := len(r.pieces) == 2 && col == 0
			if c, ok := r.pieces[rc{0, 0}]; !ok || c != 1 {
				first = false
			}
			if c, ok := r.pieces[rc{1, 0}]; !ok || c != 0 {
				first = false
			}
			for p := range r.pieces {
				for _, n := range p.nb() {
					if _, occ := r.pieces[n]; occ {
						continue
					}
					if first {
						touchRed, touchBlack := false, false
						for _, m := range n.nb() {
							touchRed = touchRed || m == rc{0, 0}
							touchBlack = touchBlack || m == rc{1, 0}
						}
						if !touchRed || touchBlack {
							continue
						}
					}
					set[n.String()] = true
				}
			}
		}
	} else {
		for p, c := range r.pieces {
			if c != col {
				continue
			}
			others := map[rc]bool{}
			for o := range r.pieces {
				if o != p {
					others[o] = true
				}
			}
			gs := refGroups(others)
			if len(gs) > 1 && !r.adv {
				continue
			}
			best := 0
			for _, g := range gs {
				best = max(best, len(g))
			}
			ties := 0
			for _, g := range gs {
				if len(g) == best {
					ties++
				}
			}
			for _, g := range gs {
				if len(g) != best {
					continue
				}
				in := map[rc]bool{}
				small := ""
				for _, x := range g {
					in[x] = true
					if s := x.String(); small == "" || s < small {
						small = s
					}
				}
				for _, x := range g {
					for _, n := range x.nb() {
						if in[n] || n == p {
							continue
						}
						m := p.String() + ">" + n.String()
						if ties > 1 {
							m += "/" + small
						}
						set[m] = true
					}
				}
			}
		}
	}
	if len(set) == 0 {
		return []string{"pass"}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

func refCell(s string) rc {
	parts := strings.Split(s, ",")
	q, _ := strconv.Atoi(parts[0])
	r, _ := strconv.Atoi(parts[1])
	return rc{q, r}
}

// play applies a move given in the notation moves() produced.
func (r *refState) play(m string) {
	seat := r.toMove
	col := seat % 2
	switch {
	case m == "pass":
		r.passes++
	case !strings.Contains(m, ">"):
		r.passes = 0
		r.pieces[refCell(m)] = col
		r.hand[seat]--
	default:
		r.passes = 0
		from, rest, _ := strings.Cut(m, ">")
		to, keep, hasKeep := strings.Cut(rest, "/")
		fc := refCell(from)
		delete(r.pieces, fc)
		if r.adv {
			others := map[rc]bool{}
			for o := range r.pieces {
				others[o] = true
			}
			gs := refGroups(others)
			if len(gs) > 1 {
				var kept []rc
				best := 0
				for _, g := range gs {
					if hasKeep && slices.Contains(g, refCell(keep)) {
						kept = g
						break
					}
					if len(g) > best {
						best, kept = len(g), g
					}
				}
				stay := map[rc]bool{}
				for _, x := range kept {
					stay[x] = true
				}
				for o := range r.pieces {
					if !stay[o] {
						delete(r.pieces, o)
					}
				}
			}
		}
		r.pieces[refCell(to)] = col
	}
	r.toMove = (seat + 1) % r.seats
	if r.adv {
		var cnt [2]int
		for _, c := range r.pieces {
			cnt[c]++
		}
		for i := 0; i < r.seats; i++ {
			cnt[i%2] += r.hand[i]
		}
		if cnt[0] <= 5 || cnt[1] <= 5 {
			r.status, r.ending = engine.Won, ByFewer
			switch {
			case cnt[0] <= 5 && cnt[1] <= 5:
				r.status = engine.Draw
			case cnt[0] <= 5:
				r.winner = 1
			default:
				r.winner = 0
			}
			return
		}
	}
	if e := r.shape(col); e != NotOver {
		r.status, r.winner, r.ending = engine.Won, col, e
		return
	}
	if r.passes >= 2 {
		r.status, r.ending = engine.Draw, ByPasses
	}
}

// shape scans the whole table for a shape of colour col, lines first, then
// triangles, then rings.
func (r *refState) shape(col int) Ending {
	has := func(q, rr int) bool {
		c, ok := r.pieces[rc{q, rr}]
		return ok && c == col
	}
	all := func(cells [][2]int, dq, dr int) bool {
		for _, c := range cells {
			if !has(c[0]+dq, c[1]+dr) {
				return false
			}
		}
		return true
	}
	lines := [][][2]int{
		{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}},
		{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}},
		{{0, 0}, {1, -1}, {2, -2}, {3, -3}, {4, -4}, {5, -5}},
	}
	tris := [][][2]int{
		{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {0, 2}},
		{{0, 0}, {1, 0}, {2, 0}, {1, -1}, {2, -1}, {2, -2}},
	}
	ring := [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}}
	for _, set := range []struct {
		e      Ending
		shapes [][][2]int
	}{{ByLine, lines}, {ByTriangle, tris}, {ByRing, [][][2]int{ring}}} {
		for p := range r.pieces {
			for _, sh := range set.shapes {
				// every translate that puts one of the shape's cells on p
				for _, c := range sh {
					if all(sh, p.q-c[0], p.r-c[1]) {
						return set.e
					}
				}
			}
		}
	}
	return NotOver
}

func (r *refState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "to_move %d hands %v pieces", r.toMove, r.hand[:r.seats])
	keys := make([]rc, 0, len(r.pieces))
	for c := range r.pieces {
		keys = append(keys, c)
	}
	slices.SortFunc(keys, func(a, b rc) int { return strings.Compare(a.String(), b.String()) })
	for _, c := range keys {
		fmt.Fprintf(&b, " %s:%c", c, "br"[r.pieces[c]])
	}
	return b.String()
}
