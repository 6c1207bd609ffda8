package referee

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// mismatch appends to dst the sensed cells whose reading does not fit want
// (in cell order).
//
// It is the referee's commonest loop (several boards a settle), so it reads
// eight cells at a time: misfit8 marks the cells of a word whose reading
// does not fit, the same test as matches on each byte.
func (r *Referee) mismatch(dst []int, want []uint8) []int {
	s, w := r.sensed, want[:len(r.sensed)]
	c := 0
	for k, hs := range r.sensorWords {
		if bad := misfit8(binary.LittleEndian.Uint64(s[c:]), binary.LittleEndian.Uint64(w[c:])) & hs; bad != 0 {
			for ; bad != 0; bad &= bad - 1 {
				dst = append(dst, 8*k+bits.TrailingZeros64(bad)/8)
			}
		}
		c += 8
	}
	for ; c < len(s); c++ {
		if r.hasSensor[c] && !matches(s[c], w[c]) {
			dst = append(dst, c)
		}
	}
	return dst
}

// fitsBoard reports whether every sensed cell fits want: mismatch's list is
// empty.
func (r *Referee) fitsBoard(want []uint8) bool {
	s, w := r.sensed, want[:len(r.sensed)]
	c := 0
	for _, hs := range r.sensorWords {
		if misfit8(binary.LittleEndian.Uint64(s[c:]), binary.LittleEndian.Uint64(w[c:]))&hs != 0 {
			return false
		}
		c += 8
	}
	for ; c < len(s); c++ {
		if r.hasSensor[c] && !matches(s[c], w[c]) {
			return false
		}
	}
	return true
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// zero8 sets the high bit of each zero byte of x (and only those).
func zero8(x uint64) uint64 {
	return ^((x &^ hi8) + ^uint64(hi8) | x | ^uint64(hi8)) & hi8
}

// misfit8 sets the high bit of each byte of the word s whose reading does
// not fit the byte of want: they differ, and s is not a presence reading
// (unknown) of a cell where want has a piece (matches, eight at a time).
func misfit8(s, want uint64) uint64 {
	differ := ^zero8(s^want) & hi8
	presence := zero8(s^(lo8*uint64(unknown))) &^ zero8(want^(lo8*uint64(empty)))
	return differ &^ presence
}

// fits reports whether the board base changed by d is what the sensors read,
// given the mismatch m of base.
func (r *Referee) fits(d []change, m []int) bool {
	for _, ch := range d {
		if r.hasSensor[ch.cell] && !matches(r.sensed[ch.cell], ch.new) {
			return false
		}
	}
	for _, c := range m {
		if !inDiff(d, c) {
			return false
		}
	}
	return true
}

func inDiff(d []change, c int) bool {
	for _, ch := range d {
		if int(ch.cell) == c {
			return true
		}
	}
	return false
}

func (n note) cells() [3]int { return [3]int{n.from, n.to, n.extra} }

// names reports whether the notation names cell c.
func (n note) names(c int) bool { return c >= 0 && (n.from == c || n.to == c || n.extra == c) }

// relevant is a cheap filter before a move's changes are computed: its
// notation names a mismatched cell, or (when the board fits the position) a
// cell touched since since.
func (r *Referee) relevant(n note, m []int, since uint64) bool {
	for _, c := range n.cells() {
		if c < 0 {
			continue
		}
		if len(m) == 0 {
			if r.touched[c] > since {
				return true
			}
		} else if slices.Contains(m, c) {
			return true
		}
	}
	return len(m) > 0 && n.from < 0 && n.to < 0 && !n.pass
}

// mayFit is a cheap filter before a move's changes are computed: a move
// other than a GYGES replace or a pass puts a piece on an empty cell, its
// destination, so the board cannot show it unless that cell mismatches.
func (r *Referee) mayFit(n note, m []int) bool {
	shows := func(c int) bool { return c < 0 || !r.hasSensor[c] || slices.Contains(m, c) }
	switch {
	case n.pass:
		return true
	case n.extra >= 0:
		// a GYGES replace: the displaced piece lands on an empty cell and
		// the mover's cell empties, unless the one goes onto the other
		return n.extra == n.from || (shows(n.extra) && shows(n.from))
	case n.to < 0:
		return true
	}
	// the destination fills, and the piece's cell (if it had one) empties
	return shows(n.to) && (n.from == n.to || shows(n.from))
}

// fitting returns, in order, the indices of c's moves that mayFit may pass
// on the mismatch m: each move whose destination is a cell of m, and every
// move mayFit does not judge by its destination alone. (mayFit still
// decides; the moves left out are those it refuses, without asking it each
// time: a settled board is read against every legal move.)
func (r *Referee) fitting(c *posCache, m []int) []int32 {
	if !c.indexed {
		c.indexed = true
		c.byTo = slices.Grow(c.byTo[:0], r.ncell)[:r.ncell]
		for i := range c.byTo {
			c.byTo[i] = c.byTo[i][:0]
		}
		c.always = c.always[:0]
		for i, n := range c.notes {
			if n.pass || n.extra >= 0 || n.to < 0 || n.to >= r.ncell || !r.hasSensor[n.to] {
				c.always = append(c.always, int32(i))
			} else {
				c.byTo[n.to] = append(c.byTo[n.to], int32(i))
			}
		}
	}
	if len(m) == 0 {
		return c.always
	}
	out := append(c.picked[:0], c.always...)
	for _, cell := range m {
		out = append(out, c.byTo[cell]...)
	}
	slices.Sort(out)
	c.picked = out
	return out
}

// mayBeUnderWay is a cheap filter before a move's changes are computed: a
// mismatched cell that the notation does not name can only be a piece the
// move takes off (six), so it must have been lifted.
func (r *Referee) mayBeUnderWay(n note, m []int) bool {
	for _, c := range m {
		if c != n.from && c != n.to && c != n.extra && !(r.sensed[c] == empty && r.cur[c] != empty) {
			return false
		}
	}
	return true
}

// liftedOnly reports whether every mismatched cell is one the move names
// whose piece is off the board.
func (r *Referee) liftedOnly(n note, m []int) bool {
	for _, c := range m {
		if (c != n.from && c != n.to && c != n.extra) || r.sensed[c] != empty || r.cur[c] == empty {
			return false
		}
	}
	return true
}

// evidence checks that every key cell of a move (its changes and the cells
// its notation names) was touched since since, and the order of lifts where
// it matters (a GYGES replace: the landing piece was lifted while the moving
// piece was off the board; put back on the start cell, the landing cell was
// filled first). It returns the number of key cells.
func (r *Referee) evidence(n note, d []change, since uint64, keys []int) (int, []int, bool) {
	keys = keys[:0]
	add := func(c int) bool {
		if c < 0 || !r.hasSensor[c] || slices.Contains(keys, c) {
			return true
		}
		if r.touched[c] <= since {
			return false
		}
		keys = append(keys, c)
		return true
	}
	for _, ch := range d {
		if !add(int(ch.cell)) {
			return 0, keys, false
		}
	}
	for _, c := range n.cells() {
		if !add(c) {
			return 0, keys, false
		}
	}
	if !r.ordered(n, since) {
		return 0, keys, false
	}
	return len(keys), keys, true
}

// ordered reports whether the order of lifts and fills since since admits
// the move: a piece is put down after it was lifted.
func (r *Referee) ordered(n note, since uint64) bool {
	if n.extra >= 0 && n.from >= 0 && n.to >= 0 && r.hasSensor[n.from] && r.hasSensor[n.to] {
		// a replace: the landing piece was off its cell while the moving
		// piece was off the board (in whatever order they were lifted and
		// put down, this happens just before the moving piece lands)
		if co, _ := r.coEmpty(n.from, n.to, since); !co {
			return false
		}
		// the displaced piece was put down after it had left the landing
		// cell (a piece put there before is another piece)
		if n.extra != n.from && r.hasSensor[n.extra] && !r.liftedBeforeFill(n.to, n.extra, since) {
			return false
		}
		// the moving piece landed after it had left its cell (a piece
		// knocked off the landing cell and set back before is no landing),
		// while it was in the hand: its cell read empty then (a piece
		// knocked off it and set back is still there), unless the
		// displaced piece was put down there first
		if n.from != n.to && !r.liftedBeforeFill(n.from, n.to, since) ||
			n.extra != n.from && !r.inHandAtFill(n.from, n.to, since) {
			return false
		}
	}
	if (r.info.Game == "gyges" || r.info.Game == "six") && n.extra < 0 && !n.place && n.from >= 0 && n.to >= 0 && n.from != n.to && r.hasSensor[n.from] && r.hasSensor[n.to] {
		// the moving piece was in the hand when its destination was last
		// filled: a piece put there before the mover was lifted is another
		// (the displaced piece of a replace whose mover lands elsewhere; in
		// six, the last mover's hexagon put down while a neighbour is
		// knocked off its cell); in GYGES its cell read empty then (a piece
		// knocked off it and set back is still there)
		if !r.liftedBeforeFill(n.from, n.to, since) || r.info.Game == "gyges" && !r.inHandAtFill(n.from, n.to, since) {
			return false
		}
	}
	return true
}

// turnsOK replays the trace since since against plies played one after the
// other (boards[i] is the board after ply i, boards[0] before the first;
// named[i] the cells ply i+1 names): each ply that takes a piece off a cell
// needs a lift there, each that puts one down a fill, in the plies' order,
// and the players take turns — every change a ply needs comes after every
// change the ply before it needed, by at least the settle time: the next
// player's hand starts once the one before has put its piece down and let
// go (no one lifts a piece within a tenth of a second of another person's
// last touch). The trace may show more (bumps, rests),
// never less. Within a GYGES ply a piece is put down after it was picked
// up: the mover lands after its cell was emptied, a replace's displaced
// piece after its landing cell was.
func (r *Referee) turnsOK(since uint64, boards [][]uint8, named []note) bool {
	var cells []int
	for c := 0; c < r.ncell; c++ {
		if !r.hasSensor[c] {
			continue
		}
		for i := range named {
			if boards[i][c] != boards[i+1][c] || named[i].names(c) {
				cells = append(cells, c)
				break
			}
		}
	}
	evs := make([][]traceEv, len(cells))
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		if k := slices.Index(cells, int(t.cell)); k >= 0 {
			evs[k] = append(evs[k], t)
		}
	}
	pos := make([]int, len(cells))
	order := make([]int, 0, len(cells))
	barrier := since
	var after, endAt time.Duration // a ply's changes come after: its turn begins
	// per ply: its first and last change, and the cells it changed
	starts, ends := make([]time.Duration, len(named)), make([]time.Duration, len(named))
	plyCells := make([][]int, len(named))
	for i := range named {
		end := barrier
		starts[i] = time.Duration(1<<63 - 1)
		if i > 0 && !gapOff {
			after = endAt + r.cfg.Settle
		}
		// the cells in the order their pieces are picked up: the ply's
		// origin, then its landing cell, then the rest; the landing cell
		// filled after the origin was emptied, the displaced piece's
		// after the landing cell was
		nt := named[i]
		from, to, extra := -1, -1, -1
		if r.info.Game == "gyges" && !nt.place {
			from, to, extra = nt.from, nt.to, nt.extra
		}
		order = order[:0]
		for _, c := range [...]int{from, to} {
			if k := slices.Index(cells, c); c >= 0 && k >= 0 {
				order = append(order, k)
			}
		}
		for k, c := range cells {
			if c != from && c != to {
				order = append(order, k)
			}
		}
		toAfter, extraAfter := barrier, barrier
		for _, k := range order {
			c := cells[k]
			a, b := boards[i][c], boards[i+1][c]
			changed := a != b && !(a != empty && b != empty && !r.ident)
			nm := named[i].names(c)
			var want [2]byte
			n := 0
			if a != empty && (changed || nm) {
				want[n], n = 'L', n+1
			}
			if b != empty && (changed || nm && a != empty) {
				want[n], n = 'F', n+1
			}
			for _, w := range want[:n] {
				found := false
				lo := barrier
				if w == 'F' && c == to {
					lo = max(lo, toAfter)
				}
				if w == 'F' && c == extra {
					lo = max(lo, extraAfter)
				}
				for pos[k] < len(evs[k]) {
					t := evs[k][pos[k]]
					pos[k]++
					if t.seq > lo && t.at >= after && (w == 'L') == t.empty() {
						found = true
						end = max(end, t.seq)
						endAt = max(endAt, t.at)
						starts[i], ends[i] = min(starts[i], t.at), max(ends[i], t.at)
						if !slices.Contains(plyCells[i], k) {
							plyCells[i] = append(plyCells[i], k)
						}
						if w == 'L' && c == from {
							toAfter = t.seq
						}
						if w == 'L' && c == to {
							extraAfter = t.seq
						}
						break
					}
				}
				if !found {
					return false
				}
			}
		}
		barrier = end
	}
	// between two plies the hand let go: at some moment the cells either
	// ply changes read the board after the first
	for i := 0; i+1 < len(named) && !boundaryOff; i++ {
		if !showsBetween(evs, slices.Concat(plyCells[i], plyCells[i+1]), cells, boards[i+1], ends[i], starts[i+1]) {
			return false
		}
	}
	return true
}

