package hub

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
)

// pdfPages are a PDF's pages' sizes in points (its /MediaBox per /Page
// object), as Chromium writes them (no object streams).
func pdfPages(t *testing.T, pdf []byte) [][2]float64 {
	t.Helper()
	obj := regexp.MustCompile(`(?s)<<(?:[^<>]|<<(?:[^<>]|<<[^<>]*>>)*>>)*?/Type\s*/Page\b(?:[^<>]|<<(?:[^<>]|<<[^<>]*>>)*>>)*>>`)
	box := regexp.MustCompile(`/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]`)
	var out [][2]float64
	for _, o := range obj.FindAll(pdf, -1) {
		m := box.FindSubmatch(o)
		if m == nil {
			t.Fatalf("a page without a MediaBox: %.200s", o)
		}
		f := func(b []byte) float64 { v, _ := strconv.ParseFloat(string(b), 64); return v }
		out = append(out, [2]float64{f(m[3]) - f(m[1]), f(m[4]) - f(m[2])})
	}
	return out
}

// TestPrintPages (issue 37): a round's pairings and result slips and the
// crosstable print on A4 in Chromium (page.PrintToPDF with the page's
// own @page size): twelve boards give the pairings on one page and the
// twelve slips, never split, on the pages after (a slip a fifth of a
// page at most: at least two pages of them); the crosstable of 24
// players is one page. Every page is A4 (595 × 842 pt). The PDFs are
// kept with the screenshots.
func TestPrintPages(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	var tables []string
	for i := range 12 {
		tables = append(tables, fmt.Sprintf("g%d", i+1))
	}
	e, err := NewEvent(EventSpec{ID: "big", Name: "Big Swiss", Site: "Moda", Date: "2026-11-28", Sections: []SectionSpec{
		{Game: "gyges", System: club.Swiss, Rounds: 5, Clock: "10m+5s", Tables: tables}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the event", 10*time.Second, func() bool { return th.hub.Event("big") != nil })
	for i := range 24 {
		if _, err := th.hub.Arbiter(context.Background(), "big", ArbiterAction{Do: ActEnter, Name: fmt.Sprintf("Player %02d with a long name", i+1), Rating: float64(2000 - 10*i), RD: 50}); err != nil {
			t.Fatal(err)
		}
	}
	if err := th.hub.StartEvent(context.Background(), "big"); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t)
	base := "http://" + th.httpAddr
	print := func(path, name string) [][2]float64 {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		yes := true
		res, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (page.PrintToPDFResult, error) {
			return cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes})
		})
		if err != nil {
			t.Fatal(err)
		}
		pdf := res.Data
		os.WriteFile(filepath.Join(browsertest.Artefacts(t), name+".pdf"), pdf, 0o644)
		pages := pdfPages(t, pdf)
		for i, p := range pages {
			if math.Abs(p[0]-595.28) > 1.5 || math.Abs(p[1]-841.89) > 1.5 {
				t.Errorf("%s page %d: %.1f × %.1f pt, not A4", name, i+1, p[0], p[1])
			}
		}
		return pages
	}
	// the slips never split: in print, each slip fits a fifth of the page
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/api/club/big/gyges/round/1/print.html"), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll(".slip").length`); n != 12 {
		t.Fatalf("%d slips for 12 boards", n)
	}
	if h := browsertest.Eval[float64](t, ctx, `Math.max(...[...document.querySelectorAll(".slip")].map(e => e.getBoundingClientRect().height))`); h > 1123.0/5 {
		t.Errorf("a slip is %.0f px tall: more than a fifth of an A4 page", h)
	}
	pages := print("/api/club/big/gyges/round/1/print.html", "hub-round-print")
	if len(pages) < 3 || len(pages) > 5 {
		t.Errorf("round 1 printed on %d pages, want the pairings' page and 2 to 4 pages of 12 slips", len(pages))
	}
	if n := len(print("/api/club/big/gyges/crosstable.html", "hub-crosstable-print")); n != 1 {
		t.Errorf("the crosstable of 24 players printed on %d pages, want 1", n)
	}

	// both pages in Turkish and back on a 390-px phone (no key, no
	// English left over, no text overflowing), and printed in Turkish on
	// as many A4 pages
	browsertest.Phone(t, ctx)
	for _, pg := range []struct{ path, name, shot string }{
		{"/api/club/big/gyges/round/1/print.html", "the round's print page", "tr-hub-round-print-phone"},
		{"/api/club/big/gyges/crosstable.html", "the crosstable", "tr-hub-crosstable-phone"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(base+pg.path), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		browsertest.CheckLanguages(t, ctx, pg.name, `document.querySelectorAll("h1 [data-i18n], th [data-i18n]").length > 0`, pg.shot)
	}
	browsertest.SwitchLanguage(t, ctx, "tr", `document.querySelectorAll("h1").length > 0`)
	if n := len(print("/api/club/big/gyges/round/1/print.html", "hub-round-print-tr")); n != len(pages) {
		t.Errorf("round 1 printed in Turkish on %d pages, in English on %d", n, len(pages))
	}
	if n := len(print("/api/club/big/gyges/crosstable.html", "hub-crosstable-print-tr")); n != 1 {
		t.Errorf("the crosstable of 24 players printed in Turkish on %d pages, want 1", n)
	}
	if got := browsertest.Eval[string](t, ctx, `document.querySelector("h1").innerText + " | " + document.querySelector("thead").innerText`); !strings.Contains(got, "Sıra") || !strings.Contains(got, "T1") {
		t.Errorf("the crosstable in Turkish: %q", got)
	}
	browsertest.SwitchLanguage(t, ctx, "en", `document.querySelectorAll("h1").length > 0`)
}
