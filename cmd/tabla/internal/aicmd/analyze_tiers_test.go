package aicmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/engine/analysis"
)

// TestAnalyzeTiers: the report names each move's tier with the analysis
// board's signs (?!, ?, ??) and a missed win, and each seat's accuracy and
// moves of each tier.
func TestAnalyzeTiers(t *testing.T) {
	rep := &analysis.Report{Game: "star", Result: "red won", Level: 1, Algo: "alphabeta", Sides: []string{"red", "white"},
		Moves: []analysis.Move{
			{N: 1, Seat: "red", Move: "b1-f3", Before: .5, After: .5, Best: "b1-f3"},
			{N: 2, Seat: "white", Move: "l13-h11", Before: .5, After: .43, Best: "c9-g11", Loss: .07, Tier: "inaccuracy"},
			{N: 3, Seat: "red", Move: "k5-g3", Before: .57, After: .45, Best: "d2-h4", Loss: .12, Tier: "mistake"},
			{N: 4, Seat: "white", Move: "c9-g11", Before: .55, After: .2, Best: "j12-f10", Loss: .35, Tier: "blunder", Blunder: true, MissedWin: true},
		},
		Players: []analysis.Player{
			{Seat: "red", Moves: 2, Unforced: 2, MeanLoss: .06, Mistakes: 1, Accuracy: 81.6, Agreement: .5},
			{Seat: "white", Moves: 2, Unforced: 2, MeanLoss: .21, Inaccuracies: 1, Blunders: 1, MissedWins: 1, Accuracy: 52.4, Agreement: 0},
		}}
	var out bytes.Buffer
	if err := writeReport(&cmdutil.IO{Out: &out, Err: &out}, rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	for _, want := range []struct {
		line   int
		fields string
	}{
		{2, "1 red b1-f3 50.0% 50.0% b1-f3 0.0"},
		{3, "2 white l13-h11 50.0% 43.0% c9-g11 7.0 ?! inaccuracy"},
		{4, "3 red k5-g3 57.0% 45.0% d2-h4 12.0 ? mistake"},
		{5, "4 white c9-g11 55.0% 20.0% j12-f10 35.0 ?? blunder missed win"},
		{7, "seat moves accuracy mean loss inaccuracies mistakes blunders missed wins agreement"},
		{8, "red 2 82% 6.0 0 1 0 0 50.0%"},
		{9, "white 2 52% 21.0 1 0 1 1 0.0%"},
	} {
		if got := strings.Join(strings.Fields(lines[want.line]), " "); got != want.fields {
			t.Errorf("line %d reads %q, want %q", want.line+1, got, want.fields)
		}
	}
}