// showsBetween: at some moment from lo to before hi, cells[k] for each k of
// ks read board b by the trace evs[k] (a cell with no change by then is
// taken to).
func showsBetween(evs [][]traceEv, ks, cells []int, b []uint8, lo, hi time.Duration) bool {
	shows := func(t time.Duration) bool {
		for _, k := range ks {
			var v uint8
			seen := false
			for _, ev := range evs[k] {
				if ev.at > t {
					break
				}
				v, seen = ev.v, true
			}
			if seen && !matches(v, b[cells[k]]) {
				return false
			}
		}
		return true
	}
	if shows(lo) {
		return true
	}
	for _, k := range ks {
		for _, ev := range evs[k] {
			if ev.at > lo && ev.at < hi && shows(ev.at) {
				return true
			}
		}
	}
	return false
}

// boundaryOff: turnsOK asks no moment between two plies showing the board
// after the first, as before session 20 (measuring only; set by tests).
var boundaryOff = false

// gapOff: turnsOK asks no pause between two players' plies, as before
// session 20 (measuring only; set by tests).
var gapOff = false

// afterDiff is r.cur changed by d, in a scratch board of its own.
// boardAfter is the board after candidate i of c (r.board4, for
// nextBoard: afterDiff's board3 is the turns' scratch).
func (r *Referee) boardAfter(c *posCache, i int) []uint8 {
	if r.board4 == nil {
		r.board4 = make([]uint8, r.ncell)
	}
	copy(r.board4, r.cur)
	applyDiff(r.board4, r.diff(c, i), false)
	return r.board4
}

func (r *Referee) afterDiff(d []change) []uint8 {
	if r.board3 == nil {
		r.board3 = make([]uint8, r.ncell)
	}
	copy(r.board3, r.cur)
	applyDiff(r.board3, d, false)
	return r.board3
}

// coEmpty replays the trace since since: were a and b ever empty at once,
// and which of them was filled first after that?
func (r *Referee) coEmpty(a, b int, since uint64) (bool, int) {
	ea, eb := false, false
	co, first := false, -1
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		c := int(t.cell)
		if c != a && c != b {
			continue
		}
		if c == a {
			ea = t.empty()
		} else {
			eb = t.empty()
		}
		if ea && eb {
			co = true
		} else if co && !t.empty() && first < 0 {
			first = c
		}
	}
	return co, first
}

// touchedAfterFill replays the trace since since: did x change (lifted:
// was x emptied) after p was first filled?
func (r *Referee) touchedAfterFill(x, p int, since uint64, lifted bool) bool {
	filled := false
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		switch int(t.cell) {
		case p:
			if !t.empty() {
				filled = true
			}
		case x:
			if filled && (!lifted || t.empty()) {
				return true
			}
		}
	}
	return false
}

// shownSince reports whether the sensors show board b, and returns the
// cells where b differs from now that a sensor can tell apart; each must
// have been touched since the last accepted move.
func (r *Referee) shownSince(b, now []uint8) ([]int, bool) {
	var keys []int
	for cell, want := range b {
		if !r.hasSensor[cell] {
			continue
		}
		if !matches(r.sensed[cell], want) {
			return nil, false
		}
		if !r.readsAlike(cell, want, now[cell]) {
			if r.touched[cell] <= r.lastAcc {
				return nil, false
			}
			keys = append(keys, cell)
		}
	}
	return keys, true
}

// liftedBeforeFirstFill replays the trace since since: was a emptied before
// b was first filled?
func (r *Referee) liftedBeforeFirstFill(a, b int, since uint64) bool {
	lifted := false
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		switch int(t.cell) {
		case a:
			if t.empty() {
				lifted = true
			}
		case b:
			if !t.empty() {
				return lifted
			}
		}
	}
	return false
}

// origin is the cell the piece a move puts down last came from: the mover's
// (a plain move), the landing cell (a replace's displaced piece); -1 for a
// placement.
func origin(n note) int {
	if n.extra >= 0 {
		return n.to
	}
	return n.from
}

// liftedFilledLifted replays the trace since since: was a emptied, then p
// filled, then p emptied again, in that order?
func (r *Referee) liftedFilledLifted(a, p int, since uint64) bool {
	step := 0
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		switch {
		case step == 0 && int(t.cell) == a && t.empty():
			step = 1
		case step == 1 && int(t.cell) == p && !t.empty():
			step = 2
		case step == 2 && int(t.cell) == p && t.empty():
			return true
		}
	}
	return false
}

// landedBeforeLift replays the trace since since: was to last filled (a
// replace's mover landing) before p was last emptied (the next player
// taking its displaced piece on)?
func (r *Referee) landedBeforeLift(to, p int, since uint64) bool {
	var landed, lifted uint64
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		switch {
		case int(t.cell) == to && !t.empty():
			landed = t.seq
		case int(t.cell) == p && t.empty():
			lifted = t.seq
		}
	}
	return landed > 0 && landed < lifted
}

// filledThenLifted replays the trace since since: was c filled, and then
// emptied again?
func (r *Referee) filledThenLifted(c int, since uint64) bool {
	filled := false
	for _, t := range r.trace {
		if t.seq <= since || int(t.cell) != c {
			continue
		}
		if !t.empty() {
			filled = true
		} else if filled {
			return true
		}
	}
	return false
}

// lookAlikes adds, in GYGES, when the board shows the position as it
// stands, the revisions of the last move that the sensors cannot tell from
// it — a replace whose pieces look alike, a bounce piece looked at on
// presence sensors — and that the hand showed since the last move was
// accepted (lookAlike): the hand may have gone on. Asked, beside the
// position as it stands.
func (r *Referee) lookAlikes(out []candidate) []candidate {
	// (nothing touched since the last move was accepted — the round right
	// after it was taken — shows none: lookAlike needs such a cell)
	if !slices.ContainsFunc(r.touched, func(seq uint64) bool { return seq > r.lastAcc }) {
		return out
	}
	first := &r.ops[len(r.ops)-1]
	c, back := r.stepBack(1)
	defer back.replay()
	m := r.mismatch(r.misRev[:0], r.cur)
	r.misRev = m
	for _, i := range r.fitting(c, m) {
		i := int(i)
		nt := c.notes[i]
		if c.moves[i] == first.move || nt.from != first.note.from || nt.place || !r.mayFit(nt, m) || !r.fits(r.diff(c, i), m) {
			continue
		}
		named := true
		for _, cell := range [...]int{nt.to, nt.extra} {
			if cell >= 0 && r.hasSensor[cell] && r.touched[cell] <= first.since {
				named = false
			}
		}
		if named && r.lookAlike(nt, first.note, first.since) {
			out = append(out, candidate{kind: candRevise, idx: i, text: c.texts[i], note: nt, ask: true, depth: 1})
		}
	}
	return out
}

// shownAfterAccept: a cell revision nt names and the last move (last) does
// not was touched since the last move was accepted.
func (r *Referee) shownAfterAccept(nt, last note) bool {
	for _, c := range [...]int{nt.to, nt.extra} {
		if c >= 0 && r.hasSensor[c] && c != last.from && c != last.to && c != last.extra && r.touched[c] > r.lastAcc {
			return true
		}
	}
	return false
}

// lookAlike reports whether revision nt of the last move (last), which
// leaves the board as it stands, was shown since the last move was
// accepted: a cell it names and the last move does not was touched since,
// and its pieces were picked up before they were put down.
func (r *Referee) lookAlike(nt, last note, since uint64) bool {
	if !r.shownAfterAccept(nt, last) || nt.from < 0 || nt.to < 0 {
		return false
	}
	if r.hasSensor[nt.from] && r.hasSensor[nt.to] && !r.liftedBeforeFill(nt.from, nt.to, since) {
		return false
	}
	return nt.extra < 0 || !r.hasSensor[nt.to] || !r.hasSensor[nt.extra] || r.liftedBeforeFill(nt.to, nt.extra, since)
}

