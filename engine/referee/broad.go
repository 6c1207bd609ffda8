package referee

import (
	"slices"
	"strings"

	"github.com/tabla-board/tabla/engine"
)

// GYGES: the last move revised, and then any move of the next player.
//
// Pieces have no owner, so after the last move was recorded its hand may
// have gone on (a revision: the same piece, another move from the position
// before it) and the next player then moved any piece at all — not only one
// the revised hand put down, which the composites follow. When such a
// reading fits the touches and ends in another position than the one
// reading the referee would take, the board admits both: it asks
// (otherCompositesThan). The evidence is read as a hand makes a move, as
// the composites read it: every cell either ply changes or names was
// touched since the position before the last move; the sensors show the
// result; a piece put down came after a piece of the reading left its cell;
// the plies in turn, each in a hand's order (turnsOK); each mover in the
// hand when it landed (moverInHand); the revised pieces left where the last
// move was recorded putting them before they landed elsewhere (wentOn); and
// what the sensors would read otherwise than the record was touched since
// the last move was recorded.

// otherCompositesThan adds the readings in which the hand of the move
// before the one a reading c of the board ends with went on (another move
// of its piece from the position before it) and the next player then made
// any move, that the touches admit and that end in another position than
// c (want: where c ends). That move is the last one recorded when c is a
// move; when c revises the last moves (the rests of the current hand
// recorded as moves), the move before them — c's own first ply when c
// has two (a revision and the next player's move).
//
// same, when not nil, gets the readings of the first kind that end where
// c does when c is a move, or the last move revised and then one move
// (c's look-alike pasts: the move before revised, and then a move).
func (r *Referee) otherCompositesThan(c candidate, want uint64, out []candidate, same *[][2]string) []candidate {
	switch {
	case c.kind == candMove:
		out = r.otherComposites(0, want, out, same)
		if !altOff {
			out = r.altComposites(want, out)
		}
		return out
	case c.kind == candRevise && strings.Count(c.text, ";") <= 1:
		k := c.depth - strings.Count(c.text, ";")
		if k != 0 {
			same = nil // (another move's look-alikes)
		}
		return r.otherComposites(k, want, out, same)
	}
	return out
}

// otherComposites is otherCompositesThan for the move k moves before the
// last one recorded.
func (r *Referee) otherComposites(k int, want uint64, out []candidate, same *[][2]string) []candidate {
	n := len(r.ops)
	if r.info.Game != "gyges" || k < 0 || k >= n {
		return out
	}
	first := &r.ops[n-1-k]
	if first.roll || first.chosen || first.note.to < 0 {
		return out
	}
	for _, o := range r.ops[n-k:] {
		if o.roll || o.chosen {
			return out
		}
	}
	// the touches since the position before that move, and since it was
	// (last) recorded
	since, recorded := first.since, first.seq
	pc, back := r.stepBack(k + 1)
	defer back.replay()
	// the boards, made once a revision's cells were touched: before that
	// move, after it, and as the record stands (live)
	boards := func() (before, now, live []uint8) {
		before = slices.Clone(r.cur)
		now = slices.Clone(r.cur)
		applyDiff(now, first.diff, false)
		live = slices.Clone(now)
		for _, o := range r.ops[n-k:] {
			applyDiff(live, o.diff, false)
		}
		return before, now, live
	}
	return r.revisedThen(pc.moves, pc.texts, pc.notes, first.move, first.note, boards, since, recorded, want, "", k+1, out, same)
}

// revisedThen adds, the engine standing at the position before a move
// (last, whose notation is lastNote; the position's moves, their texts
// and notes), the readings in which that move's hand went on (another
// move of its piece) and the next player then made any move, that the
// touches admit (handAdmits: since is where the evidence of the move
// began, recorded where it was recorded) and that end elsewhere than
// want. boards makes, once needed, the board before the move, after it,
// and as the record stands. Each reading's text is prefix, the revision
// and the next move; it takes back the last depth moves recorded. same,
// when not nil, gets the readings that end in want (the revision and the
// next move, texts).
func (r *Referee) revisedThen(moves []engine.Move, texts []string, notes []note, last engine.Move, lastNote note,
	boards func() (before, now, live []uint8), since, recorded, want uint64, prefix string, depth int, out []candidate, same *[][2]string) []candidate {
	var before, now, live, after, after2 []uint8
	var nb [64]byte
	var buf []engine.Move
	for i := range moves {
		nt := notes[i]
		if moves[i] == last || nt.from != lastNote.from || nt.place || lastNote.place {
			continue
		}
		if nt.from < 0 || nt.to < 0 || !r.hasSensor[nt.from] || !r.hasSensor[nt.to] || !r.touchedSince(nt, since) {
			continue
		}
		if before == nil {
			before, now, live = boards()
			after, after2 = make([]uint8, r.ncell), make([]uint8, r.ncell)
		}
		r.nextBoard(before, moves[i], nt, after)
		r.st.Play(moves[i])
		buf = r.st.Moves(buf[:0])
		for _, m2 := range buf {
			text := r.st.AppendMove(nb[:0], m2)
			if string(text) == "pass" {
				continue
			}
			n2 := r.parse(string(text), -1)
			if !r.touchedSince(n2, since) {
				continue
			}
			r.nextBoard(after, m2, n2, after2)
			if !r.handAdmits(before, after, after2, now, lastNote, nt, n2, since, recorded) {
				continue
			}
			r.st.Play(m2)
			h := r.st.Hash()
			r.st.Undo()
			if h == want {
				if same != nil && len(*same) < maxAlts {
					*same = append(*same, [2]string{texts[i], string(text)})
				}
				continue
			}
			cells := r.changedCells(live, after2)
			full := prefix + texts[i] + ";" + string(text)
			out = append(out, candidate{kind: candRevise, idx: i, text: full, then: full[strings.IndexByte(full, ';')+1:],
				note: nt, evidence: len(cells), cells: cells, depth: depth, ask: true})
		}
		r.st.Undo()
	}
	return out
}

