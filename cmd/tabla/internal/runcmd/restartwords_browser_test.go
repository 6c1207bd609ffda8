package runcmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// TestRestartWords (issue 38 item 4), on a 390×844 phone: a phone whose
// request to control the board was still waiting when the daemon
// restarted is told that its request lapsed — never that it "no longer
// controls the board", which it never did; and the page back on the
// restarted daemon, whose board no longer shows the game's move, says in
// words which piece to move where and whose move it is then — not just
// "board out of sync".
func TestRestartWords(t *testing.T) {
	t.Parallel()
	journal := t.TempDir()
	tb, addr, stop := runDaemon(t, journal, "127.0.0.1:0")
	phone := browsertest.Start(t)
	browsertest.Phone(t, phone)
	tb.open(phone)
	if err := tb.vb.Lift("b1"); err != nil {
		t.Fatal(err)
	}
	if err := tb.vb.Place("f3", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b1-f3", func() bool { return len(tb.sess.State().Moves) == 1 })

	// the phone asks; the board restarts before its confirm is pressed
	click(t, phone, "#pairbtn")
	browsertest.Wait(t, "the pairing request", func() bool { p, _ := tb.sess.Pairing(); return p }, func() string { return "none" })
	browsertest.WaitJS(t, phone, "the page to show the request", `document.getElementById("pairbtn").hidden`, pairTextJS)
	stop()
	tb, _, _ = runDaemon(t, journal, addr)
	var said string
	browsertest.WaitPage(t, "the page to say the request lapsed", func(l *browsertest.Look) bool {
		said = readPairText(l, phone)
		return strings.Contains(said, "request to control the board lapsed") && !browsertest.Read[bool](l, phone, `document.getElementById("pairbtn").hidden`)
	}, func(*browsertest.Look) string { return said })
	if strings.Contains(said, "no longer controls") {
		t.Errorf("a phone that never controlled the board is told %q", said)
	}

	// the restarted daemon's board (a fresh virtual board at the start)
	// lacks b1-f3, which the board reads as a takeback to confirm: the
	// page says what the confirm button does and what to move instead,
	// and whose move it is after either
	s := tb.sess.State()
	if s.InSync || len(s.Moves) != 1 {
		t.Fatalf("after the restart: in sync %v, moves %v: the case is gone", s.InSync, s.Moves)
	}
	want := []string{"without its last move (b1-f3): press the board's confirm button to take it back, then red to move", "move the piece on b1 to f3", "Then white to move."}
	browsertest.WaitPage(t, "the page to say what the board needs", func(l *browsertest.Look) bool {
		said = browsertest.Read[string](l, phone, `document.getElementById("message").textContent`)
		for _, w := range want {
			if !strings.Contains(said, w) {
				return false
			}
		}
		return true
	}, func(l *browsertest.Look) string {
		return said + " | " + browsertest.Read[string](l, phone, `JSON.stringify([state.mode, state.in_sync, state.leds, state.moves])`) + fmt.Sprint(tb.sess.State().LEDs, tb.sess.State().Mode)
	})
	browsertest.Screenshot(t, phone, "table-phone-restart-needs")
}
