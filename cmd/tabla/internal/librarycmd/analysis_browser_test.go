package librarycmd

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// viewports are the two screens of issue 26: a desktop and a phone.
var viewports = []struct {
	name          string
	width, height int64
	mobile        bool
}{
	{"desktop", 1280, 800, false},
	{"phone", 390, 844, true},
}

func viewport(t *testing.T, ctx context.Context, w, h int64, mobile bool) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h, opts...)); err != nil {
		t.Fatal(err)
	}
}

// openGame opens a game on the analysis board at a ply and waits for its
// analysis.
func openGame(t *testing.T, ctx context.Context, base, id string, ply int) {
	t.Helper()
	navigate(t, ctx, fmt.Sprintf("%sgame.html?id=%s&ply=%d", base, url.QueryEscape(id), ply), "#board [data-cell]")
	browsertest.WaitPage(t, id+"'s analysis", func(l *browsertest.Look) bool {
		return browsertest.Read[bool](l, ctx, `!!(ana && document.getElementById("progressbox").hidden)`)
	}, func(l *browsertest.Look) string { return readText(l, ctx, "#progresstext") })
}

func analysed(t *testing.T, lib *library.Library, id string) *library.Analysis {
	t.Helper()
	if _, err := lib.Analyze(id); err != nil {
		t.Fatal(err)
	}
	var a *library.Analysis
	browsertest.Wait(t, id+"'s analysis", func() bool {
		a, _, _ = lib.Analysis(id)
		return a != nil
	}, func() string { return "" })
	return a
}

// drawnArrow is the move the board's arrow draws ("" for none).
const drawnArrow = `(() => { const a = document.querySelectorAll("#board .arrow"); return a.length === 1 ? a[0].dataset.move || "?" : a.length ? "several" : ""; })()`

// tapTargets lists the visible controls smaller than 44×44 px.
const tapTargets = `[...document.querySelectorAll("button, a.button, select, input, summary, #lines li, #movelist li, header nav a")]
	.filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== "hidden")
	.map(e => [e, e.getBoundingClientRect()])
	.filter(([e, r]) => r.width > 0 && (r.width < 44 || r.height < 44))
	.map(([e, r]) => (e.id || e.textContent.trim().slice(0, 20)) + " " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`

// TestAnalysisBoardMistakes: at a move the analysis flags, the arrow is
// the better move the page names (the engine's move from the position
// before it), not the opponent's reply (the bug of issue 26); every move
// carries its tier in the list, each seat its accuracy as the analysis
// computed it; on a desktop and a phone.
func TestAnalysisBoardMistakes(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	desk := browsertest.Start(t)
	for _, vp := range viewports {
		viewport(t, desk, vp.width, vp.height, vp.mobile)
		// the missed win: the winning move is named and drawn at move 1
		mw := analysed(t, lib, "star-missed-win.jsonl")
		openGame(t, desk, base, "star-missed-win.jsonl", 1)
		best := mw.Report.Moves[0].Best
		if best == "" || mw.Best[0] == nil {
			t.Fatalf("the missed win has no better move: %+v", mw.Report.Moves[0])
		}
		if got := text(t, desk, "#bettermove"); got != best {
			t.Errorf("%s: at the missed win the page names %q, want %q", vp.name, got, best)
		}
		if got := browsertest.Eval[string](t, desk, drawnArrow); got != best {
			t.Errorf("%s: at the missed win the arrow draws %q, the page names %q", vp.name, got, best)
		}
		browsertest.Screenshot(t, desk, "analysis-better-move-"+vp.name)

		// every flagged move of the five games: named move = arrow
		seen := 0
		for _, name := range librarytest.Good {
			a := analysed(t, lib, name)
			openGame(t, desk, base, name, 0)
			tiers := 0
			for _, m := range a.Report.Moves {
				if m.Tier != "" {
					tiers++
				}
			}
			if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#movelist [data-tier]").length`); n != tiers {
				t.Errorf("%s %s: %d tier badges, %d moves with a tier", vp.name, name, n, tiers)
			}
			for _, p := range a.Report.Players {
				got := text(t, desk, fmt.Sprintf(`#acc tr[data-seat=%q] .accuracy`, p.Seat))
				want := "—"
				if p.Accuracy >= 0 {
					want = fmt.Sprintf("%.0f%%", math.Round(p.Accuracy))
				}
				if got != want {
					t.Errorf("%s %s: %s's accuracy shows %q, want %q", vp.name, name, p.Seat, got, want)
				}
			}
			for i, m := range a.Report.Moves {
				if (m.Tier == "" && !m.MissedWin) || m.Best == "" || m.Best == m.Move || a.Best[i] == nil {
					continue
				}
				browsertest.Click(t, desk, fmt.Sprintf(`#movelist li[data-step="%d"]`, m.N))
				// the click reaches the page's handler after Click returns
				// (a busy machine showed the step before it): read once the
				// list marks the move clicked as the current one
				browsertest.WaitJS(t, desk, fmt.Sprintf("move %d shown", m.N),
					fmt.Sprintf(`(document.querySelector("#movelist li.current") || {dataset: {}}).dataset.step === "%d"`, m.N),
					`(document.querySelector("#movelist li.current") || {dataset: {}}).dataset.step || "no current move"`)
				named, drawn := text(t, desk, "#bettermove"), browsertest.Eval[string](t, desk, drawnArrow)
				if named != m.Best || drawn != m.Best {
					t.Errorf("%s %s move %d (%s): named %q, arrow %q, want %q for both", vp.name, name, m.N, m.Tier, named, drawn, m.Best)
				}
				seen++
				if seen == 1 {
					browsertest.Screenshot(t, desk, "analysis-mistake-"+vp.name)
				}
			}
		}
		if seen == 0 {
			t.Errorf("%s: no flagged move with a better move in the library", vp.name)
		}
		if small := browsertest.Eval[[]string](t, desk, tapTargets); len(small) > 0 {
			t.Errorf("%s: tap targets under 44 px: %q", vp.name, small)
		}
		if o := browsertest.Eval[int](t, desk, browsertest.Overflow); o > 0 {
			t.Errorf("%s: the analysis board is %d px wider than the screen", vp.name, o)
		}
	}
}

