package librarycmd

import (
	"fmt"
	"math"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// TestAnalysisZoomPhone (issue 38, the zoom case): on a 390-px phone the
// analysis board's zoom buttons cover no cell of STAR's board (they
// covered l13–m9), and after the first tap has zoomed in, a piece tapped
// has every destination lit where the player sees it: inside the board as
// drawn, inside the window, not under the header; a tap on one plays it.
func TestAnalysisZoomPhone(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	const id, ply = "star.jsonl", 4
	openGame(t, ctx, base, id, ply)
	if over := browsertest.Eval[[]string](t, ctx, browsertest.ZoomOverCells); len(over) > 0 {
		t.Errorf("the zoom buttons cover %v", over)
	}
	// the piece whose destinations lie farthest apart
	x, err := lib.Explore(id, ply, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := lib.Game(id)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string][2]float64{}
	for _, c := range g.Board.Cells {
		pos[c.Name] = [2]float64{c.X, c.Y}
	}
	spread := map[string]float64{}
	for _, a := range x.Legal {
		for _, b := range x.Legal {
			if a.From[0] == b.From[0] {
				p, q := pos[a.To[0]], pos[b.To[0]]
				spread[a.From[0]] = math.Max(spread[a.From[0]], math.Hypot(p[0]-q[0], p[1]-q[1]))
			}
		}
	}
	from := ""
	for c, d := range spread {
		if from == "" || d > spread[from] || d == spread[from] && c < from {
			from = c
		}
	}
	tap := func() {
		t.Helper()
		browsertest.Click(t, ctx, fmt.Sprintf(`#board .hit[data-cell=%q]`, from))
	}
	if browsertest.Eval[string](t, ctx, `document.getElementById("board").dataset.tap`) != "zoom" {
		t.Fatal("STAR's cells are big enough to tap on a phone: the case is gone")
	}
	tap()
	browsertest.WaitJS(t, ctx, "the first tap zooms", `document.getElementById("board").dataset.tap !== "zoom"`, `document.getElementById("board").dataset.tap`)
	tap()
	browsertest.WaitJS(t, ctx, from+"'s destinations lit", `document.querySelectorAll('#board .leds [data-role="dest"]').length > 0`, `""`)
	if hidden := browsertest.Eval[[]string](t, ctx, browsertest.HiddenLit("dest")); len(hidden) > 0 {
		t.Errorf("%s's destinations (spread %.1f cells) out of sight after the zoom: %v", from, spread[from], hidden)
	}
	if over := browsertest.Eval[[]string](t, ctx, browsertest.ZoomOverCells); len(over) > 0 {
		t.Errorf("zoomed in, the zoom buttons cover %v", over)
	}
	// a tap on a lit destination plays it, however small the board had
	// to be to show them all
	dest := browsertest.Eval[string](t, ctx, `[...document.querySelectorAll('#board .leds [data-role="dest"]')].map(l => l.dataset.cell).sort()[0]`)
	browsertest.Click(t, ctx, fmt.Sprintf(`#board .hit[data-cell=%q]`, dest))
	browsertest.WaitJS(t, ctx, "the move to "+dest+" played", `!!(variation && variation.line.length === 1)`, `String(variation && variation.line)`)
}
