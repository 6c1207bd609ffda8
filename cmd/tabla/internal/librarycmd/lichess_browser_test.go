package librarycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// The analysis board a lichess user expects (issue 38 item 5), each part
// checked by what it does on a 390×844 phone.

// lichessLibrary writes the test library and a game with players' names,
// an event and clocks (timed.jsonl).
func lichessLibrary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	rec, err := librarytest.Timed(24)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "timed.jsonl"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func key(t *testing.T, ctx context.Context, k string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(k)); err != nil {
		t.Fatal(err)
	}
}

// barShares is the evaluation bar's segments: side → share of its height.
const barShares = `(() => { const b = document.getElementById("evalbar"), h = b.getBoundingClientRect().height - 2, out = {};
	for (const d of b.children) out[d.dataset.side] = d.getBoundingClientRect().height / h; return out; })()`

// TestAnalysisEvalBarKeysFlip: the evaluation bar shows each side's win
// probability of the analysis at the step shown, and follows the steps;
// ↑/↓ go to the start and the end, ← and → a move, Home/End too; f and
// the ⇅ button turn the board half a turn (the cells change places, the
// pieces stay on their cells, a link keeps it), the zoom buttons still
// cover no cell.
func TestAnalysisEvalBarKeysFlip(t *testing.T) {
	base, lib := serveLibrary(t, lichessLibrary(t))
	const id = "gyges.jsonl"
	a := analysed(t, lib, id)
	g, err := lib.Game(id)
	if err != nil {
		t.Fatal(err)
	}
	last := len(g.Steps) - 1
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	openGame(t, ctx, base, id, 10)
	bar := func(step int) {
		t.Helper()
		want := a.Report.Start
		if step > 0 {
			want = a.Report.Moves[step-1].Values
		}
		var got map[string]float64
		browsertest.WaitPage(t, fmt.Sprintf("the bar at step %d", step), func(l *browsertest.Look) bool {
			got = browsertest.Read[map[string]float64](l, ctx, barShares)
			sum := 0.0
			for _, v := range want {
				sum += v
			}
			for i, side := range g.Sides {
				if len(got) != len(g.Sides) || math.Abs(got[side]-want[i]/sum) > 0.02 {
					return false
				}
			}
			return true
		}, func(l *browsertest.Look) string { return fmt.Sprintf("%v, want %v of %v", got, want, g.Sides) })
	}
	at := func(want int, how string) {
		t.Helper()
		wantText := fmt.Sprintf("move %d of %d", want, last)
		if want == 0 {
			wantText = "start"
		}
		if p := text(t, ctx, "#ply"); p != wantText {
			t.Errorf("after %s the page is at %q, want %q", how, p, wantText)
		}
		if got := browsertest.Eval[map[string]string](t, ctx, browsertest.DrawnPieces); !maps.Equal(got, g.Steps[want].Pieces) {
			t.Errorf("after %s the board is not step %d's", how, want)
		}
	}
	bar(10)
	for _, k := range []struct {
		key  string
		want int
	}{{kb.ArrowDown, last}, {kb.ArrowUp, 0}, {kb.ArrowRight, 1}, {kb.ArrowRight, 2}, {kb.ArrowLeft, 1}, {kb.End, last}, {kb.Home, 0}, {kb.ArrowRight, 1}} {
		key(t, ctx, k.key)
		at(k.want, fmt.Sprintf("key %q", k.key))
	}
	bar(1)
	key(t, ctx, kb.ArrowDown)
	bar(last)

	// flip: the board turns half a turn: every cell goes to the place
	// mirrored through the board's middle (each cell's centre before plus
	// after is the same point for all); the pieces stay on their cells
	centres := func() map[string][2]float64 {
		return browsertest.Eval[map[string][2]float64](t, ctx, `(() => { const out = {}; for (const h of document.querySelectorAll("#board .hit")) { const r = h.getBoundingClientRect(); out[h.dataset.cell] = [r.left + r.width / 2, r.top + r.height / 2]; } return out; })()`)
	}
	turned := func(before, after map[string][2]float64) string {
		var mid [2]float64
		moved := false
		for i, c := range g.Board.Cells {
			b, a := before[c.Name], after[c.Name]
			sum := [2]float64{a[0] + b[0], a[1] + b[1]}
			if i == 0 {
				mid = sum
			} else if math.Abs(sum[0]-mid[0]) > 1 || math.Abs(sum[1]-mid[1]) > 1 {
				return fmt.Sprintf("%s went from %v to %v, not mirrored through %v", c.Name, b, a, [2]float64{mid[0] / 2, mid[1] / 2})
			}
			moved = moved || math.Abs(a[0]-b[0]) > 1 || math.Abs(a[1]-b[1]) > 1
		}
		if !moved {
			return "no cell moved"
		}
		return ""
	}
	c0 := centres()
	key(t, ctx, "f")
	if bad := turned(c0, centres()); bad != "" {
		t.Errorf("f: %s", bad)
	}
	if got := browsertest.Eval[map[string]string](t, ctx, browsertest.DrawnPieces); !maps.Equal(got, g.Steps[last].Pieces) {
		t.Errorf("flipped, the board shows %v, want step %d's %v", got, last, g.Steps[last].Pieces)
	}
	if s := browsertest.Eval[string](t, ctx, `location.search`); !strings.Contains(s, "flip=1") {
		t.Errorf("flipped, the address is %q", s)
	}
	if browsertest.Eval[bool](t, ctx, `getComputedStyle(document.getElementById("evalbar")).flexDirection`+` !== "column"`) {
		t.Error("flipped, the bar keeps the first side at the bottom")
	}
	browsertest.Screenshot(t, ctx, "analysis-flipped-phone")
	// a link with flip=1 opens flipped
	navigate(t, ctx, browsertest.Eval[string](t, ctx, `location.href`), "#board [data-cell]")
	flipped := centres()
	if bad := turned(c0, flipped); bad != "" {
		t.Errorf("the flipped link: %s", bad)
	}
	browsertest.Click(t, ctx, "#flip")
	if bad := turned(flipped, centres()); bad != "" {
		t.Errorf("⇅: %s", bad)
	}

	// STAR's board on the phone shows the zoom buttons: flipped, beside
	// the bar, they cover no cell
	openGame(t, ctx, base, "star.jsonl", 4)
	if browsertest.Eval[bool](t, ctx, `document.getElementById("zoombar").hidden`) {
		t.Fatal("STAR on a phone has no zoom buttons: the case is gone")
	}
	for _, how := range []string{"as opened", "flipped"} {
		if how == "flipped" {
			key(t, ctx, "f")
		}
		if over := browsertest.Eval[[]string](t, ctx, browsertest.ZoomOverCells); len(over) > 0 {
			t.Errorf("%s, the zoom buttons cover %v", how, over)
		}
		if o := browsertest.Eval[int](t, ctx, browsertest.Overflow); o > 0 {
			t.Errorf("%s, the page is %d px wider than the phone", how, o)
		}
	}
}

