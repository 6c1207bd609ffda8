package simcmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
)

// browser starts headless Chromium (Debian's): without it the test fails
// in CI and skips on a laptop (browsertest).
func browser(t *testing.T) context.Context { return browsertest.Start(t) }

type pageRun struct {
	t   *testing.T
	ctx context.Context
	ps  *PageSession
	// stop ends the simulator (the page stays open)
	stop func()
	// addr is the page's address (host:port)
	addr string
}

func startPage(t *testing.T, o PageOptions) *pageRun {
	ctx := browser(t)
	sctx, stop := context.WithCancel(context.Background())
	ready := make(chan *PageSession, 1)
	var addr string
	o.Listen = "127.0.0.1:0"
	o.Ready = func(a string, ps *PageSession) { addr = a; ready <- ps }
	done := make(chan error, 1)
	go func() { done <- ServePage(sctx, &o, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	var ps *PageSession
	select {
	case ps = <-ready:
	case err := <-done:
		t.Fatalf("ServePage: %v", err)
	}
	var once sync.Once
	end := func() { once.Do(func() { stop(); <-done }) }
	t.Cleanup(end)
	p := &pageRun{t: t, ctx: ctx, ps: ps, stop: end, addr: addr}
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-cell]`))); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the page to show the game", func(s referee.State) bool { return true })
	return p
}

func (p *pageRun) click(sel string) {
	p.t.Helper()
	browsertest.Click(p.t, p.ctx, sel)
}

func (p *pageRun) cell(name string) { p.click(fmt.Sprintf(`.hit[data-cell=%q]`, name)) }

func (p *pageRun) waitFor(what string, cond func(referee.State) bool) referee.State {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := p.ps.Sess.State()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s; state: mode %s in_sync %v moves %v message %q pending %v hint %q leds %v", what, s.Mode, s.InSync, s.Moves, s.Message, s.Pending, s.Hint, s.LEDs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitHand waits for the virtual board, and the page showing it, to hold n
// lifted pieces.
func (p *pageRun) waitHand(n int) {
	p.t.Helper()
	// The click reaches the board first: until then the page may still
	// show an earlier hand of the same size (a lift, a place, a lift: the
	// page read 1 from the first lift while the board held 0).
	for deadline := time.Now().Add(10 * time.Second); p.ps.VB.Hand() != n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Fatalf("the board holds %d lifted pieces, want %d", p.ps.VB.Hand(), n)
		}
	}
	// the page's lifted pieces are the virtual board's hand as the server
	// last sent it
	p.waitPage(fmt.Sprintf("%d lifted pieces on the page", n), fmt.Sprintf(`!!(state && state.lifted && state.lifted.length === %d)`, n),
		`"lifted " + (state && state.lifted ? state.lifted.length : -1)`)
	if h := p.ps.VB.Hand(); h != n {
		p.t.Fatalf("the page shows %d lifted pieces, the board has %d", n, h)
	}
}

// waitTurn waits for the page's turn line to say want (the board's state
// against the game, in words).
func (p *pageRun) waitTurn(want string) {
	p.t.Helper()
	var text string
	browsertest.WaitPage(p.t, fmt.Sprintf("the turn line to say %q", want), func(l *browsertest.Look) bool {
		text = browsertest.Read[string](l, p.ctx, `document.getElementById("turn").textContent`)
		return strings.Contains(text, want)
	}, func(*browsertest.Look) string { return text })
}

func (p *pageRun) moves(n int) referee.State {
	return p.waitFor(fmt.Sprintf("%d moves", n), func(s referee.State) bool { return len(s.Moves) == n && s.InSync })
}

// lit returns the cells lit with a role, sorted.
func lit(s referee.State, role string) []string {
	var out []string
	for c, l := range s.LEDs {
		if l.Role == role {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func (p *pageRun) screenshot(name string) {
	p.t.Helper()
	browsertest.Screenshot(p.t, p.ctx, name)
}

// liftAndPlaceLit lifts the piece on from, waits for its legal destinations
// to light up, and puts it on one of them.
func (p *pageRun) liftAndPlaceLit(from string, pick func([]string) string) string {
	p.t.Helper()
	p.cell(from)
	p.waitHand(1)
	s := p.waitFor("destinations of "+from, func(s referee.State) bool { return len(lit(s, "dest")) > 0 })
	p.waitTurn("move under way") // a piece in the hand is no fault
	to := pick(lit(s, "dest"))
	p.cell(to)
	p.waitHand(0)
	return to
}

func first(c []string) string { return c[0] }

func TestPageGYGES(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "gyges", Sensors: "identifying", Seed: 1})
	p.click(`#palette button[data-kind="3"]`)
	p.cell("c1")
	p.moves(1)
	// North puts a piece on south's row: wrong, the board is out of sync
	// and nothing is recorded until it is fixed.
	p.click(`#palette button[data-kind="2"]`)
	p.cell("c3")
	p.waitFor("correction mode", func(s referee.State) bool { return !s.InSync && len(s.Moves) == 1 })
	p.waitTurn("board out of sync")
	p.cell("c3") // lift it again…
	p.waitHand(1)
	p.cell("d6") // …and put it on north's home row
	s := p.moves(2)
	if !slices.Equal(s.Moves, []string{"3@c1", "2@d6"}) {
		t.Errorf("moves %v", s.Moves)
	}
	p.screenshot("gyges")
}

func TestPageSTAR(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 2})
	p.liftAndPlaceLit("a4", first)
	p.moves(1)
	// White puts a piece on a cell it cannot reach, sees the board out of
	// sync, and puts it back.
	p.cell("e10")
	p.waitHand(1)
	p.cell("e11")
	p.waitFor("correction mode", func(s referee.State) bool { return !s.InSync })
	p.cell("e11")
	p.waitHand(1)
	p.cell("e10")
	p.waitFor("back in sync", func(s referee.State) bool { return s.InSync && len(s.Moves) == 1 })
	p.liftAndPlaceLit("e10", first)
	p.moves(2)
	p.screenshot("star")
}

