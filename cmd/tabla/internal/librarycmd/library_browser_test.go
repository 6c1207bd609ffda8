package librarycmd

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
)

// serveLibrary runs `tabla library DIR` in-process.
func serveLibrary(t *testing.T, dir string) (string, *library.Library) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	type ready struct {
		addr string
		lib  *library.Library
	}
	rc := make(chan ready, 1)
	var logs bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &logs, Err: &logs}, Dir: dir, Listen: "127.0.0.1:0", Level: 1, Workers: 1, LogFormat: "text",
		Ready: func(addr string, lib *library.Library) { rc <- ready{addr, lib} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var r ready
	select {
	case r = <-rc:
	case err := <-done:
		t.Fatalf("library: %v\n%s", err, logs.String())
	}
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + r.addr + "/", r.lib
}

func navigate(t *testing.T, ctx context.Context, u, ready string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS(ready))); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return browsertest.Eval[string](t, ctx, textOf(sel))
}

// readText is text read during a wait's look.
func readText(l *browsertest.Look, ctx context.Context, sel string) string {
	return browsertest.Read[string](l, ctx, textOf(sel))
}

// textOf is a JavaScript expression for the text of the element sel, ""
// if there is none.
func textOf(sel string) string {
	return fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel)
}

// cutPieces replays the record cut after line n: the pieces the engine
// (and `tabla rules check`) has there, and its summary.
func cutPieces(t *testing.T, data []byte, n int) (map[string]string, record.Status) {
	t.Helper()
	lines := bytes.SplitAfter(data, []byte("\n"))
	g, err := record.Replay(bytes.NewReader(bytes.Join(lines[:n], nil)), "cut")
	if err != nil {
		t.Fatalf("record cut at line %d: %v", n, err)
	}
	return g.State.Position().Pieces, record.Summary(g.State)
}

