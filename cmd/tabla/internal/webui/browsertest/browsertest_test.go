package browsertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// twoPages serves /page: "first" the first time, then "second".
func twoPages(t *testing.T) string {
	var mu sync.Mutex
	served := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/page" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		served++
		title := "first"
		if served > 1 {
			title = "second"
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>%s</title><a href="/page">again</a>`, title)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/page"
}

// leave is how a tab leaves the first page: by a link or a reload.
var leave = []struct{ name, js string }{
	{"link", `document.querySelector("a").click()`},
	{"reload", `location.reload()`},
}

// first starts a browser on the first page.
func first(t *testing.T) context.Context {
	ctx := Start(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(twoPages(t))); err != nil {
		t.Fatal(err)
	}
	if got := Eval[string](t, ctx, `document.title`); got != "first" {
		t.Fatalf("the first page's title is %q", got)
	}
	return ctx
}

// TestWaitPageAcrossNavigation: a WaitPage whose read is in flight when
// the page navigates or reloads looks again and sees the second page. On
// the first page the read itself leaves the page and waits on a promise
// that never settles, so it is sure to be in flight when the page goes.
// Before WaitPage, waits read the page with Eval, which failed the test
// here with "Inspected target navigated or closed (-32000)" (issue 41).
func TestWaitPageAcrossNavigation(t *testing.T) {
	for _, tc := range leave {
		t.Run(tc.name, func(t *testing.T) {
			ctx := first(t)
			var title string
			WaitPage(t, "the second page", func(l *Look) bool {
				title = Read[string](l, ctx, fmt.Sprintf(`document.title !== "first" ? document.title : new Promise(() => { %s; })`, tc.js))
				return title == "second"
			}, func(*Look) string { return title })
		})
	}
}

// TestWaitJSAcrossNavigation: WaitJS, whose poll runs inside the page,
// polls the second page when the first goes away under it (the first
// check on the first page makes it leave).
func TestWaitJSAcrossNavigation(t *testing.T) {
	for _, tc := range leave {
		t.Run(tc.name, func(t *testing.T) {
			ctx := first(t)
			WaitJS(t, ctx, "the second page", fmt.Sprintf(`document.title === "second" || (window.leaving || (window.leaving = setTimeout(() => { %s; })), false)`, tc.js), `document.title`)
		})
	}
}

// fatal records a test's failure instead of failing it, to check what a
// wait says when it gives up.
type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Helper() {}

func (f *fatal) Fatal(args ...any) { f.msg = fmt.Sprint(args...); runtime.Goexit() }

func (f *fatal) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failed runs wait with f and returns what it failed with ("" if it did
// not).
func failed(t *testing.T, wait func(f *fatal)) string {
	f := &fatal{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(f)
	}()
	<-done
	return f.msg
}

// TestWaitGivesUp: at its deadline a wait fails with what it last saw and
// its last error.
func TestWaitGivesUp(t *testing.T) {
	ctx := first(t)
	never := func(l *Look) bool { return Read[bool](l, ctx, `document.getElementById("nothing").hidden`) }
	msg := failed(t, func(f *fatal) {
		waitPage(f, "nothing", never, func(l *Look) string { return Read[string](l, ctx, `document.title`) }, 200*time.Millisecond)
	})
	for _, want := range []string{"waiting for nothing", "seen: first", "last error: ", "TypeError"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the wait failed with %q, want %q in it", msg, want)
		}
	}
	msg = failed(t, func(f *fatal) {
		waitJS(f, ctx, "nothing", `document.title === "never"`, `document.title`, 200*time.Millisecond)
	})
	for _, want := range []string{"waiting for nothing", "seen: first", "timeout"} {
		if !strings.Contains(msg, want) {
			t.Errorf("WaitJS failed with %q, want %q in it", msg, want)
		}
	}
}

// TestCallTriesAgain: a protocol command that gets no answer (here an
// evaluation awaiting a promise that never settles, the first time) is
// sent again once its try is over, and its answer returned; one that never
// answers fails at the deadline naming the command and its tries. Before
// Call, such a command (Page.getAppManifest sent while the page reloaded)
// held TestLibraryOffline for the tab's 3 minutes (issue 41).
func TestCallTriesAgain(t *testing.T) {
	ctx := first(t)
	yes := true
	tries := func(js string) cdpruntime.EvaluateParams {
		return cdpruntime.EvaluateParams{Expression: js, AwaitPromise: &yes, ReturnByValue: &yes}
	}
	// (a busy machine may let a later try run out too: any try after the
	// first answers)
	r, err := call(ctx, cdpruntime.Evaluate, tries(`(window.tries = (window.tries || 0) + 1) === 1 ? new Promise(() => {}) : "answered at try " + window.tries`), time.Second, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Result.Value); !strings.HasPrefix(got, `"answered at try `) {
		t.Errorf("a later try answered %s, want \"answered at try N\"", got)
	}
	_, err = call(ctx, cdpruntime.Evaluate, tries(`new Promise(() => {})`), 200*time.Millisecond, 700*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "Runtime.evaluate: ") || !strings.Contains(err.Error(), " tries in 700ms: ") {
		t.Errorf("a command never answered: %v", err)
	}
}

// shiftingPage serves a page whose button moves 60 px down as soon as a
// pointer goes down anywhere (as a line of text appearing above it would
// move it), and a board cell drawn in SVG that counts its pointer taps.
func shiftingPage(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>shift</title>
<div id="above" style="height: 0"></div>
<button id="b" style="height: 44px" onclick="window.clicks = (window.clicks || 0) + 1">New game</button>
<svg width="100" height="100"><rect id="cell" x="0" y="0" width="100" height="100" onpointerdown="window.taps = (window.taps || 0) + 1"/></svg>
<script>document.addEventListener("pointerdown", () => { document.getElementById("above").style.height = "60px"; }, true);</script>`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestClickLayoutShift: Click presses a button whose place moves between
// reading its box and the mouse's press, where chromedp's mouse click
// misses it (the case that failed TestPhoneControl under load: no
// dialog), and still taps an SVG cell with the pointer.
func TestClickLayoutShift(t *testing.T) {
	ctx := Start(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(shiftingPage(t))); err != nil {
		t.Fatal(err)
	}
	// the mouse's click: pressed on the button, released on what moved
	// under the pointer, so no click
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#b"))); err != nil {
		t.Fatal(err)
	}
	if n := Eval[int](t, ctx, `window.clicks || 0`); n != 0 {
		t.Fatalf("chromedp's click on the moving button: %d clicks; the page no longer shows the case", n)
	}
	Click(t, ctx, "#b")
	if n := Eval[int](t, ctx, `window.clicks || 0`); n != 1 {
		t.Fatalf("Click on the moving button: %d clicks, want 1", n)
	}
	Click(t, ctx, "#cell")
	if n := Eval[int](t, ctx, `window.taps || 0`); n != 1 {
		t.Fatalf("Click on the SVG cell: %d pointer taps, want 1", n)
	}
}
