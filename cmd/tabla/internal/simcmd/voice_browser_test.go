package simcmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
)

// TestVoice (issue 26 item 6, as PicoChess): with "speak each move" on,
// the phone page says each move the board recognises with its seat, a
// move taken back, the hint, and the result aloud through the browser's
// speech synthesis (recorded here); with it off it says nothing; the
// choice is kept by the browser.
func TestVoice(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 21})
	// what the page hands to the speech synthesis
	p.eval(`window.spoken = [], speechSynthesis.speak = u => window.spoken.push(u.text)`)
	spoken := func() []string { return browsertest.Eval[[]string](t, p.ctx, `window.spoken`) }
	if !browsertest.Eval[bool](t, p.ctx, `!document.getElementById("voicebox").hidden && !document.getElementById("voice").checked`) {
		t.Fatal("the voice option is not offered, off, on the phone")
	}
	// off: silent
	p.play(1)
	p.shown(1)
	if s := spoken(); len(s) != 0 {
		t.Errorf("with the voice off the page said %q", s)
	}
	p.click(`label:has(#voice)`)
	if !browsertest.Eval[bool](t, p.ctx, `document.getElementById("voice").checked && localStorage.getItem("tabla.voice") === "on"`) {
		t.Fatal("the voice option did not turn on (and stay on)")
	}
	// moves, in words, with their seats
	p.play(2)
	p.shown(3)
	log := p.ps.Sess.MoveLog()
	var want []string
	for _, m := range log[1:] {
		want = append(want, fmt.Sprintf("%s, %s to %s.", m.Seat, m.From[0], m.To[0]))
	}
	p.waitPage("the moves said", fmt.Sprintf(`window.spoken.length >= %d`, len(want)), `JSON.stringify(window.spoken)`)
	if s := spoken(); !slices.Equal(s, want) {
		t.Errorf("for moves 2 and 3 the page said %q, want %q", s, want)
	}
	// the hint
	p.click(`[data-press="hint"]`)
	s := p.waitFor("the hint", func(s referee.State) bool { return s.Hint != "" })
	from, to, _ := strings.Cut(s.Hint, "-")
	hint := "Hint: " + from + " to " + to + "."
	p.waitPage("the hint said", fmt.Sprintf(`window.spoken.includes(%q)`, hint), `JSON.stringify(window.spoken)`)
	// a takeback
	p.click(`[data-press="takeback"]`)
	p.waitFor("the takeback", func(s referee.State) bool { return len(s.Moves) == 2 })
	p.waitPage("the takeback said", `window.spoken.includes("Move 3 taken back.")`, `JSON.stringify(window.spoken)`)
	// the piece goes back where it was
	if err := p.ps.VB.Lift(log[2].To[0]); err != nil {
		t.Fatal(err)
	}
	if err := p.ps.VB.Place(log[2].From[0], ""); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the board as the game stands", func(s referee.State) bool { return s.InSync && len(s.Moves) == 2 })
	// a move read again as another (the same hand carried the piece on):
	// the correction is said
	var piece string
	var dests []string
	for _, c := range lit(p.waitFor("red's pieces lit", func(s referee.State) bool { return s.InSync && len(lit(s, "turn")) > 0 }), "turn") {
		if err := p.ps.VB.Lift(c); err != nil {
			t.Fatal(err)
		}
		if dests = lit(p.waitFor("the lift of "+c, func(s referee.State) bool { return !s.InSync }), "dest"); len(dests) >= 2 {
			piece = c
			break
		}
		if err := p.ps.VB.Place(c, ""); err != nil {
			t.Fatal(err)
		}
		p.waitFor(c+" back", func(s referee.State) bool { return s.InSync })
	}
	if piece == "" {
		t.Fatal("no red piece with two destinations")
	}
	if err := p.ps.VB.Place(dests[0], ""); err != nil {
		t.Fatal(err)
	}
	p.moves(3)
	p.waitPage("move 3 said", fmt.Sprintf(`window.spoken.includes(%q)`, "red, "+piece+" to "+dests[0]+"."), `JSON.stringify(window.spoken)`)
	if err := p.ps.VB.Lift(dests[0]); err != nil {
		t.Fatal(err)
	}
	if err := p.ps.VB.Place(dests[1], ""); err != nil {
		t.Fatal(err)
	}
	s = p.waitFor("the move read again", func(s referee.State) bool { return len(s.Moves) == 3 && s.InSync && s.Moves[2] != piece+"-"+dests[0] })
	if s.Moves[2] != piece+"-"+dests[1] {
		t.Fatalf("the board read %s, want %s-%s", s.Moves[2], piece, dests[1])
	}
	want = []string{"Corrected:", "red, " + piece + " to " + dests[1] + "."}
	p.waitPage("the correction said", fmt.Sprintf(`JSON.stringify(window.spoken.slice(-2)) === %q`, fmt.Sprintf("[%q,%q]", want[0], want[1])), `JSON.stringify(window.spoken)`)
	// the choice is kept: a reload speaks on
	if err := chromedp.Do(p.ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#board [data-cell]`))); err != nil {
		t.Fatal(err)
	}
	p.waitPage("the page reloaded", `typeof state !== "undefined" && state !== null && document.getElementById("voice").checked`, `String(document.getElementById("voice").checked)`)
}

// TestVoiceResult: the end of a game is said: STAR's 9-move game that red
// wins (aicmd's testdata/star-selfplay.jsonl), carried out on the board.
func TestVoiceResult(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 22})
	p.eval(`window.spoken = [], speechSynthesis.speak = u => window.spoken.push(u.text)`)
	p.click(`label:has(#voice)`)
	for i, mv := range strings.Fields("b1-f3 l13-h11 k5-g3 c9-g11 d2-h4 j12-f10 c5-i1 k9-e13 f1-f5") {
		from, to, _ := strings.Cut(mv, "-")
		if err := p.ps.VB.Lift(from); err != nil {
			t.Fatal(err)
		}
		if err := p.ps.VB.Place(to, ""); err != nil {
			t.Fatal(err)
		}
		p.moves(i + 1)
	}
	s := p.waitFor("red's win", func(s referee.State) bool { return s.Status == "won" })
	if s.Winner == nil || *s.Winner != "red" {
		t.Fatalf("the game ended %s, winner %v", s.Status, s.Winner)
	}
	p.waitPage("the result said", `window.spoken.includes("red wins.")`, `JSON.stringify(window.spoken)`)
	if got := browsertest.Eval[string](t, p.ctx, `window.spoken[window.spoken.length - 2]`); got != "red, f1 to f5." {
		t.Errorf("the last move was said as %q", got)
	}
}
