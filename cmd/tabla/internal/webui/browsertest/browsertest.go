// Package browsertest drives the pages in Debian's headless Chromium for
// tests: browsers with their own cookies, a phone's viewport, screenshots
// into $TABLA_ARTIFACTS (default /tmp/tabla-screenshots), reading what
// the shared board drawing shows, waits that outlast a page navigating or
// reloading (WaitPage, WaitJS), protocol commands sent again when a
// navigation leaves them unanswered (Call), and clicks that a layout
// moving under the mouse cannot take elsewhere (Click).
//
// Browser tests must run in CI: without Chromium they fail when CI is set
// and skip only on a laptop.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
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

// Eval evaluates a JavaScript expression (a promise is awaited) and fails
// the test at once on an error. To wait for a page, which may be
// navigating or reloading meanwhile, use WaitPage and Read instead.
func Eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// Click clicks the first element sel matches, once it is visible. An HTML
// element (a button, a link, a form control) is clicked inside the page in
// one step, by its click(), as a tap on it: chromedp.Click reads the
// element's box and presses the mouse at its centre in separate protocol
// calls, and a page whose layout moves in between takes the press
// elsewhere (TestPhoneControl's New game, pressed as the engine's reply
// added a line above it, opened no dialog). An SVG element (a board's
// cell, whose handlers read the pointer) gets chromedp's mouse click.
func Click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	q := `document.querySelector(` + strconv.Quote(sel) + `)`
	WaitJS(t, ctx, sel+" to show", `(() => { const e = `+q+`; return !!e && e.checkVisibility(); })()`,
		q+` ? "hidden" : "no such element"`)
	how := Eval[string](t, ctx, `(() => { const e = `+q+`; if (!(e instanceof HTMLElement)) return "mouse"; e.scrollIntoView({block: "nearest"}); e.click(); return "clicked"; })()`)
	if how == "clicked" {
		return
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// DrawnPieces is what the board drawing shows: cell → piece kind.
const DrawnPieces = `(() => { const out = {}; document.querySelectorAll("#board .pieces [data-cell]").forEach(e => { out[e.dataset.cell] = e.dataset.piece; }); return out; })()`

// DrawnLEDs is the lit cells the drawing shows: cell → role.
const DrawnLEDs = `(() => { const out = {}; document.querySelectorAll("#board .leds [data-cell]").forEach(e => { out[e.dataset.cell] = e.dataset.role; }); return out; })()`

// Overflow is how many pixels the page is wider than the window (a phone
// must not scroll sideways).
const Overflow = `document.documentElement.scrollWidth - window.innerWidth`

// MinTarget is the least height, in CSS pixels, of a control a finger taps
// (WCAG 2.5.5, Apple's Human Interface Guidelines).
const MinTarget = 44

// SmallTargets is a JavaScript expression: the shown text fields, selects
// and buttons inside the elements sel (a CSS selector) matches that are
// less than MinTarget pixels high, each as "#id (or name): height px".
func SmallTargets(sel string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%q)].flatMap(f => [...f.querySelectorAll("input, select, button, textarea")])
		.filter(e => e.getClientRects().length > 0 && !["checkbox", "radio", "hidden", "range"].includes(e.type))
		.map(e => [e, e.getBoundingClientRect().height])
		.filter(([, h]) => h < %d)
		.map(([e, h]) => (e.id ? "#" + e.id : e.name || e.tagName.toLowerCase()) + ": " + h.toFixed(1) + " px")`, sel, MinTarget)
}

// waitTimeout is how long a wait lasts before it fails the test.
const waitTimeout = 30 * time.Second

// pollEvery is how often a wait looks again.
const pollEvery = 20 * time.Millisecond

// A Look is one look at the pages during a WaitPage: the pages are read
// through it with Read, and a read that fails makes the whole look fail
// (the wait looks again) instead of failing the test.
type Look struct {
	err error
}

// Read evaluates a JavaScript expression in the tab ctx (a promise is
// awaited) during a look. An error — the page is navigating or reloading,
// or its script has not yet defined what js reads — is kept in l and the
// zero value returned; once a read of l has failed, the later ones return
// the zero value without evaluating.
func Read[T any](l *Look, ctx context.Context, js string) T {
	var zero T
	if l.err != nil {
		return zero
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		l.err = fmt.Errorf("%s: %w", js, err)
		return zero
	}
	return v
}

// Err is the error of the look's failed read, or nil.
func (l *Look) Err() error { return l.err }

// WaitPage looks at the pages every 20 ms until cond, reading them with
// Read, returns true in a look whose reads all worked. A page navigating
// or reloading is no error: a look whose read failed only counts as not
// yet. After 30 s the test fails with what seen (which may be nil) shows
// and the last look's error; it fails at once when a read's context has
// ended (the browser is gone).
func WaitPage(t testing.TB, what string, cond func(*Look) bool, seen func(*Look) string) {
	t.Helper()
	waitPage(t, what, cond, seen, waitTimeout)
}

func waitPage(t testing.TB, what string, cond func(*Look) bool, seen func(*Look) string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var l Look
		if cond(&l) && l.err == nil {
			return
		}
		ended := errors.Is(l.err, context.Canceled) || errors.Is(l.err, context.DeadlineExceeded)
		if ended || time.Now().After(deadline) {
			msg := fmt.Sprintf("waiting for %s", what)
			if seen != nil {
				var sl Look
				s := seen(&sl)
				if sl.err != nil {
					s += fmt.Sprintf(" (%v)", sl.err)
				}
				msg += "; seen: " + s
			}
			if l.err != nil {
				msg += fmt.Sprintf("; last error: %v", l.err)
			}
			t.Fatal(msg)
		}
		time.Sleep(pollEvery)
	}
}

// WaitJS waits, inside the page, for the JavaScript expression cond to be
// true (the browser checks it every 20 ms, 30 s at most: no sleep on this
// side); seen is an expression for what the page shows instead. The
// browser's poll ends when the page navigates or reloads: WaitJS then
// polls the new page, and fails only at the deadline, with the last error.
func WaitJS(t testing.TB, ctx context.Context, what, cond, seen string) {
	t.Helper()
	waitJS(t, ctx, what, cond, seen, waitTimeout)
}

func waitJS(t testing.TB, ctx context.Context, what, cond, seen string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for left := timeout; left > 0; left = time.Until(deadline) {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(pollEvery), chromedp.WithPollingTimeout(left)))
		if err == nil {
			return
		}
		last = err
		if ctx.Err() != nil || errors.Is(err, chromedp.ErrPollingTimeout) {
			break
		}
		// the poll ended with its page: once a poll interval has passed,
		// poll the page that replaced it
		time.Sleep(pollEvery)
	}
	var l Look
	s := Read[string](&l, ctx, seen)
	if l.err != nil {
		s += fmt.Sprintf(" (%v)", l.err)
	}
	t.Fatalf("waiting for %s (%v); seen: %s", what, last, s)
}

// callTry bounds one try of a Call: a command sent while the page
// navigates may get no answer at all (the document it was for is gone).
const callTry = 10 * time.Second

// Call runs a DevTools protocol command on the tab ctx and returns its
// result. Each try is bounded to 10 s: a try that fails or gets no answer
// in time (the page navigated or reloaded meanwhile, and Chromium dropped
// the command with the document it was for, as Page.getAppManifest once did
// for the tab's whole 3 minutes) is sent again, and the test fails after
// 30 s with the number of tries and the last error, or at once when the tab
// is gone. Commands sent through Call must be safe to repeat.
func Call[P, R any](t testing.TB, ctx context.Context, c cdp.Command[P, R], p P) R {
	t.Helper()
	r, err := call(ctx, c, p, callTry, waitTimeout)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func call[P, R any](ctx context.Context, c cdp.Command[P, R], p P, try, timeout time.Duration) (R, error) {
	deadline := time.Now().Add(timeout)
	for n := 1; ; n++ {
		tctx, cancel := context.WithTimeout(ctx, min(try, max(time.Until(deadline), time.Millisecond)))
		r, err := chromedp.Call(tctx, c, p)
		cancel()
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			return r, fmt.Errorf("%s: %d tries in %v: %w", c.Method, n, timeout, err)
		}
		// a pause before the next try (Chromium gave no answer, so there
		// is no event to wait on), cut short when the test's context ends
		select {
		case <-ctx.Done():
			return r, fmt.Errorf("%s: %d tries: %w (%v)", c.Method, n, err, ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// Wait polls cond every 20 ms until it is true, failing after 30 s with
// what seen() says was seen. cond and seen read the program's state, not a
// page (Eval fails the test on a page that is navigating): to wait for a
// page use WaitPage, or WaitJS.
func Wait(t testing.TB, what string, cond func() bool, seen func() string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s; seen: %s", what, seen())
		}
		time.Sleep(pollEvery)
	}
}
