package simcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// The live page a player reads at a glance (issue 26 item 3), on a phone
// (390×844) in Chromium: the move list, the last move's marks, a lifted
// piece, the connection, the hint, the tap targets, zoom, and words for
// people.

// phonePage starts the simulator's page on a phone.
func phonePage(t *testing.T, o PageOptions) *pageRun {
	p := startPage(t, o)
	browsertest.Phone(t, p.ctx)
	p.eval(`window.scrollTo(0, 0)`)
	return p
}

func (p *pageRun) eval(js string) {
	p.t.Helper()
	browsertest.Eval[any](p.t, p.ctx, js+`, 0`)
}

// waitPage waits for a JavaScript condition on the page.
func (p *pageRun) waitPage(what, cond, seen string) {
	p.t.Helper()
	browsertest.WaitJS(p.t, p.ctx, what, cond, seen)
}

func (p *pageRun) text(sel string) string {
	p.t.Helper()
	return browsertest.Eval[string](p.t, p.ctx, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel))
}

// play makes n moves on the virtual board as a player's hands would: lift
// a piece lit as the mover's, put it on its first lit destination.
func (p *pageRun) play(n int) referee.State {
	p.t.Helper()
	var s referee.State
	for i := 0; i < n; i++ {
		s = p.waitFor("the mover's pieces lit", func(s referee.State) bool { return len(lit(s, "turn")) > 0 && s.InSync })
		k := len(s.Moves)
		var from string
		var dests []string
		for _, c := range lit(s, "turn") { // a piece with a destination
			if err := p.ps.VB.Lift(c); err != nil {
				p.t.Fatal(err)
			}
			s = p.waitFor("a lift read", func(s referee.State) bool { return !s.InSync })
			if dests = lit(s, "dest"); len(dests) > 0 {
				from = c
				break
			}
			if err := p.ps.VB.Place(c, ""); err != nil {
				p.t.Fatal(err)
			}
			p.waitFor("the piece back", func(s referee.State) bool { return s.InSync })
		}
		if from == "" {
			p.t.Fatalf("no piece of %v can move", lit(s, "turn"))
		}
		if err := p.ps.VB.Place(dests[0], ""); err != nil {
			p.t.Fatal(err)
		}
		s = p.moves(k + 1)
	}
	return s
}

