package hub

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// TestHubPages drives the hub's pages in headless Chromium at phone size:
// the live tables, each with a small board; one table with its board, move
// list and evaluation bar following the game as it is played; the table's
// own live page, read-only; and a person playing a seat of a board's game
// from the page with the hub's token, the board carrying the moves out.
func TestHubPages(t *testing.T) {
	t.Parallel()
	th := &testHub{t: t, dir: t.TempDir(), addr: "127.0.0.1:0", eval: 20 * time.Millisecond}
	th.start()
	t.Cleanup(th.stop)
	ctl, err := clock.ParseControls([]string{"15m+10s"})
	if err != nil {
		t.Fatal(err)
	}
	urls := th.tableURLs("alpha", "h")
	solo := openVTable(t, urls["alpha"], "alpha", t.TempDir(), record.Header{Game: "gyges",
		Names: map[string]string{"south": "Ayşe", "north": "Bora"}, Event: "club night", Round: "1", Clock: ctl}, "", 21)
	host := openVTable(t, urls["h"], "h", t.TempDir(), record.Header{Game: "star", First: "red"}, "", 22)
	host.paired = true
	steps(t, 6, solo)
	base := "http://" + th.httpAddr

	ctx := browsertest.Start(t)
	browsertest.Phone(t, ctx)
	nav := func(url, sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
	noOverflow := func(page string) {
		t.Helper()
		if px := browsertest.Eval[int](t, ctx, browsertest.Overflow); px > 0 {
			t.Errorf("%s is %d px wider than a 390-px phone", page, px)
		}
	}

	// the live tables: a card each, with its board drawn
	nav(base+"/", "#tables")
	cards := `Object.fromEntries([...document.querySelectorAll("a.tcard")].map(a => [a.querySelector(".name").textContent, a.querySelectorAll("svg .pieces [data-cell]").length]))`
	var seen map[string]int
	browsertest.WaitPage(t, "a card with a drawn board for each table", func(l *browsertest.Look) bool {
		seen = browsertest.Read[map[string]int](l, ctx, cards)
		return len(seen) == 2 && seen["alpha"] > 0 && seen["h"] > 0
	}, func(*browsertest.Look) string { return fmt.Sprint(seen) })
	noOverflow("the live tables")
	browsertest.Screenshot(t, ctx, "hub-tables-phone")
	// in Turkish and back (issue 38): no key, no English left over, no
	// text wider than its box
	browsertest.CheckLanguages(t, ctx, "the live tables", `document.querySelectorAll("a.tcard svg .pieces [data-cell]").length > 0`, "tr-hub-tables-phone")

	// one table: its board, moves and evaluation bar, live
	browsertest.Click(t, ctx, `a.tcard[href="table.html?t=alpha"]`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#board [data-cell]`))); err != nil {
		t.Fatal(err)
	}
	follows := func(what string) {
		t.Helper()
		var pieces map[string]string
		var moves []string
		var bar float64
		browsertest.WaitPage(t, what, func(l *browsertest.Look) bool {
			pieces = browsertest.Read[map[string]string](l, ctx, browsertest.DrawnPieces)
			moves = browsertest.Read[[]string](l, ctx, `[...document.querySelectorAll("#moves li")].map(l => l.textContent)`)
			bar = browsertest.Read[float64](l, ctx, `document.getElementById("evalbar").hidden ? 0 : [...document.getElementById("evalbar").children].reduce((s, d) => s + parseFloat(d.style.width), 0)`)
			return maps.Equal(pieces, solo.sess.StatusJSON().Pieces) && slices.Equal(moves, journalMoves(t, solo.sess.JournalPath())) && bar > 99.9 && bar < 100.1
		}, func(*browsertest.Look) string {
			return fmt.Sprintf("page: pieces %v moves %v eval bar %.1f%%; table: pieces %v moves %v", pieces, moves, bar,
				solo.sess.StatusJSON().Pieces, journalMoves(t, solo.sess.JournalPath()))
		})
	}
	follows("the table page to show alpha's game")
	steps(t, 4, solo)
	follows("the table page to follow the game")
	noOverflow("a table")
	// who plays, the event and the clocks (issue 27)
	var club string
	browsertest.WaitPage(t, "the players and clocks on the table page", func(l *browsertest.Look) bool {
		club = browsertest.Read[string](l, ctx, `document.getElementById("club").hidden ? "" : document.getElementById("club").innerText`)
		return strings.Contains(club, "club night · round 1") && strings.Contains(club, "Ayşe (south)") && strings.Contains(club, "Bora (north)") &&
			browsertest.Read[int](l, ctx, `document.querySelectorAll("#players .clock").length`) == 2
	}, func(*browsertest.Look) string { return club })
	browsertest.Screenshot(t, ctx, "hub-table-club-phone")
	browsertest.Screenshot(t, ctx, "hub-table-phone")
	browsertest.CheckLanguages(t, ctx, "a table", `document.querySelectorAll("#moves li").length > 0 && !document.getElementById("club").hidden`, "tr-hub-table-phone")

	// the table's own live page, read-only, LEDs and all
	nav(base+"/t/alpha/", `#board [data-cell]`)
	var pieces map[string]string
	browsertest.WaitPage(t, "alpha's own page on the hub", func(l *browsertest.Look) bool {
		pieces = browsertest.Read[map[string]string](l, ctx, browsertest.DrawnPieces)
		return maps.Equal(pieces, solo.sess.StatusJSON().Pieces)
	}, func(*browsertest.Look) string { return fmt.Sprint(pieces) })
	noOverflow("a table's live page")
	browsertest.CheckLanguages(t, ctx, "a table's live page", `typeof state !== "undefined" && state !== null`, "tr-table-phone")

	// a person plays white of h's game from the page
	nav(base+"/table.html?t=h", `#seats button`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#token`), "secret")); err != nil {
		t.Fatal(err)
	}
	clickText := func(l *browsertest.Look, sel, text string) bool {
		return browsertest.Read[bool](l, ctx, fmt.Sprintf(`(() => { const b = [...document.querySelectorAll(%q)].find(b => b.textContent === %q); if (b) b.click(); return !!b; })()`, sel, text))
	}
	browsertest.WaitPage(t, "a button to play white", func(l *browsertest.Look) bool {
		return clickText(l, "#seats button", "play white")
	}, func(l *browsertest.Look) string {
		return browsertest.Read[string](l, ctx, `document.getElementById("seats").textContent`)
	})
	waitFor(t, "the board to see white played from a browser", 10*time.Second, func() bool { return !host.mine("white") })
	// a move out of turn is refused, and the page keeps saying why while
	// the game goes on
	for host.sess.State().ToMove == nil || *host.sess.State().ToMove != "red" {
		host.step()
	}
	// the host granted the seat; the hub plays it once it has the seat and
	// the browser's record of the game (refused as not played here before)
	hubPlays(t, th.hub, "h", "white")
	browsertest.Eval[any](t, ctx, `post("/api/tables/h/move", {seat: "white", move: "a1-a2"})`)
	refused := func() string {
		return browsertest.Eval[string](t, ctx, `document.getElementById("message").textContent`)
	}
	// in plain words: the hub's developer text stays in its answer's
	// "error" and its log
	const notTurn = "It is red's turn, not yours."
	if msg := refused(); msg != notTurn {
		t.Errorf("a move out of turn: the page says %q", msg)
	}
	var played []string
	for len(played) < 3 {
		// white's turn on a page that has the whole game: tap a move
		var tap []string
		var n int
		browsertest.WaitPage(t, fmt.Sprintf("white's move %d tapped on the page", len(played)+1), func(l *browsertest.Look) bool {
			if host.step() {
				return false // the board's turn first
			}
			n = len(journalMoves(t, host.sess.JournalPath()))
			tap = browsertest.Read[[]string](l, ctx, fmt.Sprintf(`(() => {
			const b = document.querySelector("#legal button"), msg = document.getElementById("message").textContent;
			if (!b || !document.getElementById("turn").textContent.includes("white to move") || document.querySelectorAll("#moves li").length !== %d) return ["", msg];
			b.click(); return [b.textContent, msg]; })()`, n))
			return len(tap) == 2 && tap[0] != ""
		}, func(*browsertest.Look) string {
			st := host.sess.State()
			return fmt.Sprintf("the browser played %v; the board: moves %v hint %q to move %v", played, st.Moves, st.Hint, deref(st.ToMove))
		})
		m := tap[0]
		if len(played) == 0 && !strings.Contains(tap[1], notTurn) {
			t.Errorf("the refusal was wiped before the next action: the page said %q", tap[1])
		}
		played = append(played, m)
		// the board lights the browser's move; its person carries it out
		until := time.Now().Add(20 * time.Second)
		for ms := []string(nil); len(ms) <= n || ms[n] != m; ms = journalMoves(t, host.sess.JournalPath()) {
			if time.Now().After(until) {
				st := host.sess.State()
				t.Fatalf("the board did not carry out %s: it journalled %v; hint %q, to move %v, mode %s; the page says %q; remote: %s", m, ms, st.Hint, deref(st.ToMove), st.Mode,
					browsertest.Eval[string](t, ctx, `document.getElementById("message").textContent`), host.rem.Debug())
			}
			if !host.step() {
				time.Sleep(5 * time.Millisecond)
			}
		}
		// the tap wiped the refusal when it sent the move, whenever its
		// answer comes (the board may carry the move out before)
		if msg := browsertest.Eval[string](t, ctx, `document.getElementById("message").textContent`); msg != "" {
			t.Fatalf("after %s the page says %q", m, msg)
		}
	}
	t.Logf("the browser played %v; the board journalled %v", played, journalMoves(t, host.sess.JournalPath()))
	var moves []string
	browsertest.WaitPage(t, "the page to list the game as the board journalled it", func(l *browsertest.Look) bool {
		moves = browsertest.Read[[]string](l, ctx, `[...document.querySelectorAll("#moves li")].map(l => l.textContent)`)
		return slices.Equal(moves, journalMoves(t, host.sess.JournalPath()))
	}, func(*browsertest.Look) string {
		return fmt.Sprintf("page %v, board %v", moves, journalMoves(t, host.sess.JournalPath()))
	})
	if !strings.Contains(browsertest.Eval[string](t, ctx, `document.getElementById("seats").textContent`), "white (browser)") {
		t.Error("the page does not show white as played from the browser")
	}
	noOverflow("a table played from the page")
	browsertest.Screenshot(t, ctx, "hub-play-phone")
}

// hubPlays waits, woken by the hub's changes, until the hub plays seat of
// table's game for a browser (it has the seat's claim and the browser's
// record of the game: a move is then judged by its turn).
func hubPlays(t *testing.T, h *Hub, table, seat string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	changes := h.subscribe(ctx, "", false)
	for {
		_, err := h.Legal(table, seat)
		if err == nil {
			return
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("the hub does not play %s of %s for the browser: %v", seat, table, err)
		}
	}
}