// TestAnalysisBoardVariation: a tap on a piece lights its destinations, a
// tap on one plays the move as a variation whose position is the server's,
// with the engine's three lines and their depth following; ← takes the move
// back to the game, and "Back to the game" leaves a longer variation.
func TestAnalysisBoardVariation(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	desk := browsertest.Start(t)
	const id, ply = "star.jsonl", 4
	g, err := lib.Game(id)
	if err != nil {
		t.Fatal(err)
	}
	x, err := lib.Explore(id, ply, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, vp := range viewports {
		viewport(t, desk, vp.width, vp.height, vp.mobile)
		openGame(t, desk, base, id, ply)
		browsertest.WaitPage(t, "the legal moves", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, desk, `!!(legalAt && legalAt.legal)`) }, nil)
		browsertest.WaitPage(t, "the engine's lines", func(l *browsertest.Look) bool {
			return browsertest.Read[int](l, desk, `document.querySelectorAll("#lines li").length`) == 3
		}, func(l *browsertest.Look) string { return readText(l, desk, "#linesbox") })
		if d := text(t, desk, "#linesdepth"); !strings.Contains(d, "depth") {
			t.Errorf("%s: the lines say %q, want their depth", vp.name, d)
		}
		mv := x.Legal[len(x.Legal)-1]
		from, to := mv.From[0], mv.To[0]
		dests := map[string]bool{}
		for _, a := range x.Legal {
			if a.From[0] == from {
				dests[a.To[0]] = true
			}
		}
		// a board whose cells are too small to tap zooms in at the first
		// tap, as a player sees it (1d42d77): then the cells play
		if browsertest.Eval[string](t, desk, `document.getElementById("board").dataset.tap`) == "zoom" {
			browsertest.Click(t, desk, fmt.Sprintf(`#board .hit[data-cell=%q]`, from))
			browsertest.WaitPage(t, "the board zoomed in", func(l *browsertest.Look) bool {
				return browsertest.Read[string](l, desk, `document.getElementById("board").dataset.tap`) != "zoom"
			}, func(l *browsertest.Look) string {
				return browsertest.Read[string](l, desk, `document.getElementById("board").dataset.tap`)
			})
		}
		browsertest.Click(t, desk, fmt.Sprintf(`#board .hit[data-cell=%q]`, from))
		// the click reaches the page's handler after Click returns: read
		// the lit cells once the drawing shows destinations
		browsertest.WaitJS(t, desk, "destinations of "+from+" lit", `Object.values(`+browsertest.DrawnLEDs+`).includes("dest")`, `JSON.stringify(`+browsertest.DrawnLEDs+`)`)
		lit := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnLEDs)
		n := 0
		for c, role := range lit {
			if role == "dest" {
				n++
				if !dests[c] {
					t.Errorf("%s: %s lit, not a destination of %s", vp.name, c, from)
				}
			}
		}
		if n != len(dests) {
			t.Errorf("%s: %d destinations lit for %s, want %d", vp.name, n, from, len(dests))
		}
		browsertest.Click(t, desk, fmt.Sprintf(`#board .hit[data-cell=%q]`, to))
		browsertest.WaitPage(t, "the variation", func(l *browsertest.Look) bool {
			return browsertest.Read[bool](l, desk, `!!(variation && variation.data && variation.line.length === 1 && variation.data.line.length === 1)`)
		}, func(l *browsertest.Look) string { return readText(l, desk, "#varbox") })
		want, _ := lib.Explore(id, ply, []string{mv.Move})
		if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); !maps.Equal(got, want.Step.Pieces) {
			t.Errorf("%s: after %s the board shows %v, want %v", vp.name, mv.Move, got, want.Step.Pieces)
		}
		if l := text(t, desk, "#varline"); !strings.Contains(l, mv.Move) || browsertest.Eval[bool](t, desk, `document.getElementById("varbox").hidden`) {
			t.Errorf("%s: the variation reads %q", vp.name, l)
		}
		browsertest.WaitPage(t, "the variation's lines", func(l *browsertest.Look) bool {
			return browsertest.Read[int](l, desk, `document.querySelectorAll("#lines li").length`) == 3 && !strings.Contains(readText(l, desk, "#linesdepth"), "thinking")
		}, func(l *browsertest.Look) string { return readText(l, desk, "#linesbox") })
		// the engine's lines at the variation are the server's
		ev, err := lib.Evaluate(context.Background(), id, ply, []string{mv.Move}, 3)
		if err != nil {
			t.Fatal(err)
		}
		shown := browsertest.Eval[[]string](t, desk, `[...document.querySelectorAll("#lines li")].map(li => li.dataset.move)`)
		for i, l := range ev.Lines {
			if shown[i] != l.Move {
				t.Errorf("%s: line %d shows %q, the engine %q", vp.name, i+1, shown[i], l.Move)
			}
		}
		browsertest.Screenshot(t, desk, "analysis-variation-"+vp.name)
		// ← takes it back: the game's position at ply
		if err := chromedp.Do(desk, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitPage(t, "back to the game", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, desk, `variation === null`) }, nil)
		if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); !maps.Equal(got, g.Steps[ply].Pieces) || text(t, desk, "#ply") != fmt.Sprintf("move %d of %d", ply, len(g.Steps)-1) {
			t.Errorf("%s: after ← the page is at %q", vp.name, text(t, desk, "#ply"))
		}
		// a line's move played by a tap, then the engine's reply, then
		// back to the game by the button
		browsertest.WaitPage(t, "the lines", func(l *browsertest.Look) bool {
			return browsertest.Read[int](l, desk, `document.querySelectorAll("#lines li").length`) == 3 && !strings.Contains(readText(l, desk, "#linesdepth"), "thinking")
		}, nil)
		browsertest.Click(t, desk, `#lines li`)
		browsertest.WaitPage(t, "a variation of one move", func(l *browsertest.Look) bool {
			return browsertest.Read[bool](l, desk, `!!(variation && variation.data && variation.data.line.length === 1)`)
		}, nil)
		browsertest.WaitPage(t, "the reply's line", func(l *browsertest.Look) bool {
			return browsertest.Read[int](l, desk, `document.querySelectorAll("#lines li").length`) > 0 && !strings.Contains(readText(l, desk, "#linesdepth"), "thinking")
		}, nil)
		browsertest.Click(t, desk, `#lines li`)
		browsertest.WaitPage(t, "a variation of two moves", func(l *browsertest.Look) bool {
			return browsertest.Read[bool](l, desk, `!!(variation && variation.data && variation.data.line.length === 2)`)
		}, nil)
		browsertest.Click(t, desk, `#backtogame`)
		browsertest.WaitPage(t, "back to the game by the button", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, desk, `variation === null`) }, nil)
		if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); !maps.Equal(got, g.Steps[ply].Pieces) || !browsertest.Eval[bool](t, desk, `document.getElementById("varbox").hidden`) {
			t.Errorf("%s: back to the game shows %v", vp.name, got)
		}
		if small := browsertest.Eval[[]string](t, desk, tapTargets); len(small) > 0 {
			t.Errorf("%s: tap targets under 44 px: %q", vp.name, small)
		}
	}
}