// TestLibraryPages: a library with a game of each of the five games and
// bad files opens; the bad files are named with their line; every game
// steps (→) through every ply showing the pieces the engine replays from
// the record cut there; the curve, the flagged moves, the engine's arrow
// and RAY's exact odds appear; the statistics draw; all of it on a
// desktop and a 390-px phone.
func TestLibraryPages(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	desk := browsertest.Start(t)

	// the list: the good games, the bad files with their line and byte
	navigate(t, desk, base, "#rows tr")
	browsertest.WaitPage(t, "the list", func(l *browsertest.Look) bool {
		return browsertest.Read[int](l, desk, `document.querySelectorAll("#rows tr.game").length`) == len(librarytest.Good)
	}, func(l *browsertest.Look) string { return readText(l, desk, "#summary") })
	bad := browsertest.Eval[[]string](t, desk, `[...document.querySelectorAll("#rows tr.bad")].map(r => r.textContent)`)
	if len(bad) != len(librarytest.Bad) {
		t.Errorf("bad rows %q", bad)
	}
	// the row names the file in words for people (issue 26 item 3: where
	// it goes wrong, line and byte, goes to the console and `tabla
	// library check`)
	for name := range librarytest.Bad {
		found := false
		for _, r := range bad {
			found = found || strings.Contains(r, name+": this file cannot be read as a game")
		}
		if !found {
			t.Errorf("%s is not named as unreadable: %q", name, bad)
		}
	}
	if s := text(t, desk, "#summary"); !strings.Contains(s, "6 games, 4 unreadable") {
		t.Errorf("summary %q", s)
	}
	// filters
	browsertest.Eval[bool](t, desk, `(() => { const s = document.getElementById("fgame"); s.value = "star"; s.dispatchEvent(new Event("input")); return true; })()`)
	if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#rows tr").length`); n != 2 {
		t.Errorf("star games shown: %d, want 2", n)
	}
	browsertest.Eval[bool](t, desk, `(() => { const s = document.getElementById("fgame"); s.value = ""; s.dispatchEvent(new Event("input")); return true; })()`)
	browsertest.Screenshot(t, desk, "library-desktop")

	// every game, every ply
	for _, name := range librarytest.Good {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		g, err := lib.Game(name)
		if err != nil {
			t.Fatal(err)
		}
		navigate(t, desk, base+"game.html?id="+url.QueryEscape(name), "#board [data-cell]")
		browsertest.WaitPage(t, name+"'s analysis", func(l *browsertest.Look) bool {
			return browsertest.Read[bool](l, desk, `!!(ana && document.getElementById("progressbox").hidden)`)
		}, func(l *browsertest.Look) string { return readText(l, desk, "#progresstext") })
		// the curve saves as NAME.svg, like the PNG (not NAME.jsonl.svg)
		if dl, want := browsertest.Eval[string](t, desk, `document.getElementById("dlcurve").download`), strings.TrimSuffix(name, ".jsonl")+".svg"; dl != want {
			t.Errorf("%s: the curve downloads as %q, want %q", name, dl, want)
		}
		for k := range g.Steps {
			n := 1
			if k > 0 {
				n = g.Steps[k].Line
				if err := chromedp.Do(desk, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
					t.Fatal(err)
				}
			}
			want, sum := cutPieces(t, data, n)
			got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces)
			if !maps.Equal(got, want) {
				t.Fatalf("%s ply %d: the page shows %v, the record cut at line %d has %v", name, k, got, n, want)
			}
			ply := text(t, desk, "#ply")
			if (k == 0) != (ply == "start") || k > 0 && !strings.HasPrefix(ply, fmt.Sprintf("move %d of", sum.Ply)) {
				t.Fatalf("%s ply %d: the page says %q, rules check ply %d", name, k, ply, sum.Ply)
			}
			if cur := browsertest.Eval[int](t, desk, `+document.querySelector("#movelist li.current").dataset.step`); cur != k {
				t.Fatalf("%s ply %d: move %d marked current", name, k, cur)
			}
		}
		a, _, _ := lib.Analysis(name)
		flagged := 0
		for _, m := range a.Report.Moves {
			if m.Tier != "" || m.MissedWin {
				flagged++
			}
		}
		if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#curve .mark").length`); n != flagged {
			t.Errorf("%s: %d marks on the curve, %d flagged moves", name, n, flagged)
		}
		if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#movelist .badges span").length`); n < flagged {
			t.Errorf("%s: %d flags in the move list, %d flagged moves", name, n, flagged)
		}
		if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#curve polyline").length`); n != len(g.Sides) {
			t.Errorf("%s: %d lines on the curve, want one per side (%d)", name, n, len(g.Sides))
		}
		if name == "gyges.jsonl" {
			chromedp.Do(desk, chromedp.KeyEvent(kb.Home))
			for i := 0; i < 17; i++ {
				chromedp.Do(desk, chromedp.KeyEvent(kb.ArrowRight))
			}
			browsertest.FullScreenshot(t, desk, "analysis-desktop")
		}
		if name == "ray.jsonl" {
			if l := text(t, desk, "#oddslabel"); !strings.Contains(l, "Exact odds") || browsertest.Eval[int](t, desk, `document.querySelectorAll("#odds tr").length`) != 4 {
				t.Errorf("RAY odds: %q", l)
			}
		}
	}

	// the missed win: flagged on the list and the curve, the engine's
	// winning move drawn as an arrow at the start, a click on the curve
	// jumps
	navigate(t, desk, base+"game.html?id=star-missed-win.jsonl", "#board [data-cell]")
	browsertest.WaitPage(t, "the analysis", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, desk, `!!ana`) }, func(l *browsertest.Look) string { return readText(l, desk, "#progresstext") })
	if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#movelist .flag-missed").length + document.querySelectorAll("#curve .mark.missed").length`); n != 2 {
		t.Errorf("the missed win is flagged %d times, want on the list and the curve", n)
	}
	if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#board .arrow line").length`); n != 1 {
		t.Errorf("the engine's move at the start: %d arrows", n)
	}
	browsertest.Click(t, desk, `#curve .hitcol[data-step="1"]`)
	// the click reaches the page's handler after Click returns: wait for
	// the step (failing with the page's step at the deadline)
	browsertest.WaitJS(t, desk, "move 1 of 1 after a click on the curve", `document.getElementById("ply").textContent === "move 1 of 1"`, `document.getElementById("ply").textContent`)
	if err := chromedp.Do(desk, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, desk, "analysis-missed-win")

	// the statistics, on a library of 60 more games (some of them end)
	if err := librarytest.WriteMany(dir, 60, 11); err != nil {
		t.Fatal(err)
	}
	navigate(t, desk, base+"stats.html", "[data-chart]")
	if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("[data-chart^=results-]").length`); n != 5 {
		t.Errorf("result charts for %d games, want 5", n)
	}
	st, _ := lib.Stats()
	if s := text(t, desk, "#summary"); !strings.HasPrefix(s, fmt.Sprintf("%d records, 4 unreadable", st.Files)) || st.Files != 70 {
		t.Errorf("stats summary %q, library %d files", s, st.Files)
	}
	browsertest.Screenshot(t, desk, "stats-desktop")

	// a phone
	phone := browsertest.Incognito(t, desk)
	browsertest.Phone(t, phone)
	navigate(t, phone, base, "#rows tr.game")
	if o := browsertest.Eval[int](t, phone, browsertest.Overflow); o > 0 {
		t.Errorf("the library is %d px wider than the phone", o)
	}
	browsertest.Screenshot(t, phone, "library-phone")
	navigate(t, phone, base+"game.html?id=gyges.jsonl", "#board [data-cell]")
	browsertest.WaitPage(t, "the analysis", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, `!!ana`) }, nil)
	for i := 0; i < 16; i++ {
		chromedp.Do(phone, chromedp.KeyEvent(kb.ArrowRight))
	}
	if o := browsertest.Eval[int](t, phone, browsertest.Overflow); o > 0 {
		t.Errorf("the analysis board is %d px wider than the phone", o)
	}
	browsertest.Screenshot(t, phone, "analysis-phone")
	navigate(t, phone, base+"stats.html", "[data-chart]")
	browsertest.Screenshot(t, phone, "stats-phone")
}
