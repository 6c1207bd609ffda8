package library_test

import (
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// TestFirstIndexProgressPage: while the first index of a library reads its
// files, the library page counts them ("Reading the library… 3 of 10
// games"), then lists the games (issue 26 item 5). The index is held after
// three files by a hook, so the count seen is exact.
func TestFirstIndexProgressPage(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteMany(dir, 10, 5); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	var n atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	library.SetReadHook(lib, func(string) {
		if n.Add(1) > 3 {
			<-release
		}
	})
	srv := httptest.NewServer(webui.Library(lib, webui.LibraryOptions{}))
	defer srv.Close()
	defer free() // before the server's Close, which waits for the held listing
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	const want = "Reading the library… 3 of 10 games"
	const summary = `document.getElementById("summary").textContent`
	seen := func(l *browsertest.Look) string { return browsertest.Read[string](l, ctx, summary) }
	browsertest.WaitPage(t, "the count of the files read", func(l *browsertest.Look) bool { return seen(l) == want }, seen)
	browsertest.Screenshot(t, ctx, "library-first-index-phone")
	free()
	browsertest.WaitPage(t, "the list", func(l *browsertest.Look) bool {
		return browsertest.Read[int](l, ctx, `document.querySelectorAll("#rows tr.game").length`) == 10
	}, seen)
	if s := browsertest.Eval[string](t, ctx, summary); s != "10 files: 10 games" {
		t.Errorf("after the index the summary says %q", s)
	}
}
