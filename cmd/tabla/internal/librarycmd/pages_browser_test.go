package librarycmd

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// TestLongGamePages: the analysis board of a game longer than a page of
// steps (2,500 moves; /api/game gives 1,000 steps a page) opens at a link
// to a step deep in it, steps across a page's edge both ways, and jumps to
// the last step and back to the start, drawing each step's pieces and
// numbering it out of the whole game; the move list holds the page loaded,
// not the whole game (issue 36 item 4).
func TestLongGamePages(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "long.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := recordtest.BackAndForth(f, "", 2500); err != nil {
		t.Fatal(err)
	}
	f.Close()
	base, _ := serveLibrary(t, dir)
	desk := browsertest.Start(t)
	navigate(t, desk, base+"game.html?id=long.jsonl&ply=1499", "#movelist li")
	const shown = `document.getElementById("ply").textContent + " | " + document.querySelectorAll("#movelist li").length + " in the list"`
	at := func(what string, ply string, listMax int) {
		t.Helper()
		browsertest.WaitJS(t, desk, what,
			`document.getElementById("ply").textContent === "`+ply+`" && document.querySelectorAll("#movelist li").length <= `+strconv.Itoa(listMax)+
				` && document.querySelector("#movelist li.current") !== null`, shown)
	}
	at("the linked step 1499", "move 1499 of 2500", 1001)
	for range 2 { // 1500, 1501: the page loaded is 999–1998
		browsertest.Click(t, desk, "#next")
	}
	at("two steps on", "move 1501 of 2500", 1001)
	browsertest.Click(t, desk, "#last")
	at("the last step, on another page", "move 2500 of 2500", 1001)
	for range 3 {
		browsertest.Click(t, desk, "#prev")
	}
	at("three steps back", "move 2497 of 2500", 1001)
	browsertest.Click(t, desk, "#first")
	at("the start, on the first page", "start", 1001)
	// the pieces drawn are the step's: b1 moved to f3 after move 2497
	// (4·624+1), back on b1 at the start
	if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); got["b1"] == "" || got["f3"] != "" {
		t.Errorf("the start draws b1 %q, f3 %q", got["b1"], got["f3"])
	}
	navigate(t, desk, base+"game.html?id=long.jsonl&ply=2497", "#movelist li")
	at("a link to step 2497", "move 2497 of 2500", 1001)
	if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); got["f3"] == "" || got["b1"] != "" {
		t.Errorf("step 2497 draws b1 %q, f3 %q", got["b1"], got["f3"])
	}
}