// liftedBeforeFill replays the trace since since: was a emptied at some
// moment before b was last filled? (b not filled at all since: yes.)
func (r *Referee) liftedBeforeFill(a, b int, since uint64) bool {
	lifted, filled, ok := false, false, false
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		switch int(t.cell) {
		case a:
			if t.empty() {
				lifted = true
			}
		case b:
			if !t.empty() {
				filled, ok = true, lifted
			}
		}
	}
	return ok || !filled
}

// inHandAtFill: a was empty when b was last filled since since, or b was
// not filled then.
func (r *Referee) inHandAtFill(a, b int, since uint64) bool {
	ok, filled := r.emptyAtFill(a, b, since)
	return ok || !filled
}

// emptiedBefore: a was empty when b was last filled since since.
func (r *Referee) emptiedBefore(a, b int, since uint64) bool {
	ok, _ := r.emptyAtFill(a, b, since)
	return ok
}

// emptyAtFill replays the trace since since: was a empty when b was last
// filled (ok), and was b filled at all?
func (r *Referee) emptyAtFill(a, b int, since uint64) (ok, filled bool) {
	aEmpty := false
	for _, t := range r.trace {
		if t.seq <= since {
			continue
		}
		switch int(t.cell) {
		case a:
			aEmpty = t.empty()
		case b:
			if !t.empty() {
				filled, ok = true, aEmpty
			}
		}
	}
	return ok, filled
}

// candidates lists the readings of the settled board that are consistent
// with it and with what was touched: the position as it is, each legal move,
// each takeback, each revision of the last move.
func (r *Referee) candidates() []candidate {
	out := r.cands[:0] // (recognise keeps none of them: it copies what it asks)
	defer func() { r.cands = out[:0] }()
	m := r.mismatch(r.misCand[:0], r.cur) // (candidates is not called again before it returns)
	r.misCand = m
	if len(m) == 0 {
		out = append(out, candidate{kind: candCurrent})
	}
	var keys []int
	if r.st.Awaiting() == engine.AwaitMove {
		c := r.ensure()
		for _, i := range r.fitting(c, m) {
			i := int(i)
			if !r.mayFit(c.notes[i], m) || !r.relevant(c.notes[i], m, r.lastAcc) {
				continue
			}
			d := r.diff(c, i)
			if !r.fits(d, m) {
				continue
			}
			ev, k, ok := r.evidence(c.notes[i], d, r.lastAcc, keys)
			if debugHook != nil {
				debugHook(r, c.texts[i], ok)
			}
			keys = k
			if ok {
				out = append(out, candidate{kind: candMove, idx: i, text: c.texts[i], note: c.notes[i], evidence: ev, cells: slices.Clone(k)})
			}
		}
	}
	// Takebacks and revisions are readings too. A legal move that looks the
	// same as one of them is no reason to pick the move: pieces without an
	// owner (GYGES) let the next player move the piece that was just moved,
	// back where it came from (a takeback) or on along its way (the last
	// mover going on) — then recognise asks.
	if len(m) == 0 && r.info.Game == "gyges" && len(r.ops) > 0 && !r.ops[len(r.ops)-1].roll && !r.ops[len(r.ops)-1].chosen && r.prevOK {
		// the board shows the position as it stands, after touches: a
		// piece that went on from the last move's destination and came
		// back there may have been moved there by the next player
		out = r.compositesAt(1, out)
		out = r.lookAlikes(out)
	}
	if len(m) > 0 && r.info.Game == "gyges" && r.st.Awaiting() == engine.AwaitMove {
		out = r.movesThen(m, out)
		out = r.revisionsThen(out)
		out = r.lookAlikePast(out)
	}
	if len(m) > 0 {
		out = r.takebacks(out)
		n0 := len(out)
		out = r.revisions(out)
		if r.info.Game == "gyges" && slices.ContainsFunc(out[n0:], func(c candidate) bool { return c.kind == candRevise && c.depth == 1 }) {
			out = r.takebacksReach(out, true)
		}
		// The next player's move under way may look like the last mover
		// going on (a displaced piece put down first): then a revision is
		// only proposed. (In GYGES a revision alone is recorded, and
		// revised again once the next player's move is made:
		// revisionsThen.)
		if len(out) > n0 && r.st.Awaiting() == engine.AwaitMove {
			any, lifted := r.nextUnderWay(m)
			for i := n0; i < len(out); i++ {
				// (a GYGES revision of the last move alone is followed on
				// by revisionsThen when the mover of a replace whose
				// displaced piece was set down first lands)
				under := any
				if r.info.Game == "gyges" && out[i].depth == 1 && out[i].then == "" {
					under = lifted
				}
				out[i].ask = out[i].ask || under && !out[i].displacedFirst
			}
		}
	}
	return dedupe(out)
}

// dedupe merges the readings found twice (a composite is a revision then
// the next player's move as well): one is kept, asked only when both ask.
func dedupe(out []candidate) []candidate {
	for i := 0; i < len(out); i++ {
		for j := len(out) - 1; j > i; j-- {
			if out[j].kind == out[i].kind && out[j].depth == out[i].depth && out[j].plies == out[i].plies && out[j].text == out[i].text {
				out[i].ask = out[i].ask && out[j].ask
				out = slices.Delete(out, j, j+1)
			}
		}
	}
	return out
}

// takebacks adds the positions before the last moves that the board shows.
// The cells where such a position differs from the present one must have
// been touched since the last accepted move.
func (r *Referee) takebacks(out []candidate) []candidate {
	return r.takebacksReach(out, false)
}

// takebacksReach is takebacks; overRest: only the takeback reaching one
// move further than takebacks do, over a last move that may be the first
// rest of the hand taking the round before it back — GYGES, when a
// revision of the last move is a reading (its hand went on after it was
// recorded): of cells touched since that move's hand began (seed 5957 of
// the clean harness). (Not read so when no revision is: the next player
// moving the last move's piece on looks the same — seed 5039.)
func (r *Referee) takebacksReach(out []candidate, overRest bool) []candidate {
	if len(r.ops) == 0 {
		return out
	}
	board := r.scratch
	copy(board, r.cur)
	moves := 0
	// A last move whose piece the hand has moved on since it was recorded
	// (a rest on the way) is no round of its own: the takeback reaches a
	// round behind it.
	depth := r.cfg.TakebackDepth
	var rest uint64 // the seq a takeback reaching over a rest is touched since
	if o := &r.ops[len(r.ops)-1]; !o.roll && !o.chosen && o.note.to >= 0 && r.hasSensor[o.note.to] &&
		r.touched[o.note.to] > o.seq && r.sensed[o.note.to] == empty && !r.movableFrom(o.note.to) {
		// its piece lifted again from where it was recorded (not knocked
		// and put back), and not by the next player: when the rules let
		// them move it (GYGES's pieces have no owner), the lift is their
		// move as much as the last mover's hand going on, and a takeback
		// reaches one round as always (seed 5039 of the clean harness:
		// a piece moved on four plies in a row, its fourth move read as a
		// takeback of the three before it)
		if overRest {
			return out // (takebacks reach there)
		}
		depth++
	} else if overRest {
		if o.roll || o.chosen {
			return out
		}
		rest = o.since
		depth++
	}
	for i := len(r.ops) - 1; i >= 0 && moves < depth; i-- {
		o := &r.ops[i]
		applyDiff(board, o.diff, true)
		if o.roll {
			continue
		}
		moves++
		if overRest && moves < depth || !r.fitsBoard(board) {
			continue
		}
		since := r.lastAcc
		if overRest {
			since = rest
		}
		var keys []int
		ok := true
		for c := range board {
			if board[c] != r.cur[c] && r.hasSensor[c] {
				keys = append(keys, c)
				if r.touched[c] <= since {
					ok = false
				}
			}
		}
		if ok && len(keys) > 0 {
			out = append(out, candidate{kind: candTakeback, plies: moves, evidence: len(keys), cells: keys})
		}
	}
	return out
}

// movableFrom reports whether the player to move has a legal move of the
// piece on cell c.
func (r *Referee) movableFrom(c int) bool {
	if r.st.Awaiting() != engine.AwaitMove {
		return false
	}
	for _, n := range r.ensure().notes {
		if n.from == c {
			return true
		}
	}
	return false
}

// maxReviseDepth is how many of the last moves a revision may replace: a
// hand that counts a piece along its path and rests it on cells that are
// legal destinations gets a move recorded at each, the next player's too
// when the rules let them move that piece (GYGES's pieces have no owner),
// and is followed to where the piece ends.
const maxReviseDepth = 3

// revisions adds the other moves of the player who made one of the last
// moves, from the position before it: a move is revised (a piece counted on
// along its path after a pause on a cell that was itself a legal
// destination) until the next player rolls or moves another piece. A
// revision of more than the last move replaces a chain of moves of one
// piece, each going on from where the one before put it.
func (r *Referee) revisions(out []candidate) []candidate {
	n := len(r.ops)
	if n == 0 || r.ops[n-1].roll || r.ops[n-1].chosen {
		return out
	}
	if r.prevOK {
		out = r.revisionsAt(1, false, out)
	}
	onto := false
	for d := 2; d <= maxReviseDepth && d <= n; d++ {
		k := n - d
		o := &r.ops[k]
		// (in GYGES a replace's displaced piece may be the one the hand
		// carried on: the mover read as landing where it only looked)
		onward := r.ops[k+1].note.from == o.note.to ||
			r.info.Game == "gyges" && o.note.extra >= 0 && r.ops[k+1].note.from == o.note.extra
		// (or the next move was a replace onto the piece the last moved:
		// that piece, displaced, may be the one the hand carried on — or
		// the next player's replace was real: only ever asked)
		if !onward && r.info.Game == "gyges" && r.ops[k+1].note.extra >= 0 && r.ops[k+1].note.to == o.note.to {
			onward, onto = true, true
		} else if onto {
			// (no further back: the hand carried on the piece displaced,
			// and the replace that displaced it moved another piece — a
			// chain of one piece stops there: seed 181)
			break
		}
		if o.roll || o.chosen || o.note.to < 0 || !onward || o.note.from < 0 && !o.note.place {
			break
		}
		n0 := len(out)
		out = r.revisionsAt(d, false, out)
		if onto {
			for i := n0; i < len(out); i++ {
				out[i].ask = true
			}
		}
	}
	// In advanced GYGES the last moves may have been one replace by another
	// piece, whose displaced piece is the one the first of them moved: the
	// hand set the displaced piece down first and counted it on (rests
	// recorded as moves of both players), then moved the mover; or a swap
	// presence sensors cannot see, the mover counted on through rests read
	// as the displaced piece's moves. Only ever asked.
	if r.info.Game == "gyges" && r.info.Variant == "advanced" && r.prevOK {
		for d := 2; d <= maxReviseDepth && d <= n; d++ {
			o := &r.ops[n-d]
			if o.roll || o.chosen {
				break
			}
			// (the moves between the first and the last are rests of the
			// piece counted on: each goes on from where the one before
			// put a piece — another piece moved meanwhile is a move)
			if d >= 3 && !r.goesOn(n-d+1) {
				break
			}
			// (the mover landed where that piece came from: the board
			// shows a piece there)
			if f := o.note.from; f >= 0 && (!r.hasSensor[f] || r.sensed[f] != empty) {
				out = r.revisionsAt(d, true, out)
			}
		}
	}
	return out
}

