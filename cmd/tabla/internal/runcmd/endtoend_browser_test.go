package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// screen is a browser window of issue 26: a phone held upright, a desktop.
type screen struct {
	name   string
	w, h   int64
	mobile bool
}

var screens = []screen{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}}

// TestTableEndToEnd is issue 26's "done when", at 390×844 and 1280×800 in
// Chromium, on `tabla run --board sim` (STAR) with its live page and
// library over real HTTP: a phone pairs by the board's confirm button and
// a game is played on the board past move 12 (the list's numbers, seats
// and latest move, the last move's from and to marked on the board);
// phones on the LAN spam POST /api/pair while a piece is lifted (its
// destinations stay lit, on the board and on the page); New game asks and
// sends nothing before Confirm; the daemon is stopped and started again on
// the same journal directory (the phone keeps control), then again with
// its sessions lost (the page says control ended, in words, buttons off);
// on the analysis board a blunder of the game played names the better
// move and draws it as the arrow; the better move played as a variation
// by two taps (on a phone STAR's cells are too small for a finger: the
// first tap zooms the board in; on a desktop the board is grown until
// they are 44 px for a mouse too) with the engine's lines and evaluation
// following, the engine's reply, ← and → in the variation, and back to the
// game. At every step every visible tap target, the analysis board's
// cells among them, is measured (≥ 44 px) and a screenshot taken (TABLA_README_SCREENSHOT=1 writes them
// to webui/docs, whose README.md shows them).
func TestTableEndToEnd(t *testing.T) {
	t.Parallel()
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			endToEnd(t, sc)
		})
	}
}