func TestPageDAHA(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "daha", Sensors: "identifying", Seed: 3})
	p.click(`#faces button[data-face="3"]`) // the board's electronic die
	p.waitFor("the roll", func(s referee.State) bool { return s.Awaiting == "move" && s.Roll == "3" })
	p.liftAndPlaceLit("C0", first)
	p.moves(1)
	p.click(`[data-press="roll"]`) // tabla rolls for yellow
	p.waitFor("yellow's roll", func(s referee.State) bool { return s.Awaiting == "move" || len(s.Eliminated) > 0 })
	p.liftAndPlaceLit("C2", first)
	p.moves(2)
	p.screenshot("daha")
}

func TestPageRAY(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "ray", Sensors: "identifying", Seed: 4})
	homes := map[string]string{"red": "a29", "yellow": "ac29", "blue": "ac1", "black": "a1"}
	for turn := 0; turn < 4; turn++ {
		s := p.ps.Sess.State()
		seat := *s.ToMove
		n := len(s.Moves)
		p.click(`[data-press="roll"]`)
		s = p.waitFor("a roll", func(s referee.State) bool { return len(s.Moves) > n || len(lit(s, "target")) > 0 })
		if len(s.Moves) > n {
			continue // blocked: the forced pass is played for the player
		}
		target := lit(s, "target")[0]
		p.cell(homes[seat])
		p.waitHand(1)
		p.cell(target)
		p.waitFor("the step", func(s referee.State) bool { return len(s.Moves) == n+1 && s.InSync })
		homes[seat] = target
	}
	p.screenshot("ray")
}

func TestPageSix(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "six", Sensors: "identifying", Seed: 5})
	p.click(`#palette button[data-kind="black"]`)
	p.cell("-1,0")
	p.moves(1)
	p.click(`#palette button[data-kind="red"]`)
	p.cell("2,0")
	p.moves(2)
	// Black puts a hexagon where it touches nothing: out of sync; then
	// slides it to a legal cell.
	p.click(`#palette button[data-kind="black"]`)
	p.cell("5,-3")
	p.waitFor("correction mode", func(s referee.State) bool { return !s.InSync })
	p.cell("5,-3")
	p.waitHand(1)
	p.cell("-2,0")
	s := p.moves(3)
	if !strings.HasPrefix(strings.Join(s.Moves, " "), "-1,0 2,0 -2,0") {
		t.Errorf("moves %v", s.Moves)
	}
	p.screenshot("six")
}

// TestPageAISeat: white is played by the engine; its move is lit as a hint
// and the person carries it out.
func TestPageAISeat(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 6, AI: []string{"white=1"}})
	p.liftAndPlaceLit("a4", first)
	s := p.waitFor("the engine's move", func(s referee.State) bool { return s.Hint != "" && len(lit(s, "hint")) == 2 })
	from, to, ok := strings.Cut(s.Hint, "-")
	if !ok {
		t.Fatalf("hint %q", s.Hint)
	}
	p.cell(from)
	p.waitHand(1)
	p.cell(to)
	s = p.moves(2)
	if s.Moves[1] != from+"-"+to {
		t.Errorf("moves %v, want the engine's %s", s.Moves, s.Hint)
	}
	p.screenshot("star-ai")
}