// clockText is Tabla.clockText: m:ss, h:mm:ss.
func clockText(ms int64) string {
	s := (ms + 999) / 1000
	if h := s / 3600; h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, s%3600/60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// TestAnalysisPlayersClocks: the players' names and the event of the
// record's header are on the board's page, each seat's clock as it stood
// after the move shown, and each move's time in the move list.
func TestAnalysisPlayersClocks(t *testing.T) {
	base, lib := serveLibrary(t, lichessLibrary(t))
	const id = "timed.jsonl"
	g, err := lib.Game(id)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	openGame(t, ctx, base, id, 3)
	players := text(t, ctx, "#players")
	for _, want := range []string{"Ayşe Yılmaz", "Mehmet Öz", "Kadıköy club night", "round 3"} {
		if !strings.Contains(players, want) {
			t.Errorf("the players' panel reads %q, want %q in it", players, want)
		}
	}
	browsertest.Screenshot(t, ctx, "analysis-players-phone")
	for _, step := range []int{3, 4, 0} {
		if step != 3 {
			browsertest.Click(t, ctx, fmt.Sprintf(`#movelist li[data-step="%d"]`, step))
		}
		for seat, ms := range g.Steps[step].Clocks {
			if got, want := text(t, ctx, fmt.Sprintf(`#players .player[data-seat=%q] .clock`, seat)), clockText(ms); got != want {
				t.Errorf("at step %d %s's clock reads %q, want %q", step, seat, got, want)
			}
		}
	}
	if got := text(t, ctx, `#movelist li[data-step="2"] .ms`); got != "2.2 s" {
		t.Errorf("move 2's time reads %q, want 2.2 s", got)
	}
	// a game without names, event or clock has no panel
	openGame(t, ctx, base, "gyges.jsonl", 3)
	if !browsertest.Eval[bool](t, ctx, `document.getElementById("players").hidden && !document.querySelector("#movelist .ms")`) {
		t.Error("a game without names or clocks shows the players' panel or move times")
	}
}

// vars is the tree of variations the move list shows: every move's line.
const treeShown = `[...document.querySelectorAll("#movelist li.vars .vmove")].map(s => s.dataset.ply + ":" + JSON.parse(s.dataset.line).join(" "))`

// TestAnalysisVariationTree: a variation played on the board from any
// position stays in the move list after the move it replaces, a second
// one from inside it as a sub-variation in brackets; ← back out of a
// one-move variation and → plays it again (issue 38: → stepped the game
// instead), and → follows the tree's line on; a tap on a move of the tree
// opens it; the link of a variation opens it in another browser; the
// tree survives a reload; the annotated download carries it.
func TestAnalysisVariationTree(t *testing.T) {
	base, lib := serveLibrary(t, lichessLibrary(t))
	const id, ply = "gyges.jsonl", 14 // after the twelve placements
	analysed(t, lib, id)
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	openGame(t, ctx, base, id, ply)
	legal := func() []string {
		t.Helper()
		browsertest.WaitPage(t, "the legal moves", func(l *browsertest.Look) bool {
			return browsertest.Read[bool](l, ctx, `!!(legalAt && legalAt.legal && legalAt.legal.length)`)
		}, nil)
		// the moves from a cell to a cell that no other move joins: one
		// tap on each plays them
		return browsertest.Eval[[]string](t, ctx, `legalAt.legal.filter(a => a.from.length && a.to.length && legalAt.legal.filter(b => b.from[0] === a.from[0] && b.to[0] === a.to[0]).length === 1).map(a => a.move)`)
	}
	// a move played on the board: a tap on the piece, a tap on its
	// destination (a first tap zooms a board too small for a finger)
	playOnBoard := func(move string) {
		t.Helper()
		from := browsertest.Eval[string](t, ctx, fmt.Sprintf(`legalAt.legal.find(a => a.move === %q).from[0]`, move))
		to := browsertest.Eval[string](t, ctx, fmt.Sprintf(`legalAt.legal.find(a => a.move === %q).to[0]`, move))
		// the engine's lines in: the page below the board settled
		browsertest.WaitJS(t, ctx, "the engine's lines", `!document.getElementById("linesdepth").textContent.includes("thinking")`, `document.getElementById("linesdepth").textContent`)
		// as a player does: the whole board first (a zoomed board may
		// have the piece out of sight), then a tap zooms in around it
		if !browsertest.Eval[bool](t, ctx, `document.getElementById("zoombar").hidden`) {
			browsertest.Click(t, ctx, "#zoomfit")
		}
		if browsertest.Eval[string](t, ctx, `document.getElementById("board").dataset.tap`) == "zoom" {
			browsertest.Click(t, ctx, fmt.Sprintf(`#board .hit[data-cell=%q]`, from))
		}
		browsertest.Click(t, ctx, fmt.Sprintf(`#board .hit[data-cell=%q]`, from))
		if n := browsertest.Eval[int](t, ctx, fmt.Sprintf(`legalAt.legal.filter(a => a.from[0] === %q && a.to[0] === %q).length`, from, to)); n > 1 {
			t.Fatalf("%s: %d moves between %s and %s", move, n, from, to)
		}
		browsertest.Click(t, ctx, fmt.Sprintf(`#board .hit[data-cell=%q]`, to))
	}
	line := func(want ...string) {
		t.Helper()
		js := fmt.Sprintf(`!!(variation && variation.data && JSON.stringify(variation.line) === %q)`, mustJSON(t, want))
		browsertest.WaitJS(t, ctx, fmt.Sprintf("the variation %q", want), js, `JSON.stringify(variation && variation.line)`)
	}
	inGame := func(how string) {
		t.Helper()
		browsertest.WaitJS(t, ctx, "the game after "+how, `variation === null`, `JSON.stringify(variation && variation.line)`)
	}
	tree := func(want ...string) {
		t.Helper()
		browsertest.WaitPage(t, fmt.Sprintf("the move list's tree %q", want), func(l *browsertest.Look) bool {
			return strings.Join(browsertest.Read[[]string](l, ctx, treeShown), "|") == strings.Join(want, "|")
		}, func(l *browsertest.Look) string { return fmt.Sprint(browsertest.Read[[]string](l, ctx, treeShown)) })
	}

	m1 := legal()[0]
	playOnBoard(m1)
	line(m1)
	tree(fmt.Sprintf("%d:%s", ply, m1))
	// shown after the move it replaces
	if !browsertest.Eval[bool](t, ctx, fmt.Sprintf(`document.querySelector('#movelist li[data-step="%d"]').nextElementSibling.classList.contains("vars")`, ply+1)) {
		t.Errorf("the variation is not after move %d in the list", ply+1)
	}
	// ← leaves the one-move variation, → plays it again
	key(t, ctx, kb.ArrowLeft)
	inGame("←")
	key(t, ctx, kb.ArrowRight)
	line(m1)
	r1 := legal()[0]
	playOnBoard(r1)
	line(m1, r1)
	tree(fmt.Sprintf("%d:%s", ply, m1), fmt.Sprintf("%d:%s %s", ply, m1, r1))
	// a sub-variation: back one move, another reply
	key(t, ctx, kb.ArrowLeft)
	line(m1)
	r2 := ""
	for _, m := range legal() {
		if m != r1 {
			r2 = m
			break
		}
	}
	playOnBoard(r2)
	line(m1, r2)
	tree(fmt.Sprintf("%d:%s", ply, m1), fmt.Sprintf("%d:%s %s", ply, m1, r1), fmt.Sprintf("%d:%s %s", ply, m1, r2))
	if got := text(t, ctx, "#movelist li.vars .vparen"); !strings.HasPrefix(got, "(") || !strings.Contains(got, r2) {
		t.Errorf("the sub-variation reads %q, want it in brackets", got)
	}
	browsertest.Eval[bool](t, ctx, `(document.querySelector("#movelist li.vars").scrollIntoView({ block: "center" }), true)`)
	browsertest.Screenshot(t, ctx, "analysis-variation-tree-phone")
	// → plays again what ← took back
	key(t, ctx, kb.ArrowLeft)
	line(m1)
	key(t, ctx, kb.ArrowRight)
	line(m1, r2)
	// a tap on the tree's first move, then →: the tree's first line on
	browsertest.Click(t, ctx, fmt.Sprintf(`#movelist .vmove[data-line=%q]`, mustJSON(t, []string{m1})))
	line(m1)
	key(t, ctx, kb.ArrowRight)
	line(m1, r1)
	// ↓: the end of the line
	browsertest.Click(t, ctx, fmt.Sprintf(`#movelist .vmove[data-line=%q]`, mustJSON(t, []string{m1})))
	line(m1)
	key(t, ctx, kb.ArrowDown)
	line(m1, r1)
	// a tap on a move of the tree opens it there
	browsertest.Click(t, ctx, fmt.Sprintf(`#movelist .vmove[data-line=%q]`, mustJSON(t, []string{m1, r2})))
	line(m1, r2)
	if !browsertest.Eval[bool](t, ctx, `document.querySelector("#movelist .vmove.current").dataset.line === JSON.stringify(variation.line)`) {
		t.Error("the variation shown is not marked in the tree")
	}
	// its link: in another browser (no tree of its own) it opens there
	link := browsertest.Eval[string](t, ctx, `location.href`)
	u, _ := url.Parse(link)
	if q := u.Query(); q.Get("ply") != fmt.Sprint(ply) || strings.Join(q["m"], " ") != m1+" "+r2 {
		t.Errorf("the variation's link is %s", link)
	}
	other := browsertest.Incognito(t, ctx)
	browsertest.Phone(t, other)
	navigate(t, other, link, "#board [data-cell]")
	browsertest.WaitJS(t, other, "the linked variation", fmt.Sprintf(`!!(variation && variation.data && JSON.stringify(variation.line) === %q)`, mustJSON(t, []string{m1, r2})), `JSON.stringify(variation && variation.line)`)
	if got := browsertest.Eval[map[string]string](t, other, browsertest.DrawnPieces); !maps.Equal(got, mustExplore(t, lib, id, ply, m1, r2)) {
		t.Errorf("the linked variation shows %v", got)
	}
	// a reload keeps the tree
	openGame(t, ctx, base, id, 2)
	tree(fmt.Sprintf("%d:%s", ply, m1), fmt.Sprintf("%d:%s %s", ply, m1, r1), fmt.Sprintf("%d:%s %s", ply, m1, r2))
	// the annotated download carries both lines
	ann := browsertest.Eval[string](t, ctx, `fetch(document.getElementById("dlannotated").href).then(r => r.text())`)
	var got []string
	for _, l := range strings.Split(ann, "\n") {
		var c library.Comment
		if json.Unmarshal([]byte(l), &c) == nil && len(c.Variation) > 0 {
			got = append(got, fmt.Sprintf("%d:%s", c.Ply, strings.Join(c.Variation, " ")))
		}
	}
	want := []string{fmt.Sprintf("%d:%s %s", ply, m1, r1), fmt.Sprintf("%d:%s %s", ply, m1, r2)}
	if r2 < r1 {
		want[0], want[1] = want[1], want[0]
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the annotated record's variations: %q, want %q", got, want)
	}
}

// call sends one DevTools command to the tab.
func call[P, R any](t *testing.T, ctx context.Context, c cdp.Command[P, R], p P) R {
	t.Helper()
	return browsertest.Call(t, ctx, c, p)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustExplore(t *testing.T, lib *library.Library, id string, ply int, line ...string) map[string]string {
	t.Helper()
	x, err := lib.Explore(id, ply, line)
	if err != nil {
		t.Fatal(err)
	}
	return x.Step.Pieces
}

// TestLibraryThemes: the library's pages follow the system's light or
// dark scheme; the switch in the header changes the page's colours and is
// remembered across pages and reloads.
func TestLibraryThemes(t *testing.T) {
	base, _ := serveLibrary(t, lichessLibrary(t))
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	colours := `[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.querySelector(".panel, .filters select")).backgroundColor, getComputedStyle(document.body).color]`
	const dark, light = "rgb(29, 35, 48)", "rgb(244, 241, 234)"
	look := func(c context.Context, page, ready, want string) {
		t.Helper()
		navigate(t, c, base+page, ready)
		if got := browsertest.Eval[[]string](t, c, colours); got[0] != want {
			t.Errorf("%s: the page's colours are %v, want the background %s", page, got, want)
		}
	}
	// a dark system (headless Chromium's is light)
	scheme := func(c context.Context, v string) {
		t.Helper()
		call(t, c, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
	}
	scheme(ctx, "dark")
	look(ctx, "", "#rows tr.game", dark)
	before := browsertest.Eval[[]string](t, ctx, colours)
	if !browsertest.Eval[bool](t, ctx, `!!document.getElementById("themeswitch")`) {
		t.Fatal("the library has no theme switch")
	}
	browsertest.Click(t, ctx, "#themeswitch")
	after := browsertest.Eval[[]string](t, ctx, colours)
	for i := range before {
		if before[i] == after[i] {
			t.Errorf("the switch left colour %d at %s", i, before[i])
		}
	}
	if after[0] != light {
		t.Errorf("switched, the background is %s, want %s", after[0], light)
	}
	browsertest.Screenshot(t, ctx, "library-light-phone")
	look(ctx, "game.html?id=gyges.jsonl&ply=5", "#board [data-cell]", light)
	if cell := browsertest.Eval[string](t, ctx, `getComputedStyle(document.querySelector("#board .cell")).fill`); cell != "rgb(217, 211, 196)" {
		t.Errorf("the light board's cells are %s", cell)
	}
	browsertest.Screenshot(t, ctx, "analysis-light-phone")
	look(ctx, "stats.html", "[data-chart]", light)
	browsertest.Click(t, ctx, "#themeswitch")
	look(ctx, "", "#rows tr.game", dark)

	// no choice made: the system's scheme
	sys := browsertest.Incognito(t, ctx)
	browsertest.Phone(t, sys)
	scheme(sys, "light")
	look(sys, "", "#rows tr.game", light)
	scheme(sys, "dark")
	look(sys, "", "#rows tr.game", dark)
	// the switch's words are in the page's language
	if got := browsertest.Eval[string](t, ctx, `document.getElementById("themeswitch").getAttribute("aria-label")`); got != "Light theme" {
		t.Errorf("the switch says %q", got)
	}
}

// serveStoppable is serveLibrary with a stop: the server gone, as a
// laptop away from the table finds it.
func serveStoppable(t *testing.T, dir string) (base string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rc := make(chan string, 1)
	var logs bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &logs, Err: &logs}, Dir: dir, Listen: "127.0.0.1:0", Level: 1, Workers: 1, LogFormat: "text",
		Ready: func(addr string, lib *library.Library) { rc <- addr }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	select {
	case addr := <-rc:
		base = "http://" + addr + "/"
	case err := <-done:
		t.Fatalf("library: %v\n%s", err, logs.String())
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return base, stop
}

// TestLibraryOffline: the library is an installable web app (its manifest
// served, valid, its icons there at their sizes; Chromium finds nothing
// that stops it being installed), its service worker registers, and with
// the server stopped the library and a game read before still open:
// the listing, the board at its step, the move list, the analysis.
func TestLibraryOffline(t *testing.T) {
	dir := lichessLibrary(t)
	base, stop := serveStoppable(t, dir)
	// the manifest, as any browser reads it
	r, err := http.Get(base + "manifest.webmanifest")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, ShortName, StartURL, Scope, Display string
		Icons                                     []struct{ Src, Sizes, Type string }
	}
	body := new(bytes.Buffer)
	body.ReadFrom(r.Body)
	r.Body.Close()
	if ct := r.Header.Get("Content-Type"); r.StatusCode != 200 || ct != "application/manifest+json" {
		t.Errorf("the manifest: %d, %s", r.StatusCode, ct)
	}
	if err := json.Unmarshal(body.Bytes(), &m); err != nil {
		t.Fatalf("the manifest: %v", err)
	}
	var raw map[string]any
	json.Unmarshal(body.Bytes(), &raw)
	if raw["short_name"] == "" || raw["start_url"] != "./" || raw["display"] != "standalone" || m.Name == "" || len(m.Icons) == 0 {
		t.Errorf("the manifest: %s", body)
	}
	for _, ic := range m.Icons {
		r, err := http.Get(base + ic.Src)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != ic.Type {
			t.Errorf("icon %s: %d %s, the manifest says %s", ic.Src, r.StatusCode, r.Header.Get("Content-Type"), ic.Type)
		}
		if ic.Type == "image/png" {
			c, _, err := image.DecodeConfig(r.Body)
			if err != nil || fmt.Sprintf("%dx%d", c.Width, c.Height) != ic.Sizes {
				t.Errorf("icon %s: %dx%d (%v), the manifest says %s", ic.Src, c.Width, c.Height, err, ic.Sizes)
			}
		}
		r.Body.Close()
	}

	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(base)); err != nil {
		t.Fatal(err)
	}
	// once the worker is ready the page reloads, once (the wait's poll
	// looks every 20 ms: each look asking for a reload restarted it), and
	// the wait ends on the new page, the worker's (which asks for none:
	// it has its controller from the start). A page that asked for
	// the reload is never the one: the worker's clients.claim() gives it a
	// controller before the reload comes, and Chromium's answers about the
	// manifest, asked for then, were for a page on its way out (no
	// manifest, or no answer at all)
	browsertest.WaitJS(t, ctx, "the service worker", `!!navigator.serviceWorker.controller && !window.reloading && document.readyState === "complete" || (!navigator.serviceWorker.controller && !window.reloading && (window.reloading = navigator.serviceWorker.ready.then(() => location.reload())), false)`, `String(navigator.serviceWorker.controller) + " " + document.readyState + (window.reloading ? " (reload asked)" : "")`)
	// Chromium's own verdict on the manifest and on installing the app
	man := call(t, ctx, page.GetAppManifest, page.GetAppManifestParams{})
	if man.Manifest == nil || man.URL != base+"manifest.webmanifest" {
		t.Errorf("Chromium reads no manifest of the page (%q)", man.URL)
	}
	for _, e := range man.Errors {
		t.Errorf("the manifest, says Chromium: %s (line %d)", e.Message, e.Line)
	}
	for _, e := range call(t, ctx, page.GetInstallabilityErrors, cdp.Empty{}).InstallabilityErrors {
		t.Errorf("not installable, says Chromium: %s %v", e.ErrorID, e.ErrorArguments)
	}
	// a game read online
	const id = "timed.jsonl"
	openGame(t, ctx, base, id, 5)
	online := browsertest.Eval[map[string]string](t, ctx, browsertest.DrawnPieces)
	moves := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#movelist li[data-step]").length`)
	games := browsertest.Eval[int](t, ctx, `fetch("api/games").then(r => r.json()).then(g => g.length)`)

	stop()
	if _, err := http.Get(base); err == nil {
		t.Fatal("the server still answers")
	}
	navigate(t, ctx, base+"game.html?id="+url.QueryEscape(id)+"&ply=5", "#board [data-cell]")
	browsertest.WaitJS(t, ctx, "the game offline, analysed", `!!(ana && document.querySelectorAll("#movelist li[data-step]").length > 0)`, `document.body.innerText.slice(0, 300)`)
	if got := browsertest.Eval[map[string]string](t, ctx, browsertest.DrawnPieces); !maps.Equal(got, online) {
		t.Errorf("offline the board shows %v, online %v", got, online)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#movelist li[data-step]").length`); n != moves {
		t.Errorf("offline the move list has %d moves, online %d", n, moves)
	}
	if !strings.Contains(text(t, ctx, "#players"), "Ayşe Yılmaz") {
		t.Errorf("offline the players read %q", text(t, ctx, "#players"))
	}
	browsertest.Screenshot(t, ctx, "analysis-offline-phone")
	navigate(t, ctx, base, "#rows tr.game")
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#rows tr.game").length`); n == 0 || n > games {
		t.Errorf("offline the library lists %d games, online %d", n, games)
	}
}
