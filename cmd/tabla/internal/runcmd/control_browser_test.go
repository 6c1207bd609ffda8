package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/hardware"
)

// dialogOpen: the page's confirm dialog shows.
const dialogOpen = `!document.getElementById("confirmdlg").hidden`

// runDaemon runs `tabla run --board sim` (STAR) in-process on a journal
// directory and an address; stop ends it (also at the test's end), so
// that a test can restart the daemon on the same directory and address;
// opts change its options (flags) before it starts.
func runDaemon(t *testing.T, journal, listen string, opts ...func(*Options)) (tb *table, addr string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	type ready struct {
		s    *companion.Session
		addr string
	}
	rc := make(chan ready, 1)
	var logs bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &logs, Err: &logs}, Game: "star", First: "red", Board: "sim", Sensors: "identifying",
		Journal: journal, Listen: listen, Seed: 7,
		Ready: func(s *companion.Session, addr string) { rc <- ready{s, addr} }}
	for _, f := range opts {
		f(o)
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var r ready
	select {
	case r = <-rc:
	case err := <-done:
		cancel()
		t.Fatalf("run: %v\n%s", err, logs.String())
	}
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return &table{t: t, sess: r.s, vb: companion.Sim(r.s.HW()), url: "http://" + r.addr + "/"}, r.addr, stop
}

// pairTextJS is the page's words about pairing.
const pairTextJS = `document.getElementById("pairtext").textContent`

// readPairText reads the page's words about pairing during a wait.
func readPairText(l *browsertest.Look, ctx context.Context) string {
	return browsertest.Read[string](l, ctx, pairTextJS)
}

