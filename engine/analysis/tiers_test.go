package analysis

import (
	"math"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// starGame is a STAR record of plies moves chosen without thought (the
// 7k-th legal move, round the list).
func starGame(t *testing.T, plies int) string {
	t.Helper()
	text := `{"tabla":1,"game":"star","first":"red"}` + "\n"
	h := replay(t, text).Header
	st, err := record.NewState(h)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < plies && st.Awaiting() == engine.AwaitMove; k++ {
		ms := st.Moves(nil)
		m := ms[(7*k+3)%len(ms)]
		text += `{"move":"` + engine.MoveString(st, m) + `"}` + "\n"
		st.Play(m)
	}
	return text
}

func TestTierOf(t *testing.T) {
	for _, c := range []struct {
		loss, blunder float64
		want          string
	}{
		{0, 0, TierNone},
		{0.049, 0, TierNone},
		{0.05, 0, TierInaccuracy},
		{0.099, 0, TierInaccuracy},
		{0.10, 0, TierMistake},
		{0.199, 0, TierMistake},
		{0.20, 0, TierBlunder},
		{1, 0, TierBlunder},
		{0.08, 0.08, TierBlunder}, // a blunder threshold below the mistake's
		{0.06, 0.08, TierInaccuracy},
		{0.12, 0.3, TierMistake},
		{0.25, 0.3, TierMistake},
	} {
		if got := TierOf(c.loss, c.blunder); got != c.want {
			t.Errorf("TierOf(%v, %v) = %q, want %q", c.loss, c.blunder, got, c.want)
		}
	}
}

func TestAccuracy(t *testing.T) {
	for _, c := range []struct{ loss, want float64 }{
		{0, 100}, {-0.1, 100}, {0.05, 79.82}, {0.10, 63.58}, {0.20, 40.02}, {0.50, 8.53}, {1, 0},
	} {
		if got := MoveAccuracy(c.loss); math.Abs(got-c.want) > 0.01 {
			t.Errorf("MoveAccuracy(%v) = %.3f, want %.2f", c.loss, got, c.want)
		}
	}
	if got := Accuracy(nil); got != -1 {
		t.Errorf("Accuracy(none) = %v, want -1", got)
	}
	if got, want := Accuracy([]float64{0, 0.2}), (MoveAccuracy(0)+MoveAccuracy(0.2))/2; math.Abs(got-want) > 1e-9 {
		t.Errorf("Accuracy(0, 0.2) = %v, want %v", got, want)
	}
}

// TestReportTiers: every move of a report carries the tier of its loss, and
// each seat's counts and accuracy are those of its moves.
func TestReportTiers(t *testing.T) {
	g := replay(t, starGame(t, 30))
	rep, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 2}})
	if err != nil {
		t.Fatal(err)
	}
	type tally struct {
		in, mi, bl int
		losses     []float64
	}
	by := map[string]*tally{}
	tiers := 0
	for _, m := range rep.Moves {
		if m.Tier != TierOf(m.Loss, 0) || m.Blunder != (m.Tier == TierBlunder) {
			t.Errorf("move %d: loss %v tier %q blunder %v", m.N, m.Loss, m.Tier, m.Blunder)
		}
		tl := by[m.Seat]
		if tl == nil {
			tl = &tally{}
			by[m.Seat] = tl
		}
		switch m.Tier {
		case TierInaccuracy:
			tl.in++
		case TierMistake:
			tl.mi++
		case TierBlunder:
			tl.bl++
		}
		if m.Tier != "" {
			tiers++
		}
		if !m.Forced {
			tl.losses = append(tl.losses, m.Loss)
		}
	}
	if tiers == 0 {
		t.Errorf("no move of a STAR game played without thought has a tier: %+v", rep.Moves)
	}
	for _, p := range rep.Players {
		tl := by[p.Seat]
		if tl == nil {
			tl = &tally{}
		}
		if p.Inaccuracies != tl.in || p.Mistakes != tl.mi || p.Blunders != tl.bl {
			t.Errorf("%s: %d/%d/%d, want %d/%d/%d", p.Seat, p.Inaccuracies, p.Mistakes, p.Blunders, tl.in, tl.mi, tl.bl)
		}
		if want := Accuracy(tl.losses); math.Abs(p.Accuracy-want) > 1e-9 || p.Accuracy < 0 || p.Accuracy > 100 {
			t.Errorf("%s: accuracy %v, want %v", p.Seat, p.Accuracy, want)
		}
	}
}
