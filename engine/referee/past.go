package referee

import (
	"slices"
	"strings"

	"github.com/tabla-board/tabla/engine"
)

// GYGES: look-alike pasts.
//
// Readings that end in one position are one to the game, and the referee
// writes the plain move of the player to move (oneOutcome): a counted or
// corrected last move and the next player's plain move, say, rather than
// the last move as first recorded and the next player's replace whose
// displaced piece went first. Either may be what the hands did, and the
// hand that made the last move may still go on: a replace's displaced
// piece carried on is a revision of that replace, which the record as
// written has no move for. So the other namings of the position — the move
// before revised and then the move taken, that the touches admit as a
// hand makes them (the readings otherComposites lists, and oneOutcome's
// other readings, that end where the move taken does) — are kept on the
// move taken (op.alts), and until the next move is recorded their last
// move's revisions are readings too (lookAlikePast), alone or followed by
// any move of the next player (altComposites), as the harness's explainer
// reads the revisions of every past its readings leave. They are only
// ever asked.

// maxAlts bounds the look-alike pasts kept on a move.
const maxAlts = 4

// takesAlts: reading c, taken, ends with a move that look-alike pasts
// may name otherwise — a plain move, or the last move revised and the
// next player's move.
func takesAlts(c candidate) bool {
	return c.kind == candMove || revisedThenOne(c)
}

// revisedThenOne: c is the last move revised and then one move.
func revisedThenOne(c candidate) bool {
	return c.kind == candRevise && c.depth == 1 && c.then != "" && !strings.Contains(c.then, ";")
}

// lookAlikeOf returns the other namings, among readings cs, of the
// position reading k ends in: the move before the last one revised and
// then a move of the player to move (texts).
func (r *Referee) lookAlikeOf(cs []candidate, k int) [][2]string {
	if !takesAlts(cs[k]) || altOff {
		return nil
	}
	var out [][2]string
	for i, c := range cs {
		if i != k && revisedThenOne(c) {
			out = append(out, [2]string{firstPly(c.text), c.then})
		}
	}
	return out
}

// keepAlts sets the look-alike pasts of the last move (once, at most
// maxAlts).
func (r *Referee) keepAlts(alts [][2]string) {
	n := len(r.ops)
	if n < 2 || altOff {
		return
	}
	o := &r.ops[n-1]
	o.alts = o.alts[:0]
	for _, a := range alts {
		if len(o.alts) < maxAlts && !slices.Contains(o.alts, a) && a[1] != o.text {
			o.alts = append(o.alts, a)
		}
	}
}

// inAlt steps the engine and r.cur back to the position before the last
// move as look-alike past a names it (the move before as a names it
// played), calls f with that position's moves (r.altPos), the index of
// a's last move among them and the board there, and plays the record
// back. It returns false, calling nothing, when the past cannot be played.
func (r *Referee) inAlt(a [2]string, f func(c *posCache, k int, before []uint8)) bool {
	pc, back := r.stepBack(2)
	defer back.replay()
	j := slices.Index(pc.texts, a[0])
	if j < 0 {
		return false
	}
	r.st.Play(pc.moves[j])
	defer r.st.Undo()
	c := &r.altPos
	r.fill(c)
	k := slices.Index(c.texts, a[1])
	if k < 0 || c.notes[k].from < 0 || c.notes[k].place {
		return false
	}
	if len(r.altBoard) != r.ncell {
		r.altBoard = make([]uint8, r.ncell)
	}
	r.toBoard(r.st.Position(), r.altBoard)
	f(c, k, r.altBoard)
	return true
}

// altsOpen: the last move has look-alike pasts, and neither it nor the
// move before is closed (a roll, a person's confirmation).
func (r *Referee) altsOpen() bool {
	n := len(r.ops)
	if n < 2 || len(r.ops[n-1].alts) == 0 {
		return false
	}
	last, prev := &r.ops[n-1], &r.ops[n-2]
	return !last.roll && !last.chosen && !prev.roll && !prev.chosen
}

// altSince is where the evidence of the last move's look-alikes began:
// when the move before it was first recorded.
func (r *Referee) altSince() uint64 { return r.ops[len(r.ops)-2].first }