// goesOn: the move at ops[k] moved a piece the move before it put down
// (its mover, or a replace's displaced piece).
func (r *Referee) goesOn(k int) bool {
	prev, o := r.ops[k-1].note, r.ops[k].note
	return o.from >= 0 && (o.from == prev.to || prev.extra >= 0 && o.from == prev.extra)
}

// revisionsAt adds the revisions that replace the last d moves: at depth
// 1 any other move from the position before the last; deeper, the same
// piece moved on — or, with other, a replace by another piece landing where
// the first replaced move's piece came from (that piece was the displaced
// one), ordered by the touches since that move began (only asked).
func (r *Referee) revisionsAt(d int, other bool, out []candidate) []candidate {
	n := len(r.ops)
	first, last := &r.ops[n-d], &r.ops[n-1]
	// the board of the position as it stands (revisionsAt's scratch: it
	// is not called again before it returns)
	now := append(r.nowRev[:0], r.cur...)
	r.nowRev = now
	// Step back to the position before the first replaced move, on the
	// engine and the board.
	var under underWayMasks
	var began uint64
	if r.info.Game == "gyges" && d == 1 {
		under = r.underWayMasks()
		began = r.liftedSince(r.lastAcc) & under.movable
	}
	c, back := r.stepBack(d)
	defer back.replay()
	m := r.mismatch(r.misRev[:0], r.cur)
	r.misRev = m
	lastTo := last.note.to
	var keys []int
	for _, i := range r.fitting(c, m) {
		i := int(i)
		// (deeper, the first replaced move itself is a reading: the hand
		// went on from where it put the piece and came back there — the
		// moves recorded on the way were rests)
		if d == 1 && c.moves[i] == first.move || !r.mayFit(c.notes[i], m) || !r.relevant(c.notes[i], m, first.since) {
			continue
		}
		nt := c.notes[i]
		switch {
		case other:
			if nt.from == first.note.from || nt.from < 0 || nt.place || nt.extra < 0 || nt.to != first.note.from || !r.ordered(nt, first.since) {
				continue
			}
		case d > 1 && (nt.from != first.note.from || nt.place != first.note.place):
			continue // a deep revision moves the same piece on
		}
		diff := r.diff(c, i)
		if !r.fits(diff, m) {
			continue
		}
		// The revision must be shown by what was touched since the last
		// move was accepted: where it differs from the board now.
		keys = keys[:0]
		ok := true
		for cell := range now {
			if !r.hasSensor[cell] {
				continue
			}
			revised := r.cur[cell]
			for _, x := range diff {
				if int(x.cell) == cell {
					revised = x.new
				}
			}
			if revised == now[cell] {
				continue
			}
			if revised != empty && now[cell] != empty && r.sensed[cell] == unknown {
				continue // a presence sensor cannot see which piece it is
			}
			if r.touched[cell] <= r.lastAcc {
				ok = false
				break
			}
			keys = append(keys, cell)
		}
		// Every cell the revision names was touched since the replaced
		// move began: a replace's landing piece left its cell (a presence
		// sensor reads a swapped piece as no change at all).
		if ok && r.info.Game == "gyges" {
			for _, cell := range [...]int{nt.to, nt.extra} {
				if cell >= 0 && r.hasSensor[cell] && r.touched[cell] <= first.since {
					ok = false
				}
			}
		}
		// a plain move's piece was in the hand when its destination was
		// filled (a piece put there before is a replace's displaced one; in
		// six, the revised move's hexagon, and a neighbour knocked off its
		// cell after is no mover)
		if ok && (r.info.Game == "gyges" || r.info.Game == "six") && nt.extra < 0 && !nt.place && nt.from >= 0 && nt.to >= 0 && r.hasSensor[nt.from] && r.hasSensor[nt.to] &&
			r.touched[nt.from] > first.since && !r.liftedBeforeFill(nt.from, nt.to, first.since) {
			ok = false
		}
		// The piece went on from where the last move put it: that cell was
		// emptied before the revision's destination was filled. (A piece
		// put down elsewhere while the last move's piece is knocked off
		// and set back is no revision.)
		if to := nt.to; ok && lastTo >= 0 && to >= 0 && to != lastTo && r.hasSensor[to] && r.hasSensor[lastTo] {
			vacated := r.cur[lastTo] == empty
			for _, x := range diff {
				if int(x.cell) == lastTo {
					vacated = x.new == empty
				}
			}
			if vacated {
				// (or it was a replace's displaced piece, which went on)
				ok = r.emptiedBefore(lastTo, to, r.lastAcc) ||
					r.info.Game == "gyges" && nt.extra >= 0 && nt.extra != lastTo && r.hasSensor[nt.extra] && r.emptiedBefore(lastTo, nt.extra, r.lastAcc)
			}
		}
		// A replace's mover landed while its landing piece was off the
		// board, and its displaced piece after that (ordered); a revision
		// of the same piece is its hand going on after the last move was
		// recorded (wentOn). (A revision that moves another piece reads
		// the last move as misread — a knocked piece taken for a replace's
		// landing — and is asked.)
		if ok && r.info.Game == "gyges" && (!r.ordered(nt, first.since) || !other && nt.from == first.note.from && nt.place == first.note.place && !r.wentOn(last.note, nt, now)) {
			ok = false
		}
		// Three deep or more, the hand counted the piece along its path:
		// its rests between the first and the last lie on a chain of the
		// revised move, in order (the same piece moved on by both players,
		// each from where the other put it, is no counted path).
		if ok && d >= 3 && !other && r.info.Game == "gyges" && nt.from >= 0 && !nt.place &&
			!r.countedAlong(r.cur, nt.from, nt.to, r.goalOf(r.st.ToMove()), r.innerRests(d)) {
			ok = false
		}
		if ok && len(keys) > 0 {
			// The same piece going on (a counted path, a placement put
			// elsewhere) is followed; a revision that moves another piece
			// may as well be the next player's move under way: asked.
			// (A displaced GYGES piece put elsewhere is the next player's
			// replace as well as a revision.)
			// (A replace's displaced piece is put down by the same hand:
			// put elsewhere, it went on.)
			// (So is a replace revised to a plain move of its mover, which
			// went on from where it was recorded: a bounce piece looked at
			// and a rest read as its displaced piece — also when rests
			// after it were recorded as moves, a chain of that piece.)
			same := nt.from == first.note.from && nt.place == first.note.place &&
				(first.note.extra < 0 || nt.to == first.note.to || r.info.Game == "gyges" && nt.extra < 0 && !nt.place)
			// A piece knocked off and set back that was read as the mover
			// (six: the hexagon beside the real one) is no other hand: its
			// cell shows it again, as before the move.
			if f := first.note.from; !same && r.info.Game == "six" && d == 1 && f >= 0 && r.hasSensor[f] &&
				r.sensed[f] != empty && r.cur[f] != empty && r.touched[f] > r.lastAcc {
				same = true
			}
			// A GYGES replace whose displaced piece went where the last
			// move put its piece is the same hand, which set the displaced
			// piece down first (the next player's move after it is followed
			// by revisionsThen).
			displacedFirst := r.info.Game == "gyges" && d == 1 && nt.extra >= 0 && nt.to == first.note.from && first.note.extra < 0 && !first.note.place
			// A GYGES replace revised to the one that swaps its mover and
			// landing piece (a-b/x to b-a/x) is the same hand: the mover
			// counted back over its start cell and was read resting there
			// as the landing piece's replace.
			// (Only when no other move from the position before fits the
			// touches since — a landing piece knocked off and set back may
			// have been the real replace, and the revisions above follow
			// only a hand that went on — and neither piece is one the move
			// before put down: that hand may have gone on with it.)
			swapped := r.info.Game == "gyges" && d == 1 && first.note.extra >= 0 && nt.extra == first.note.extra &&
				nt.from == first.note.to && nt.to == first.note.from && !r.putBefore(n-1, nt.from) && !r.putBefore(n-1, nt.to) &&
				r.aloneSince(c, m, first.since, i, first.move)
			same = same || displacedFirst || swapped
			// (In GYGES the next player's move under way is followed by the
			// composites instead: the revised piece moved on or displaced.)
			// A revision the sensors cannot tell from the position before
			// the revised move (a swap on presence sensors) may as well
			// be that move taken back: asked.
			ask := !same || r.fitsBoard(r.cur) || other
			// (Another piece's revision, when no move of the next player
			// under way shows the board — none of the pieces it takes
			// off the board as recorded is one the next player may lift
			// as a mover, or as a replace's landing piece set down first
			// where it puts one — and no other move from the position
			// before fits the touches, is the last move misread,
			// corrected: taken.)
			// (Not when it moves or lands on the piece the move before
			// displaced: that hand may have gone on with it.)
			if ask && !same && !other && d == 1 && under.ok && !r.fitsBoard(r.cur) && !under.mayShow(keys, now, r.cur, diff) &&
				!r.displacedBefore(n-1, nt.from) && !r.displacedBefore(n-1, nt.to) && r.aloneSince(c, m, first.since, i, first.move) {
				ask = false
			}
			// A GYGES revision read while the next player's hand has begun
			// (a piece they may move, on a cell neither move names, was
			// off the board when a cell the revision newly fills was
			// filled) may be that hand's move under way: asked.
			for b := began; b != 0; b &= b - 1 {
				x := bits.TrailingZeros64(b)
				if first.note.names(x) || nt.names(x) {
					continue
				}
				for _, p := range [...]int{nt.to, nt.extra} {
					if p >= 0 && r.hasSensor[p] && p != first.note.to && p != first.note.extra && r.emptiedBefore(x, p, r.lastAcc) {
						ask = true
					}
				}
			}
			out = append(out, candidate{kind: candRevise, idx: i, text: c.texts[i], note: nt, evidence: len(keys), cells: slices.Clone(keys), ask: ask, depth: d, displacedFirst: displacedFirst})
		}
	}
	if r.info.Game == "gyges" && !other {
		out = r.composites(d, c, now, m, out)
	}
	return out
}

