package simcmd

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// TestClubPanel: on a phone (390×844) the live page names the players by
// their seats, shows the event and round, and both clocks (the running
// one counting down, the turn line naming the player to move); the form
// sets the names and the event (the simulator's page controls as a paired
// phone does). TABLA_CLUB_SCREENSHOT=FILE keeps a screenshot.
func TestClubPanel(t *testing.T) {
	t.Parallel()
	p := phonePage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying",
		Who:   companion.WhoOptions{Players: []string{"red=Ayşe", "white=Bora"}, Event: "Moda club evening", Round: "3"},
		Clock: companion.ClockOptions{Clock: []string{"10m+5s"}}})
	p.play(1)
	p.waitPage("the players and clocks", `document.querySelectorAll("#players li").length === 2 &&
		document.querySelector("#players li[data-seat=white] .clock").textContent.startsWith("10:") === false &&
		/^9:5\d$/.test(document.querySelector("#players li[data-seat=white] .clock").textContent)`,
		`document.querySelector("#club").textContent`)
	if got := p.text("#eventline"); got != "Moda club evening · round 3" {
		t.Errorf("event line %q", got)
	}
	if got := p.text("#players li[data-seat=red]"); !strings.Contains(got, "Ayşe") || !strings.Contains(got, "red") || !strings.Contains(got, "10:0") {
		t.Errorf("red's line %q, want Ayşe, red and about 10:0x (5 s increment)", got)
	}
	if got := p.text("#turntext"); !strings.HasPrefix(got, "Bora (white) to move") {
		t.Errorf("turn line %q", got)
	}
	if got := p.text("#moves li .who"); got != "Ayşe (red)" {
		t.Errorf("move list names %q", got)
	}
	if got := p.text("#moves li .ms"); !strings.HasSuffix(got, " s") {
		t.Errorf("move list's time %q, want the turn's seconds", got)
	}
	if f := os.Getenv("TABLA_CLUB_SCREENSHOT"); f != "" {
		png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(f, png, 0o644)
	}
	// the form: a new round and a name for white
	p.eval(`document.querySelector("#whoedit").open = true`)
	// a finger's target: every field and button of the form at least 44
	// px high at phone size (the name fields were 36)
	if small := browsertest.Eval[[]string](t, p.ctx, browsertest.SmallTargets("#whoform")); len(small) > 0 {
		t.Errorf("at 390×844 these controls of the players' form are under %d px high: %v", browsertest.MinTarget, small)
	}
	if n := browsertest.Eval[int](t, p.ctx, `document.querySelectorAll("#whoform input:not([type=date])").length`); n != 5 {
		t.Errorf("%d text fields in the players' form, want 5 (2 names, event, round, site)", n)
	}
	p.eval(`(f => { f.elements["name:white"].value = "Bora Can"; f.elements.round.value = "4" })(document.querySelector("#whoform"))`)
	p.click("#whosave")
	p.waitPage("the names saved", `document.querySelector("#players li[data-seat=white]").textContent.includes("Bora Can")`,
		`document.querySelector("#club").textContent + " / " + document.querySelector("#message").textContent`)
	if w := p.ps.Sess.Who(); w.Names["white"] != "Bora Can" || w.Round != "4" || w.Event != "Moda club evening" {
		t.Errorf("session's who %+v", w)
	}
}