func endToEnd(t *testing.T, sc screen) {
	journal := t.TempDir()
	level := func(o *Options) { o.AnalysisLevel = 1 }
	tb, addr, stop := runDaemon(t, journal, "127.0.0.1:0", level)
	tab := browsertest.Start(t)
	opts := []chromedp.EmulateViewportOption{}
	if sc.mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(sc.w, sc.h, opts...)); err != nil {
		t.Fatal(err)
	}
	tb.open(tab)
	e := &e2e{t: t, sc: sc, tab: tab}

	// the phone asks, the board's confirm button grants it (once the page
	// has drawn the game: a tap lands where the finger aims)
	e.wait("the page drawn", `typeof state !== "undefined" && state !== null && document.getElementById("turntext").textContent !== "" && !document.getElementById("pairbtn").hidden`, `document.body.innerText`)
	click(t, tab, "#pairbtn")
	waitSession(t, tb.sess, "the pairing request", func(referee.State) bool { p, _ := tb.sess.Pairing(); return p })
	if err := tb.vb.Press(hardware.ButtonConfirm); err != nil {
		t.Fatal(err)
	}
	e.wait("the phone to control the board", `document.getElementById("pairtext").textContent === "This phone controls the board." && !document.querySelector('[data-press="new"]').disabled`,
		`document.getElementById("pairtext").textContent`)

	// 1. a game past move 12: numbers, seats, the latest move on screen,
	// the last move's from and to marked
	playLit(t, tb, 13)
	e.moveList(tb.sess.MoveLog())
	e.targets("the live page at move 13")
	e.shot("1-move13")

	// 2. phones on the LAN spam /api/pair while a piece is lifted
	lifted, dests := liftLit(t, tb)
	destsJS, _ := json.Marshal(dests)
	drawnDests := `Object.entries(` + browsertest.DrawnLEDs + `).filter(([c, r]) => r === "dest").map(([c]) => c).sort()`
	e.wait("the lifted piece's destinations on the page", `JSON.stringify(`+drawnDests+`) === '`+string(destsJS)+`'`, `JSON.stringify(`+drawnDests+`)`)
	def := tb.sess.Board()
	ledOf := map[string]int{}
	for i, c := range def.Cells {
		ledOf[c.Name] = def.LEDs[i]
	}
	before := tb.vb.LEDs()
	codes := map[int]int{}
	lan := make([]*http.Client, 5) // phones on the LAN, 127.0.0.2 on (the browser is 127.0.0.1)
	for i := range lan {
		lan[i] = from(t, fmt.Sprintf("127.0.0.%d", i+2))
	}
	for range 6 {
		for _, c := range lan {
			code, _ := postPair(t, c, tb.url+"api/pair")
			codes[code]++
		}
	}
	if want := map[int]int{http.StatusAccepted: 6, http.StatusConflict: 24}; !maps.Equal(codes, want) {
		t.Errorf("30 pairing requests from 5 phones answered %v, want %v (one request, the others busy)", codes, want)
	}
	// the page has drawn the board after the spam: the request's corner
	e.wait("the pairing request's corner on the page", `document.querySelector('#board .leds [data-role="pairing"]') !== null`,
		`JSON.stringify(`+browsertest.DrawnLEDs+`)`)
	if got := browsertest.Eval[[]string](t, tab, drawnDests); !slices.Equal(got, dests) {
		t.Errorf("while phones spam /api/pair the page lights %v as %s's destinations, want %v", got, lifted, dests)
	}
	after := tb.vb.LEDs()
	for _, c := range dests {
		if l := after[ledOf[c]]; l != before[ledOf[c]] || l == companion.PairingLight || l == (hardware.LED{}) {
			t.Errorf("while phones spam /api/pair the board's LED at %s is %v, was %v", c, l, before[ledOf[c]])
		}
	}
	pulsing := 0
	for _, l := range after {
		if l == companion.PairingLight {
			pulsing++
		}
	}
	if pulsing != 1 {
		t.Errorf("%d LEDs pulse for the pairing request, want 1", pulsing)
	}
	e.targets("the live page with a piece lifted")
	e.shot("2-pair-spam")
	// the move cancels the request
	if err := tb.vb.Place(dests[0], ""); err != nil {
		t.Fatal(err)
	}
	waitSession(t, tb.sess, "the move, the request cancelled", func(s referee.State) bool {
		p, _ := tb.sess.Pairing()
		return len(s.Moves) == 14 && s.InSync && !p
	})
	e.wait("14 moves on the page", `document.querySelectorAll("#moves li").length === 14`, `document.getElementById("moves").textContent`)
	played := tb.sess.JournalPath()

	// 3. New game asks: nothing is sent, nothing changes before Confirm
	browsertest.Eval[bool](t, tab, `(() => { window.posts = []; const f = window.fetch; window.fetch = (u, o) => { if (o && o.method === "POST") window.posts.push(String(u)); return f(u, o); }; return true; })()`)
	click(t, tab, `[data-press="new"]`)
	e.wait("the confirm dialog", dialogOpen, `"closed"`)
	if q := browsertest.Eval[string](t, tab, `document.getElementById("confirmtext").textContent`); !strings.Contains(q, "new game") || !strings.Contains(q, "14 moves") {
		t.Errorf("New game asks %q, want the game in progress (14 moves) named", q)
	}
	if posts := browsertest.Eval[[]string](t, tab, `window.posts`); len(posts) != 0 {
		t.Errorf("New game sent %v before Confirm", posts)
	}
	if s := tb.sess.State(); len(s.Moves) != 14 || tb.sess.JournalPath() != played {
		t.Errorf("before Confirm the game changed: %d moves, journal %s", len(s.Moves), tb.sess.JournalPath())
	}
	e.targets("the New game question")
	e.shot("3-new-game-asks")
	click(t, tab, "#confirmok")
	waitSession(t, tb.sess, "the new game", func(s referee.State) bool { return tb.sess.JournalPath() != played && len(s.Moves) == 0 })
	if posts := browsertest.Eval[[]string](t, tab, `window.posts`); len(posts) != 1 || !strings.HasSuffix(posts[0], "api/new") {
		t.Errorf("Confirm sent %v, want api/new once", posts)
	}

	// 4. the daemon restarted on the same journal directory: the phone
	// still controls the board (its session is kept, hashed, there)
	stop()
	e.offline()
	tb, _, stop = runDaemon(t, journal, addr, level)
	e.wait("the page back on the restarted daemon, in control", `window.pairShown.length > 0 && document.getElementById("conn").textContent === "board connected" && document.getElementById("pairtext").textContent === "This phone controls the board." && !document.querySelector('[data-press="new"]').disabled`,
		`document.getElementById("conn").textContent + " | " + document.getElementById("pairtext").textContent`)
	if got := browsertest.Eval[string](t, tab, `fetch("api/pair").then(r => r.text())`); !strings.Contains(got, `"paired":true`) {
		t.Errorf("after a restart the board answers %s, want paired", got)
	}
	// restarted with the sessions lost: the page says control ended
	stop()
	e.offline()
	if err := os.Remove(filepath.Join(journal, webui.SessionsFile)); err != nil {
		t.Fatal(err)
	}
	tb, _, _ = runDaemon(t, journal, addr, level)
	e.wait("the page to say control ended", `window.pairShown.length > 0 && document.getElementById("pairtext").textContent.includes("This phone no longer controls the board") && document.querySelector('[data-press="new"]').disabled && document.querySelector('[data-press="hint"]').disabled && !document.getElementById("pairbtn").hidden`,
		`document.getElementById("pairtext").textContent`)
	e.targets("the live page after control ended")
	e.shot("4-control-ended")

	// 5. the game played, in the library: a blunder on the analysis board
	lib := tb.url + "library/"
	id := filepath.Base(played)
	if err := chromedp.Do(tab, chromedp.Navigate(lib)); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf(`#rows tr[data-id=%q]`, id)
	e.wait("the game in the library", fmt.Sprintf(`document.querySelector(%q) !== null`, row), `document.getElementById("rows").textContent`)
	e.targets("the library")
	browsertest.Click(t, tab, row)
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#board [data-cell]`))); err != nil {
		t.Fatalf("opening the game from the library: %v", err)
	}
	e.wait("the analysis", `typeof ana !== "undefined" && ana !== null && document.getElementById("progressbox").hidden`, `document.getElementById("progresstext").textContent`)
	var ana library.Analysis
	getJSON(t, lib+"api/analysis?id="+url.QueryEscape(id), &ana)
	n := 0 // the first blunder with a better move
	var tiers []string
	for _, m := range ana.Report.Moves {
		tiers = append(tiers, m.Tier)
		if n == 0 && m.Tier == "blunder" && m.Best != "" && m.Best != m.Move {
			n = m.N
		}
	}
	if n == 0 {
		t.Fatalf("the game played has no blunder with a better move: tiers %q", tiers)
	}
	m := ana.Report.Moves[n-1]
	click(t, tab, fmt.Sprintf(`#movelist li[data-step="%d"]`, n))
	e.wait("the blunder's step", fmt.Sprintf(`document.getElementById("ply").textContent === "move %d of 14"`, n), `document.getElementById("ply").textContent`)
	if v := e.text("#verdict"); !strings.Contains(v, "blunder") {
		t.Errorf("at move %d (%s) the page says %q, want a blunder", n, m.Move, v)
	}
	// the better move is a move of the blunderer's, from the position
	// before the blunder (the library's legal moves there)
	var prior library.Explored
	getJSON(t, fmt.Sprintf("%sapi/explore?id=%s&ply=%d", lib, url.QueryEscape(id), n-1), &prior)
	var better *library.Arrow
	for _, a := range prior.Legal {
		if a.Move == m.Best {
			better = a
		}
	}
	if better == nil || len(better.From) != 1 || len(better.To) != 1 {
		t.Fatalf("the better move %s is not a move from the position before move %d: %+v", m.Best, n, better)
	}
	named := e.text("#bettermove")
	if named != m.Best {
		t.Errorf("at the blunder %d. %s the page names %q, the analysis %q", n, m.Move, named, m.Best)
	}
	e.arrow(named, better.From[0], better.To[0])
	// read at a glance: the arrow and the move named on the screen at once
	browsertest.Eval[bool](t, tab, `(window.scrollTo(0, 0), true)`)
	for _, sel := range []string{"#board .arrow", "#bettermove"} {
		if why := browsertest.Eval[string](t, tab, fmt.Sprintf(onScreen, sel)); why != "" {
			t.Errorf("at the blunder %s is not on the screen: %s", sel, why)
		}
	}
	e.wait("the engine's lines", `document.querySelectorAll("#lines li").length === 3 && !document.getElementById("linesdepth").textContent.includes("thinking")`, `document.getElementById("linesbox").textContent`)
	e.targets("the analysis board at the blunder")
	e.shot("5-blunder")

	// 6. the better move played as a variation, the engine following,
	// and back to the game
	click(t, tab, "#prev")
	e.wait("the position before the blunder", fmt.Sprintf(`document.getElementById("ply").textContent === "move %d of 14" && !!(legalAt && legalAt.legal)`, n-1), `document.getElementById("ply").textContent`)
	gamePieces := browsertest.Eval[map[string]string](t, tab, browsertest.DrawnPieces)
	if !maps.Equal(gamePieces, prior.Step.Pieces) {
		t.Errorf("before the blunder the board shows %v, the library %v", gamePieces, prior.Step.Pieces)
	}
	from, to := fmt.Sprintf(`#board .hit[data-cell=%q]`, better.From[0]), fmt.Sprintf(`#board .hit[data-cell=%q]`, better.To[0])
	t.Logf("the analysis board's cells: %.0f px, taps: %s", browsertest.Eval[float64](t, tab, `cellPx()`), browsertest.Eval[string](t, tab, `document.getElementById("board").dataset.tap`))
	if !e.sc.mobile {
		// a mouse plays on the cells as they are: 44 px and more, the
		// board grown on a screen as wide and tall as this one
		if mode := browsertest.Eval[string](t, tab, `document.getElementById("board").dataset.tap`); mode != "pointer" {
			t.Errorf("on a desktop STAR's %.0f-px cells are clicked as %q, want a click to play on them", browsertest.Eval[float64](t, tab, `cellPx()`), mode)
		}
		e.targets("the grown analysis board")
	} else {
		// a finger's first tap on STAR's small cells zooms the board in
		// around it; nothing is played
		if mode := browsertest.Eval[string](t, tab, `document.getElementById("board").dataset.tap`); mode != "zoom" {
			t.Errorf("on a phone STAR's %.0f-px cells are tapped as %q, want a tap to zoom", browsertest.Eval[float64](t, tab, `cellPx()`), mode)
		}
		e.targets("the analysis board before the zoom")
		click(t, tab, from)
		if mode := browsertest.Eval[string](t, tab, `document.getElementById("board").dataset.tap`); mode != "cells" || browsertest.Eval[bool](t, tab, `variation !== null`) {
			t.Errorf("a tap on the small board: cells tapped as %q (want cells, 44 px at least), variation %v", mode, browsertest.Eval[any](t, tab, `variation`))
		}
		e.inView(from, to)
		e.targets("the zoomed analysis board")
	}
	click(t, tab, from)
	e.wait("the piece's destinations", fmt.Sprintf(`(%s)[%q] === "dest"`, browsertest.DrawnLEDs, better.To[0]), `JSON.stringify(`+browsertest.DrawnLEDs+`)`)
	click(t, tab, to)
	e.wait("the variation's lines", `!!(variation && variation.data && variation.line.length === 1) && document.querySelectorAll("#lines li").length === 3 && document.getElementById("linesdepth").textContent.includes("depth")`,
		`document.getElementById("varline").textContent + " | " + document.getElementById("linesbox").textContent`)
	var reached library.Explored
	getJSON(t, fmt.Sprintf("%sapi/explore?id=%s&ply=%d&m=%s", lib, url.QueryEscape(id), n-1, url.QueryEscape(m.Best)), &reached)
	if got := browsertest.Eval[map[string]string](t, tab, browsertest.DrawnPieces); !maps.Equal(got, reached.Step.Pieces) {
		t.Errorf("after the variation's %s the board shows %v, want %v", m.Best, got, reached.Step.Pieces)
	}
	if v := e.text("#varline"); !strings.Contains(v, m.Best) {
		t.Errorf("the variation reads %q, want %s", v, m.Best)
	}
	var ev struct {
		Side   int       `json:"side"`
		Values []float64 `json:"values"`
		Lines  []struct {
			Move string `json:"move"`
		} `json:"lines"`
	}
	getJSON(t, fmt.Sprintf("%sapi/evaluate?id=%s&ply=%d&m=%s&lines=3", lib, url.QueryEscape(id), n-1, url.QueryEscape(m.Best)), &ev)
	var lines []string
	for _, l := range ev.Lines {
		lines = append(lines, l.Move)
	}
	if shown := browsertest.Eval[[]string](t, tab, `[...document.querySelectorAll("#lines li")].map(li => li.dataset.move)`); !slices.Equal(shown, lines) {
		t.Errorf("the variation's engine lines show %v, the engine %v", shown, lines)
	}
	// the win chances follow: the engine's evaluation of the variation
	odds := browsertest.Eval[[]float64](t, tab, `[...document.querySelectorAll("#odds tr")].map(tr => parseFloat(tr.cells[1].textContent))`)
	if len(odds) != len(ev.Values) {
		t.Errorf("the variation's win chances show %v, the engine %v", odds, ev.Values)
	}
	for i := range min(len(odds), len(ev.Values)) {
		if d := odds[i] - 100*ev.Values[i]; d > .051 || d < -.051 {
			t.Errorf("the variation's win chances show %v %%, the engine %v", odds, ev.Values)
			break
		}
	}
	e.targets("the analysis board in a variation")
	e.shot("6-variation")
	// the engine's reply from its lines, then ← takes it back and → plays
	// it again
	reply := lines[0]
	click(t, tab, "#lines li")
	lineIs := func(what string, want ...string) {
		t.Helper()
		js, _ := json.Marshal(want)
		e.wait(what, `!!(variation && variation.data) && JSON.stringify(variation.data.line) === '`+string(js)+`' && JSON.stringify(variation.line) === '`+string(js)+`'`,
			`JSON.stringify(variation && variation.data && variation.data.line)`)
	}
	lineIs("the engine's reply played", m.Best, reply)
	replied := browsertest.Eval[map[string]string](t, tab, browsertest.DrawnPieces)
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	lineIs("← in the variation", m.Best)
	if got := browsertest.Eval[map[string]string](t, tab, browsertest.DrawnPieces); !maps.Equal(got, reached.Step.Pieces) {
		t.Errorf("← in the variation shows %v, want the position after %s", got, m.Best)
	}
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	lineIs("→ in the variation", m.Best, reply)
	if got := browsertest.Eval[map[string]string](t, tab, browsertest.DrawnPieces); !maps.Equal(got, replied) {
		t.Errorf("→ in the variation shows %v, want the position after %s again", got, reply)
	}
	click(t, tab, "#backtogame")
	e.wait("back to the game", fmt.Sprintf(`variation === null && document.getElementById("varbox").hidden && document.getElementById("ply").textContent === "move %d of 14"`, n-1), `document.getElementById("ply").textContent`)
	if got := browsertest.Eval[map[string]string](t, tab, browsertest.DrawnPieces); !maps.Equal(got, prior.Step.Pieces) {
		t.Errorf("back to the game the board shows %v, want the game's %v", got, prior.Step.Pieces)
	}
	e.targets("the analysis board back in the game")
	if e.sc.mobile {
		return
	}
	// a window too low for the grown board: a click zooms first, as a
	// finger's tap does, then plays on 44-px cells
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 560)); err != nil {
		t.Fatal(err)
	}
	e.wait("a click to zoom in a low window", `document.getElementById("board").dataset.tap === "zoom" && !document.getElementById("zoombar").hidden`,
		`document.getElementById("board").dataset.tap + " " + cellPx().toFixed(0) + " px"`)
	e.targets("the analysis board in a low window")
	click(t, tab, from)
	if mode := browsertest.Eval[string](t, tab, `document.getElementById("board").dataset.tap`); mode != "pointer" || browsertest.Eval[bool](t, tab, `variation !== null`) {
		t.Errorf("a click on the low window's board: cells clicked as %q (want pointer, 44 px at least), variation %v", mode, browsertest.Eval[any](t, tab, `variation`))
	}
	e.targets("the zoomed analysis board in a low window")
}