// lookAlikePast adds the revisions of the last move as its look-alike
// pasts name it (op.alts): another move of that move's piece from the
// position before it, the hand having gone on, that the touches admit as
// a hand makes it — every cell it changes or names touched since the move
// before was first recorded, the sensors showing it, its pieces picked up
// before they were put down (turnsOK), its mover in the hand, and its
// pieces landed after they left where that move put them (leftFirst,
// every landing counted).
func (r *Referee) lookAlikePast(out []candidate) []candidate {
	if !r.altsOpen() {
		return out
	}
	n := len(r.ops)
	last, prev := &r.ops[n-1], &r.ops[n-2]
	now := slices.Clone(r.cur)
	h0 := r.st.Hash()
	since, recorded := r.altSince(), last.seq
	none := note{from: -1, to: -1, extra: -1}
	after := make([]uint8, r.ncell)
	// the boards before the move before, and after it as recorded
	before2 := slices.Clone(now)
	applyDiff(before2, last.diff, true)
	prevNow := slices.Clone(before2)
	applyDiff(before2, prev.diff, true)
	for _, a := range last.alts {
		a0 := r.parse(a[0], -1)
		r.inAlt(a, func(c *posCache, k int, before []uint8) {
			lastNote := c.notes[k]
			for i, m := range c.moves {
				nt := c.notes[i]
				if i == k || c.texts[i] == "pass" || nt.place || nt.from != lastNote.from || nt.to < 0 ||
					!r.hasSensor[nt.from] || !r.hasSensor[nt.to] || !r.touchedSince(nt, since) {
					continue
				}
				r.nextBoard(before, m, nt, after)
				if !r.admitsBoth(before, after, now, nt, none, since, recorded) ||
					!r.turnsOK(since, [][]uint8{before, after}, []note{nt}) ||
					!r.moverInHand(nt, since) || !r.leftFirst(lastNote, nt, now, true, recorded) {
					continue
				}
				// and the whole reading, the move before as the past names
				// it and then this move: what it changes touched, the
				// sensors showing it, its plies in a hand's order
				if !r.admitsBoth(before2, after, prevNow, a0, nt, prev.since, prev.seq) ||
					!r.turnsOK(prev.since, [][]uint8{before2, before, after}, []note{a0, nt}) {
					continue
				}
				if r.hashAfter(m) == h0 {
					continue // the position as it stands
				}
				cells := r.changedCells(now, after)
				out = append(out, candidate{kind: candRevise, idx: -1, text: a[0] + ";" + c.texts[i], then: c.texts[i], note: r.parse(a[0], -1),
					evidence: len(cells), cells: cells, depth: 2, ask: true, altPast: true})
			}
		})
	}
	return dedupe(out)
}

// altComposites adds, beside a reading of the board that ends in want,
// the readings in which the hand of the last move as its look-alike pasts
// name it went on and the next player then made any move (as
// otherComposites does for the record).
func (r *Referee) altComposites(want uint64, out []candidate) []candidate {
	if !r.altsOpen() {
		return out
	}
	last := &r.ops[len(r.ops)-1]
	live := slices.Clone(r.cur)
	n0 := len(out)
	for _, a := range last.alts {
		r.inAlt(a, func(c *posCache, k int, before []uint8) {
			boards := func() (b, now, l []uint8) { return before, live, live }
			out = r.revisedThen(c.moves, c.texts, c.notes, c.moves[k], c.notes[k], boards, r.altSince(), last.seq, want, a[0]+";", 2, out, nil)
		})
	}
	for i := n0; i < len(out); i++ {
		out[i].altPast = true
	}
	return dedupe(out)
}

// hashAfter is the hash of the position after move m.
func (r *Referee) hashAfter(m engine.Move) uint64 {
	r.st.Play(m)
	defer r.st.Undo()
	return r.st.Hash()
}

// firstPly is the first move of a reading's text.
func firstPly(text string) string {
	first, _, _ := strings.Cut(text, ";")
	return first
}

// altOff turns the look-alike pasts off (measuring only; set by tests).
var altOff = false
