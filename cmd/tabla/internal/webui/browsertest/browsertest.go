// Package browsertest drives the pages in Debian's headless Chromium for
// tests: browsers with their own cookies, a phone's viewport, screenshots
// into $TABLA_ARTIFACTS (default /tmp/tabla-screenshots), and reading what
// the shared board drawing shows.
//
// Browser tests must run in CI: without Chromium they fail when CI is set
// and skip only on a laptop.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Start starts headless Chromium at a desktop window size and returns a
// tab's context (ended with the test, and after 3 minutes at most).
func Start(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (.ci/run installs Debian's chromium)")
		}
		t.Skip("chromium is not installed; apt-get install chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.WindowSize(1100, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatal(err)
	}
	return ctx
}

// Incognito returns a tab in a new browser context of ctx's browser: its
// own cookies, as another person's phone.
func Incognito(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	c, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(c); err != nil {
		t.Fatal(err)
	}
	return c
}

// Phone makes a tab a 390-px-wide phone (portrait, touch).
func Phone(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
}

// Artefacts is where screenshots go: $TABLA_ARTIFACTS, or
// /tmp/tabla-screenshots.
func Artefacts(t *testing.T) string {
	dir := os.Getenv("TABLA_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "tabla-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Screenshot saves the tab's viewport as NAME.png in Artefacts.
func Screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(Artefacts(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// FullScreenshot saves the whole page, beyond the viewport, as NAME.png.
func FullScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(Artefacts(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// Eval evaluates a JavaScript expression (a promise is awaited).
func Eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// DrawnPieces is what the board drawing shows: cell → piece kind.
const DrawnPieces = `(() => { const out = {}; document.querySelectorAll("#board .pieces [data-cell]").forEach(e => { out[e.dataset.cell] = e.dataset.piece; }); return out; })()`

// DrawnLEDs is the lit cells the drawing shows: cell → role.
const DrawnLEDs = `(() => { const out = {}; document.querySelectorAll("#board .leds [data-cell]").forEach(e => { out[e.dataset.cell] = e.dataset.role; }); return out; })()`

// Overflow is how many pixels the page is wider than the window (a phone
// must not scroll sideways).
const Overflow = `document.documentElement.scrollWidth - window.innerWidth`

// Wait polls cond every 20 ms until it is true, failing after 30 s with
// what() saying what was seen.
// WaitJS waits, inside the page, for the JavaScript expression cond to be
// true (the browser checks it every 20 ms, 30 s at most: no sleep on this
// side); seen is an expression for what the page shows instead.
func WaitJS(t *testing.T, ctx context.Context, what, cond, seen string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("waiting for %s (%v); seen: %s", what, err, Eval[string](t, ctx, seen))
	}
}

func Wait(t *testing.T, what string, cond func() bool, seen func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s; seen: %s", what, seen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