// e2e is one screen's walk through the pages.
type e2e struct {
	t   *testing.T
	sc  screen
	tab context.Context
}

func (e *e2e) wait(what, cond, seen string) {
	e.t.Helper()
	browsertest.WaitJS(e.t, e.tab, what, cond, seen)
}

// inView pans the zoomed board by a drag until the elements sel... are
// inside its box.
func (e *e2e) inView(sels ...string) {
	e.t.Helper()
	js := `(() => { const v = document.getElementById("board").getBoundingClientRect(); let x = 0, y = 0, out = false;
		for (const s of %s) { const r = document.querySelector(s).getBoundingClientRect(), cx = r.left + r.width / 2, cy = r.top + r.height / 2;
			x += cx / %d; y += cy / %d; if (r.left < v.left || r.right > v.right || r.top < v.top || r.bottom > v.bottom) out = true; }
		return {out: out ? 1 : 0, dx: v.left + v.width / 2 - x, dy: v.top + v.height / 2 - y, x: v.left + v.width / 2, y: v.top + v.height / 2}; })()`
	list, _ := json.Marshal(sels)
	p := browsertest.Eval[map[string]float64](e.t, e.tab, fmt.Sprintf(js, list, len(sels), len(sels)))
	if p["out"] == 0 {
		return
	}
	x, y, dx, dy := p["x"], p["y"], p["dx"], p["dy"]
	if err := chromedp.Do(e.tab, chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, x+dx/2, y+dy/2, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, x+dx, y+dy, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, x+dx, y+dy, chromedp.ButtonLeft)); err != nil {
		e.t.Fatal(err)
	}
	if p = browsertest.Eval[map[string]float64](e.t, e.tab, fmt.Sprintf(js, list, len(sels), len(sels))); p["out"] != 0 {
		e.t.Fatalf("%v not in sight on the zoomed board after a drag", sels)
	}
}