// TestAnalysisBoardStepping: a link with a ply opens there and the address
// follows the steps; ←/→/Home/End, a swipe on the board and the wheel step;
// the annotated record and the curve as PNG download.
func TestAnalysisBoardStepping(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	desk := browsertest.Start(t)
	const id = "gyges.jsonl"
	g, _ := lib.Game(id)
	last := len(g.Steps) - 1
	analysed(t, lib, id)
	for _, vp := range viewports {
		viewport(t, desk, vp.width, vp.height, vp.mobile)
		openGame(t, desk, base, id, 17)
		at := func(want int, how string) {
			t.Helper()
			p := text(t, desk, "#ply")
			wantText := fmt.Sprintf("move %d of %d", want, last)
			if want == 0 {
				wantText = "start"
			}
			if p != wantText {
				t.Errorf("%s: after %s the page is at %q, want %q", vp.name, how, p, wantText)
			}
			if s := browsertest.Eval[string](t, desk, `location.search`); !strings.Contains(s, fmt.Sprintf("ply=%d", want)) {
				t.Errorf("%s: after %s the address is %q, want ply=%d", vp.name, how, s, want)
			}
			if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); !maps.Equal(got, g.Steps[want].Pieces) {
				t.Errorf("%s: after %s the board is not step %d's", vp.name, how, want)
			}
		}
		at(17, "a link with ply=17")
		key := func(k string, want int) {
			t.Helper()
			if err := chromedp.Do(desk, chromedp.KeyEvent(k)); err != nil {
				t.Fatal(err)
			}
			at(want, fmt.Sprintf("key %q", k))
		}
		key(kb.ArrowRight, 18)
		key(kb.ArrowLeft, 17)
		key(kb.End, last)
		key(kb.Home, 0)
		swipe := func(dx int) {
			browsertest.Eval[bool](t, desk, fmt.Sprintf(`(() => { const b = document.getElementById("board"), r = b.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
				b.dispatchEvent(new PointerEvent("pointerdown", { clientX: x, clientY: y, bubbles: true, pointerType: "touch" }));
				b.dispatchEvent(new PointerEvent("pointerup", { clientX: x + %d, clientY: y + 5, bubbles: true, pointerType: "touch" }));
				return true; })()`, dx))
		}
		swipe(-120)
		at(1, "a swipe to the left")
		swipe(-120)
		swipe(120)
		at(1, "a swipe left and one right")
		wheel := func(sel string, dy int) {
			browsertest.Eval[bool](t, desk, fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new WheelEvent("wheel", { deltaY: %d, bubbles: true, cancelable: true }))`, sel, dy))
		}
		wheel("#board", 100)
		at(2, "the wheel down on the board")
		wheel("#curve", -100)
		at(1, "the wheel up on the curve")
		// a reload keeps the ply
		navigate(t, desk, browsertest.Eval[string](t, desk, `location.href`), "#board [data-cell]")
		at(1, "a reload")

		// the exports
		png := browsertest.Eval[[]int](t, desk, `curvePNG().then(b => b.arrayBuffer()).then(a => [...new Uint8Array(a).slice(0, 8), a.byteLength])`)
		if len(png) != 9 || png[0] != 0x89 || png[1] != 'P' || png[2] != 'N' || png[3] != 'G' || png[8] < 1000 {
			t.Errorf("%s: the curve's PNG starts %v", vp.name, png)
		}
		ann := browsertest.Eval[string](t, desk, `fetch(document.getElementById("dlannotated").href).then(r => r.text())`)
		if !strings.Contains(ann, `{"comment":"tabla analysis`) || browsertest.Eval[bool](t, desk, `document.getElementById("dlannotated").classList.contains("off")`) {
			t.Errorf("%s: the annotated record: %.200s", vp.name, ann)
		}
		browsertest.Click(t, desk, `#copylink`)
		// the click reaches the page's handler after Click returns (at
		// load 12 the box was read still empty): wait for the box to show
		// a link, then check it is this move's
		browsertest.WaitJS(t, desk, "the link to this move", `!document.getElementById("linkout").hidden && document.getElementById("linkout").value !== ""`, `document.getElementById("linkout").value || "an empty box"`)
		if v := browsertest.Eval[string](t, desk, `document.getElementById("linkout").value`); !strings.Contains(v, "game.html?id=gyges.jsonl&ply=1") {
			t.Errorf("%s: the link to this move is %q", vp.name, v)
		}
	}
}