// underWayMasks holds, for the player to move, the cells they may move a
// piece from and, per landing cell, where their replaces may put the
// displaced piece (ok false: the board is too large for the masks).
type underWayMasks struct {
	ok      bool
	movable uint64
	drops   [64]uint64
}

// underWayMasks reads the moves of the player to move (the position as it
// stands).
func (r *Referee) underWayMasks() underWayMasks {
	var u underWayMasks
	if r.ncell > 64 || r.st.Awaiting() != engine.AwaitMove {
		return u
	}
	u.ok = true
	for _, x := range r.ensure().notes {
		if x.from >= 0 {
			u.movable |= 1 << uint(x.from)
		}
		if x.to >= 0 && x.extra >= 0 {
			u.drops[x.to] |= 1 << uint(x.extra)
		}
	}
	return u
}

// mayShow reports whether a move of the player to move under way may show
// the board a revision shows: a piece it takes off the board as recorded
// (keys: where the revision differs from the board as recorded, now) is
// one they may move, or a replace's landing piece put down first where the
// revision puts a piece. before is the board before the revised move and
// diff the revision's changes to it.
func (u *underWayMasks) mayShow(keys []int, now, before []uint8, diff []change) bool {
	var emptied, filled uint64
	for _, cell := range keys {
		revised := before[cell]
		for _, x := range diff {
			if int(x.cell) == cell {
				revised = x.new
			}
		}
		switch {
		case revised == empty && now[cell] != empty:
			emptied |= 1 << uint(cell)
		case revised != empty && now[cell] == empty:
			filled |= 1 << uint(cell)
		}
	}
	for e := emptied; e != 0; e &= e - 1 {
		y := bits.TrailingZeros64(e)
		if u.movable&(1<<uint(y)) != 0 || u.drops[y]&filled != 0 {
			return true
		}
	}
	return false
}

// liftedSince is the set of cells (a bit per cell, the first 64) lifted
// since since: debounced lifts, no glitch. (The trace is in seq order: it
// is read back from its end.)
func (r *Referee) liftedSince(since uint64) uint64 {
	var out uint64
	for k := len(r.trace) - 1; k >= 0 && r.trace[k].seq > since; k-- {
		if t := r.trace[k]; t.empty() && t.cell < 64 {
			out |= 1 << uint(t.cell)
		}
	}
	return out
}

// displacedBefore: the move before ops[k] was a replace whose displaced
// piece it put on cell.
func (r *Referee) displacedBefore(k, cell int) bool {
	return k >= 1 && cell >= 0 && r.ops[k-1].note.extra == cell
}

// putBefore: the move before ops[k] put a piece down on cell (its mover,
// or a replace's displaced piece).
func (r *Referee) putBefore(k, cell int) bool {
	if k < 1 || cell < 0 {
		return false
	}
	p := r.ops[k-1].note
	return p.to == cell || p.extra == cell
}

// aloneSince: no move of c but c.moves[self] and the replaced move last
// fits the board with every cell it names touched since since, in the
// order a hand makes it (revisionsAt's position, stepped back).
func (r *Referee) aloneSince(c *posCache, m []int, since uint64, self int, last engine.Move) bool {
	for i := range c.notes { // (not fitting: its slice is the caller's loop's)
		if i == self || c.moves[i] == last || !r.mayFit(c.notes[i], m) || !r.relevant(c.notes[i], m, since) {
			continue
		}
		if r.fits(r.diff(c, i), m) && r.ordered(c.notes[i], since) {
			return false
		}
	}
	return true
}

// movesThen adds, in GYGES, the readings of a move whose piece was put
// down on a cell it rested on and then moved on from there by the next
// player (pieces have no owner): a hand counting a path on, whose rest was
// not recorded as a move, looks exactly like that. (In advanced GYGES the
// piece may be a replace's displaced one, its mover landed: the hand
// counting the displaced piece on.)
func (r *Referee) movesThen(m []int, out []candidate) []candidate {
	c := r.ensure()
	if r.board2 == nil {
		r.board2 = make([]uint8, r.ncell)
	}
	var nb [64]byte
	for i := range c.moves {
		nt := c.notes[i]
		if nt.from < 0 || nt.to < 0 || nt.place || !r.hasSensor[nt.to] || !r.hasSensor[nt.from] || r.sensed[nt.from] != empty {
			continue
		}
		// p: where it put the piece the next player took on — its
		// destination, or (advanced) a replace's displaced piece's cell,
		// its mover landed — put down there and lifted again
		p := nt.to
		if nt.extra >= 0 {
			p = nt.extra
			if !r.hasSensor[p] || r.sensed[nt.to] == empty {
				continue
			}
		}
		if r.sensed[p] != empty || r.touched[p] <= r.lastAcc || !r.liftedBeforeFirstFill(origin(nt), p, r.lastAcc) {
			continue // its piece lifted, put on a cell and lifted again
		}
		if nt.extra >= 0 && (!r.ordered(nt, r.lastAcc) || !r.landedBeforeLift(nt.to, p, r.lastAcc)) {
			continue
		}
		r.st.Play(c.moves[i])
		base := r.boardAfter(c, i)
		r.buf2 = r.st.Moves(r.buf2[:0])
		for _, m2 := range r.buf2 {
			text := r.st.AppendMove(nb[:0], m2)
			n2 := r.parse(string(text), -1)
			if n2.from != p || n2.to < 0 || n2.to == p || n2.to == nt.from || n2.to == nt.to {
				continue
			}
			r.nextBoard(base, m2, n2, r.board2)
			keys, ok := r.shownSince(r.board2, r.cur)
			for _, x := range [...]int{n2.to, n2.extra} {
				if ok && x >= 0 && x != p && r.hasSensor[x] && !r.touchedAfterFill(x, p, r.lastAcc, false) {
					ok = false
				}
			}
			// a replace's landing piece was lifted after the piece came
			if ok && n2.extra >= 0 && r.hasSensor[n2.to] && !r.touchedAfterFill(n2.to, p, r.lastAcc, true) {
				ok = false
			}
			ok = ok && r.turnsOK(r.lastAcc, [][]uint8{r.cur, r.afterDiff(r.diff(c, i)), r.board2}, []note{nt, n2})
			if ok && len(keys) > 0 && r.emptiedBefore(p, n2.to, r.lastAcc) {
				out = append(out, candidate{kind: candRevise, idx: i, text: c.texts[i] + ";" + string(text), then: string(text),
					note: nt, evidence: len(keys), cells: keys})
			}
		}
		r.st.Undo()
	}
	return out
}

// revisionsThen adds, in GYGES, the readings in which the last move is
// revised back to a move it was recorded as before (a rest of the hand on a
// legal destination) and the next player has moved since (any piece): a
// hand that counted a piece on from that rest looks exactly like the next
// player taking the piece away as a replace's displaced piece — so the
// revision is recorded when the board rests, and the next player's move
// shows both readings, and recognise asks.
func (r *Referee) revisionsThen(out []candidate) []candidate {
	n := len(r.ops)
	if n == 0 || !r.prevOK || r.ops[n-1].roll || r.ops[n-1].chosen {
		return out
	}
	out = r.revisionsThenAt(1, out)
	// the next player's mover counted on from a rest recorded as a move of
	// its own: the move before it read back too
	// (a replace's displaced piece read as carried on by its last mover)
	// (or a piece the next player's hand set down first — a replace's
	// displaced piece — read as the last mover going on)
	if n >= 2 && len(r.ops[n-2].was) > 0 && !r.ops[n-2].roll && !r.ops[n-2].chosen && r.ops[n-1].note.from >= 0 &&
		(r.ops[n-2].note.extra >= 0 || r.info.Variant == "advanced" || r.ops[n-1].lone) {
		out = r.revisionsThenAt(2, out)
	}
	// a hand counting the next player's piece on through rests read as
	// moves of both players, after the last mover's piece was revised: the
	// moves since read back to the revised move's earlier reading
	// (the last move took on the piece the one before put down — its
	// mover, or a replace's displaced piece: a counted path)
	if n >= 3 && len(r.ops[n-3].was) > 0 && !slices.ContainsFunc(r.ops[n-3:], func(o op) bool { return o.roll || o.chosen }) &&
		r.ops[n-1].note.from >= 0 && (r.ops[n-1].note.from == r.ops[n-2].note.to || r.ops[n-1].note.from == r.ops[n-2].note.extra ||
		// (or, after a lone reading, a piece its revised move put down:
		// the hand that was under way counted on through a rest read as
		// a move of its own)
		r.ops[n-2].lone && (r.ops[n-1].note.from == r.ops[n-3].note.to || r.ops[n-1].note.from == r.ops[n-3].note.extra)) {
		out = r.revisionsThenAt(3, out)
	}
	return out
}