// TestPhoneControl, on a 390×844 phone: a paired phone's destructive
// controls ask first and send nothing before Confirm (Cancel sends
// nothing): giving white to the engine, taking back a round against it,
// a new game over a game in progress, which Confirm then starts; the phone stays paired across a restart of the daemon on the
// same journal directory; when the board no longer knows its session (the
// sessions file lost) the page says so in words at once, buttons off.
func TestPhoneControl(t *testing.T) {
	t.Parallel()
	journal := t.TempDir()
	tb, addr, stop := runDaemon(t, journal, "127.0.0.1:0")
	phone := browsertest.Start(t)
	browsertest.Phone(t, phone)
	tb.open(phone)

	// pair the phone
	click(t, phone, "#pairbtn")
	browsertest.Wait(t, "the pairing request", func() bool { p, _ := tb.sess.Pairing(); return p }, func() string { return "none" })
	if err := tb.vb.Press(hardware.ButtonConfirm); err != nil {
		t.Fatal(err)
	}
	controls := `!document.querySelector('[data-press="new"]').disabled && !document.querySelector('#seats input').disabled`
	browsertest.WaitPage(t, "the phone to control the board", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, controls) },
		func(l *browsertest.Look) string { return readPairText(l, phone) })

	// giving a seat to the engine asks first: Cancel sends nothing
	browsertest.Eval[bool](t, phone, `(() => { window.posts = []; const f = window.fetch; window.fetch = (u, o) => { if (o && o.method === "POST") window.posts.push(String(u)); return f(u, o); }; return true; })()`)
	white := `#seats input[data-seat="white"]`
	click(t, phone, white)
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	click(t, phone, "#confirmcancel")
	if posts := browsertest.Eval[[]string](t, phone, `window.posts`); len(posts) != 0 || len(tb.sess.StatusJSON().AI) != 0 ||
		browsertest.Eval[bool](t, phone, `document.querySelector('`+white+`').checked`) {
		t.Fatalf("Cancel gave white to the engine: sent %v, engine %v", posts, tb.sess.StatusJSON().AI)
	}
	click(t, phone, white)
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	click(t, phone, "#confirmok")
	waitFor(t, "the engine on white", func() bool { return slices.Contains(tb.sess.StatusJSON().AI, "white") })

	// against the engine, a round is taken back at once, after a question
	for i, mv := range [][2]string{{"b1", "f3"}, {"l13", "h11"}} {
		if err := tb.vb.Lift(mv[0]); err != nil {
			t.Fatal(err)
		}
		if err := tb.vb.Place(mv[1], ""); err != nil {
			t.Fatal(err)
		}
		waitFor(t, mv[0]+"-"+mv[1], func() bool { return len(tb.sess.State().Moves) == i+1 })
	}
	browsertest.WaitPage(t, "a round on the phone", func(l *browsertest.Look) bool {
		return browsertest.Read[bool](l, phone, `!document.getElementById("takebackround").hidden && document.querySelectorAll("#moves li").length == 2`)
	}, func(*browsertest.Look) string { return fmt.Sprint(tb.sess.State().Moves) })
	browsertest.Eval[bool](t, phone, `(window.posts = [], true)`)
	click(t, phone, "#takebackround")
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	if text := browsertest.Eval[string](t, phone, `document.getElementById("confirmtext").textContent`); !strings.Contains(text, "2 moves (b1-f3, l13-h11)") {
		t.Errorf("the takeback question: %q", text)
	}
	click(t, phone, "#confirmcancel")
	if posts := browsertest.Eval[[]string](t, phone, `window.posts`); len(posts) != 0 || len(tb.sess.State().Moves) != 2 {
		t.Fatalf("Cancel took back: sent %v, moves %v", posts, tb.sess.State().Moves)
	}
	click(t, phone, "#takebackround")
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	click(t, phone, "#confirmok")
	waitFor(t, "the round taken back", func() bool { return len(tb.sess.State().Moves) == 0 })
	// the pieces go back where they were
	for _, mv := range [][2]string{{"h11", "l13"}, {"f3", "b1"}} {
		if err := tb.vb.Lift(mv[0]); err != nil {
			t.Fatal(err)
		}
		if err := tb.vb.Place(mv[1], ""); err != nil {
			t.Fatal(err)
		}
		waitFor(t, mv[1]+" back", func() bool { return tb.sess.State().Sensed[mv[1]] != "" })
	}
	waitFor(t, "the board in sync", func() bool { st := tb.sess.State(); return st.InSync && len(st.Moves) == 0 })

	// a game in progress
	if err := tb.vb.Lift("b1"); err != nil {
		t.Fatal(err)
	}
	if err := tb.vb.Place("f3", ""); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitPage(t, "the move on the phone", func(l *browsertest.Look) bool {
		return browsertest.Read[int](l, phone, `document.querySelectorAll("#moves li").length`) == 1
	}, func(*browsertest.Look) string { return fmt.Sprint(tb.sess.State().Moves) })
	journal1 := tb.sess.JournalPath()

	// New game asks; nothing is sent before Confirm
	browsertest.Eval[bool](t, phone, `(window.posts = [], true)`)
	click(t, phone, `[data-press="new"]`)
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	text := browsertest.Eval[string](t, phone, `document.getElementById("confirmtext").textContent`)
	if !strings.Contains(text, "new game") || !strings.Contains(text, "1 move") {
		t.Errorf("the question: %q", text)
	}
	for _, b := range []string{"confirmok", "confirmcancel"} {
		if h := browsertest.Eval[float64](t, phone, `document.getElementById("`+b+`").getBoundingClientRect().height`); h < 44 {
			t.Errorf("#%s is %.0f px high, want 44 at least", b, h)
		}
	}
	if o := browsertest.Eval[int](t, phone, browsertest.Overflow); o > 0 {
		t.Errorf("the page with the dialog is %d px wider than the phone", o)
	}
	browsertest.Screenshot(t, phone, "table-phone-confirm-new")
	if posts := browsertest.Eval[[]string](t, phone, `window.posts`); len(posts) != 0 {
		t.Fatalf("sent before Confirm: %v", posts)
	}
	click(t, phone, "#confirmcancel")
	if browsertest.Eval[bool](t, phone, dialogOpen) {
		t.Error("the dialog stays after Cancel")
	}
	if posts := browsertest.Eval[[]string](t, phone, `window.posts`); len(posts) != 0 {
		t.Fatalf("sent on Cancel: %v", posts)
	}
	if got := tb.sess.State().Moves; len(got) != 1 || tb.sess.JournalPath() != journal1 {
		t.Fatalf("Cancel changed the game: moves %v, journal %s", got, tb.sess.JournalPath())
	}
	click(t, phone, `[data-press="new"]`)
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	click(t, phone, "#confirmok")
	browsertest.WaitPage(t, "the new game", func(*browsertest.Look) bool {
		return tb.sess.JournalPath() != journal1 && len(tb.sess.State().Moves) == 0
	}, func(l *browsertest.Look) string {
		return fmt.Sprint(tb.sess.State().Moves, browsertest.Read[string](l, phone, `document.getElementById("message").textContent`))
	})
	if posts := browsertest.Eval[[]string](t, phone, `window.posts`); len(posts) != 1 || !strings.HasSuffix(posts[0], "api/new") {
		t.Errorf("sent on Confirm: %v, want api/new once", posts)
	}

	// a restart on the same journal directory: still paired
	stop()
	tb, _, stop = runDaemon(t, journal, addr)
	if got := browsertest.Eval[string](t, phone, `fetch("api/pair").then(r => r.text())`); !strings.Contains(got, `"paired":true`) {
		t.Fatalf("after a restart: %s, want paired", got)
	}
	tb.mirrors(phone, "the page back on the restarted daemon")

	// a restart that lost the sessions: the page says so at once
	stop()
	if err := os.Remove(filepath.Join(journal, webui.SessionsFile)); err != nil {
		t.Fatal(err)
	}
	tb, _, _ = runDaemon(t, journal, addr)
	ended := `document.getElementById("pairtext").textContent.includes("This phone no longer controls the board") && document.querySelector('[data-press="new"]').disabled && document.querySelector('[data-press="takeback"]').disabled && document.querySelector('#seats input').disabled && !document.getElementById("pairbtn").hidden`
	browsertest.WaitPage(t, "the page to say control ended", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, ended) },
		func(l *browsertest.Look) string { return readPairText(l, phone) })
	browsertest.Screenshot(t, phone, "table-phone-control-ended")
	// a refused control is told in words, never the API's detail
	got := browsertest.Eval[string](t, phone, `send("api/hint").then(() => document.getElementById("message").textContent)`)
	if !strings.Contains(got, "no longer controls the board") || strings.Contains(got, "webui") || strings.Contains(got, "Bearer") {
		t.Errorf("the message of a refused control: %q", got)
	}
}