// TestAnalysisBoardVariationDice: in a game with dice a variation's move is
// followed by the die's faces to choose from; a face tapped is the roll the
// server plays, and the next move is then offered on the board.
func TestAnalysisBoardVariationDice(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	desk := browsertest.Start(t)
	browsertest.Phone(t, desk)
	const id = "daha.jsonl"
	openGame(t, desk, base, id, 0)
	browsertest.WaitPage(t, "the engine's lines", func(l *browsertest.Look) bool {
		return browsertest.Read[int](l, desk, `document.querySelectorAll("#lines li").length`) > 0 && !strings.Contains(readText(l, desk, "#linesdepth"), "thinking")
	}, func(l *browsertest.Look) string { return readText(l, desk, "#linesbox") })
	first := browsertest.Eval[string](t, desk, `document.querySelector("#lines li").dataset.move`)
	browsertest.Click(t, desk, `#lines li`)
	browsertest.WaitPage(t, "the die's faces", func(l *browsertest.Look) bool {
		return browsertest.Read[int](l, desk, `document.querySelectorAll("#varchoice button.face").length`) == 6
	}, func(l *browsertest.Look) string { return readText(l, desk, "#varbox") })
	// the engine's lines of the variation redraw the board, not the faces:
	// a face being tapped stays the button under the finger (redrawn, the
	// tap lands on a node gone, the flake of chromedp's "Could not find
	// node with given id")
	browsertest.Eval[bool](t, desk, `(window.faceShown = document.querySelector("#varchoice button.face:nth-of-type(3)"), true)`)
	browsertest.WaitPage(t, "the variation's engine lines", func(l *browsertest.Look) bool {
		return !strings.Contains(readText(l, desk, "#linesdepth"), "thinking")
	}, func(l *browsertest.Look) string { return readText(l, desk, "#linesbox") })
	if !browsertest.Eval[bool](t, desk, `faceShown.isConnected && faceShown === document.querySelector("#varchoice button.face:nth-of-type(3)")`) {
		t.Error("the engine's lines drew the die's faces again")
	}
	browsertest.Click(t, desk, `#varchoice button.face:nth-of-type(3)`)
	browsertest.WaitPage(t, "the roll played", func(l *browsertest.Look) bool {
		return browsertest.Read[bool](l, desk, `!!(variation && variation.data && variation.data.line.length === 2)`)
	}, func(l *browsertest.Look) string { return readText(l, desk, "#varbox") })
	line := browsertest.Eval[[]string](t, desk, `variation.data.line`)
	want, err := lib.Explore(id, 0, []string{first, "roll:3"})
	if err != nil {
		t.Fatal(err)
	}
	if line[0] != first || line[1] != "roll:3" {
		t.Errorf("the variation is %q, want %q then roll:3", line, first)
	}
	if got := browsertest.Eval[map[string]string](t, desk, browsertest.DrawnPieces); !maps.Equal(got, want.Step.Pieces) {
		t.Errorf("after %s and a 3 the board shows %v, want %v", first, got, want.Step.Pieces)
	}
	if n := browsertest.Eval[int](t, desk, `variation.data.legal.length`); n != len(want.Legal) || browsertest.Eval[int](t, desk, `document.querySelectorAll("#varchoice button.face").length`) != 0 {
		t.Errorf("after the roll: %d legal moves offered, want %d, and no faces", n, len(want.Legal))
	}
	if v := text(t, desk, "#varline"); !strings.Contains(v, "roll 3") {
		t.Errorf("the variation reads %q", v)
	}
	browsertest.Screenshot(t, desk, "analysis-variation-dice-phone")
}
