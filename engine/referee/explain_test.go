package referee

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// The reference explainer: the noisy harness's judge. It is slow and
// exhaustive and shares nothing with the referee but the rule engines and
// the board definitions: it has its own debouncing, its own reading of the
// notation, its own idea of evidence. Given the raw sensor events since the
// last committed position (and since the one before, for revisions), it
// lists every reading that the evidence admits:
//
//   - nothing happened (the board is as it was);
//   - a legal move;
//   - a legal move and then the next player's move after it;
//   - the last move revised: another move of the same piece from the
//     position before it, the hand having gone on — alone, or with the
//     next player's move after it: in GYGES any move (pieces have no
//     owner, and nothing holds the next player to the piece the revised
//     hand put down); in the other games a move of that piece on from
//     where it was put;
//   - the same revisions of the last move as the referee recorded it,
//     when its record names the last moves otherwise and ends in the same
//     position (a look-alike: the evidence admits either past);
//   - a takeback of up to one round of moves (four at most);
//   - a new game (the start position), when no move explains the board.
//
// A reading is complete when the settled board shows exactly its position
// and the evidence admits it: every cell whose piece it changes, and every
// cell its notation names, was touched (its sensor held another reading for
// at least the settle window), and every piece it puts down was put down
// after a piece it moves had left its cell — a revision's pieces after they
// left where the last move put them, also when the next player's move
// follows (but on the cells that move names).

// narrowExplainer ($TABLA_NOISY_EXPLAIN=narrow) admits after a GYGES
// revision only a next player's move of a piece the revised hand put down
// (session 17's judge), not any move: for comparing judges
// (BENCHMARKS.md).
var narrowExplainer = os.Getenv("TABLA_NOISY_EXPLAIN") == "narrow"

func init() {
	broadOff = os.Getenv("TABLA_NOISY_BROADOFF") != ""
	altOff = os.Getenv("TABLA_NOISY_ALTOFF") != ""
	gapOff = os.Getenv("TABLA_NOISY_GAPOFF") != ""
	boundaryOff = os.Getenv("TABLA_NOISY_BOUNDARYOFF") != ""
	frameOff = os.Getenv("TABLA_NOISY_FRAMEOFF") != ""
}

// judgeFrameOff: a swap of two pieces of one height after a revision (two
// readings that revise the last move alike and name the next move
// otherwise) does not keep readings that end in one position from being
// one to the game (session 20's judge, $TABLA_NOISY_FRAME=off).
var judgeFrameOff = os.Getenv("TABLA_NOISY_FRAME") == "off"

// judgeStandOff: the pieces a GYGES ply picks up need not stand on their
// cells when the ply before it ended (session 20's judge,
// $TABLA_NOISY_STAND=off).
var judgeStandOff = os.Getenv("TABLA_NOISY_STAND") == "off"

// rawEv is one sensor reading as the board reported it.
type rawEv struct {
	cell int
	at   time.Duration
	code byte
}

// window is what the board did from a committed position on.
type window struct {
	start  time.Duration
	init   []byte // each cell's code at the start
	events []rawEv
}

func (w *window) clone() *window {
	if w == nil {
		return nil
	}
	return &window{start: w.start, init: slices.Clone(w.init), events: slices.Clone(w.events)}
}

// segReading is a debounced reading of one cell from a moment on.
type segReading struct {
	at   time.Duration
	code byte
}

// evidence is a window debounced, cell by cell.
type evidence struct {
	init  []byte
	final []byte
	real  [][]segReading // per cell: the readings that lasted the settle window (and the last one)
}

func debounceWindow(w *window, ncell int, settle time.Duration, now time.Duration) *evidence {
	ev := &evidence{init: w.init, final: slices.Clone(w.init), real: make([][]segReading, ncell)}
	raw := make([][]segReading, ncell)
	for c := range raw {
		raw[c] = []segReading{{w.start, w.init[c]}}
	}
	for _, e := range w.events {
		if raw[e.cell][len(raw[e.cell])-1].code != e.code {
			raw[e.cell] = append(raw[e.cell], segReading{e.at, e.code})
		}
		ev.final[e.cell] = e.code
	}
	for c, segs := range raw {
		var out []segReading
		run := 0 // the first raw reading since the last real one
		for i, s := range segs {
			end := now
			if i+1 < len(segs) {
				end = segs[i+1].at
			}
			if end-s.at < settle && i+1 < len(segs) && i > 0 {
				continue // a glitch
			}
			if len(out) > 0 && out[len(out)-1].code == s.code {
				run = i + 1
				continue
			}
			// a change dates from the first moment the sensor showed it,
			// glitches between (a piece lifted while its sensor chatters
			// was lifted when it first read empty)
			first := s
			for _, g := range segs[run:i] {
				if g.code == s.code {
					first = g
					break
				}
			}
			out = append(out, first)
			run = i + 1
		}
		ev.real[c] = out
	}
	return ev
}