// revisionsThenAt adds the readings that replace the last d moves (1 or 2)
// by a move the first of them was recorded as before and the next player's
// move (at depth 2, of the piece the last move moved).
func (r *Referee) revisionsThenAt(d int, out []candidate) []candidate {
	n := len(r.ops)
	first := &r.ops[n-d]
	// (at depth 1, a revision the referee asked about is one the board
	// showed settled, as good as a rest recorded)
	if first.note.from < 0 && !first.note.place || len(first.was) == 0 && (d > 1 || len(first.asked) == 0 && first.note.extra < 0) {
		return out
	}
	since := first.since
	// the next player's piece was lifted after this: after the last move
	// was first recorded (the hand's reading may have been revised since
	// by the next player's hand: a rest of its piece read as the last
	// mover's replace, whose displaced piece was set down first)
	moved := first.first
	if d >= 2 {
		moved = r.ops[n-d+1].since
	}
	// (after a lone reading, the next player's piece may have been lifted
	// before the reading was taken: its hand was under way — since the
	// revised move's evidence began)
	if d == 2 && r.ops[n-1].lone || d == 3 && r.ops[n-2].lone {
		moved = first.since
	}
	// the turns are read from the move before on: a move recorded as the
	// next player's after a revision (a composite) began within the
	// revised one's evidence
	tsince := since
	if d == 1 && n >= 2 && !r.ops[n-2].roll {
		tsince = min(since, r.ops[n-2].since)
	}
	if r.board2 == nil {
		r.board2 = make([]uint8, r.ncell)
	}
	now := slices.Clone(r.cur) // the board of the position as it stands
	c, back := r.stepBack(d)
	defer back.replay()
	for i := range c.moves {
		nt := c.notes[i]
		if c.moves[i] == first.move || nt.to < 0 {
			continue
		}
		// only a move the hand was seen resting on — or one whose displaced
		// piece went on, followed by the next player's move of a piece it
		// put down
		seen := slices.Contains(first.was, c.moves[i]) || d == 1 && slices.Contains(first.asked, c.moves[i])
		if !seen && !r.displacedOn(d, first, nt) {
			continue
		}
		// its destination (and a replace's displaced piece's cell) were
		// touched since the last move began
		if !r.hasSensor[nt.to] || r.touched[nt.to] <= since || nt.extra >= 0 && r.hasSensor[nt.extra] && r.touched[nt.extra] <= since {
			continue
		}
		r.st.Play(c.moves[i])
		after := r.afterDiff(r.diff(c, i))
		n0 := len(out)
		out = r.thenNext(d, i, c.texts[i], "", nt, since, tsince, moved, [][]uint8{r.cur, after}, []note{nt}, now, out)
		// (a revision only asked about, or not seen: the next player's
		// move of a piece the revision put down — its mover moved on, or
		// either piece displaced — and the revision's pieces landed
		// after they left where the last move put them: wentOn)
		if !seen || d == 1 && (!slices.Contains(first.was, c.moves[i])) {
			keep := out[:n0]
			for _, x := range out[n0:] {
				if n2 := r.parse(x.then, -1); r.wentOn(first.note, nt, now, n2) && (n2.from == nt.to || n2.extra >= 0 && (n2.to == nt.to || n2.to == nt.extra)) {
					keep = append(keep, x)
				}
			}
			out = keep
		}
		// a deeper revision it made undone: the other player's move it
		// read as a rest was real, and the hand moved on from there
		// (or with the chain's last move read as one it had revised)
		if d == 1 && len(first.chain) > 0 && c.moves[i] == first.chainAfter {
			out = r.chainNext(d, i, c.texts[i], nt, after, first.chain, since, tsince, moved, now, out)
			for _, y := range first.chainWas {
				alt := append(slices.Clone(first.chain[:len(first.chain)-1]), y)
				out = r.chainNext(d, i, c.texts[i], nt, after, alt, since, tsince, moved, now, out)
			}
			// (or the chain's last move revised: its hand went on)
			out = r.chainRevised(d, i, c.texts[i], nt, after, first.chain, since, tsince, now, out)
		}
		r.st.Undo()
	}
	return out
}

// changedBetween reports whether a cell where the board after first as
// revised (after, from before) differs from the board after it as
// recorded was touched after first was recorded and no later than until.
func (r *Referee) changedBetween(before, after []uint8, first *op, until uint64) bool {
	if len(r.board5) < len(before) {
		r.board5 = make([]uint8, len(before))
	}
	rec := r.board5[:len(before)]
	copy(rec, before)
	applyDiff(rec, first.diff, false)
	for _, t := range r.trace {
		if t.seq > first.seq && t.seq <= until && r.hasSensor[t.cell] && rec[t.cell] != after[t.cell] {
			return true
		}
	}
	return false
}

// displacedOn reports whether nt, a revision of the last move (first, at
// depth 1), is that replace with its displaced piece gone on since the move
// was accepted: lifted from where it was recorded, and put down on nt's
// cell after. (The hand that set it down went on after the move was
// recorded; the next player's move followed.)
func (r *Referee) displacedOn(d int, first *op, nt note) bool {
	x := first.note.extra
	if d != 1 || x < 0 || nt.extra < 0 || nt.extra == x || nt.from != first.note.from || nt.to != first.note.to || !r.hasSensor[x] || !r.hasSensor[nt.extra] {
		return false
	}
	lifted := false
	for _, t := range r.trace {
		if t.seq > r.lastAcc && int(t.cell) == x && t.empty() {
			lifted = true
			break
		}
	}
	return lifted && r.liftedBeforeFill(x, nt.extra, r.lastAcc)
}

// chainNext plays chain on the engine (standing after revised move i, its
// board after) and adds the readings of it followed by the next player's
// move (thenNext).
func (r *Referee) chainNext(d, i int, text string, nt note, after []uint8, chain []engine.Move, since, tsince, moved uint64, now []uint8, out []candidate) []candidate {
	var nb [64]byte
	boards := [][]uint8{r.cur, slices.Clone(after)}
	notes := []note{nt}
	var texts []string
	last := nt
	for _, y := range chain {
		t := string(r.st.AppendMove(nb[:0], y))
		last = r.parse(t, -1)
		texts = append(texts, t)
		notes = append(notes, last)
		r.st.Play(y)
		b := make([]uint8, r.ncell)
		r.toBoard(r.st.Position(), b)
		boards = append(boards, b)
	}
	out = r.thenNext(d, i, text+";"+strings.Join(texts, ";"), strings.Join(texts, ";")+";", last, since, tsince, moved, boards, notes, now, out)
	for range chain {
		r.st.Undo()
	}
	return out
}

// chainRevised adds, after revised move i (the engine standing after it,
// its board after), the readings of the chain a deeper revision replaced
// with the chain's last move revised: another move of the same piece from
// the same position, its hand having gone on — a counted path recorded as
// moves of both players, then read as the first mover's going on, that
// ends where the last of them took the piece.
func (r *Referee) chainRevised(d, i int, text string, nt note, after []uint8, chain []engine.Move, since, tsince uint64, now []uint8, out []candidate) []candidate {
	var nb [64]byte
	boards := [][]uint8{r.cur, slices.Clone(after)}
	notes := []note{nt}
	var texts []string
	for _, y := range chain[:len(chain)-1] {
		t := string(r.st.AppendMove(nb[:0], y))
		texts = append(texts, t)
		notes = append(notes, r.parse(t, -1))
		r.st.Play(y)
		b := make([]uint8, r.ncell)
		r.toBoard(r.st.Position(), b)
		boards = append(boards, b)
	}
	defer func() {
		for range chain[:len(chain)-1] {
			r.st.Undo()
		}
	}()
	last := chain[len(chain)-1]
	ln := r.parse(string(r.st.AppendMove(nb[:0], last)), -1)
	base := boards[len(boards)-1]
	r.buf2 = r.st.Moves(r.buf2[:0])
	for _, m2 := range r.buf2 {
		if m2 == last {
			continue
		}
		t2 := r.st.AppendMove(nb[:0], m2)
		n2 := r.parse(string(t2), -1)
		if n2.from != ln.from || n2.from < 0 || n2.to < 0 || n2.place {
			continue // the same piece, from the same cell
		}
		// where it went was touched since the chain began, and its piece
		// was in the hand when it was put down
		if r.hasSensor[n2.to] && r.touched[n2.to] <= since || n2.extra >= 0 && r.hasSensor[n2.extra] && r.touched[n2.extra] <= since || !r.ordered(n2, since) {
			continue
		}
		r.nextBoard(base, m2, n2, r.board2)
		keys, ok := r.shownSince(r.board2, now)
		ok = ok && r.turnsOK(tsince, append(slices.Clip(boards), r.board2), append(slices.Clip(notes), n2))
		if !ok || len(keys) == 0 {
			continue
		}
		then := strings.Join(append(slices.Clone(texts), string(t2)), ";")
		out = append(out, candidate{kind: candRevise, idx: i, text: text + ";" + then, then: then,
			note: nt, evidence: len(keys), cells: keys, depth: d, ask: true})
	}
	return out
}

// thenNext adds the readings of the plies played on the engine (texts:
// the revised move and any moves after it, then: those after it, each with
// ";") followed by the next player's move (revisionsThenAt).
func (r *Referee) thenNext(d, i int, texts, then string, nt note, since, tsince, moved uint64, boards [][]uint8, notes []note, now []uint8, out []candidate) []candidate {
	n := len(r.ops)
	var nb [64]byte
	r.buf2 = r.st.Moves(r.buf2[:0])
	for _, m2 := range r.buf2 {
		text := r.st.AppendMove(nb[:0], m2)
		n2 := r.parse(string(text), -1)
		if n2.from < 0 || !r.hasSensor[n2.from] || r.touched[n2.from] <= moved &&
			!(d == 1 && n2.from == nt.to && r.touched[n2.from] > since) {
			continue // moved since the board was last read (or, the piece
			// the hand rested there, since: its lift read as going on)
		}
		if d >= 2 && n2.from != r.ops[n-d+1].note.from && !(d == 2 && r.ops[n-1].lone) && !(d == 3 && r.ops[n-2].lone) {
			continue // (deeper: the counted piece's move; after a lone reading, any)
		}
		if d == 2 && r.ops[n-2].note.extra < 0 && !r.ops[n-1].lone && (n2.extra < 0 || n2.extra != r.ops[n-2].note.to) {
			continue // (a plain move revised: by the displaced piece set down first)
		}
		// The next player's move as recorded, two deep: the reading differs
		// from the record only in the move before it, so that move's hand
		// changed it before the next player's move was recorded. Touches
		// that came after are a move of their own (the current player
		// taking back the piece the move before put down: a replace's
		// mover carried back to its start after the next player moved,
		// which the move's first reading, its displaced piece set down
		// first, explains as well).
		if d == 2 && !r.ops[n-1].lone && m2 == r.ops[n-1].move && !r.changedBetween(boards[0], boards[1], &r.ops[n-2], r.ops[n-1].seq) {
			continue
		}
		ok := true
		for _, x := range [...]int{n2.to, n2.extra} {
			if x >= 0 && r.hasSensor[x] && r.touched[x] <= since {
				ok = false
			}
		}
		// its piece was in the hand when it was put down
		if !ok || !r.ordered(n2, since) {
			continue
		}
		r.nextBoard(boards[len(boards)-1], m2, n2, r.board2)
		keys, ok := r.shownSince(r.board2, now)
		ok = ok && r.turnsOK(tsince, append(slices.Clip(boards), r.board2), append(slices.Clip(notes), n2))
		if !ok || len(keys) == 0 {
			continue
		}
		full := texts + ";" + string(text) // (built only for a reading)
		if !slices.ContainsFunc(out, func(o candidate) bool {
			return o.kind == candRevise && o.depth == d && o.text == full
		}) {
			// only proposed: the hand may be under way to yet another
			// reading, which needs this one undone
			out = append(out, candidate{kind: candRevise, idx: i, text: full, then: then + string(text),
				note: nt, evidence: len(keys), cells: keys, depth: d, ask: true})
		}
	}
	return out
}