// offline waits for the page to see the daemon gone, and from then on
// records what the page learns of this phone's control (window.pairShown:
// the page asks the daemon started next when its event stream is back).
func (e *e2e) offline() {
	e.t.Helper()
	e.wait("the page to see the daemon stopped", `document.getElementById("conn").dataset.state === "offline"`, `document.getElementById("conn").textContent`)
	browsertest.Eval[bool](e.t, e.tab, `(() => { window.pairShown = []; if (!window.pairWrapped) { const f = showPairing; showPairing = p => { window.pairShown.push(p); return f(p); }; window.pairWrapped = true; } return true; })()`)
}

func (e *e2e) text(sel string) string {
	e.t.Helper()
	return browsertest.Eval[string](e.t, e.tab, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel))
}

// moveList checks the live page's move list against the board's: one
// item a move, numbered whole, in its seat's colour, the latest marked and
// on the screen without scrolling; the last move's from and to marked on
// the board.
func (e *e2e) moveList(log []companion.MoveEntry) {
	t := e.t
	t.Helper()
	e.wait(fmt.Sprintf("%d moves listed", len(log)), fmt.Sprintf(`document.querySelectorAll("#moves li").length === %d`, len(log)), `document.getElementById("moves").textContent`)
	items := browsertest.Eval[[]map[string]string](t, e.tab, `[...document.querySelectorAll("#moves li")].map(li => { const n = li.querySelector(".n"), l = li.closest("#moves").getBoundingClientRect();
		return { n: n ? n.textContent : "", clipped: String(!n || n.scrollWidth > n.clientWidth + 1 || n.getBoundingClientRect().left < l.left),
			seat: li.querySelector(".dot") ? li.querySelector(".dot").title : "", move: li.dataset.move || "", current: String(li.classList.contains("current")) }; })`)
	for i, it := range items {
		if want := fmt.Sprintf("%d.", i+1); it["n"] != want || it["clipped"] != "false" {
			t.Errorf("move %d is numbered %q (clipped %s), want %q whole", i+1, it["n"], it["clipped"], want)
		}
		if it["seat"] != log[i].Seat || it["move"] != log[i].Text {
			t.Errorf("move %d reads %s %s, the board %s %s", i+1, it["seat"], it["move"], log[i].Seat, log[i].Text)
		}
		if cur := it["current"] == "true"; cur != (i == len(log)-1) {
			t.Errorf("move %d is marked current: %v", i+1, cur)
		}
	}
	why := browsertest.Eval[string](t, e.tab, `(() => { const e = document.querySelector("#moves li.current"); if (!e) return "missing";
		const r = e.getBoundingClientRect(), l = e.closest("#moves").getBoundingClientRect();
		if (window.scrollY !== 0) return "the page is scrolled by " + window.scrollY;
		if (r.top < 0 || r.bottom > window.innerHeight) return "at y " + r.top + "–" + r.bottom + " of a " + window.innerHeight + " px screen";
		if (r.top < l.top - 1 || r.bottom > l.bottom + 1) return "at y " + r.top + "–" + r.bottom + ", the list shows " + l.top + "–" + l.bottom;
		return ""; })()`)
	if why != "" {
		t.Errorf("the latest move is not on the screen: %s", why)
	}
	last := log[len(log)-1]
	marks := browsertest.Eval[map[string]string](t, e.tab, `(() => { const o = {}; document.querySelectorAll("#board [data-last]").forEach(e => { o[e.dataset.cell] = e.dataset.last; }); return o; })()`)
	want := map[string]string{}
	for _, c := range last.From {
		want[c] = "from"
	}
	for _, c := range last.To {
		want[c] = "to"
	}
	if len(want) == 0 || !maps.Equal(marks, want) {
		t.Errorf("the last move %s: the board marks %v, want %v", last.Text, marks, want)
	}
}