// touched: the cell held another reading than at the start, long enough.
func (e *evidence) touched(c int) bool { return len(e.real[c]) > 1 }

// lastFill is when the cell's final piece was put down (-1: it was not).
func (e *evidence) lastFill(c int) time.Duration {
	r := e.real[c]
	for i := len(r) - 1; i > 0; i-- {
		if r[i].code != CodeEmpty && r[i-1].code == CodeEmpty {
			return r[i].at
		}
	}
	return -1
}

// readingAt is the cell's debounced reading at moment t.
func (e *evidence) readingAt(c int, t time.Duration) byte {
	r := e.real[c]
	code := r[0].code
	for _, s := range r[1:] {
		if s.at > t {
			break
		}
		code = s.code
	}
	return code
}

// emptiedBefore: the cell was emptied at some moment before t.
func (e *evidence) emptiedBefore(c int, t time.Duration) bool {
	r := e.real[c]
	for i := 1; i < len(r); i++ {
		if r[i].code == CodeEmpty && r[i-1].code != CodeEmpty && r[i].at < t {
			return true
		}
	}
	return false
}

type explainer struct {
	kindOf map[string]byte // piece → kind number (1…)
	code   [256]byte       // kind number → what a sensor reads
	idx    map[string]int  // cell name → index
	b      *boards.Board
	game   string
	ident  bool
	cfg    engine.Config
	settle time.Duration
	sensor []bool
}

func newExplainer(b *boards.Board, game string, cfg engine.Config, ident bool, settle time.Duration) *explainer {
	x := &explainer{b: b, game: game, ident: ident, cfg: cfg, settle: settle, sensor: make([]bool, len(b.Cells)), idx: map[string]int{}, kindOf: map[string]byte{}}
	for i, c := range b.Cells {
		x.idx[c.Name] = i
	}
	for _, c := range b.Sensors {
		if c >= 0 {
			x.sensor[c] = true
		}
	}
	return x
}

// board returns the pieces of a position on the sensed cells, as kinds
// (0 empty, then one number a piece kind; ok false when a piece stands off
// the physical board). Which piece stands where decides what a reading
// changes — a presence sensor cannot see two pieces swap, but a hand had to
// move them; what the sensors read of it is code.
func (x *explainer) board(p engine.Position) ([]byte, bool) {
	out := make([]byte, len(x.b.Cells))
	for name, piece := range p.Pieces {
		c, ok := x.b.Index(name)
		if !ok {
			return nil, false
		}
		if !x.sensor[c] {
			continue
		}
		k, ok := x.kindOf[piece]
		if !ok {
			k = byte(len(x.kindOf) + 1)
			x.kindOf[piece] = k
			x.code[k] = CodeOccupied
			if x.ident {
				if code, ok := x.b.CodeOf(piece); ok {
					x.code[k] = code
				}
			}
		}
		out[c] = k
	}
	return out, true
}

// shows reports whether the settled sensors read board b.
func (x *explainer) shows(e *evidence, b []byte) bool {
	for c := range b {
		if x.sensor[c] && e.final[c] != x.code[b[c]] {
			return false
		}
	}
	return true
}

// named appends to dst the cells a move's notation names (with a sensor),
// and the mover's cell (mover, -1 for none) for the games whose notation
// names the destination only. It allocates nothing.
func (x *explainer) named(dst []int, text []byte, mover int) []int {
	add := func(tok []byte) {
		if c, ok := x.idx[string(tok)]; ok && x.sensor[c] {
			dst = append(dst, c)
		}
	}
	switch x.game {
	case "six":
		// the suffix of a tied split names any cell of the kept group
		if i := bytes.IndexByte(text, '/'); i >= 0 {
			text = text[:i]
		}
		a, b, ok := bytes.Cut(text, []byte(">"))
		add(a)
		if ok {
			add(b)
		}
	case "daha", "ray":
		add(text)
		if mover >= 0 && x.sensor[mover] {
			dst = append(dst, mover)
		}
	default:
		for len(text) > 0 {
			i := bytes.IndexAny(text, "-/@")
			if i < 0 {
				add(text)
				break
			}
			add(text[:i])
			text = text[i+1:]
		}
	}
	return dst
}

