package webui

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// developerText is what only developers read: package prefixes, file
// positions, Go errors.
func developerText(s string) bool {
	for _, w := range []string{"webui:", "library:", "record:", "(line ", "byte ", "not found", "open ", "no such file"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// TestLibraryWords: the library and the analysis board tell people what
// went wrong in words, on a phone — an unknown game, an unreadable file —
// never the server's error text (issue 26 item 3).
func TestLibraryWords(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 4); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	srv := httptest.NewServer(Library(lib, LibraryOptions{Live: "../"}))
	defer srv.Close()
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)

	// the list: an unreadable file is named and said to be unreadable
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/library.html"), chromedp.WaitVisible(chromedp.CSS(`#rows tr.bad`))); err != nil {
		t.Fatal(err)
	}
	rows := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll("#rows tr.bad")].map(r => r.textContent)`)
	for _, r := range rows {
		if developerText(r) || !strings.Contains(r, "cannot be read as a game") {
			t.Errorf("an unreadable file's row says %q", r)
		}
	}

	// a game that is not there, and one whose file is unreadable
	bad := browsertest.Eval[string](t, ctx, `document.querySelector("#rows tr.bad").dataset.id`)
	for _, id := range []string{"no-such-game.jsonl", bad} {
		if err := chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/game.html?id=%s", srv.URL, id)), chromedp.WaitVisible(chromedp.CSS(`.error`))); err != nil {
			t.Fatal(err)
		}
		browsertest.WaitPage(t, "the error in words", func(l *browsertest.Look) bool {
			return browsertest.Read[string](l, ctx, `document.querySelector(".error").textContent`) != ""
		}, nil)
		if got := browsertest.Eval[string](t, ctx, `document.querySelector(".error").textContent`); developerText(got) || !strings.Contains(got, "This game") {
			t.Errorf("game %s: the page says %q, want words for people", id, got)
		}
	}

	// a readable game on the analysis board: its step buttons and links
	// are tap targets of 44 px at least
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/library.html"), chromedp.WaitVisible(chromedp.CSS(`#rows tr.game`))); err != nil {
		t.Fatal(err)
	}
	good := browsertest.Eval[string](t, ctx, `document.querySelector("#rows tr.game").dataset.id`)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/game.html?id="+good), chromedp.WaitVisible(chromedp.CSS(`#next`))); err != nil {
		t.Fatal(err)
	}
	small := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll(".steps button, button, select, input")]
		.filter(e => e.offsetParent !== null).map(e => [e, e.getBoundingClientRect()])
		.filter(([e, r]) => r.width < 44 || r.height < 44).map(([e, r]) => (e.id || e.tagName) + " " + r.width.toFixed(0) + "×" + r.height.toFixed(0))`)
	if len(small) > 0 {
		t.Errorf("the analysis board's controls under 44 px: %v", small)
	}
}
