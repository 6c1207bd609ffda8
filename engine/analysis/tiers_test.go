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

func TestMoveAccuracy(t *testing.T) {
	for _, c := range []struct{ loss, want float64 }{
		{0, 100}, {-0.1, 100}, {0.001, 100}, {0.05, 80.82}, {0.10, 64.58}, {0.20, 41.02}, {0.50, 9.53}, {1, 0},
	} {
		if got := MoveAccuracy(c.loss); math.Abs(got-c.want) > 0.01 {
			t.Errorf("MoveAccuracy(%v) = %.3f, want %.2f", c.loss, got, c.want)
		}
	}
	if got := Accuracy(nil, nil); got != -1 {
		t.Errorf("Accuracy(none) = %v, want -1", got)
	}
}

// lichessWin is lichess's win probability (0–1) of white for an evaluation
// in centipawns (lila, WinPercent fromCentiPawns: the evaluation kept within
// ±1000).
func lichessWin(cp int) float64 {
	c := float64(max(-1000, min(1000, cp)))
	return (50 + 50*(2/(1+math.Exp(-0.004*c))-1)) / 100
}

// TestLichessAccuracy: Accuracy and Volatility give lichess's game accuracy
// on worked examples. Each is a game as lila's test spec
// (modules/analyse/src/test/AccuracyPercentTest.scala) writes it: white's
// evaluation in centipawns after every move, white moving first from lila's
// initial 15. The wanted figures were computed by a short Python
// transcription of lila's AccuracyPercent.gameAccuracy, step by step (the
// windows, the population standard deviations clamped to 0.5…12, the
// weighted and the harmonic mean with each accuracy taken as at least 1),
// kept out of the tree; each also lies within the tolerance lila's spec
// gives it (the last game, one of ours, has none there). A plain mean, as
// tabla had, gives white 91.4 in the first game.
func TestLichessAccuracy(t *testing.T) {
	repeat := func(n int, cps ...int) []int {
		var out []int
		for range n {
			out = append(out, cps...)
		}
		return out
	}
	for _, c := range []struct {
		name         string
		cps          []int
		white, black float64
		spec         [2]float64 // lila's wanted white and black figure …
		tol          [2]float64 // … and its tolerance (0: none)
	}{
		{"20 perfect moves and a white blunder", append(repeat(20, 15), -900), 45.965249688019306, 100, [2]float64{50, 100}, [2]float64{5, 1}},
		{"21 perfect moves and a black blunder", append(repeat(21, 15), 900), 100, 48.71629398082462, [2]float64{100, 50}, [2]float64{1, 5}},
		{"5 average moves (65 cpl) on each side", repeat(5, -50, 15), 75.62616650911428, 75.62616650911428, [2]float64{76, 76}, [2]float64{8, 8}},
		{"50 mediocre moves (150 cpl) on each side", repeat(50, -135, 15), 52.2722778699454, 52.2722778699454, [2]float64{54, 54}, [2]float64{8, 8}},
		{"both blunder on first move", []int{-900, 0}, 10.13378810010716, 10.963786529385345, [2]float64{10, 10}, [2]float64{5, 5}},
		{"a fought game", []int{30, 20, 60, -40, -35, -200, -180, 150, 160, 120, 400, -300, -250, -260, -900, -880, -870, -1200, -1500, -1400, -1300, -1250, -700, -650},
			81.52275712990317, 78.41271410043336, [2]float64{}, [2]float64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wins := []float64{lichessWin(15)}
			for _, cp := range c.cps {
				wins = append(wins, lichessWin(cp))
			}
			weights := Volatility(wins)
			if len(weights) != len(c.cps) {
				t.Fatalf("%d weights for %d moves", len(weights), len(c.cps))
			}
			var losses, ws [2][]float64
			for i := range c.cps {
				side := i % 2 // white moves first
				before, after := wins[i], wins[i+1]
				if side == 1 {
					before, after = 1-before, 1-after
				}
				losses[side] = append(losses[side], max(0, before-after))
				ws[side] = append(ws[side], weights[i])
			}
			for side, want := range []float64{c.white, c.black} {
				got := Accuracy(losses[side], ws[side])
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("side %d: accuracy %v, want lichess's %v", side, got, want)
				}
				if c.tol[side] > 0 && math.Abs(got-c.spec[side]) > c.tol[side] {
					t.Errorf("side %d: accuracy %v, lila's spec wants %v ± %v", side, got, c.spec[side], c.tol[side])
				}
			}
		})
	}
}

// TestVolatilityWindows: the windows are those lila slides over the game.
func TestVolatilityWindows(t *testing.T) {
	// 30 moves: windows of 3 positions; the first move shares the
	// first window, move i ends the window at position i+1.
	wins := make([]float64, 31)
	for i := range wins {
		wins[i] = 0.5
	}
	wins[10] = 0.55 // a swing at position 10
	w := Volatility(wins)
	for i, x := range w {
		want := 0.5            // a quiet window: the floor
		if i >= 9 && i <= 11 { // the windows [i−1, i+1] that hold position 10
			want = 100 * 0.05 * math.Sqrt2 / 3 // 0.5, 0.5, 0.55: 2.36 points
		}
		if math.Abs(x-want) > 1e-9 {
			t.Errorf("move %d: weight %v, want %v", i, x, want)
		}
	}
	if got := Volatility([]float64{0, 1}); len(got) != 1 || got[0] != 12 {
		t.Errorf("one move from 0 to 100%%: %v, want [12] (the ceiling)", got)
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
		weights    []float64
	}
	by := map[string]*tally{}
	tiers := 0
	wins := map[string][]float64{}
	for i, side := range rep.Sides {
		wins[side] = []float64{rep.Start[i]}
		for _, m := range rep.Moves {
			wins[side] = append(wins[side], m.Values[i])
		}
	}
	for k, m := range rep.Moves {
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
			tl.weights = append(tl.weights, Volatility(wins[m.Side])[k])
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
		if want := Accuracy(tl.losses, tl.weights); math.Abs(p.Accuracy-want) > 1e-9 || p.Accuracy < 0 || p.Accuracy > 100 {
			t.Errorf("%s: accuracy %v, want %v", p.Seat, p.Accuracy, want)
		}
	}
}
