package gyges

import (
	"fmt"
	"sort"
)

// This file is an independent, deliberately naive reference move generator:
// plain recursion step by step over the grid with maps and sets, written from
// RULES.md §3 without the engine's tables, bitboards or outcome sets. Tests
// compare it with the engine on many positions.

type refCell struct{ col, row int } // 0-based

func (c refCell) String() string { return fmt.Sprintf("%c%d", 'a'+c.col, c.row+1) }

type refEdge struct{ a, b refCell }

func mkEdge(a, b refCell) refEdge {
	if a.row > b.row || a.row == b.row && a.col > b.col {
		a, b = b, a
	}
	return refEdge{a, b}
}

// refPos is a movement-phase position.
type refPos struct {
	pieces   map[refCell]int
	mover    int // 0 south, 1 north
	advanced bool
}

// refRules can bend single rules, for tests that show what a rule changes.
type refRules struct {
	edgeReuse   bool // allow a boundary to be crossed twice
	noRevisit   bool // forbid entering a cell a second time in one move
	reland      bool // allow a segment to end on a piece landed on before
	restOnStart bool // allow a move to end on its start cell
	goalPass    bool // allow passing through the target goal
}

var refDirs = []refCell{{0, 1}, {0, -1}, {1, 0}, {-1, 0}}

func onGrid(c refCell) bool { return c.col >= 0 && c.col < 6 && c.row >= 0 && c.row < 6 }

// refMoves lists the legal moves' notation, sorted.
func refMoves(pos refPos, rules refRules) []string {
	var rowsOrder []int
	for r := 0; r < 6; r++ {
		if pos.mover == 0 {
			rowsOrder = append(rowsOrder, r)
		} else {
			rowsOrder = append(rowsOrder, 5-r)
		}
	}
	out := map[string]bool{}
	for _, r := range rowsOrder {
		for col := 0; col < 6; col++ {
			s := refCell{col, r}
			if pos.pieces[s] == 0 {
				continue
			}
			refChains(pos, rules, s, out)
		}
		if len(out) > 0 {
			break
		}
	}
	if len(out) == 0 {
		return []string{"pass"}
	}
	var list []string
	for m := range out {
		list = append(list, m)
	}
	sort.Strings(list)
	return list
}

type refWalk struct {
	pos     refPos
	rules   refRules
	start   refCell
	used    map[refEdge]bool
	landed  map[refCell]bool
	visited map[refCell]int
	out     map[string]bool
}

func refChains(pos refPos, rules refRules, s refCell, out map[string]bool) {
	w := &refWalk{pos: pos, rules: rules, start: s, used: map[refEdge]bool{},
		landed: map[refCell]bool{}, visited: map[refCell]int{s: 1}, out: out}
	w.segment(s, pos.pieces[s], false)
}

func (w *refWalk) occupied(c refCell) bool {
	return c != w.start && w.pos.pieces[c] != 0
}

// segment takes the remaining steps of a segment from cur.
func (w *refWalk) segment(cur refCell, left int, inGoal bool) {
	goalName, goalRow, goalDir := "N", 5, 1
	if w.pos.mover == 1 {
		goalName, goalRow, goalDir = "S", 0, -1
	}
	if inGoal {
		// Only with rules.goalPass: from the goal to any cell of the far row.
		for col := 0; col < 6; col++ {
			w.step(cur, refCell{col, goalRow}, left)
		}
		return
	}
	for _, d := range refDirs {
		next := refCell{cur.col + d.col, cur.row + d.row}
		if !onGrid(next) {
			if cur.row == goalRow && d.row == goalDir {
				if left == 1 {
					w.out[w.start.String()+"-"+goalName] = true
				} else if w.rules.goalPass {
					w.segment(refCell{-1, -1}, left-1, true)
				}
			}
			continue
		}
		w.step(cur, next, left)
	}
}

func (w *refWalk) step(cur, next refCell, left int) {
	e := mkEdge(cur, next)
	if w.used[e] && !w.rules.edgeReuse {
		return
	}
	if w.visited[next] > 0 && w.rules.noRevisit {
		return
	}
	w.used[e] = true
	w.visited[next]++
	defer func() {
		w.visited[next]--
		delete(w.used, e)
	}()
	if left > 1 {
		if !w.occupied(next) {
			w.segment(next, left-1, false)
		}
		return
	}
	// The segment's last step.
	if !w.occupied(next) {
		if next != w.start || w.rules.restOnStart {
			w.out[w.start.String()+"-"+next.String()] = true
		}
		return
	}
	if w.landed[next] && !w.rules.reland {
		return
	}
	if w.pos.advanced {
		w.replaces(next)
	}
	was := w.landed[next]
	w.landed[next] = true
	w.segment(next, w.pos.pieces[next], false)
	w.landed[next] = was
}

// replaces adds start-land/d for every allowed cell d.
func (w *refWalk) replaces(land refCell) {
	after := map[refCell]int{}
	for c, h := range w.pos.pieces {
		if h != 0 {
			after[c] = h
		}
	}
	after[land] = after[w.start]
	delete(after, w.start)
	// The opponent's nearest row.
	near := -1
	for c := range after {
		if near < 0 || w.pos.mover == 0 && c.row > near || w.pos.mover == 1 && c.row < near {
			near = c.row
		}
	}
	for row := 0; row < 6; row++ {
		for col := 0; col < 6; col++ {
			d := refCell{col, row}
			if after[d] != 0 {
				continue
			}
			if w.pos.mover == 0 && row > near || w.pos.mover == 1 && row < near {
				continue
			}
			w.out[w.start.String()+"-"+land.String()+"/"+d.String()] = true
		}
	}
}