// arrow checks the analysis board draws one arrow, the move named, from
// its origin to its destination.
func (e *e2e) arrow(move, from, to string) {
	t := e.t
	t.Helper()
	a := browsertest.Eval[map[string]any](t, e.tab, `(() => { const g = document.querySelectorAll("#board .arrow"); if (g.length !== 1) return {n: g.length};
		const l = g[0].querySelector("line"); if (!l) return {n: 1, move: g[0].dataset.move || ""};
		return {n: 1, move: g[0].dataset.move || "", kind: g[0].getAttribute("class"), x1: +l.getAttribute("x1"), y1: +l.getAttribute("y1"), x2: +l.getAttribute("x2"), y2: +l.getAttribute("y2")}; })()`)
	if a["n"] != float64(1) || a["move"] != move || a["x1"] == nil {
		t.Fatalf("the board's arrow is %v, want one arrow for %s", a, move)
	}
	pos := func(cell string) (float64, float64) {
		p := browsertest.Eval[map[string]float64](t, e.tab, fmt.Sprintf(`(() => { const c = board.cell(%q); return {x: c.x, y: -c.y}; })()`, cell))
		return p["x"], p["y"]
	}
	fx, fy := pos(from)
	tx, ty := pos(to)
	d := func(x, y, px, py float64) float64 { return (x-px)*(x-px) + (y-py)*(y-py) }
	x1, y1, x2, y2 := a["x1"].(float64), a["y1"].(float64), a["x2"].(float64), a["y2"].(float64)
	if d(x1, y1, fx, fy) > d(x1, y1, tx, ty) || d(x2, y2, tx, ty) > d(x2, y2, fx, fy) || d(x1, y1, fx, fy) > 0.25 || d(x2, y2, tx, ty) > 0.25 {
		t.Errorf("the arrow %v does not go from %s to %s (%s)", a, from, to, move)
	}
}

