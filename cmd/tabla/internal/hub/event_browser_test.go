package hub

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/record"
)

// TestEventPages drives a club evening's page in headless Chromium at
// phone size (390×844): players registered from the page with the
// arbiter's token (refused without), the first round started from it,
// the round's tables with the players by seat and their clocks while
// the games are played, the standings with their tie-breaks and ratings,
// the finished round's download; and a paired table's own live page (as
// its phones show it) naming the players the hub seated there, with their
// clocks. Screenshots: hub-event-phone, hub-event-table-phone.
func TestEventPages(t *testing.T) {
	// not in parallel: beside the others at load 8 (six at once) and 20
	// (four), round 2 was not paired within waitRound's 30 s
	th := startHub(t)
	tables := map[string]*vtable{}
	urls := th.tableURLs("g1", "g2", "d1")
	for i, name := range []string{"g1", "g2", "d1"} {
		game := "gyges"
		if name == "d1" {
			game = "daha"
		}
		tables[name] = openVTable(t, urls[name], name, t.TempDir(), record.Header{Game: game}, "", uint64(200+i))
	}
	e, err := NewEvent(EventSpec{ID: "moda", Name: "Moda club evening", Site: "Moda", Date: "2026-11-26", Sections: []SectionSpec{
		{Game: "gyges", System: club.Swiss, Rounds: 3, Clock: "10m+5s", Tables: []string{"g1", "g2"}},
		{Game: "daha", Rounds: 3, Clock: "10m+5s", Tables: []string{"d1"}}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hub to read the event", 10*time.Second, func() bool { return th.hub.Event("moda") != nil })

	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	base := "http://" + th.httpAddr
	// the live tables' page links the evening
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`#events a[href="event.html?e=moda"]`))); err != nil {
		t.Fatal(err)
	}
	browsertest.Click(t, ctx, `#events a`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#regName`))); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, "the event's games on the page", `document.querySelectorAll("#regGame option").length === 2`, `document.body.innerText`)
	register := func(game, name string) {
		t.Helper()
		browsertest.Eval[any](t, ctx, fmt.Sprintf(`(() => { document.getElementById("regGame").value = %q; document.getElementById("regName").value = %q;
			document.getElementById("register").requestSubmit(); })()`, game, name))
	}
	// without the token: refused, in words
	register("gyges", "Mallory")
	browsertest.WaitJS(t, ctx, "the refusal without the token", `document.getElementById("evmessage").textContent.includes("token is needed")`, `document.getElementById("evmessage").textContent`)
	// typed, then left as a person's tap on a button leaves it: the page
	// keeps the token (on the box's change) for its next visit
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#token`), "secret"), chromedp.Blur(chromedp.CSS(`#token`))); err != nil {
		t.Fatal(err)
	}
	// a finger's target: the arbiter's fields and the registration's
	// name, ratings and button at least 44 px high on the phone
	if small := browsertest.Eval[[]string](t, ctx, browsertest.SmallTargets("#arbiter")); len(small) > 0 {
		t.Errorf("at 390×844 these controls of the registration are under %d px high: %v", browsertest.MinTarget, small)
	}
	for game, names := range map[string][]string{"gyges": {"Ayşe", "Bora", "Cem", "Deniz"}, "daha": {"Gül", "Hakan", "İpek", "Kaan"}} {
		for _, n := range names {
			register(game, n)
			browsertest.WaitJS(t, ctx, n+" registered", fmt.Sprintf(`document.getElementById("sections").innerText.includes(%q)`, n), `document.getElementById("evmessage").textContent`)
		}
	}
	if got := len(th.hub.Event("moda").Sections[0].Players); got != 4 {
		t.Fatalf("%d GYGES players registered, want 4 (Mallory refused)", got)
	}
	browsertest.Eval[any](t, ctx, `(() => { window.confirm = () => true; document.getElementById("start").click(); })()`)
	waitRound(t, th, "moda", 1, tables)
	playClub(t, 20000, tables["g1"], tables["g2"], tables["d1"])
	waitRound(t, th, "moda", 2, tables)
	for range 10 {
		for _, v := range tables {
			v.step()
		}
	}
	ev := th.hub.Event("moda")
	want := []string{"Round 2"}
	for _, s := range ev.Sections {
		for _, p := range s.Played[1].Pairings {
			want = append(want, p.Players...)
		}
	}
	// the round's tables with the players by seat and the running clocks,
	// the standings after round 1 and its download
	var text string
	browsertest.WaitPage(t, "round 2 with names, clocks, standings and round 1's records", func(l *browsertest.Look) bool {
		text = browsertest.Read[string](l, ctx, `document.getElementById("sections").innerText`)
		for _, w := range want {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return browsertest.Read[int](l, ctx, `document.querySelectorAll(".evseats .clock").length`) == 8 &&
			browsertest.Read[int](l, ctx, `document.querySelectorAll(".evseats .clock.run").length`) == 3 &&
			strings.Contains(text, "Buchholz") && strings.Contains(text, "first places") &&
			browsertest.Read[int](l, ctx, `document.querySelectorAll('.evdl a[href$="/round/1"]').length`) == 2
	}, func(*browsertest.Look) string { return text })
	// ratings as r ± RD with a word on what it means; points exact (a
	// Sonneborn-Berger of 0.25 is not 0.3)
	if !regexp.MustCompile(`\d{3,4} ± \d{2,3}`).MatchString(text) || !strings.Contains(text, "within two RDs of r 95 times in 100") {
		t.Errorf("no rating as r ± RD explained on the page:\n%s", text)
	}
	if got := browsertest.Eval[string](t, ctx, `[0.25, 1.5, 0.5, 2, 2.75].map(num).join(" ")`); got != "0.25 1½ ½ 2 2.75" {
		t.Errorf("points on the page: %q", got)
	}
	if px := browsertest.Eval[int](t, ctx, browsertest.Overflow); px > 0 {
		t.Errorf("the event page is %d px wider than a 390-px phone", px)
	}
	browsertest.Screenshot(t, ctx, "hub-event-phone")
	browsertest.CheckLanguages(t, ctx, "the event page", `document.querySelectorAll(".evseats .clock").length === 8 && document.querySelectorAll("#log li").length > 0`, "tr-hub-event-phone")

	// a paired table's own page (its phones'): the players the hub seated
	// there and their clocks
	p := ev.Sections[0].Played[1].Pairings[0]
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/t/"+p.Table+"/"), chromedp.WaitVisible(chromedp.CSS(`#board [data-cell]`))); err != nil {
		t.Fatal(err)
	}
	browsertest.WaitJS(t, ctx, "the table's page naming the paired players with their clocks",
		fmt.Sprintf(`(() => { const c = document.getElementById("club"); return !c.hidden && c.innerText.includes(%q) && c.innerText.includes(%q) &&
			c.innerText.includes("round 2.1") && document.querySelectorAll("#players .clock").length === 2 &&
			[...document.querySelectorAll("#players .clock")].every(e => /\d+:\d\d/.test(e.textContent)); })()`, p.Players[0], p.Players[1]),
		`document.getElementById("club").innerText`)
	browsertest.Screenshot(t, ctx, "hub-event-table-phone")

	// the arbiter sets a result from the page: logged with the reason
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/event.html?e=moda"), chromedp.WaitVisible(chromedp.CSS(`#resWhy`))); err != nil {
		t.Fatal(err)
	}
	q := ev.Sections[0].Played[1].Pairings[1]
	browsertest.Eval[any](t, ctx, `(() => { const v = (id, x) => document.getElementById(id).value = x;
		v("resGame", "gyges"); v("resRound", "2"); v("resBoard", "2"); v("resPlaces", "0-1"); v("resWhy", "south stopped the clock and resigned");
		document.getElementById("result").requestSubmit(); })()`)
	browsertest.WaitJS(t, ctx, "the arbiter's result in the log", `document.getElementById("log").innerText.includes("the arbiter changed gyges round 2 board 2") &&
		document.getElementById("log").innerText.includes("south stopped the clock and resigned")`, `document.getElementById("log").innerText + document.getElementById("evmessage").textContent`)
	if r := th.hub.Event("moda").Sections[0].Played[1].Pairings[1].Result; r == nil || r.By != "arbiter" || r.Points[1] != 1 {
		t.Fatalf("round 2 board 2 (%v) after the arbiter: %+v", q.Players, r)
	}

	// the arbiter's tools in Turkish: a change done, logged with who and
	// why in the page's words; the club's refusal of the same change
	// worded from the catalogue, not the hub's English
	ready := `document.querySelectorAll("#log li").length > 0 && !document.getElementById("tools").hidden`
	browsertest.SwitchLanguage(t, ctx, "tr", ready)
	if small := browsertest.Eval[[]string](t, ctx, browsertest.SmallTargets("#arbiter")); len(small) > 0 {
		t.Errorf("at 390×844 these controls of the arbiter's forms are under %d px high: %v", browsertest.MinTarget, small)
	}
	bye := func() {
		browsertest.Eval[any](t, ctx, `(() => { const v = (id, x) => document.getElementById(id).value = x;
			v("by", "Zeynep"); v("toolGame", "gyges"); v("toolDo", "bye"); v("toolName", "Ayşe"); v("toolRound", "3"); v("toolWhy", "erken gidecek");
			document.getElementById("evmessage").textContent = ""; document.getElementById("tools").requestSubmit(); })()`)
	}
	noProblems := func(what string) {
		t.Helper()
		var problems []string
		browsertest.WaitPage(t, what+" without language problems", func(l *browsertest.Look) bool {
			problems = browsertest.Read[[]string](l, ctx, browsertest.LanguageProblems)
			return len(problems) == 0
		}, func(*browsertest.Look) string { return fmt.Sprint(problems) })
	}
	bye()
	browsertest.WaitJS(t, ctx, "the bye done and logged in Turkish", `document.getElementById("evmessage").textContent === "Yapıldı." &&
		document.getElementById("log").innerText.includes("Ayşe, gyges tur 3 için yarım puanlık bay aldı. Neden: erken gidecek (Zeynep)")`,
		`document.getElementById("log").innerText + " | " + document.getElementById("evmessage").textContent`)
	noProblems("the arbiter's change in Turkish")
	bye()
	browsertest.WaitJS(t, ctx, "the refusal in Turkish", `document.getElementById("evmessage").textContent === "Ayşe, 3. turda zaten bay geçiyor."`,
		`document.getElementById("evmessage").textContent`)
	noProblems("the arbiter's refusal in Turkish")
	browsertest.SwitchLanguage(t, ctx, "en", ready)
	browsertest.WaitJS(t, ctx, "the log back in English", `document.getElementById("log").innerText.includes("Ayşe has a half-point bye in gyges round 3: erken gidecek (Zeynep)")`,
		`document.getElementById("log").innerText`)
}