// shown waits for the page to list the board's moves.
func (p *pageRun) shown(n int) {
	p.waitPage(fmt.Sprintf("%d moves listed", n), fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d`, n), `document.getElementById("moves").textContent`)
}

// inView: the element's box lies inside the phone's screen without
// scrolling the page (and inside its own scrolled list).
const inView = `((sel) => { const e = document.querySelector(sel); if (!e) return "missing"; const r = e.getBoundingClientRect();
  const l = e.closest("#moves").getBoundingClientRect();
  if (window.scrollY !== 0) return "page scrolled " + window.scrollY;
  if (r.height === 0) return "not shown";
  if (r.top < 0 || r.bottom > window.innerHeight) return "page y " + r.top + "–" + r.bottom + " of " + window.innerHeight;
  if (r.top < l.top - 1 || r.bottom > l.bottom + 1) return "list y " + r.top + "–" + r.bottom + " of " + l.top + "–" + l.bottom;
  return ""; })`

// TestGlanceMoveList: STAR past move 12 on a phone — numbers from 10 on
// whole, each move with its seat's colour, the latest move highlighted
// and on screen without scrolling; the last move's from and to marked.
func TestGlanceMoveList(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 11})
	s := p.play(12)
	p.shown(12)
	items := browsertest.Eval[[]map[string]string](t, p.ctx, `[...document.querySelectorAll("#moves li")].map(li => ({
		n: li.querySelector(".n") ? li.querySelector(".n").textContent : "",
		clipped: li.querySelector(".n") ? String(li.querySelector(".n").scrollWidth > li.querySelector(".n").clientWidth + 1 || li.querySelector(".n").getBoundingClientRect().left < li.closest("#moves").getBoundingClientRect().left) : "true",
		seat: li.querySelector(".dot") ? li.querySelector(".dot").title : "",
		move: li.dataset.move || "", current: String(li.classList.contains("current")) }))`)
	for i, it := range items {
		if want := fmt.Sprintf("%d.", i+1); it["n"] != want || it["clipped"] != "false" {
			t.Errorf("move %d is numbered %q (clipped %s), want %q whole", i+1, it["n"], it["clipped"], want)
		}
		if want := []string{"red", "white"}[i%2]; it["seat"] != want {
			t.Errorf("move %d's seat colour is %q's, want %q's", i+1, it["seat"], want)
		}
		if it["move"] != s.Moves[i] {
			t.Errorf("move %d is %q, want %q", i+1, it["move"], s.Moves[i])
		}
		if cur := it["current"] == "true"; cur != (i == 11) {
			t.Errorf("move %d current %v", i+1, cur)
		}
	}
	if !strings.Contains(p.text("#moves"), "10.") || !strings.Contains(p.text("#moves"), "12.") {
		t.Errorf("the move list says %q, want 10. and 12. in it", p.text("#moves"))
	}
	if why := browsertest.Eval[string](t, p.ctx, inView+`("#moves li.current")`); why != "" {
		t.Errorf("the current move is not on the phone's screen: %s", why)
	}
	// the last move: its origin and its destination marked on the board
	from, to, _ := strings.Cut(s.Moves[11], "-")
	marks := browsertest.Eval[map[string]string](t, p.ctx, `(() => { const o = {}; document.querySelectorAll("#board [data-last]").forEach(e => { o[e.dataset.cell] = e.dataset.last; }); return o; })()`)
	if len(marks) != 2 || marks[from] != "from" || marks[to] != "to" {
		t.Errorf("last move %s: the board marks %v, want %s from and %s to", s.Moves[11], marks, from, to)
	}
	// the marks stand out: a ring wider than a quarter of a cell, opaque
	if w := browsertest.Eval[float64](t, p.ctx, fmt.Sprintf(`document.querySelector('#board [data-last="to"]').getBoundingClientRect().width / document.querySelector('.hit[data-cell=%q]').getBoundingClientRect().width`, to)); w < .7 {
		t.Errorf("the destination mark is %.2f of its cell wide, want a ring around the piece", w)
	}
	if o := browsertest.Eval[int](t, p.ctx, browsertest.Overflow); o > 0 {
		t.Errorf("the phone page is %d px wider than the phone", o)
	}
	tapTargets(t, p)
	p.screenshot("glance-movelist")
}

// TestGlanceRoll: DAHA lists the roll each move was made on.
func TestGlanceRoll(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "daha", Sensors: "identifying", Seed: 3})
	p.click(`#faces button[data-face="3"]`)
	p.waitFor("the roll", func(s referee.State) bool { return s.Awaiting == "move" && s.Roll == "3" })
	p.liftAndPlaceLit("C0", first)
	p.moves(1)
	p.shown(1)
	if got := p.text("#moves li .roll"); !strings.Contains(got, "3") {
		t.Errorf("the move's roll reads %q, want 3", got)
	}
	if got := browsertest.Eval[string](t, p.ctx, `document.querySelector("#moves li .dot").title`); got != "red" {
		t.Errorf("the move's seat is %q, want red", got)
	}
}

// TestGlanceLifted: a lifted piece is a move under way — marked as
// lifted, its destinations lit and named, nothing red, never "out of
// sync" — and the hint is named in words and drawn as an arrow.
func TestGlanceLiftedAndHint(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 12})
	p.play(1)
	p.shown(1)
	s := p.waitFor("white's pieces lit", func(s referee.State) bool { return len(lit(s, "turn")) > 0 })
	c := lit(s, "turn")[0]
	if err := p.ps.VB.Lift(c); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the lift read", func(s referee.State) bool { return !s.InSync })
	p.waitPage("the page to show the lifted piece", fmt.Sprintf(`document.querySelector('#board .holding') !== null && document.getElementById("message").textContent.includes(%q)`, "Lifted from "+c),
		`document.getElementById("message").textContent + " | " + document.getElementById("turn").textContent`)
	body := browsertest.Eval[string](t, p.ctx, `document.body.innerText`)
	if strings.Contains(body, "out of sync") {
		t.Errorf("with a piece lifted the page says %q", body)
	}
	if got := p.text("#sync"); got != "move under way" {
		t.Errorf("with a piece lifted the turn line says %q, want move under way", got)
	}
	if red := browsertest.Eval[[]string](t, p.ctx, `[...document.querySelectorAll(".bad, .down")].filter(e => e.offsetParent !== null).map(e => e.id + ": " + e.textContent)`); len(red) > 0 {
		t.Errorf("with a piece lifted the page shows %v in red", red)
	}
	p.screenshot("glance-lifted")
	if err := p.ps.VB.Place(c, ""); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the piece back", func(s referee.State) bool { return s.InSync })

	p.click(`[data-press="hint"]`) // the board's hint button
	s = p.waitFor("the hint", func(s referee.State) bool { return s.Hint != "" })
	from, to, _ := strings.Cut(s.Hint, "-")
	want := "Hint: " + from + " to " + to
	p.waitPage("the hint in words", fmt.Sprintf(`document.getElementById("hintline").textContent === %q`, want), `document.getElementById("hintline").textContent`)
	arrow := browsertest.Eval[map[string]float64](t, p.ctx, `(() => { const l = document.querySelector("#board .arrow.hint line"); if (!l) return {}; return {x1: +l.getAttribute("x1"), y1: +l.getAttribute("y1"), x2: +l.getAttribute("x2"), y2: +l.getAttribute("y2")}; })()`)
	if len(arrow) == 0 {
		t.Fatalf("no hint arrow on the board (hint %s)", s.Hint)
	}
	// the arrow points from the hint's origin towards its destination
	pos := func(cell string) map[string]float64 {
		return browsertest.Eval[map[string]float64](t, p.ctx, fmt.Sprintf(`(() => { const c = board.cell(%q); return {x: c.x, y: -c.y}; })()`, cell))
	}
	a, b := pos(from), pos(to)
	d := func(x, y float64, q map[string]float64) float64 { return (x-q["x"])*(x-q["x"]) + (y-q["y"])*(y-q["y"]) }
	if d(arrow["x1"], arrow["y1"], a) > d(arrow["x1"], arrow["y1"], b) || d(arrow["x2"], arrow["y2"], b) > d(arrow["x2"], arrow["y2"], a) {
		t.Errorf("the hint arrow %v does not go from %s %v to %s %v", arrow, from, a, to, b)
	}
	p.screenshot("glance-hint")
}