// onScreen says why the element %q is not inside the window as it is
// scrolled ("" when it is).
const onScreen = `(() => { const e = document.querySelector(%q); if (!e) return "missing"; const r = e.getBoundingClientRect();
	if (r.width === 0 && r.height === 0) return "not shown";
	if (r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > window.innerWidth) return "at " + r.left.toFixed(0) + "," + r.top.toFixed(0) + "–" + r.right.toFixed(0) + "," + r.bottom.toFixed(0) + " of a " + window.innerWidth + "×" + window.innerHeight + " window scrolled by " + window.scrollY;
	return ""; })()`

// tapTargetsJS lists the visible controls a finger can tap (buttons,
// links, fields, labels, summaries, anything with a click handler: the
// analysis board's moves and lines, the library's rows) smaller than 44×44
// CSS pixels; a box inside a label counts with its label.
const tapTargetsJS = `[...document.querySelectorAll("*")]
	.filter(e => e.matches("button, a[href], input:not([type=hidden]), select, textarea, summary, label") || typeof e.onclick === "function")
	.filter(e => !(e.tagName === "INPUT" && e.closest("label")) && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden" && !e.closest("[hidden]"))
	.map(e => [e, e.getBoundingClientRect()])
	.filter(([e, r]) => r.width < 44 || r.height < 44)
	.map(([e, r]) => (e.id ? "#" + e.id : e.tagName.toLowerCase() + (e.className ? "." + e.className : "")) + " \"" + e.textContent.trim().slice(0, 24) + "\" " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`

