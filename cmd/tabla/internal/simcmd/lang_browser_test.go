package simcmd

import (
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
)

// TestSimLanguages (issue 38 items 1 and the zoom case), on a 390×844
// phone: the simulator's page of six and of GYGES (set up, then a piece
// lifted, its destinations lit) switched to Turkish and back: no catalogue key, no
// English left over, no text wider than its box; six's zoom buttons
// cover no cell (they covered its top right).
func TestSimLanguages(t *testing.T) {
	t.Parallel()
	ready := `typeof state !== "undefined" && state !== null && document.querySelectorAll("#moves li").length === (state.moves || []).length`
	p := phonePage(t, PageOptions{Game: "six", Sensors: "identifying", Seed: 51})
	p.click(`#palette button[data-kind="black"]`)
	p.cell("-1,0")
	p.moves(1)
	if over := browsertest.Eval[[]string](t, p.ctx, browsertest.ZoomOverCells); len(over) > 0 {
		t.Errorf("six: the zoom buttons cover %v", over)
	}
	browsertest.CheckLanguages(t, p.ctx, "the simulator (six)", ready, "tr-sim-six-phone")

	g := phonePage(t, PageOptions{Game: "gyges", Sensors: "identifying", Seed: 52})
	for k := 0; k < 12; k++ { // the setup: twelve pieces placed
		g.step(nil, nil, k)
	}
	browsertest.CheckLanguages(t, g.ctx, "the simulator (GYGES)", ready, "")
	browsertest.SwitchLanguage(t, g.ctx, "tr", ready)
	s := g.waitFor("south to move", func(s referee.State) bool { return s.InSync && len(lit(s, "turn")) > 0 })
	c := lit(s, "turn")[0]
	must(t, g.ps.VB.Lift(c))
	g.waitFor("the lift", func(s referee.State) bool { return !s.InSync })
	g.waitPage("the lift in Turkish", `document.getElementById("message").textContent.startsWith("Kaldırılan taş: `+c+`")`, `document.getElementById("message").textContent`)
	var problems []string
	browsertest.WaitPage(t, "the lift in Turkish without problems", func(l *browsertest.Look) bool {
		problems = browsertest.Read[[]string](l, g.ctx, browsertest.LanguageProblems)
		return len(problems) == 0
	}, func(*browsertest.Look) string { return "" })
	g.screenshot("tr-sim-gyges-phone")
	browsertest.SwitchLanguage(t, g.ctx, "en", ready)
}