// TestGlanceConnection: the header's badge and the turn line agree when
// the cable is pulled and when the page loses the daemon.
func TestGlanceConnection(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 13})
	agree := func(what, want string) {
		t.Helper()
		// both say it, both as a fault
		p.waitPage(what, fmt.Sprintf(`document.getElementById("conn").textContent.includes(%q) && document.getElementById("sync").textContent !== "in sync" && document.getElementById("conn").classList.contains("down") && document.getElementById("sync").classList.contains("bad")`, want),
			`document.getElementById("conn").textContent + " " + document.getElementById("conn").className + " | " + document.getElementById("sync").textContent + " " + document.getElementById("sync").className`)
	}
	p.click("#plug")
	p.waitFor("the cable out", func(s referee.State) bool { return s.Conn != "connected" })
	agree("the pulled cable", "board not connected")
	p.click("#plug")
	p.waitPage("the board back", `document.getElementById("conn").textContent === "board connected" && document.getElementById("sync").textContent === "in sync"`,
		`document.getElementById("conn").textContent + " | " + document.getElementById("sync").textContent`)
	p.stop()
	agree("the daemon gone", "page offline")
}

// TestGlanceDeveloperText: a button the board refuses is told in words,
// never the referee's detail.
func TestGlanceDeveloperText(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 14})
	if err := p.ps.VB.Press(hardware.ButtonTakeback); err != nil { // nothing to take back
		t.Fatal(err)
	}
	s := p.waitFor("the refusal", func(s referee.State) bool { return s.Message != "" })
	p.waitPage("the message", `document.getElementById("message").textContent !== ""`, `""`)
	got := p.text("#message")
	if got == s.Message || strings.Contains(got, ":") {
		t.Errorf("the page shows %q for the board's %q: want words for people", got, s.Message)
	}
}

