package referee

import (
	"slices"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// lookAlikeStart: advanced GYGES, south to move from row 2 (c2, height
// 1), north from row 4 (c4, height 1).
var lookAlikeStart = engine.Config{Variant: "advanced", Start: &engine.Position{ToMove: "south", Pieces: map[string]string{
	"a2": "3", "c2": "1", "c4": "1", "f4": "2"}}}

// lookAlikeSteps: south moves c2-c3; north's replace c4-c3/b2 sets its
// displaced piece down first (read as south correcting to c2-b2, then
// north's plain c4-c3: one position, the plain move written); then south
// moves the displaced piece on, b2-b3 — which north's replace carrying it
// on (c4-c3/b3) explains as well.
var lookAlikeSteps = [][]string{
	{"lift c2", "place c3"},
	{"lift c3", "place b2", "lift c4", "place c3"},
	{"lift b2", "place b3"},
}

// TestLookAlikePast: the replace's hand carrying its displaced piece on is
// read from the look-alike past the record does not name, and asked beside
// the next player's move.
func TestLookAlikePast(t *testing.T) {
	for _, ident := range []bool{false, true} {
		tb := newTable(t, "gyges", lookAlikeStart, ident, 1)
		tb.do(lookAlikeSteps[0]...)
		tb.do(lookAlikeSteps[1]...)
		st := tb.r.State()
		if st.Mode != "play" || !slices.Equal(st.Moves, []string{"c2-b2", "c4-c3"}) {
			t.Fatalf("ident %v: after the replace, mode %s moves %v (candidates %v), want the correction and the plain move written", ident, st.Mode, st.Moves, st.Candidates)
		}
		if alts := tb.r.ops[len(tb.r.ops)-1].alts; !slices.Contains(alts, [2]string{"c2-c3", "c4-c3/b2"}) {
			t.Fatalf("ident %v: look-alike pasts %v, want c2-c3 then c4-c3/b2", ident, alts)
		}
		tb.do(lookAlikeSteps[2]...)
		st = tb.r.State()
		if st.Mode != "confirm" || !slices.Contains(st.Candidates, "b2-b3") || !slices.Contains(st.Candidates, "revise:c2-c3;c4-c3/b3") {
			t.Fatalf("ident %v: mode %s candidates %v, want b2-b3 asked beside revise:c2-c3;c4-c3/b3", ident, st.Mode, st.Candidates)
		}
		altOff = true
		tb2 := newTable(t, "gyges", lookAlikeStart, ident, 1)
		for _, s := range lookAlikeSteps {
			tb2.do(s...)
		}
		altOff = false
		if st := tb2.r.State(); st.Mode == "confirm" {
			t.Errorf("ident %v: without look-alike pasts the move is asked too (%v): the test shows nothing", ident, st.Candidates)
		}
	}
}