// cellTargetsJS lists the analysis board's cells in sight smaller than
// 44 px where taps play on them ("cells": a finger; "pointer": a mouse);
// where a tap zooms the board ("zoom") none is a target.
const cellTargetsJS = `(() => { const b = document.getElementById("board"); if (!b || !b.dataset.tap || b.dataset.tap === "zoom") return [];
	const v = b.getBoundingClientRect();
	return [...b.querySelectorAll(".hit")].map(h => [h, h.getBoundingClientRect()])
		.filter(([h, r]) => r.left + r.width / 2 > v.left && r.left + r.width / 2 < v.right && r.top + r.height / 2 > v.top && r.top + r.height / 2 < v.bottom)
		.filter(([h, r]) => r.width < 44 || r.height < 44).map(([h, r]) => h.dataset.cell + " " + r.width.toFixed(0) + "×" + r.height.toFixed(0)); })()`

// targets measures every visible tap target (≥ 44 px; the analysis
// board's cells too, where a finger plays on them) and that the page is no
// wider than the screen.
func (e *e2e) targets(where string) {
	e.t.Helper()
	small := browsertest.Eval[[]string](e.t, e.tab, tapTargetsJS)
	small = append(small, browsertest.Eval[[]string](e.t, e.tab, cellTargetsJS)...)
	if len(small) > 0 {
		e.t.Errorf("%s: tap targets under 44 px: %q", where, small)
	}
	if o := browsertest.Eval[int](e.t, e.tab, browsertest.Overflow); o > 0 {
		e.t.Errorf("%s is %d px wider than the screen", where, o)
	}
}