// origin returns the cell a move takes its piece from (mover for the games
// that name the destination only), or place true for a piece put down from
// outside the board.
func (x *explainer) origin(text string, mover int) (int, bool) {
	switch x.game {
	case "daha", "ray":
		return mover, false
	case "six":
		a, _, ok := strings.Cut(text, ">")
		if !ok {
			return -1, true
		}
		return x.idx[a], false
	}
	if strings.Contains(text, "@") {
		return -1, true
	}
	a, _, _ := strings.Cut(text, "-")
	return x.idx[a], false
}

// moverCell is the cell of the piece of the player to move (DAHA, RAY).
func (x *explainer) moverCell(st engine.State) int {
	if x.game != "daha" && x.game != "ray" || st.ToMove() < 0 {
		return -1
	}
	mover := st.Info().Seats[st.ToMove()]
	for cell, p := range st.Position().Pieces {
		if p == mover {
			return x.idx[cell]
		}
	}
	return -1
}

// admits reports whether the evidence shows the change from board from to
// board to, with the named cells touched.
func (x *explainer) admits(e *evidence, from, to []byte, named []int) bool {
	var srcs []int
	for c := range to {
		if !x.sensor[c] {
			continue
		}
		if e.final[c] != x.code[to[c]] {
			return false
		}
		if from[c] != to[c] && !e.touched(c) {
			return false
		}
		if from[c] != CodeEmpty && from[c] != to[c] {
			srcs = append(srcs, c)
		}
	}
	for _, c := range named {
		if !e.touched(c) {
			return false
		}
		if from[c] != CodeEmpty && !slices.Contains(srcs, c) {
			srcs = append(srcs, c)
		}
	}
	if len(srcs) == 0 {
		return true // pieces from outside the board
	}
	// every piece put down came after a piece the reading moves had left
	for c := range to {
		if !x.sensor[c] || to[c] == CodeEmpty || (to[c] == from[c] && !slices.Contains(named, c)) {
			continue
		}
		t := e.lastFill(c)
		if t < 0 {
			continue // no fill seen: the kind changed under a held sensor
		}
		ok := false
		for _, s := range srcs {
			if e.emptiedBefore(s, t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// sequenceOK checks every cell's sensor history against a reading of
// several plies (boards[0] the start, boards[i] after ply i, named[i-1] the
// cells ply i names, texts[i-1] its notation): each ply that takes a piece
// off a cell needs a lift there, each that puts one down a fill, in the
// plies' order, and the players take turns: every change a ply needs comes
// after every change the ply before it needed, by more than the settle time
// (two people's hands; $TABLA_NOISY_GAP=off: any time after), and in GYGES
// the pieces a ply picks up stood on their cells when the ply before ended
// ($TABLA_NOISY_STAND=off: not asked). The sensors may show more
// (bumps, rests), never less. Within a GYGES ply a piece is put down after
// it was picked up: the mover's piece lands after its cell was emptied, a
// replace's displaced piece after its landing cell was.
func (x *explainer) sequenceOK(e *evidence, boards [][]byte, named [][]int, texts ...string) bool {
	pos := make([]int, len(x.sensor)) // per cell: transitions matched so far
	barrier := time.Duration(-1 << 62)
	order := make([]int, 0, len(x.sensor))
	// per ply: its first and last change, and the cells it changed
	starts, ends := make([]time.Duration, len(boards)-1), make([]time.Duration, len(boards)-1)
	cells := make([][]int, len(boards)-1)
	lifts := make([][]int, len(boards)-1) // per ply: the cells it lifts
	for i := 1; i < len(boards); i++ {
		end := barrier
		start := time.Duration(1<<63 - 1)
		// the cells in the order their pieces are picked up: a ply's
		// origin, then its landing cell, then the rest
		order = order[:0]
		from, to, extra := -1, -1, -1
		if x.game == "gyges" && i-1 < len(texts) {
			from, to, extra = x.gygesCells(texts[i-1])
		}
		for _, c := range [...]int{from, to} {
			if c >= 0 {
				order = append(order, c)
			}
		}
		for c := range x.sensor {
			if c != from && c != to {
				order = append(order, c)
			}
		}
		// a fill of to, and of extra, must come after this (its piece was
		// picked up then)
		toAfter, extraAfter := barrier, barrier
		for _, c := range order {
			if !x.sensor[c] {
				continue
			}
			a, b := boards[i-1][c], boards[i][c]
			nm := slices.Contains(named[i-1], c)
			var want []byte
			if a != CodeEmpty && (a != b || nm) {
				want = append(want, 'L')
				lifts[i-1] = append(lifts[i-1], c)
			}
			if b != CodeEmpty && (a != b || nm && a != CodeEmpty) {
				want = append(want, 'F')
			}
			r := e.real[c]
			for _, w := range want {
				found := false
				lo := barrier
				if w == 'F' && c == to {
					lo = max(lo, toAfter)
				}
				if w == 'F' && c == extra {
					lo = max(lo, extraAfter)
				}
				for pos[c]+1 < len(r) {
					pos[c]++
					t := r[pos[c]]
					ok := t.at > lo && (w == 'L' && t.code == CodeEmpty ||
						w == 'F' && t.code != CodeEmpty)
					if ok {
						found = true
						end = max(end, t.at)
						start = min(start, t.at)
						if !slices.Contains(cells[i-1], c) {
							cells[i-1] = append(cells[i-1], c)
						}
						if w == 'L' && c == from {
							toAfter = t.at
						}
						if w == 'L' && c == to {
							extraAfter = t.at
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
		if !judgeGapOff {
			barrier = end + x.settle
		}
		starts[i-1], ends[i-1] = start, end
	}
	if judgeBoundaryOff {
		return true
	}
	// between two plies the hand let go: at some moment the cells either
	// ply changes showed the board after the first
	for i := 1; i+1 < len(boards); i++ {
		if !x.showsBetween(e, boards[i], slices.Concat(cells[i-1], cells[i]), ends[i-1], starts[i]) {
			return false
		}
		// the pieces the next ply picks up stood on their cells when the
		// ply before ended: a piece lifted during that ply and put back
		// only after it was the next player's hand (begun too soon)
		if x.game == "gyges" && !judgeStandOff {
			for _, c := range lifts[i] {
				if e.readingAt(c, ends[i-1]) == CodeEmpty {
					return false
				}
			}
		}
	}
	return true
}

// showsBetween: at some moment from lo to before hi the cells read board b.
func (x *explainer) showsBetween(e *evidence, b []byte, cells []int, lo, hi time.Duration) bool {
	shows := func(t time.Duration) bool {
		for _, c := range cells {
			if e.readingAt(c, t) != x.code[b[c]] {
				return false
			}
		}
		return true
	}
	if shows(lo) {
		return true
	}
	for _, c := range cells {
		for _, sg := range e.real[c] {
			if sg.at > lo && sg.at < hi && shows(sg.at) {
				return true
			}
		}
	}
	return false
}

// judgeBoundaryOff ($TABLA_NOISY_BOUNDARY=off): no moment between two plies
// need show the board after the first (before session 20).
var judgeBoundaryOff = os.Getenv("TABLA_NOISY_BOUNDARY") == "off"

// judgeGapOff ($TABLA_NOISY_GAP=off): the plies of a reading need no pause
// between them (before session 20).
var judgeGapOff = os.Getenv("TABLA_NOISY_GAP") == "off"

// swapFree ($TABLA_NOISY_SWAPFREE=1): a swap's displaced piece is not
// checked (displacedAfter; before session 20).
var swapFree = os.Getenv("TABLA_NOISY_SWAPFREE") == "1"

// gygesCells reads a GYGES move's origin, landing cell and displaced
// piece's cell (-1: none, or no sensor).
func (x *explainer) gygesCells(text string) (from, to, extra int) {
	from, to, extra = -1, -1, -1
	cell := func(s string) int {
		if c, ok := x.idx[s]; ok && x.sensor[c] {
			return c
		}
		return -1
	}
	if strings.Contains(text, "@") {
		return
	}
	a, rest, _ := strings.Cut(text, "-")
	b, d, hasD := strings.Cut(rest, "/")
	from, to = cell(a), cell(b)
	if hasD {
		extra = cell(d)
	}
	return
}

// displacedAfter: a GYGES replace's displaced piece was put down after it
// left the landing cell (a piece put there before is another piece). A
// swap too: its displaced piece goes to the mover's cell, last filled after
// the landing cell was emptied ($TABLA_NOISY_SWAPFREE=1: swaps unchecked,
// as before session 20).
func (x *explainer) displacedAfter(e *evidence, text []byte, named []int) bool {
	if x.game != "gyges" || !bytes.Contains(text, []byte("/")) || len(named) != 3 || swapFree && named[2] == named[0] {
		return true
	}
	to, extra := named[1], named[2]
	t := e.lastFill(extra)
	return t < 0 || e.emptiedBefore(to, t)
}

// moverAfter: a GYGES move's piece was put down on its destination after it
// left its cell (a piece put there before, such as a bounce piece looked at
// and put back, is another piece).
//
// When it was put down the piece was in the hand, off its cell: the cell
// reads empty then — a piece knocked off its cell and set back before
// another was put down on the destination is no mover — unless a replace's
// displaced piece went there first (it may go to the mover's start cell).
func (x *explainer) moverAfter(e *evidence, named []int) bool {
	if x.game != "gyges" || len(named) < 2 || named[0] == named[1] {
		return true
	}
	t := e.lastFill(named[1])
	if t < 0 {
		return true
	}
	if !e.emptiedBefore(named[0], t) {
		return false
	}
	return e.readingAt(named[0], t) == CodeEmpty || len(named) == 3 && named[2] == named[0]
}

// pliesInHand is moverAfter for each ply of a reading of two (named and
// n2: the cells each names): when a ply's mover landed it was in the
// hand, its cell empty then. The second ply's landing is its cell's last
// fill; the first's, unless the second ply names that cell too.
func (x *explainer) pliesInHand(e *evidence, named, n2 []int) bool {
	if len(named) >= 2 && !slices.Contains(n2, named[1]) && !x.moverAfter(e, named) {
		return false
	}
	return x.moverAfter(e, n2)
}

// history is what the explainer knows of the game: the states before each
// of the recent moves (for takebacks and revisions).
type history struct {
	// alts are the other pasts the evidence admits: the position before
	// the last move and that move as the referee recorded them, when its
	// record names the last moves otherwise than they were played and ends
	// in the same position (recordedPast); and as the explainer's own
	// readings of that move named them, one to the game with it (a
	// revision of the move before and then that move: ownPasts)
	alts      []past
	before    []engine.State // the position before each move, oldest first
	moves     []string       // the moves played
	rollAfter []bool         // a roll came after the move
	chosen    []bool         // a person confirmed it: the hand was done
}

// past is a position and the move played from it.
type past struct {
	before engine.State
	move   string
}

// recordedPast is the referee's record of the last move (recorded: every
// move it recorded) and the position before it, when the record names the
// last two moves otherwise than they were played (h) — it ends in the
// same position (the harness checks that) — and past{} when it names them
// alike or cannot be played back.
func (x *explainer) recordedPast(recorded []string, h *history) past {
	n := len(h.moves)
	k := min(2, n, len(recorded))
	if k == 0 || slices.Equal(recorded[len(recorded)-k:], h.moves[n-k:]) {
		return past{}
	}
	st, err := engine.New(x.game, x.cfg)
	if err != nil {
		return past{}
	}
	for _, t := range recorded[:len(recorded)-1] {
		m, err := engine.ParseByNotation(st, t)
		if err != nil {
			return past{}
		}
		st.Play(m)
	}
	return past{before: st, move: recorded[len(recorded)-1]}
}

// ownPasts lists the other pasts the explainer's readings of a move
// (played from the position after the moves h holds; its readings and
// the hashes they end in, truth the one played) leave: each revision of
// the move before and then a move, that ends where the move played does —
// one to the game with it, so the next hand may revise the last move as
// that reading names it. ($TABLA_NOISY_ALTS=recorded: none, only the
// referee's record is read as another past.)
func (x *explainer) ownPasts(h *history, readings []string, ends []uint64, truth string) []past {
	k := slices.Index(readings, truth)
	if k < 0 || len(h.before) == 0 || recordedAltsOnly {
		return nil
	}
	var out []past
	for i, rd := range readings {
		rev, ok := strings.CutPrefix(rd, "revise:")
		if !ok || ends[i] != ends[k] || strings.Count(rev, ";") != 1 {
			continue
		}
		first, then, _ := strings.Cut(rev, ";")
		st := h.before[len(h.before)-1].Clone()
		m, err := engine.ParseByNotation(st, first)
		if err != nil {
			continue
		}
		st.Play(m)
		out = append(out, past{before: st, move: then})
	}
	return out
}

var recordedAltsOnly = os.Getenv("TABLA_NOISY_ALTS") == "recorded"

// add records a move played from st (st is kept: pass a copy).
func (h *history) add(st engine.State, move string) {
	h.before = append(h.before, st)
	h.moves = append(h.moves, move)
	h.rollAfter = append(h.rollAfter, false)
	h.chosen = append(h.chosen, false)
	h.alts = nil
	if len(h.before) > 5 {
		h.before, h.moves, h.rollAfter, h.chosen = h.before[1:], h.moves[1:], h.rollAfter[1:], h.chosen[1:]
	}
}

// explain lists the complete readings at now: cur is the committed game,
// w the window since it was committed, prev the window since the position
// before its last move (nil when a roll came between, or no move was made).
func (x *explainer) explain(cur engine.State, h *history, w, prev *window, now time.Duration) []string {
	out, _ := x.explainOutcomes(cur, h, w, prev, now)
	return out
}

// explainOutcomes is explain with, for each reading, the hash of the
// position it ends in: readings that end in the same position (the same
// pieces on the same cells, the same player to move) differ only in how
// the record names the plies, and are one reading to the game.
func (x *explainer) explainOutcomes(cur engine.State, h *history, w, prev *window, now time.Duration) ([]string, []uint64) {
	e := debounceWindow(w, len(x.b.Cells), x.settle, now)
	base, ok := x.board(cur.Position())
	if !ok {
		return nil, nil
	}
	var out []string
	var hashes []uint64
	if x.shows(e, base) {
		out = append(out, "none")
		hashes = append(hashes, cur.Hash())
	}
	buf := make([]engine.Move, 0, 4096)
	var nb [64]byte
	if cur.Awaiting() == engine.AwaitMove {
		mover := x.moverCell(cur)
		for _, m := range cur.Moves(buf[:0]) {
			tb := cur.AppendMove(nb[:0], m)
			if string(tb) == "pass" {
				continue
			}
			named := x.named(nil, tb, mover)
			if !allTouched(e, named) {
				continue
			}
			text := string(tb)
			c := cur.Clone()
			c.Play(m)
			after, ok := x.board(c.Position())
			if !ok {
				continue
			}
			if x.admits(e, base, after, named) && x.sequenceOK(e, [][]byte{base, after}, [][]int{named}, text) && x.displacedAfter(e, tb, named) && x.moverAfter(e, named) {
				out = append(out, text)
				hashes = append(hashes, c.Hash())
			}
			// the next player's move after it
			if c.Awaiting() != engine.AwaitMove || !x.changedTouched(e, base, after) {
				continue
			}
			mover2 := x.moverCell(c)
			for _, m2 := range c.Moves(nil) {
				tb2 := c.AppendMove(nb[:0], m2)
				if string(tb2) == "pass" {
					continue
				}
				n2 := x.named(nil, tb2, mover2)
				if !allTouched(e, n2) {
					continue
				}
				t2 := string(tb2)
				c.Play(m2)
				after2, ok := x.board(c.Position())
				h2 := c.Hash()
				c.Undo()
				if ok && x.admits(e, base, after2, append(slices.Clone(named), n2...)) &&
					x.sequenceOK(e, [][]byte{base, after, after2}, [][]int{named, n2}, text, string(tb2)) && x.pliesInHand(e, named, n2) {
					out = append(out, text+";"+t2)
					hashes = append(hashes, h2)
				}
			}
		}
	}
	// revisions of the last move: the same player's other moves from the
	// position before it, the evidence since then
	// (and from the past as the record has it, when the record named the
	// last moves otherwise and ended in the same position: the evidence
	// admits either past, so a revision of either is a reading)
	if n := len(h.before); n > 0 && prev != nil && !h.rollAfter[n-1] && !h.chosen[n-1] {
		pe := debounceWindow(joinWindows(prev, w), len(x.b.Cells), x.settle, now)
		pasts := []past{{h.before[n-1], h.moves[n-1]}}
		pasts = append(pasts, h.alts...)
		for _, pt := range pasts {
			pb, lastMove := pt.before, pt.move
			pboard, ok := x.board(pb.Position())
			if ok && pb.Awaiting() == engine.AwaitMove {
				mover := x.moverCell(pb)
				lastFrom, lastPlace := x.origin(lastMove, mover)
				for _, m := range pb.Moves(buf[:0]) {
					tb := pb.AppendMove(nb[:0], m)
					if string(tb) == "pass" || string(tb) == lastMove {
						continue
					}
					// the same hand went on: the same piece
					if from, place := x.origin(string(tb), mover); from != lastFrom || place != lastPlace {
						continue
					}
					named := x.named(nil, tb, mover)
					if !allTouched(pe, named) {
						continue
					}
					text := string(tb)
					c := pb.Clone()
					c.Play(m)
					after, ok := x.board(c.Position())
					if !ok {
						continue
					}
					// what differs from the last move's board was touched since
					if x.admits(pe, pboard, after, named) && x.sequenceOK(pe, [][]byte{pboard, after}, [][]int{named}, text) && x.seenChangedTouched(e, base, after) &&
						x.displacedAfter(pe, []byte(text), named) && x.moverAfter(pe, named) && x.wentOn(e, lastMove, text, nil) && !slices.Contains(out, "revise:"+text) {
						out = append(out, "revise:"+text)
						hashes = append(hashes, c.Hash())
					}
					// the revised move, and the next player's move of that piece
					// on from where it was put (pieces without an owner: GYGES)
					if c.Awaiting() != engine.AwaitMove || len(named) < 2 {
						continue
					}
					revisedTo := named[1]
					mover2 := x.moverCell(c)
					for _, m2 := range c.Moves(nil) {
						tb2 := c.AppendMove(nb[:0], m2)
						if string(tb2) == "pass" {
							continue
						}
						n2 := x.named(nil, tb2, mover2)
						// GYGES: any move; else a piece the hand put down
						// moved on ($TABLA_NOISY_EXPLAIN=narrow: in GYGES too,
						// or its displaced one moved on, or either displaced
						// by the next player's replace)
						onward := len(n2) > 0 && (n2[0] == revisedTo || x.game == "gyges" && len(named) == 3 && n2[0] == named[2])
						displaced := x.game == "gyges" && len(n2) == 3 && n2[0] != n2[1] && (n2[1] == revisedTo || len(named) == 3 && n2[1] == named[2])
						if !onward && !displaced && (x.game != "gyges" || narrowExplainer) || !allTouched(pe, n2) {
							continue
						}
						t2 := string(tb2)
						c.Play(m2)
						after2, ok := x.board(c.Position())
						h2 := c.Hash()
						c.Undo()
						if ok && x.admits(pe, pboard, after2, append(slices.Clone(named), n2...)) &&
							x.sequenceOK(pe, [][]byte{pboard, after, after2}, [][]int{named, n2}, text, string(tb2)) && x.seenChangedTouched(e, base, after2) && x.pliesInHand(pe, named, n2) &&
							x.wentOn(e, lastMove, text, n2) && !slices.Contains(out, "revise:"+text+";"+t2) {
							out = append(out, "revise:"+text+";"+t2)
							hashes = append(hashes, h2)
						}
					}
				}
			}
		}
	}
	// takebacks, as deep as the referee offers them (one round: a move of
	// every seat, four at most)
	for k := 1; k <= len(cur.Info().Seats) && k <= len(h.before); k++ {
		back, ok := x.board(h.before[len(h.before)-k].Position())
		if ok && !slices.Equal(back, base) && x.admitsBoard(e, base, back) {
			out = append(out, fmt.Sprintf("takeback:%d", k))
			hashes = append(hashes, h.before[len(h.before)-k].Hash())
		}
	}
	// a new game: the board shows the start position, and no move explains
	// it (a piece that returns to its start cell is moved, not a new game
	// set up: README, rules notes)
	if len(h.before) > 0 && !hasMoveReading(out) {
		if st, err := engine.New(x.game, x.cfg); err == nil {
			if start, ok := x.board(st.Position()); ok && !slices.Equal(start, base) && x.admitsBoard(e, base, start) {
				out = append(out, "new")
				hashes = append(hashes, st.Hash())
			}
		}
	}
	return out, hashes
}

// oneToTheGame reports whether readings are one reading to the game: a
// plain move of the player to move among them, and every other a revision
// of the last moves that ends in the same position (hashes: where each
// ends) — they differ only in how the record names the plies, and the
// referee records the plain move unasked (README, sensor notes) — unless
// two revisions read the last move back alike and name the next move
// otherwise (a swap after that past, asked; judgeFrameOff).
func oneToTheGame(readings []string, hashes []uint64) bool {
	plain := -1
	for i, r := range readings {
		switch {
		case !strings.HasPrefix(r, "revise:") && !strings.Contains(r, ";") && r != "none" && r != "new" && !strings.HasPrefix(r, "takeback:"):
			if plain >= 0 {
				return false
			}
			plain = i
		case !strings.HasPrefix(r, "revise:"):
			return false
		}
	}
	if plain < 0 {
		return false
	}
	for _, h := range hashes {
		if h != hashes[plain] {
			return false
		}
	}
	// The plain move is the one reading of the past as the harness
	// played it; a revision is another past the evidence admits (the last
	// hand went on). Two readings of one such past that name the next move
	// otherwise are a swap of two pieces of one height there, which the
	// referee asks about as it would after the plain past.
	for i, r := range readings {
		past, ok := strings.CutPrefix(r, "revise:")
		if judgeFrameOff || !ok {
			continue
		}
		for _, q := range readings[i+1:] {
			if qp, ok := strings.CutPrefix(q, "revise:"); ok && firstPly(qp) == firstPly(past) {
				return false
			}
		}
	}
	return true
}

// admitsBoard: the board shows to, and every cell that differs from from
// was touched.
func (x *explainer) admitsBoard(e *evidence, from, to []byte) bool {
	for c := range to {
		if x.sensor[c] && (e.final[c] != x.code[to[c]] || from[c] != to[c] && !e.touched(c)) {
			return false
		}
	}
	return true
}

func (x *explainer) changedTouched(e *evidence, from, to []byte) bool {
	for c := range to {
		if x.sensor[c] && from[c] != to[c] && !e.touched(c) {
			return false
		}
	}
	return true
}

// seenChangedTouched: every cell whose sensor would read the revised board
// otherwise than the last move's board was touched since that move was
// committed. A revision rereads the last move's window: the pieces stood
// then as the revised move's story has them, which the sensors read as
// the last move's board — on presence sensors a cell may have held
// another piece than the last move's reading puts there (a bounce piece
// looked at and put back, read as a replace's landing), with no hand on it
// since.
func (x *explainer) seenChangedTouched(e *evidence, from, to []byte) bool {
	for c := range to {
		if x.sensor[c] && x.code[from[c]] != x.code[to[c]] && !e.touched(c) {
			return false
		}
	}
	return true
}

// wentOn: a GYGES revision's pieces, which the last move put down
// elsewhere, landed after they left those cells (e: the evidence since the
// last move was committed): each cell the revision puts a piece on and the
// last move did not was last filled after a cell the last move put a piece
// on and the revision does not was emptied. Pieces of one height are one to
// the game: which of those pieces the hand went on with is not asked.
func (x *explainer) wentOn(e *evidence, last, revised string, next []int) bool {
	if x.game != "gyges" {
		return true
	}
	_, lastTo, lastExtra := x.gygesCells(last)
	_, to, extra := x.gygesCells(revised)
	for _, p := range [...]int{to, extra} {
		if p < 0 || p == lastTo || p == lastExtra || slices.Contains(next, p) {
			continue
		}
		t := e.lastFill(p)
		if t < 0 {
			continue
		}
		ok := false
		for _, q := range [...]int{lastTo, lastExtra} {
			if q >= 0 && q != to && q != extra && e.emptiedBefore(q, t) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func allTouched(e *evidence, cells []int) bool {
	for _, c := range cells {
		if !e.touched(c) {
			return false
		}
	}
	return true
}

// joinWindows is a followed by b, as one window from a's start.
func joinWindows(a, b *window) *window {
	return &window{start: a.start, init: a.init, events: append(slices.Clone(a.events), b.events...)}
}

func hasMoveReading(rs []string) bool {
	for _, r := range rs {
		if r != "none" && !strings.HasPrefix(r, "takeback:") {
			return true
		}
	}
	return false
}
