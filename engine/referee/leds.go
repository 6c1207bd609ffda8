package referee

import (
	"math"
	"slices"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// Role is what a lit cell means (doc.go has the table).
type Role uint8

const (
	RoleNone    Role = iota
	RolePaint        // DAHA paint, owner's colour, dim
	RoleLast         // the last move's destination, dim white
	RoleTurn         // whose turn: the pieces the mover may lift (or cells to place on)
	RoleRoll         // a roll is due: the mover's pieces, slow blink
	RoleTarget       // after a roll: where the roll lets the mover go (RAY: the forced target)
	RoleDest         // a lifted piece's legal destinations
	RolePivot        // STAR: the pivot of a destination
	RoleRemove       // pieces the move under way takes off (six groups)
	RoleHint         // a suggested move
	RoleTake         // correction: take this piece off the board
	RoleFill         // correction: put a piece of this kind here
	RolePair         // correction: move the piece from the fast cell to the steady cell of one colour
	RoleIllegal      // a piece put where it may not go
	RoleConfirm      // readings to choose from
	RoleWin          // the winning pieces
)

var roleNames = [...]string{"", "paint", "last", "turn", "roll", "target", "dest", "pivot", "remove", "hint",
	"take", "fill", "pair", "illegal", "confirm", "win"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role?"
}

// Palette: colours of seats and pieces, and of meanings.
var (
	Green   = Light{G: 255}
	Red     = Light{R: 255}
	White   = Light{R: 255, G: 255, B: 255}
	DimW    = Light{R: 40, G: 40, B: 40}
	Cyan    = Light{G: 255, B: 255}
	Orange  = Light{R: 255, G: 100}
	Pairs   = []Light{{R: 255, B: 255}, {R: 128, G: 255}, {R: 255, G: 105, B: 180}, {G: 128, B: 255}}
	colours = map[string]Light{
		"red": {R: 255}, "yellow": {R: 255, G: 170}, "blue": {G: 80, B: 255}, "black": {R: 150, B: 255},
		"white": {R: 255, G: 255, B: 255}, "south": {G: 80, B: 255}, "north": {R: 255, G: 170},
		"1": {R: 255, G: 255, B: 255}, "2": {R: 255, G: 255, B: 255}, "3": {R: 255, G: 255, B: 255},
	}
)

// Colour returns the LED colour of a seat, side or piece kind.
func Colour(name string) Light {
	if c, ok := colours[name]; ok {
		return c
	}
	return White
}

func dim(l Light) Light {
	return Light{R: l.R / 5, G: l.G / 5, B: l.B / 5}
}

func blink(l Light, b Blink) Light { l.Blink = b; return l }

type litCell struct {
	cell int
	role Role
	led  Light
}

var rolePrio = [...]uint8{RoleNone: 0, RolePaint: 1, RoleLast: 2, RoleTurn: 3, RoleRoll: 3, RoleTarget: 3,
	RoleDest: 4, RolePivot: 4, RoleRemove: 4, RoleHint: 5, RoleTake: 6, RoleFill: 6, RolePair: 6, RoleIllegal: 6,
	RoleConfirm: 7, RoleWin: 8}

func (r *Referee) set(c int, role Role, l Light) {
	if c < 0 || c >= r.ncell {
		return
	}
	if i := r.litAt[c]; i >= 0 {
		if rolePrio[role] >= rolePrio[r.lit[i].role] {
			r.lit[i].role, r.lit[i].led = role, l
		}
		return
	}
	r.litAt[c] = int32(len(r.lit))
	r.lit = append(r.lit, litCell{c, role, l})
}

func (r *Referee) kindName(v uint8) string {
	if v == empty || v == unknown || int(v) > len(r.kinds) {
		return ""
	}
	return r.kinds[v-1]
}

// render computes the lit cells and the LED frame. m is the mismatch of the
// sensed board against the position.
func (r *Referee) render(m []int) {
	if r.cfg.NoFrame {
		return
	}
	if r.litAt == nil {
		r.litAt = make([]int32, r.ncell)
		for c := range r.litAt {
			r.litAt[c] = -1
		}
	}
	for _, l := range r.lit {
		r.litAt[l.cell] = -1
	}
	r.lit = r.lit[:0]
	seat := r.st.ToMove()
	var mover Light
	if seat >= 0 {
		mover = Colour(r.info.Seats[seat])
	}
	if r.info.Game == "daha" {
		for cell, owner := range r.st.Position().Painted {
			if c, ok := r.b.Index(cell); ok {
				r.set(c, RolePaint, dim(Colour(owner)))
			}
		}
	}
	if k := r.lastMove(); k >= 0 {
		for _, ch := range r.ops[k].diff {
			if ch.new != empty {
				r.set(int(ch.cell), RoleLast, DimW)
			}
		}
	}
	switch {
	case r.mode == ModeConfirm:
		for i, c := range r.confirm {
			l := blink(White, Slow)
			if i == r.proposal {
				l.Blink = Fast
			}
			for _, cell := range c.cells {
				if i == r.proposal || !r.proposed(cell) {
					r.set(cell, RoleConfirm, l)
				}
			}
		}
	case !r.known:
	case r.inSync && r.st.Result().Status != engine.Playing:
		r.renderWin()
	case r.inSync:
		r.renderTurn(mover)
	case len(r.progress) > 0:
		r.renderProgress()
	default:
		r.renderCorrection(m, mover)
	}
	if r.hintText != "" {
		for _, c := range r.hint.cells() {
			r.set(c, RoleHint, Cyan)
		}
	}
	// in cell order (each cell is lit once): litAt says where each is
	if !slices.IsSortedFunc(r.lit, func(a, b litCell) int { return a.cell - b.cell }) {
		sorted := r.litSorted[:0]
		for c, i := range r.litAt {
			if i >= 0 {
				r.litAt[c] = int32(len(sorted))
				sorted = append(sorted, r.lit[i])
			}
		}
		r.lit, r.litSorted = sorted, r.lit
	}
	clear(r.frame)
	for _, l := range r.lit {
		if i := r.b.LEDs[l.cell]; i >= 0 && i < len(r.frame) {
			r.frame[i] = l.led
		}
	}
}

func (r *Referee) proposed(cell int) bool {
	return r.proposal < len(r.confirm) && slices.Contains(r.confirm[r.proposal].cells, cell)
}

func (r *Referee) lastMove() int {
	for k := len(r.ops) - 1; k >= 0; k-- {
		if !r.ops[k].roll {
			return k
		}
	}
	return -1
}

func (r *Referee) renderTurn(mover Light) {
	switch r.st.Awaiting() {
	case engine.AwaitRoll:
		want := r.kindOf[r.info.Seats[r.st.ToMove()]]
		for c, v := range r.cur {
			if v == want && want != 0 {
				r.set(c, RoleRoll, blink(mover, Slow))
			}
		}
	case engine.AwaitMove:
		c := r.ensure()
		dice := r.info.Die != nil
		for _, n := range c.notes {
			switch {
			case n.place:
				r.set(n.to, RoleTurn, dim(mover))
			case dice:
				r.set(n.from, RoleTurn, mover)
				r.set(n.to, RoleTarget, blink(Green, Slow))
			default:
				r.set(n.from, RoleTurn, mover)
			}
		}
	}
}

func (r *Referee) renderProgress() {
	c := r.ensure()
	var lifted []int
	if len(r.progress) > 0 {
		lifted = r.lifted()
	}
	// only six advanced takes pieces off with a move (split-off groups)
	removes := r.info.Game == "six" && r.info.Variant == "advanced"
	for _, i := range r.progress {
		n := c.notes[i]
		var d []change
		if removes {
			d = r.diff(c, i)
		}
		toDone := n.to >= 0 && r.hasSensor[n.to] && r.sensed[n.to] != empty && r.sensed[n.to] != r.cur[n.to]
		if n.to >= 0 && n.extra >= 0 && r.sensed[n.to] != empty && slices.Contains(lifted, n.to) {
			toDone = true
		}
		if !toDone || n.extra < 0 {
			r.set(n.to, RoleDest, Green)
		} else {
			r.set(n.extra, RoleDest, blink(Green, Slow))
		}
		if r.info.Game == "star" {
			r.set(r.pivot(n.from, n.to), RolePivot, White)
		}
		for _, ch := range d {
			if ch.new == empty && int(ch.cell) != n.from && r.sensed[ch.cell] != empty {
				r.set(int(ch.cell), RoleRemove, blink(Orange, Slow))
			}
		}
	}
}

// lifted lists cells that hold a piece in the position but read empty.
func (r *Referee) lifted() []int {
	var out []int
	for c, v := range r.cur {
		if v != empty && r.hasSensor[c] && r.sensed[c] == empty {
			out = append(out, c)
		}
	}
	return out
}

// pivot is the midpoint of two cells of a square grid.
func (r *Referee) pivot(a, b int) int {
	if a < 0 || b < 0 || r.b.Kind != boards.Square {
		return -1
	}
	ca, cb := r.b.Cells[a], r.b.Cells[b]
	x, y := (ca.X+cb.X)/2, (ca.Y+cb.Y)/2
	if x != math.Trunc(x) || y != math.Trunc(y) {
		return -1
	}
	return int(y)*r.b.Cols + int(x)
}

func (r *Referee) renderWin() {
	res := r.st.Result()
	if res.Status != engine.Won {
		return
	}
	side := r.info.Sides[res.Winner]
	col := blink(Colour(side), Fast)
	want := r.kindOf[side]
	for c, v := range r.cur {
		switch {
		case v == empty:
		case r.info.Game == "gyges" && r.b.Cells[c].Goal:
			r.set(c, RoleWin, col)
		case want != 0 && v == want:
			r.set(c, RoleWin, col)
		}
	}
}

// renderCorrection guides the board back to the position: pieces to take
// off, cells to fill, and pieces to move (paired by a minimum-cost matching
// on board distance).
func (r *Referee) renderCorrection(m []int, mover Light) {
	var surplus, missing []int
	for _, c := range m {
		s, want := r.sensed[c], r.cur[c]
		if s != empty {
			surplus = append(surplus, c)
		}
		if want != empty && (s == empty || !matches(s, want)) {
			missing = append(missing, c)
		}
	}
	// One of the mover's pieces put on a cell it may not reach: show where
	// it may go instead, and the cell it came from.
	if len(surplus) == 1 && len(missing) == 1 && r.st.Awaiting() == engine.AwaitMove && r.sensed[missing[0]] == empty {
		c := r.ensure()
		from := missing[0]
		any := false
		for _, n := range c.notes {
			if n.from == from {
				any = true
				r.set(n.to, RoleDest, Green)
			}
		}
		if any {
			r.set(surplus[0], RoleIllegal, blink(Red, Slow))
			r.set(from, RoleFill, blink(Colour(r.kindName(r.cur[from])), Slow))
			return
		}
	}
	pairs := r.pair(surplus, missing)
	from, to := map[int]bool{}, map[int]bool{}
	for i, p := range pairs {
		col := Pairs[i%len(Pairs)]
		r.set(p[0], RolePair, blink(col, Fast))
		r.set(p[1], RolePair, col)
		from[p[0]], to[p[1]] = true, true
	}
	for _, c := range surplus {
		if !from[c] {
			r.set(c, RoleTake, blink(Red, Fast))
		}
	}
	for _, c := range missing {
		if !to[c] {
			r.set(c, RoleFill, blink(Colour(r.kindName(r.cur[c])), Slow))
		}
	}
}

// pieceAt is the kind of the piece on a cell as far as it is known.
func (r *Referee) pieceAt(c int) uint8 {
	if s := r.sensed[c]; s != unknown {
		return s
	}
	return r.infer[c]
}

// pair matches surplus pieces to cells to fill, minimising first the number
// of unpaired cells, then the total board distance. Kinds must agree where
// known.
func (r *Referee) pair(surplus, missing []int) [][2]int {
	if len(surplus) == 0 || len(missing) == 0 {
		return nil
	}
	const big = 1 << 20
	cost := make([][]int, len(surplus))
	for i, s := range surplus {
		dist := r.bfs(s)
		cost[i] = make([]int, len(missing))
		k := r.pieceAt(s)
		for j, t := range missing {
			switch {
			case s == t:
				cost[i][j] = big
			case k != unknown && k != empty && k != r.cur[t]:
				cost[i][j] = big
			case dist[t] < 0:
				cost[i][j] = big / 2
			default:
				cost[i][j] = dist[t]
			}
		}
	}
	var out [][2]int
	if len(missing) <= 12 && len(surplus) <= 16 {
		// dp over subsets of missing, surplus in order; a surplus may stay
		// unpaired at cost big.
		n := len(missing)
		full := 1 << n
		inf := math.MaxInt / 4
		dp := make([][]int, len(surplus)+1)
		for i := range dp {
			dp[i] = make([]int, full)
			for j := range dp[i] {
				dp[i][j] = inf
			}
		}
		dp[0][0] = 0
		for i := range surplus {
			for mask := 0; mask < full; mask++ {
				v := dp[i][mask]
				if v == inf {
					continue
				}
				if v+big < dp[i+1][mask] {
					dp[i+1][mask] = v + big
				}
				for j := 0; j < n; j++ {
					if mask&(1<<j) == 0 && cost[i][j] < big {
						if w := v + cost[i][j]; w < dp[i+1][mask|1<<j] {
							dp[i+1][mask|1<<j] = w
						}
					}
				}
			}
		}
		bestMask, best := 0, inf
		for mask := 0; mask < full; mask++ {
			// unfilled missing cells count as unpaired too
			v := dp[len(surplus)][mask]
			if v == inf {
				continue
			}
			v += big * (n - popcount(mask))
			if v < best {
				best, bestMask = v, mask
			}
		}
		mask := bestMask
		for i := len(surplus) - 1; i >= 0; i-- {
			if dp[i][mask]+big == dp[i+1][mask] {
				continue
			}
			for j := 0; j < n; j++ {
				if mask&(1<<j) != 0 && cost[i][j] < big && dp[i][mask&^(1<<j)]+cost[i][j] == dp[i+1][mask] {
					out = append(out, [2]int{surplus[i], missing[j]})
					mask &^= 1 << j
					break
				}
			}
		}
		slices.Reverse(out)
		return out
	}
	// Many cells: greedy nearest pairs.
	used := make([]bool, len(missing))
	for i, s := range surplus {
		bj := -1
		for j := range missing {
			if !used[j] && cost[i][j] < big && (bj < 0 || cost[i][j] < cost[i][bj]) {
				bj = j
			}
		}
		if bj >= 0 {
			used[bj] = true
			out = append(out, [2]int{s, missing[bj]})
		}
	}
	return out
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// bfs returns board distances from cell s (-1 unreachable).
func (r *Referee) bfs(s int) []int {
	dist := make([]int, r.ncell)
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	q := []int{s}
	for len(q) > 0 {
		c := q[0]
		q = q[1:]
		for _, n := range r.b.Cells[c].Adj {
			if dist[n] < 0 {
				dist[n] = dist[c] + 1
				q = append(q, n)
			}
		}
	}
	return dist
}

// Frame returns the LED frame for the current state (one entry per LED of
// the board definition). The slice is the referee's: copy it to keep it.
func (r *Referee) Frame() []Light { return r.frame }