// shot saves the screen as e2e-STEP-SCREEN.png in the artefacts, and with
// TABLA_README_SCREENSHOT set into webui/docs (a desktop at half scale,
// to keep the files small).
func (e *e2e) shot(step string) {
	e.t.Helper()
	name := "e2e-" + step + "-" + e.sc.name
	browsertest.Screenshot(e.t, e.tab, name)
	if os.Getenv("TABLA_README_SCREENSHOT") == "" {
		return
	}
	shot, err := chromedp.Run(e.tab, chromedp.CaptureScreenshot())
	if err != nil {
		e.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		e.t.Fatal(err)
	}
	if !e.sc.mobile {
		img = halve(img)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, paletted(img)); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "webui", "docs", name+".png"), out.Bytes(), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// halve scales an image to half its width and height (each pixel the mean
// of four).
func halve(src image.Image) image.Image {
	r := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx()/2, r.Dy()/2))
	for y := range r.Dy() / 2 {
		for x := range r.Dx() / 2 {
			var sum [4]uint32
			for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
				cr, cg, cb, ca := src.At(r.Min.X+2*x+d[0], r.Min.Y+2*y+d[1]).RGBA()
				sum[0], sum[1], sum[2], sum[3] = sum[0]+cr, sum[1]+cg, sum[2]+cb, sum[3]+ca
			}
			dst.Set(x, y, color.RGBA64{uint16(sum[0] / 4), uint16(sum[1] / 4), uint16(sum[2] / 4), uint16(sum[3] / 4)})
		}
	}
	return dst
}

// paletted maps a screenshot to its 256 most frequent colours (each pixel
// the nearest): a page's flat colours survive, and the PNG is a third the
// size.
func paletted(src image.Image) *image.Paletted {
	r := src.Bounds()
	count := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[color.RGBAModel.Convert(src.At(x, y)).(color.RGBA)]++
		}
	}
	cs := slices.Collect(maps.Keys(count))
	slices.SortFunc(cs, func(a, b color.RGBA) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return int(a.R)<<16 + int(a.G)<<8 + int(a.B) - (int(b.R)<<16 + int(b.G)<<8 + int(b.B))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range cs[:min(256, len(cs))] {
		pal = append(pal, c)
	}
	dst := image.NewPaletted(r, pal)
	near := map[color.RGBA]uint8{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(src.At(x, y)).(color.RGBA)
			i, ok := near[c]
			if !ok {
				i = uint8(pal.Index(c))
				near[c] = i
			}
			dst.SetColorIndex(x, y, i)
		}
	}
	return dst
}

// waitSession waits for the session's state to meet cond, woken by its
// changes (30 s at most).
func waitSession(t *testing.T, sess *companion.Session, what string, cond func(referee.State) bool) referee.State {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := sess.Subscribe(ctx)
	for {
		s := sess.State()
		if cond(s) {
			return s
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %s; state: mode %s in_sync %v moves %v message %q", what, s.Mode, s.InSync, s.Moves, s.Message)
		}
	}
}

// litCells are the cells lit with a role, sorted.
func litCells(s referee.State, role string) []string {
	var out []string
	for c, l := range s.LEDs {
		if l.Role == role {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// liftLit lifts the first piece lit as the mover's that has somewhere to
// go, as a player's hand would, and returns it with its destinations.
func liftLit(t *testing.T, tb *table) (string, []string) {
	t.Helper()
	s := waitSession(t, tb.sess, "the mover's pieces lit", func(s referee.State) bool { return s.InSync && len(litCells(s, "turn")) > 0 })
	for _, c := range litCells(s, "turn") {
		if err := tb.vb.Lift(c); err != nil {
			t.Fatal(err)
		}
		s = waitSession(t, tb.sess, "the lift of "+c, func(s referee.State) bool { return !s.InSync })
		if dests := litCells(s, "dest"); len(dests) > 0 {
			return c, dests
		}
		if err := tb.vb.Place(c, ""); err != nil {
			t.Fatal(err)
		}
		waitSession(t, tb.sess, c+" back", func(s referee.State) bool { return s.InSync })
	}
	t.Fatalf("no piece of %v can move", litCells(s, "turn"))
	return "", nil
}

// playLit makes n moves on the virtual board: each lifts the first piece
// with somewhere to go and puts it on its first lit destination.
func playLit(t *testing.T, tb *table, n int) {
	t.Helper()
	for range n {
		k := len(tb.sess.State().Moves)
		_, dests := liftLit(t, tb)
		if err := tb.vb.Place(dests[0], ""); err != nil {
			t.Fatal(err)
		}
		waitSession(t, tb.sess, fmt.Sprintf("move %d", k+1), func(s referee.State) bool { return len(s.Moves) == k+1 && s.InSync })
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
