package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

type table struct {
	t    *testing.T
	sess *companion.Session
	vb   *sim.Board
	url  string
}

// startTable runs `tabla run --board sim` in-process.
func startTable(t *testing.T, game, first string) *table {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	type ready struct {
		s    *companion.Session
		addr string
	}
	rc := make(chan ready, 1)
	var logs bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &logs, Err: &logs}, Game: game, First: first, Board: "sim", Sensors: "identifying",
		Journal: t.TempDir(), Listen: "127.0.0.1:0", Token: "sesame", Seed: 7,
		Ready: func(s *companion.Session, addr string) { rc <- ready{s, addr} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var r ready
	select {
	case r = <-rc:
	case err := <-done:
		t.Fatalf("run: %v\n%s", err, logs.String())
	}
	t.Cleanup(func() { cancel(); <-done })
	return &table{t: t, sess: r.s, vb: companion.Sim(r.s.HW()), url: "http://" + r.addr + "/"}
}

func (tb *table) open(ctx context.Context) {
	tb.t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(tb.url), chromedp.WaitVisible(chromedp.CSS(`#board [data-cell]`))); err != nil {
		tb.t.Fatal(err)
	}
}

// mirrors waits until the page draws what the board senses and lights:
// the status document's pieces, the LEDs with their roles, the moves.
func (tb *table) mirrors(ctx context.Context, what string) {
	tb.t.Helper()
	var pieces, leds map[string]string
	var moves string
	var st companion.Status
	browsertest.WaitPage(tb.t, what, func(l *browsertest.Look) bool {
		st = tb.sess.StatusJSON()
		pieces = browsertest.Read[map[string]string](l, ctx, browsertest.DrawnPieces)
		leds = browsertest.Read[map[string]string](l, ctx, browsertest.DrawnLEDs)
		moves = browsertest.Read[string](l, ctx, `[...document.querySelectorAll("#moves li")].map(l => l.dataset.move).join(" ")`)
		rs := tb.sess.State()
		want := map[string]string{}
		for c, l := range rs.LEDs {
			want[c] = l.Role
		}
		return maps.Equal(pieces, st.Pieces) && maps.Equal(leds, want) && moves == strings.Join(rs.Moves, " ")
	}, func(*browsertest.Look) string {
		return fmt.Sprintf("page pieces %v, leds %v, moves %q; board %v, leds %v", pieces, leds, moves, st.Pieces, tb.sess.State().LEDs)
	})
}

func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	browsertest.Click(t, ctx, sel)
}

const hintFetch = `fetch("api/hint", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}).then(async r => r.status + " " + await r.text())`

