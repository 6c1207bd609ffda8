package analysis

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// TestSVGMarksEveryTier: the curve marks each inaccuracy, mistake, blunder
// and missed win once, on its mover's line, with the move in its title and
// the counts in the legend; good moves carry no mark; the file is XML.
func TestSVGMarksEveryTier(t *testing.T) {
	rep := &Report{Game: "star", Sides: []string{"red", "white"}, Result: "unfinished", Start: []float64{.5, .5}, Level: 1, Algo: "alphabeta"}
	tiers := []struct {
		tier   string
		missed bool
	}{{"", false}, {"inaccuracy", false}, {"mistake", false}, {"", false}, {"blunder", false}, {"inaccuracy", false}, {"blunder", true}}
	for i, tc := range tiers {
		side := rep.Sides[i%2]
		rep.Moves = append(rep.Moves, Move{N: i + 1, Seat: side, Side: side, Move: "a1-b" + string(rune('1'+i)), Before: .6, After: .4,
			Best: "c3-d4", Tier: tc.tier, Blunder: tc.tier == "blunder", MissedWin: tc.missed, Values: []float64{.5, .5}})
	}
	var b bytes.Buffer
	if err := WriteSVG(&b, rep); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
	}
	// 3 marks each of the legend's kinds plus the moves': one legend mark each
	for kind, want := range map[string]int{"inaccuracy": 2, "mistake": 1, "blunder": 1, "missed-win": 1} {
		if n := strings.Count(svg, `<g class="mark `+kind+`">`) - 1; n != want {
			t.Errorf("%d %s marks on the curve, want %d", n, kind, want)
		}
	}
	for _, s := range []string{"2. white a1-b2: inaccuracy", "3. red a1-b3: mistake", "5. red a1-b5: blunder", "7. red a1-b7: missed win (blunder)",
		"inaccuracy (2)", "mistake (1)", "blunder (1)", "missed win (1)"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the SVG lacks %q", s)
		}
	}
	if strings.Contains(svg, "a1-b1:") || strings.Contains(svg, "a1-b4:") {
		t.Error("a good move is marked")
	}
}