// compositesAt adds the composites that replace the last d moves.
func (r *Referee) compositesAt(d int, out []candidate) []candidate {
	now := slices.Clone(r.cur)
	c, back := r.stepBack(d)
	out = r.composites(d, c, now, nil, out)
	back.replay()
	return out
}

// stepBack takes the last d moves back on the engine and the board, and
// returns the moves of the position before them and what plays them again
// (steppedBack.replay).
func (r *Referee) stepBack(d int) (*posCache, steppedBack) {
	n := len(r.ops)
	for j := n - 1; j >= n-d; j-- {
		r.st.Undo()
		applyDiff(r.cur, r.ops[j].diff, true)
	}
	c := &r.prev
	if d > 1 {
		c = &r.deep
		r.fill(c)
	}
	return c, steppedBack{r, n, d}
}

// steppedBack is what stepBack took back: the last d of n moves. (A value
// rather than a closure: the referee steps back at every settled reading
// after a move, and a closure was an allocation each time.)
type steppedBack struct {
	r    *Referee
	n, d int
}

// replay plays the moves stepBack took back again.
func (s steppedBack) replay() {
	r := s.r
	for j := s.n - s.d; j < s.n; j++ {
		r.st.Play(r.ops[j].move)
		applyDiff(r.cur, r.ops[j].diff, false)
	}
}

// composites adds, in GYGES, the readings in which the piece of the first
// replaced move was put down on a cell it rested on (a legal destination)
// and then moved on from there by the next player: pieces have no owner, so
// a hand counting a path on looks exactly like that. The engine and r.cur
// stand at the position before the first replaced move; now is the board
// of the position as it stands.
func (r *Referee) composites(d int, c *posCache, now []uint8, m []int, out []candidate) []candidate {
	n := len(r.ops)
	first := &r.ops[n-d]
	if r.board2 == nil {
		r.board2 = make([]uint8, r.ncell)
	}
	for i := range c.moves {
		nt := c.notes[i]
		if c.moves[i] == first.move {
			continue // the position as it stands (or a shallower revision), and a move
		}
		if nt.from != first.note.from || nt.to < 0 || nt.place {
			continue
		}
		// a replace's landing cell was touched (its piece left)
		if nt.extra >= 0 && r.hasSensor[nt.to] && r.touched[nt.to] <= first.since {
			continue
		}
		// p: where it put a piece the next player then takes on — its
		// destination, or a replace's displaced piece's cell; and a
		// replace's mover, taken on from its landing cell, when the
		// replace is the last move or the first of a lone reading's two
		// (read back deeper, the next player's move as recorded and a
		// revision of the one before with that move taken on from where
		// it landed are the same hand, its rests read otherwise: needless
		// asks at seeds 313 and 465)
		ps := [2]int{nt.to, nt.extra}
		if nt.extra >= 0 && d > 1 && !(d == 2 && r.ops[n-1].lone) {
			ps[0] = -1
		}
		for _, p := range ps {
			if p >= 0 {
				out = r.compositesOf(d, c, i, nt, p, now, out)
			}
		}
	}
	return out
}

// compositesOf adds the composites of composites in which the next player
// takes on the piece that c's move i (note nt) put on p.
func (r *Referee) compositesOf(d int, c *posCache, i int, nt note, p int, now []uint8, out []candidate) []candidate {
	n := len(r.ops)
	first := &r.ops[n-d]
	var nb [64]byte
	// put down there and lifted again since
	if !r.hasSensor[p] || r.touched[p] <= first.since || !r.filledThenLifted(p, first.since) {
		return out
	}
	// and the piece put there was in the hand then: its cell (the
	// mover's; a replace's landing cell, for the displaced piece) was
	// emptied before p was filled and lifted again (a piece put on p
	// before the mover left is another: a replace's displaced piece)
	o := nt.from
	if p == nt.extra {
		o = nt.to
	}
	if o >= 0 && r.hasSensor[o] && !r.liftedFilledLifted(o, p, first.since) {
		return out
	}
	r.st.Play(c.moves[i])
	base := r.boardAfter(c, i)
	r.buf2 = r.st.Moves(r.buf2[:0])
	for _, m2 := range r.buf2 {
		text := r.st.AppendMove(nb[:0], m2)
		n2 := r.parse(string(text), -1)
		// the next player moves that piece on, or displaces it
		onward := n2.from == p && n2.to >= 0 && n2.to != p && r.sensed[p] == empty
		// (a replace's displaced piece moved on: that replace's mover
		// was off the board while its landing piece was — a landing
		// piece knocked off and set back before is no landing)
		if onward && p == nt.extra && r.hasSensor[nt.from] && r.hasSensor[nt.to] {
			if co, _ := r.coEmpty(nt.from, nt.to, first.since); !co {
				continue
			}
		}
		displaced := n2.extra >= 0 && n2.to == p && n2.from != p && r.filledThenLifted(p, first.since)
		if !onward && !displaced {
			continue
		}
		// the revised move's pieces landed after they left where the
		// last move was recorded putting them (the cells the next
		// player's move names are theirs): seed 316
		if d == 1 && !r.wentOn(first.note, nt, now, n2) {
			continue
		}
		// the board after both, and where it differs from the board now
		r.nextBoard(base, m2, n2, r.board2)
		keys, ok := r.shownSince(r.board2, now)
		// the next player's move was made after the piece was put down,
		// and since the last accepted move when the board shows that one
		since := first.since
		if len(keys) == 0 {
			since = r.lastAcc
		}
		for _, cell := range [...]int{n2.from, n2.to, n2.extra} {
			if ok && cell >= 0 && r.hasSensor[cell] && r.touched[cell] <= since {
				ok = false
			}
		}
		// and the next player's move came after the piece was put there
		for _, x := range [...]int{n2.to, n2.extra} {
			if ok && x >= 0 && x != p && r.hasSensor[x] && !r.touchedAfterFill(x, p, first.since, false) {
				ok = false
			}
		}
		if ok && n2.extra >= 0 && n2.to != p && r.hasSensor[n2.to] && !r.touchedAfterFill(n2.to, p, first.since, true) {
			ok = false
		}
		if ok && !r.turnsOK(first.since, [][]uint8{r.cur, r.afterDiff(r.diff(c, i)), r.board2}, []note{nt, n2}) {
			ok = false
		}
		// and in the order a hand makes it (a replace's displaced piece
		// put down after its landing piece left: a piece there before
		// is another)
		if ok && !r.ordered(n2, first.since) {
			ok = false
		}
		if ok && (displaced || r.emptiedBefore(p, n2.to, first.since)) {
			// a piece displaced by the next player is only proposed:
			// its hand may be a replace of its own under way; and so is
			// a deeper one, which drops a move of the next player's
			// recorded since, its touches read as rests: the hand that
			// made it may be going on
			out = append(out, candidate{kind: candRevise, idx: i, text: c.texts[i] + ";" + string(text), then: string(text),
				note: nt, evidence: len(keys), cells: keys, depth: d, ask: displaced && !onward || d > 1})
		}
	}
	r.st.Undo()
	return out
}

func hasKind(cs []candidate, k candKind) bool {
	for _, c := range cs {
		if c.kind == k {
			return true
		}
	}
	return false
}

// recognise reads the settled board: it carries out the one consistent
// reading, or asks for confirmation when several remain.
func (r *Referee) recognise() {
	r.fixpoint = true // unless the last round takes a move
	for round := 0; round < 4; round++ {
		cands := r.candidates()
		var current bool
		others := cands[:0:0]
		for _, c := range cands {
			if c.kind == candCurrent {
				current = true
			} else {
				others = append(others, c)
			}
		}
		switch {
		case len(others) == 0:
			if !current {
				if c, ok := r.newGameShown(); ok {
					r.ask([]candidate{c})
					return
				}
			}
			// GYGES: the hand went on after its move was recorded and
			// came back; the move before it revised and another move
			// of this player may explain the board as well
			if n := len(r.ops); current && r.info.Game == "gyges" && !broadOff && n >= 2 && r.touchedAfter(r.lastAcc) {
				if extra := r.otherComposites(1, r.st.Hash(), nil, nil); len(extra) > 0 {
					slices.SortStableFunc(extra, func(a, b candidate) int { return b.evidence - a.evidence })
					r.ask(append([]candidate{{kind: candCurrent, text: r.ops[n-1].text}}, extra...))
					return
				}
			}
			r.confirm = nil
			return
		case current:
			// The board fits the position as it stands and a move that
			// looks the same: never guess. In GYGES the position as it
			// stands is offered too (a piece counted on and back).
			if r.info.Game == "gyges" && len(r.ops) > 0 && !r.ops[len(r.ops)-1].roll {
				others = append(others, candidate{kind: candCurrent, text: r.ops[len(r.ops)-1].text})
			}
			r.ask(others)
			return
		}
		// Several readings that end in one position are one to the game:
		// the one that keeps most recorded moves is taken (oneOutcome).
		var alts [][2]string
		if len(others) > 1 && r.info.Game == "gyges" {
			if k, ok := r.oneOutcome(others); ok {
				alts = r.lookAlikeOf(others, k)
				others = others[k : k+1]
			}
		}
		// Several readings, or a takeback: never guess. A physical takeback
		// looks exactly like a move under way that has lifted the pieces
		// of the last moves, so it is only ever proposed, never taken.
		// One reading that revises the last move and adds the next
		// player's move is taken too: should the hand go on, the two are
		// read back together to the revised move's earlier readings
		// (revisionsThen, depth 2), asked. (Not when the board shows
		// the revision alone as well: the next player's move unseen, a
		// swap.)
		lone := len(others) == 1 && r.info.Game == "gyges" && others[0].kind == candRevise && others[0].then != "" && !strings.Contains(others[0].then, ";") && !others[0].altPast &&
			(others[0].depth == 1 || r.handWentOn(others[0])) && !r.shownBefore(others[0])
		if len(others) > 1 || others[0].kind == candTakeback || others[0].ask && !lone {
			slices.SortStableFunc(others, func(a, b candidate) int { return b.evidence - a.evidence })
			r.ask(others)
			return
		}
		// GYGES: the last move's hand may have gone on and the next
		// player then moved any piece; such a reading that ends elsewhere
		// is asked beside this one (otherCompositesThan).
		if r.info.Game == "gyges" && !broadOff {
			if h, ok := r.outcome(others[0]); ok {
				if extra := r.otherCompositesThan(others[0], h, nil, &alts); len(extra) > 0 {
					all := append(others[:1:1], extra...)
					slices.SortStableFunc(all, func(a, b candidate) int { return b.evidence - a.evidence })
					r.ask(all)
					return
				}
			}
		}
		r.confirm = nil
		r.take(others[0], r.cfg.Source)
		if lone && len(r.ops) > 0 {
			r.ops[len(r.ops)-1].lone = true
		}
		if takesAlts(others[0]) {
			r.keepAlts(alts)
		}
	}
	r.fixpoint = false // the board was not read again after the last move taken
}

