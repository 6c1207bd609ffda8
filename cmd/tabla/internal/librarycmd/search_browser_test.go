package librarycmd

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// libraryTapTargets lists the library's visible controls (and its rows and
// sorting headers) under 44 px tall (or narrow).
const libraryTapTargets = `[...document.querySelectorAll("button, select, input, header nav a, #rows tr.game, th[data-sort]")]
	.filter(e => e.offsetParent !== null || e.tagName === "TR")
	.map(e => [e, e.getBoundingClientRect()])
	.filter(([e, r]) => r.width > 0 && (r.height < 44 || r.width < 44))
	.map(([e, r]) => (e.id || e.textContent.trim().slice(0, 20)) + " " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`

// TestLibrarySearchAndCharts: the library's search finds a game by a move
// played late in it and by a header field; a tap on a chart's bar opens
// its game (a bar of one game) or the library showing the bar's games; the
// charts' tap areas are 44 px on a phone.
func TestLibrarySearchAndCharts(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "gyges.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	club := strings.Replace(string(data), `"game":"gyges"`, `"game":"gyges","meta":{"event":"Spring Open","players":{"south":"Alice"}}`, 1)
	if err := os.WriteFile(filepath.Join(dir, "club.jsonl"), []byte(club), 0o644); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	g, err := lib.Game("star.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	late := g.Steps[len(g.Steps)-1].Move
	desk := browsertest.Start(t)
	for _, vp := range viewports {
		viewport(t, desk, vp.width, vp.height, vp.mobile)
		navigate(t, desk, base, "#rows tr.game")
		const rows = `[...document.querySelectorAll("#rows tr")].map(r => r.dataset.id)`
		shown := func(l *browsertest.Look) []string {
			ids := browsertest.Read[[]string](l, desk, rows)
			slices.Sort(ids)
			return ids
		}
		search := func(q string, want []string) {
			t.Helper()
			browsertest.Eval[bool](t, desk, fmt.Sprintf(`(() => { const s = document.getElementById("fsearch"); s.value = %q; s.dispatchEvent(new Event("input")); return true; })()`, q))
			browsertest.WaitPage(t, "the search for "+q, func(l *browsertest.Look) bool { return slices.Equal(shown(l), want) }, func(l *browsertest.Look) string { return fmt.Sprint(shown(l)) })
		}
		search(late, lib.Search(late))
		if got := browsertest.Eval[[]string](t, desk, rows); !slices.Contains(got, "star.jsonl") {
			t.Errorf("%s: searching %q (star.jsonl's last move) shows %q", vp.name, late, got)
		}
		search("spring open", []string{"club.jsonl"})
		search("alice "+late, []string{})
		search("", []string{"binary.jsonl", "club.jsonl", "daha.jsonl", "empty.jsonl", "foreign.jsonl", "gyges.jsonl", "ray.jsonl", "six.jsonl", "star-missed-win.jsonl", "star.jsonl", "torn.jsonl"})
		if n := browsertest.Eval[int](t, desk, `document.querySelectorAll("#rows tr.game").length`); n < 5 {
			t.Errorf("%s: %d rows after the search is cleared", vp.name, n)
		}
		if small := browsertest.Eval[[]string](t, desk, libraryTapTargets); len(small) > 0 {
			t.Errorf("%s: library tap targets under 44 px: %q", vp.name, small)
		}
		browsertest.Screenshot(t, desk, "library-search-"+vp.name)
	}

	// the charts, on 60 more games
	if err := librarytest.WriteMany(dir, 60, 11); err != nil {
		t.Fatal(err)
	}
	st, err := lib.Stats()
	if err != nil {
		t.Fatal(err)
	}
	for _, vp := range viewports {
		viewport(t, desk, vp.width, vp.height, vp.mobile)
		navigate(t, desk, base+"stats.html", "[data-chart]")
		// every link of a chart is a tap area of 44 px at least, on a
		// phone and on a desktop
		small := browsertest.Eval[[]string](t, desk, `[...document.querySelectorAll(".chart [data-open]")]
			.map(e => [e, e.getBoundingClientRect()]).filter(([e, r]) => r.width < 44 || r.height < 44).map(([e, r]) => e.getAttribute("class") + " " + e.dataset.open + " " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`)
		if len(small) > 0 {
			t.Errorf("%s: chart tap areas under 44 px: %q", vp.name, small)
		}
		if n := browsertest.Eval[int](t, desk, `document.querySelectorAll(".chart [data-open]").length`); n == 0 {
			t.Errorf("%s: no chart opens games", vp.name)
		}
		// a first move played once opens its game
		var one, many string
		var manyCount int
		for _, gs := range st.Games {
			for _, f := range gs.FirstMoves {
				if f.Games == 1 && one == "" {
					one = fmt.Sprintf(`[data-chart="first-%s"] .hitrow[data-move=%q]`, gs.Game, f.Move)
				}
			}
		}
		if one == "" {
			t.Fatal("no first move played once")
		}
		want := browsertest.Eval[string](t, desk, fmt.Sprintf(`document.querySelector(%q).dataset.open`, one))
		browsertest.Click(t, desk, one)
		browsertest.WaitPage(t, "the game of the bar", func(l *browsertest.Look) bool {
			return strings.Contains(browsertest.Read[string](l, desk, `location.href`), "game.html?id=")
		}, func(l *browsertest.Look) string { return browsertest.Read[string](l, desk, `location.href`) })
		id, _ := url.QueryUnescape(strings.TrimPrefix(want, "game.html?id="))
		if e, _, err := lib.Entry(id); err != nil || e.Plies == 0 {
			t.Errorf("%s: the bar opened %q: %v", vp.name, want, err)
		}
		navigate(t, desk, base+"game.html?id="+url.QueryEscape(id), "#board [data-cell]")

		// a length bar of several games shows them in the library
		navigate(t, desk, base+"stats.html", "[data-chart]")
		many = browsertest.Eval[string](t, desk, `(() => { const e = [...document.querySelectorAll("[data-chart^=lengths-] .hitcol")].find(e => +e.dataset.count > 1); e.id = "manybar"; return e.dataset.open; })()`)
		manyCount = browsertest.Eval[int](t, desk, `+document.getElementById("manybar").dataset.count`)
		browsertest.Click(t, desk, "#manybar")
		browsertest.WaitPage(t, "the library of the bar "+many, func(l *browsertest.Look) bool {
			return browsertest.Read[int](l, desk, `document.querySelectorAll("#rows tr.game").length`) == manyCount
		}, func(l *browsertest.Look) string { return readText(l, desk, "#summary") })
		if browsertest.Eval[bool](t, desk, `document.getElementById("chartfilter").hidden`) {
			t.Errorf("%s: the library does not say it shows a chart's games", vp.name)
		}
		browsertest.Screenshot(t, desk, "library-from-chart-"+vp.name)
		browsertest.Click(t, desk, "#clearchart")
		// the click reaches the page's handler after Click returns: wait
		// for more rows than the bar's (failing with the count at the
		// deadline)
		browsertest.WaitJS(t, desk, vp.name+": all games after Show all", fmt.Sprintf(`document.querySelectorAll("#rows tr.game").length > %d`, manyCount), `document.querySelectorAll("#rows tr.game").length + " games"`)
	}
}