// changedCells lists the sensed cells whose sensor reads board b
// otherwise than board a.
func (r *Referee) changedCells(a, b []uint8) []int {
	var out []int
	for c := range a {
		if r.hasSensor[c] && !r.readsAlike(c, a[c], b[c]) {
			out = append(out, c)
		}
	}
	return out
}

// readsAlike: cell c's sensor reads pieces a and b alike — the same, or
// both pieces on a presence sensor.
func (r *Referee) readsAlike(c int, a, b uint8) bool {
	return a == b || a != empty && b != empty && r.sensed[c] == unknown
}

// handAdmits reports whether the touches admit, as the harness's
// explainer reads a hand, the last move (last, recorded from board before
// to board now) revised to nt (board after) and then the next player's
// move n2 (board after2), the sensors showing after2: since is where the
// evidence of the last move began, recorded where it was recorded.
func (r *Referee) handAdmits(before, after, after2, now []uint8, last, nt, n2 note, since, recorded uint64) bool {
	return r.admitsBoth(before, after2, now, nt, n2, since, recorded) &&
		r.turnsOK(since, [][]uint8{before, after, after2}, []note{nt, n2}) &&
		(n2.names(nt.to) || r.moverInHand(nt, since)) && r.moverInHand(n2, since) &&
		r.leftFirst(last, nt, now, true, recorded, n2)
}

// touchedAfter: a sensed cell was touched since since.
func (r *Referee) touchedAfter(since uint64) bool {
	for c := 0; c < r.ncell; c++ {
		if r.hasSensor[c] && r.touched[c] > since {
			return true
		}
	}
	return false
}

// touchedSince: every sensed cell the notation names was touched since
// since.
func (r *Referee) touchedSince(n note, since uint64) bool {
	for _, c := range n.cells() {
		if c >= 0 && r.hasSensor[c] && r.touched[c] <= since {
			return false
		}
	}
	return true
}

// admitsBoth: the sensors show board to; every sensed cell where it
// differs from from was touched since since, and every cell where its
// sensor would read otherwise than on board now since after (the move
// revised was recorded); and every piece it puts down (or on a cell a ply
// names) was put down after a piece the reading moves had left its cell.
func (r *Referee) admitsBoth(from, to, now []uint8, a, b note, since, after uint64) bool {
	named := func(c int) bool { return a.names(c) || b.names(c) }
	var srcs [12]int
	k := 0
	for c := 0; c < r.ncell; c++ {
		if !r.hasSensor[c] {
			continue
		}
		if !matches(r.sensed[c], to[c]) {
			return false
		}
		if from[c] != to[c] && r.touched[c] <= since {
			return false
		}
		if !r.readsAlike(c, now[c], to[c]) && r.touched[c] <= after {
			return false
		}
		if from[c] != empty && (from[c] != to[c] || named(c)) && k < len(srcs) {
			srcs[k], k = c, k+1
		}
	}
	if k == 0 {
		return true
	}
	for c := 0; c < r.ncell; c++ {
		if !r.hasSensor[c] || to[c] == empty || to[c] == from[c] && !named(c) {
			continue
		}
		ok := false
		for _, s := range srcs[:k] {
			if r.liftedBeforeFill(s, c, since) {
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

// moverInHand: a GYGES move's piece was in the hand when it landed — its
// cell read empty when the landing cell was last filled since since (or a
// replace's displaced piece went there first, after the piece left).
func (r *Referee) moverInHand(n note, since uint64) bool {
	if n.place || n.from < 0 || n.to < 0 || n.from == n.to || !r.hasSensor[n.from] || !r.hasSensor[n.to] {
		return true
	}
	ok, filled := r.emptyAtFill(n.from, n.to, since)
	if !filled || ok {
		return true
	}
	return n.extra == n.from && r.liftedBeforeFill(n.from, n.to, since)
}

// broadOff turns otherCompositesThan off (measuring only; set by tests).
var broadOff = false