// handWentOn: c reads the last two moves back to the revision's earlier
// reading and a replace of the next player's whose hand went on, its
// displaced piece set down first where the move before was recorded
// putting its own, and landing where that one first went. The last move is
// a plain move, a rest of that hand: of its mover (the piece has left
// where it was recorded), or of its displaced piece carried on from there
// (it stays where the plain move put it). Or the last move is the second
// of a lone reading, its replace's mover gone on from where it landed.
func (r *Referee) handWentOn(c candidate) bool {
	n := len(r.ops)
	if c.depth != 2 || n < 2 {
		return false
	}
	last, then := r.ops[n-1].note, r.parse(c.then, -1)
	// (After a plain move: the next player's replace set its displaced
	// piece down first where the move before was recorded putting its
	// own, and landed where that one first went — a piece of the next
	// player's own hand that merely left, or the move before's piece
	// moved on by the player after, is no such hand)
	to, first := last.to, r.ops[n-2].note
	if r.ops[n-1].lone {
		// After a lone reading (a revision and the next player's
		// replace): that replace's mover went on — landing further, the
		// move before read back to an earlier reading — when the
		// player to move may not move the piece it landed (they may have
		// lifted it: seed 5890).
		if to < 0 || then.to == to {
			return false
		}
		if last.extra >= 0 && then.from != last.from {
			return false
		}
		if last.extra < 0 && !r.sameHandOn(c.note, first, then, last) {
			return false
		}
		pc := r.ensure()
		for _, nt := range pc.notes {
			if nt.from == to {
				return false
			}
		}
		return true
	}
	if to < 0 || last.extra >= 0 || then.extra < 0 || c.note.extra < 0 || then.to != c.note.extra {
		return false
	}
	if then.from == last.from {
		// the plain move was the next player's mover resting on its way
		return r.hasSensor[to] && r.sensed[to] == empty && r.touched[to] > r.lastAcc && then.extra == first.extra
	}
	// the plain move was the next player's displaced piece going on from
	// where the move before was recorded putting its own, and it stays
	// where that move put it: the replace's displaced piece set down
	// first, rested, and carried on
	return first.extra >= 0 && last.from == first.extra && then.extra == to
}

// sameHandOn: after a lone reading (first, a revision of the move before,
// and last, the next player's plain move of the piece it put down), the
// reading back (nt, the move before as it was first recorded, and then)
// moves the same piece on from where nt put it: the next player's hand
// counted that piece through rests read as the revision and as last, and
// went on.
func (r *Referee) sameHandOn(nt, first, then, last note) bool {
	if then.extra >= 0 || nt.from != first.from || nt.place != first.place {
		return false
	}
	switch {
	case last.from == first.extra && first.extra >= 0:
		return then.from == nt.extra && nt.to == first.to
	case last.from == first.to:
		return then.from == nt.to && nt.extra == first.extra
	}
	return false
}

// ask enters the confirm state (keeping the proposal when the candidates did
// not change).
func (r *Referee) ask(c []candidate) {
	// the revisions of the last move asked about: the board showed them
	if n := len(r.ops); n > 0 {
		last := &r.ops[n-1]
		for _, x := range c {
			if x.kind != candRevise || x.depth != 1 || x.then != "" || strings.Contains(x.text, ";") || x.idx >= len(r.prev.moves) {
				continue
			}
			if m := r.prev.moves[x.idx]; !slices.Contains(last.asked, m) && len(last.asked) < maxWas {
				last.asked = append(last.asked, m)
			}
		}
	}
	same := len(c) == len(r.confirm)
	for i := 0; same && i < len(c); i++ {
		same = c[i].kind == r.confirm[i].kind && c[i].text == r.confirm[i].text && c[i].plies == r.confirm[i].plies
	}
	if !same {
		r.proposal = 0
	}
	r.confirm = c
}

// newGameShown reports whether the board shows the start position, set up
// since the last accepted move: a new game, proposed (a resumed game whose
// board was set up again for whatever reason is never abandoned unasked).
func (r *Referee) newGameShown() (candidate, bool) {
	if r.start == nil || r.cfg.NewGame == nil || r.lastMove() < 0 || !r.fitsBoard(r.start) {
		return candidate{}, false
	}
	var keys []int
	for c := range r.start {
		if r.start[c] != r.cur[c] && r.hasSensor[c] {
			if r.touched[c] <= r.lastAcc {
				return candidate{}, false
			}
			keys = append(keys, c)
		}
	}
	if len(keys) == 0 {
		return candidate{}, false
	}
	return candidate{kind: candNew, evidence: len(keys), cells: keys, ask: true}, true
}

// evaluate reads the board and works out the mode and the LEDs.
func (r *Referee) evaluate() {
	if r.known {
		r.recognise()
	}
	r.progress = r.progress[:0]
	var m []int
	switch {
	case r.known && r.fixpoint:
		// recognise read the board as it stands last: its mismatch holds
		m = r.misCand
	case r.known:
		m = r.mismatch(r.misEval[:0], r.cur) // (evaluate's scratch: render keeps none of it)
		r.misEval = m
	}
	r.inSync = r.known && len(m) == 0
	if r.inSync {
		r.takenBack = 0 // brought back in line: the takeback is done
	}
	if r.inSync || len(r.ops) > 0 {
		r.synced = true
	}
	if r.known && !r.inSync && r.st.Awaiting() == engine.AwaitMove && len(r.confirm) == 0 {
		r.underWay(m)
	}
	status := r.st.Result().Status
	switch {
	case len(r.confirm) > 0:
		r.mode = ModeConfirm
	case status != engine.Playing && r.inSync:
		r.mode = ModeOver
	case r.inSync || len(r.progress) > 0 || !r.known:
		if r.setupPhase() {
			r.mode = ModeSetup
		} else if status != engine.Playing {
			r.mode = ModeOver
		} else {
			r.mode = ModePlay
		}
	case !r.synced:
		r.mode = ModeSetup
	default:
		r.mode = ModeCorrect
	}
	r.render(m)
	r.bump()
}

// setupPhase: GYGES placements.
func (r *Referee) setupPhase() bool {
	if r.info.Game != "gyges" || r.st.Awaiting() != engine.AwaitMove {
		return false
	}
	c := r.ensure()
	return len(c.notes) > 0 && c.notes[0].place
}

// underWay finds the legal moves the board is on its way to: every
// mismatched cell is a cell of the move that already shows the move's
// result, or a piece of it lifted for the moment.
func (r *Referee) underWay(m []int) {
	r.progress = r.underWayMoves(m, r.progress[:0])
}

// underWayMoves appends to dst the indices of the legal moves that the
// board is on its way to.
func (r *Referee) underWayMoves(m []int, dst []int) []int {
	c := r.ensure()
	for i := range c.moves {
		if !r.mayBeUnderWay(c.notes[i], m) || !r.relevant(c.notes[i], m, r.lastAcc) {
			continue
		}
		if r.liftedOnly(c.notes[i], m) {
			// only pieces of the move lifted: under way (no move empties
			// cells without filling one, so the board cannot show it)
			dst = append(dst, i)
			continue
		}
		d := r.diff(c, i)
		if r.fits(d, m) {
			continue // the board shows it, but it was not accepted (taken back)
		}
		ok := true
		for _, cell := range m {
			s := r.sensed[cell]
			want, in := r.cur[cell], false
			for _, ch := range d {
				if int(ch.cell) == cell {
					want, in = ch.new, true
				}
			}
			n := c.notes[i]
			named := cell == n.from || cell == n.to || cell == n.extra
			switch {
			case in && matches(s, want):
			case s == empty && r.cur[cell] != empty && (in || named):
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			dst = append(dst, i)
		}
	}
	return dst
}

// nextUnderWay reports whether a move of the player to move may be under
// way: the board is on its way to it, and the piece it moves (if it moves
// one on the board) has been lifted — a move whose piece still stands where
// it stood has not begun (a six hexagon's destination filled while it
// stands is another piece), unless it is a GYGES replace, whose displaced
// piece may be set down before the mover is lifted.
//
// lifted leaves out a GYGES replace whose displaced piece was set down first
// and whose mover is not yet lifted: a revision of the last move alone is
// recorded, and revisionsThen reads it again once the mover lands.
func (r *Referee) nextUnderWay(m []int) (any, lifted bool) {
	c := r.ensure()
	for _, i := range r.underWayMoves(m, nil) {
		n := c.notes[i]
		if n.extra >= 0 && n.to >= 0 && r.hasSensor[n.extra] && r.hasSensor[n.to] && r.sensed[n.extra] != empty &&
			slices.Contains(m, n.extra) && (r.touched[n.to] <= r.lastAcc || !r.liftedBeforeFill(n.to, n.extra, r.lastAcc)) {
			continue // its displaced piece is down, yet it never left the landing cell
		}
		if n.from < 0 || n.extra >= 0 || !r.hasSensor[n.from] || r.sensed[n.from] == empty {
			any = true
			if !(r.info.Game == "gyges" && n.extra >= 0 && n.from >= 0 && r.hasSensor[n.from] && r.sensed[n.from] != empty) {
				return true, true
			}
		}
	}
	return any, false
}

// debugHook, when set (by the noisy harness's TABLA_NOISY_DEBUG), sees every
// move that fits the board and whether its evidence holds.
var debugHook func(r *Referee, text string, ok bool)
