package simcmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// TestBoardNeedsWords (issue 38 item 4), on a 390×844 phone: after a
// takeback and after a piece knocked to another cell the page says in
// words — as it does for a lift — which piece to move where and whose
// move it is then, not just "board out of sync"; in Turkish too, with
// no case suffix after a cell.
func TestBoardNeedsWords(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 41})
	message := func(what string, want ...string) {
		t.Helper()
		var said string
		browsertest.WaitPage(t, what, func(l *browsertest.Look) bool {
			said = browsertest.Read[string](l, p.ctx, `document.getElementById("message").textContent`)
			for _, w := range want {
				if !strings.Contains(said, w) {
					return false
				}
			}
			return true
		}, func(*browsertest.Look) string { return fmt.Sprintf("%q, want %q", said, want) })
	}
	s := p.play(2)
	last := p.ps.Sess.MoveLog()[1]
	must(t, p.ps.VB.Press(hardware.ButtonTakeback))
	p.waitFor("the takeback", func(s referee.State) bool { return len(s.Moves) == 1 })
	message("the takeback in words", "Move 2 was taken back:", "move the piece on "+last.To[0]+" back to "+last.From[0], "Then white to move.")
	p.waitTurn("board out of sync")
	browsertest.SwitchLanguage(t, p.ctx, "tr", `typeof state !== "undefined" && state !== null`)
	message("the takeback in Turkish", "taş "+last.To[0]+" → "+last.From[0], "Sonra sıra: beyaz.")
	browsertest.SwitchLanguage(t, p.ctx, "en", `typeof state !== "undefined" && state !== null`)
	must(t, p.ps.VB.Lift(last.To[0]))
	p.waitFor("the lift", func(s referee.State) bool { return len(s.Moves) == 1 })
	must(t, p.ps.VB.Place(last.From[0], ""))
	s = p.waitFor("the board as the game stands", func(s referee.State) bool { return s.InSync && len(s.Moves) == 1 })

	// a piece of red's knocked to an empty cell while white is to move:
	// a correction
	var from, to string
	for c, k := range s.Expected {
		if k == "red" && (from == "" || c < from) {
			from = c
		}
	}
	for _, c := range []string{"g7", "f7", "h7", "g6", "g8"} {
		if s.Expected[c] == "" {
			to = c
			break
		}
	}
	must(t, p.ps.VB.Remove(from))
	must(t, p.ps.VB.Place(to, "red"))
	s = p.waitFor("the correction", func(s referee.State) bool { return !s.InSync && s.Mode == "correct" && len(lit(s, "pair")) == 2 })
	message("the correction in words", "The board does not match the game:", "move the piece on "+to+" to "+from, "Then white to move.")
	p.screenshot("table-phone-correction")
}