// TestGlanceZoom: RAY's and six's boards zoom (buttons) and pan (a drag)
// on a phone, with the cells' names shown once zoomed.
func TestGlanceZoom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ game, cell string }{{"ray", "o15"}, {"six", "0,0"}} {
		t.Run(tc.game, func(t *testing.T) {
			p := phonePage(t, PageOptions{Game: tc.game, Sensors: "identifying", Seed: 15})
			cellW := func() float64 {
				return browsertest.Eval[float64](t, p.ctx, fmt.Sprintf(`document.querySelector('.hit[data-cell=%q]').getBoundingClientRect().width`, tc.cell))
			}
			label := func() float64 { // the label's height on screen, 0 when hidden
				return browsertest.Eval[float64](t, p.ctx, fmt.Sprintf(`(() => { const l = document.querySelector('#board [data-label=%q]'); return l && getComputedStyle(l).display !== "none" ? l.getBoundingClientRect().height : 0; })()`, tc.cell))
			}
			w0 := cellW()
			if tc.game == "ray" && label() > 0 {
				t.Errorf("RAY's labels are shown unzoomed (cells %.0f px)", w0)
			}
			p.click("#zoomin")
			p.click("#zoomin")
			w1 := cellW()
			if w1 < 2*w0 || w1 < 44 {
				t.Errorf("zoomed in twice, a cell is %.0f px wide (was %.0f), want twice and ≥ 44", w1, w0)
			}
			if h := label(); h < 9 {
				t.Errorf("zoomed in, %s's label is %.1f px high, want ≥ 9 (readable)", tc.cell, h)
			}
			// a drag pans
			vb0 := browsertest.Eval[string](t, p.ctx, `document.getElementById("board").getAttribute("viewBox")`)
			// from an empty cell (a drag from a piece moves the piece)
			r := browsertest.Eval[map[string]float64](t, p.ctx, `(() => { const b = document.getElementById("board").getBoundingClientRect(), zs = [...document.querySelectorAll("#zoombar button")].map(e => e.getBoundingClientRect());
				for (const h of document.querySelectorAll("#board .hit")) {
					if (state.pieces[h.dataset.cell]) continue;
					const r = h.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
					if (x > b.left + 10 && x < b.left + b.width / 2 && y > b.top + 10 && y < b.top + b.height / 2 && !zs.some(z => x > z.left && x < z.right && y > z.top && y < z.bottom)) return {x, y};
				}
				return {}; })()`)
			if len(r) == 0 {
				t.Fatal("no empty cell to drag from")
			}
			x, y := r["x"], r["y"]
			if err := chromedp.Do(p.ctx, chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft),
				chromedp.MouseEvent(chromedp.MouseMoved, x+40, y+30, chromedp.ButtonLeft),
				chromedp.MouseEvent(chromedp.MouseMoved, x+80, y+60, chromedp.ButtonLeft),
				chromedp.MouseEvent(chromedp.MouseReleased, x+80, y+60, chromedp.ButtonLeft)); err != nil {
				t.Fatal(err)
			}
			if vb1 := browsertest.Eval[string](t, p.ctx, `document.getElementById("board").getAttribute("viewBox")`); vb1 == vb0 {
				t.Errorf("a drag did not pan the zoomed board (viewBox %s)", vb0)
			}
			if n := len(p.ps.Sess.State().Moves); n != 0 || p.ps.VB.Hand() != 0 {
				t.Errorf("panning acted on the board: %d moves, %d in hand", n, p.ps.VB.Hand())
			}
			tapTargets(t, p)
			p.screenshot("glance-zoom-" + tc.game)
			p.click("#zoomfit")
			if w := cellW(); w > w0*1.01 {
				t.Errorf("the whole board again: a cell is %.0f px, want %.0f", w, w0)
			}
		})
	}
}

// tapTargets: every visible control a finger can tap is at least 44×44
// CSS pixels (a checkbox counts with its label).
func tapTargets(t *testing.T, p *pageRun) {
	t.Helper()
	small := browsertest.Eval[[]string](t, p.ctx, `[...document.querySelectorAll("button, a[href], input, select, label")]
		.filter(e => e.offsetParent !== null && !(e.tagName === "INPUT" && e.closest("label")))
		.map(e => { const r = e.getBoundingClientRect(); return [e, r]; })
		.filter(([e, r]) => r.width < 44 || r.height < 44)
		.map(([e, r]) => (e.id || e.tagName.toLowerCase() + "." + e.className) + " \"" + e.textContent.trim().slice(0, 20) + "\" " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`)
	if len(small) > 0 {
		t.Errorf("tap targets under 44 px: %v", small)
	}
}

// TestPhoneScreenshot saves the live page mid-game on a phone for the
// README (TABLA_README_SCREENSHOT=1 writes it into the source tree).
func TestPhoneScreenshot(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 11})
	p.play(13)
	p.click(`[data-press="hint"]`)
	p.waitFor("the hint", func(s referee.State) bool { return s.Hint != "" })
	p.waitPage("the hint shown", `!document.getElementById("hintline").hidden`, `""`)
	p.shown(13)
	p.screenshot("glance-phone")
	if os.Getenv("TABLA_README_SCREENSHOT") != "" {
		png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "webui", "screenshot-table-phone.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
