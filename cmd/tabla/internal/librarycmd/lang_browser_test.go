package librarycmd

import (
	"fmt"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// TestLibraryLanguages (issue 38 item 1): the library, the analysis board
// (a GYGES game, analysed, at a blunder or the middle) and the statistics
// on a 390-px phone, switched to Turkish and back by the switch in their
// header: no catalogue key and no English text left over in Turkish, no
// text wider than its box, in both languages; a screenshot of each in
// Turkish.
func TestLibraryLanguages(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, 24); err != nil {
		t.Fatal(err)
	}
	base, lib := serveLibrary(t, dir)
	analysed(t, lib, "gyges.jsonl")
	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)

	navigate(t, ctx, base, "#rows tr.game")
	browsertest.CheckLanguages(t, ctx, "the library", `document.querySelectorAll("#rows tr.game").length > 0`, "tr-library-phone")

	openGame(t, ctx, base, "gyges.jsonl", 12)
	ready := `!!(ana && document.getElementById("progressbox").hidden && document.querySelectorAll("#lines li").length > 0)`
	browsertest.CheckLanguages(t, ctx, "the analysis board", ready, "tr-analysis-phone")

	navigate(t, ctx, base+"stats.html", "[data-chart]")
	browsertest.CheckLanguages(t, ctx, "the statistics", `document.querySelectorAll("[data-chart]").length > 0`, "tr-stats-phone")

	// a variation in Turkish: its words too
	browsertest.SwitchLanguage(t, ctx, "tr", "true")
	openGame(t, ctx, base, "star.jsonl", 4)
	browsertest.WaitPage(t, "the legal moves", func(l *browsertest.Look) bool { return browsertest.Read[bool](l, ctx, `!!(legalAt && legalAt.legal)`) }, nil)
	browsertest.Eval[int](t, ctx, `(play(legalAt.legal[0].move), 0)`)
	browsertest.WaitPage(t, "the variation in Turkish", func(l *browsertest.Look) bool {
		return browsertest.Read[bool](l, ctx, `!!(variation && variation.data && variation.line.length === 1)`) &&
			len(browsertest.Read[[]string](l, ctx, browsertest.LanguageProblems)) == 0
	}, func(l *browsertest.Look) string {
		return fmt.Sprint(browsertest.Read[[]string](l, ctx, browsertest.LanguageProblems), readText(l, ctx, "#ply"))
	})
	if got := text(t, ctx, "#ply"); got != "başlangıçtan varyant" && got != "4. hamleden varyant" {
		t.Errorf("the variation's line reads %q", got)
	}
	browsertest.SwitchLanguage(t, ctx, "en", "true")
}