// TestTablePage: tabla run's page on two phones and a desktop mirrors the
// moves made on the (virtual) board; a browser that is not paired cannot
// control; a phone that asked is granted by a press of the board's
// confirm button and then controls (hint, AI seat); the other browser
// still cannot.
func TestTablePage(t *testing.T) {
	t.Parallel()
	tb := startTable(t, "star", "red")
	phone := browsertest.Start(t)
	browsertest.Phone(t, phone)
	tb.open(phone)
	desk := browsertest.Incognito(t, phone)
	tb.open(desk)
	tb.mirrors(phone, "the start position on the phone")

	// moves made on the board appear on both pages, with the LEDs as lit
	for i, mv := range [][2]string{{"b1", "f3"}, {"l13", "h11"}} {
		if err := tb.vb.Lift(mv[0]); err != nil {
			t.Fatal(err)
		}
		tb.mirrors(phone, "a lifted piece's destinations on the phone")
		if err := tb.vb.Place(mv[1], ""); err != nil {
			t.Fatal(err)
		}
		browsertest.Wait(t, "the move", func() bool { return len(tb.sess.State().Moves) == i+1 }, func() string { return fmt.Sprint(tb.sess.State()) })
		tb.mirrors(phone, "the move on the phone")
		tb.mirrors(desk, "the move on the desktop")
	}
	if o := browsertest.Eval[int](t, phone, browsertest.Overflow); o > 0 {
		t.Errorf("the phone page is %d px wider than the phone", o)
	}
	browsertest.Screenshot(t, phone, "table-phone")

	// not paired: every control is refused, the buttons are off
	for _, ctx := range []context.Context{phone, desk} {
		if got := browsertest.Eval[string](t, ctx, hintFetch); !strings.HasPrefix(got, "403 ") || !strings.Contains(got, "not paired") {
			t.Errorf("an unpaired browser's hint: %s", got)
		}
		if !browsertest.Eval[bool](t, ctx, `document.querySelector('[data-press="hint"]').disabled && document.querySelector('#seats input').disabled`) {
			t.Error("the controls of an unpaired browser are on")
		}
	}
	if tb.sess.State().Hint != "" {
		t.Fatal("a refused hint was shown")
	}

	// the phone asks: one corner pulses, on the board and on both pages
	click(t, phone, "#pairbtn")
	browsertest.Wait(t, "the pairing request", func() bool { p, _ := tb.sess.Pairing(); return p }, func() string { return "none" })
	tb.mirrors(desk, "the pulsing corner on the desktop")
	pulsing := 0
	for _, l := range tb.vb.LEDs() {
		if l == companion.PairingLight {
			pulsing++
		}
	}
	if pulsing != 1 {
		t.Fatalf("%d board LEDs pulse while a phone asks, want 1 (%v)", pulsing, tb.vb.LEDs())
	}
	browsertest.WaitPage(t, "the phone's prompt", func(l *browsertest.Look) bool {
		return strings.Contains(browsertest.Read[string](l, phone, `document.getElementById("pairtext").textContent`), "press the board's confirm button")
	}, func(l *browsertest.Look) string {
		return browsertest.Read[string](l, phone, `document.getElementById("pairtext").textContent`)
	})
	browsertest.Screenshot(t, phone, "table-phone-pairing")

	// a press of the board's confirm button grants it
	if err := tb.vb.Press(hardware.ButtonConfirm); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitPage(t, "the phone to be paired", func(l *browsertest.Look) bool {
		return browsertest.Read[bool](l, phone, `!document.querySelector('[data-press="hint"]').disabled`)
	}, func(l *browsertest.Look) string {
		return browsertest.Read[string](l, phone, `document.getElementById("pairtext").textContent`)
	})
	tb.mirrors(phone, "the board back to the game after the grant")
	if got := tb.sess.State().Moves; len(got) != 2 {
		t.Fatalf("the granting press changed the game: %v", got)
	}
	click(t, phone, `[data-press="hint"]`)
	browsertest.Wait(t, "the paired phone's hint", func() bool { return tb.sess.State().Hint != "" }, func() string { return tb.sess.State().Message })
	tb.mirrors(phone, "the hint lit on the phone")
	click(t, phone, `#seats input[data-seat="white"]`)
	// giving a seat to the engine asks first
	browsertest.WaitPage(t, "the confirm dialog", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, phone, dialogOpen) }, nil)
	if ai := tb.sess.StatusJSON().AI; len(ai) != 0 {
		t.Fatalf("the engine plays %v before Confirm", ai)
	}
	click(t, phone, "#confirmok")
	browsertest.Wait(t, "the engine on white", func() bool { return slices.Contains(tb.sess.StatusJSON().AI, "white") },
		func() string { return fmt.Sprint(tb.sess.StatusJSON().AI) })
	browsertest.Screenshot(t, phone, "table-phone-paired")

	// the other browser is still not paired
	if got := browsertest.Eval[string](t, desk, hintFetch); !strings.HasPrefix(got, "403 ") {
		t.Errorf("the other browser's hint after the phone was paired: %s", got)
	}
	tb.mirrors(desk, "the desktop mirror")
	browsertest.Screenshot(t, desk, "table-desktop")
}
