package simcmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

var update = flag.Bool("update", false, "write the expected phrases of the speech tests (testdata/speech)")

// listener is a tab of the page with its speech synthesis replaced by a
// recorder (the speech stub): what the page hands it, with the language.
type listener struct {
	lang string
	ctx  context.Context
}

// listen opens the page in a tab of its own in lang, the voice on, and
// records what it says.
func (p *pageRun) listen(lang string) *listener {
	p.t.Helper()
	ctx := browsertest.Incognito(p.t, p.ctx)
	browsertest.Phone(p.t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+p.addr+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-cell]`))); err != nil {
		p.t.Fatal(err)
	}
	browsertest.Eval[int](p.t, ctx, `(localStorage.setItem("tabla.voice", "on"), 0)`)
	browsertest.SwitchLanguage(p.t, ctx, lang, `typeof state !== "undefined" && state !== null && document.getElementById("voice").checked`)
	browsertest.Eval[int](p.t, ctx, `(window.spoken = [], speechSynthesis.speak = u => window.spoken.push(u.lang + " | " + u.text), 0)`)
	return &listener{lang, ctx}
}

// synced waits for every listener's page to draw the board's state as it
// stands (its moves and its lights), so that each says what it should of
// it before the next action.
func (p *pageRun) synced(ls []*listener) referee.State {
	p.t.Helper()
	s := p.ps.Sess.State()
	for _, l := range ls {
		browsertest.WaitPage(p.t, "the "+l.lang+" page to show the board", func(lk *browsertest.Look) bool {
			s = p.ps.Sess.State()
			var leds []string
			for c, led := range s.LEDs {
				leds = append(leds, c+":"+led.Role)
			}
			sort.Strings(leds)
			want := strings.Join(s.Moves, " ") + "|" + strings.Join(leds, ",")
			got := browsertest.Read[string](lk, l.ctx, `state ? (state.moves || []).join(" ") + "|" + Object.keys(state.leds || {}).sort().map(c => c + ":" + state.leds[c].role).join(",") : ""`)
			return got == want
		}, nil)
	}
	return s
}

// hands is a seat's pieces in hand by kind (GYGES heights; six: its colour).
func hands(s referee.State, seat string) map[string]int {
	out := map[string]int{}
	raw, _ := json.Marshal(s.Hands[seat])
	if json.Unmarshal(raw, &out) != nil {
		var n int
		if json.Unmarshal(raw, &n) == nil && n > 0 {
			out[strings.TrimRight(seat, "0123456789")] = n
		}
	}
	return out
}

// step makes one move on the virtual board as a player would: rolls the
// board's die when a roll is due (faces in turn), puts a piece from the
// hand on the first cell lit for a placement, or lifts the first lit
// piece that has a destination and puts it on its first destination.
func (p *pageRun) step(ls []*listener, faces []string, k int) {
	p.t.Helper()
	s := p.synced(ls)
	n := len(s.Moves)
	vb := p.ps.VB
	if s.Awaiting == "roll" {
		if err := vb.Roll(faces[k%len(faces)]); err != nil {
			p.t.Fatal(err)
		}
		s = p.waitFor("the roll", func(s referee.State) bool { return len(s.Moves) > n || s.Awaiting == "move" })
		if len(s.Moves) > n {
			p.synced(ls)
			return
		}
		s = p.synced(ls)
	}
	if t := lit(s, "target"); len(t) > 0 { // RAY: the walker goes to the forced target
		for c, kind := range s.Expected {
			if kind == *s.ToMove {
				must(p.t, vb.Lift(c))
				p.waitFor("the lift", func(s referee.State) bool { return !s.InSync })
				must(p.t, vb.Place(t[0], ""))
				p.moves(n + 1)
				return
			}
		}
	}
	for _, c := range lit(s, "turn") {
		if s.Expected[c] != "" {
			continue
		}
		h := hands(s, *s.ToMove)
		kinds := make([]string, 0, len(h))
		for kd, m := range h {
			if m > 0 {
				kinds = append(kinds, kd)
			}
		}
		sort.Strings(kinds)
		if len(kinds) == 0 {
			p.t.Fatalf("%s has nothing in hand to place on %s: %v", *s.ToMove, c, s.Hands)
		}
		must(p.t, vb.Place(c, kinds[0]))
		p.moves(n + 1)
		return
	}
	// a move: the first lit piece with a destination, to its first empty
	// destination (in GYGES's advanced game an occupied one would be a
	// replace, which asks where the displaced piece goes)
	for _, c := range lit(s, "turn") {
		must(p.t, vb.Lift(c))
		s = p.waitFor("a lift read", func(s referee.State) bool { return !s.InSync })
		for _, d := range lit(s, "dest") {
			if s.Expected[d] == "" {
				must(p.t, vb.Place(d, ""))
				p.moves(n + 1)
				return
			}
		}
		must(p.t, vb.Place(c, ""))
		p.waitFor("the piece back", func(s referee.State) bool { return s.InSync })
	}
	p.t.Fatalf("no piece of %v can move", lit(s, "turn"))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// carryOut puts the board right as its lights ask after a takeback: each
// piece from the fast-blinking cell of a colour to the steady one.
func (p *pageRun) carryOut(ls []*listener) {
	p.t.Helper()
	s := p.synced(ls)
	pairs := map[string][2]string{}
	for c, l := range s.LEDs {
		if l.Role != "pair" {
			continue
		}
		key := fmt.Sprint(l.R, l.G, l.B)
		pr := pairs[key]
		if l.Blink != 0 {
			pr[0] = c
		} else {
			pr[1] = c
		}
		pairs[key] = pr
	}
	// the piece the takeback sends back: on the cell lit as not its own,
	// to the cell lit for its kind
	if ill, fill := lit(s, "illegal"), lit(s, "fill"); len(ill) == 1 && len(fill) == 1 {
		pairs["back"] = [2]string{ill[0], fill[0]}
	}
	if len(pairs) == 0 {
		p.t.Fatalf("after the takeback no piece to move is lit: %v", s.LEDs)
	}
	for _, pr := range pairs {
		must(p.t, p.ps.VB.Lift(pr[0]))
		p.waitFor("the lift", func(s referee.State) bool { return len(s.Sensed) >= 0 })
		must(p.t, p.ps.VB.Place(pr[1], ""))
	}
	p.waitFor("the board as the game stands", func(s referee.State) bool { return s.InSync })
}

// heard compares what each listener's page said with the expected
// phrases (testdata/speech/NAME.LANG.txt; -update writes them).
func heard(t *testing.T, name string, ls []*listener) {
	t.Helper()
	for _, l := range ls {
		got := browsertest.Eval[[]string](t, l.ctx, `window.spoken`)
		path := filepath.Join("testdata", "speech", name+"."+l.lang+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if !slices.Equal(got, want) {
			t.Errorf("%s in %s: the page said\n%s\nwant\n%s", name, l.lang, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestSpeechGames (issue 38 item 2): one game of each of the five games,
// heard by an English and a Turkish page at once through the speech stub:
// every move with who made it, its roll and the pieces it took off, the
// hint, a takeback and what the board then needs (STAR), and the result,
// each phrase in the page's language and voice (tr-TR, en-GB), compared
// with the phrases kept in testdata/speech.
func TestSpeechGames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		o     PageOptions
		moves int
		faces []string
	}{
		{"gyges", PageOptions{Game: "gyges", Variant: "advanced", Sensors: "identifying", Seed: 31}, 14, nil},
		{"daha", PageOptions{Game: "daha", Sensors: "identifying", Seed: 32}, 5, []string{"3", "5", "2", "6", "1", "4"}},
		{"ray", PageOptions{Game: "ray", Sensors: "identifying", Seed: 33}, 5, []string{"E", "W", "W", "N", "S"}},
		{"six", PageOptions{Game: "six", Variant: "advanced", Sensors: "identifying", Seed: 34}, 4, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := startPage(t, c.o)
			ls := []*listener{p.listen("en"), p.listen("tr")}
			for k := 0; k < c.moves; k++ {
				p.step(ls, c.faces, k)
			}
			p.synced(ls)
			heard(t, c.name, ls)
		})
	}
	t.Run("star", func(t *testing.T) {
		t.Parallel()
		// STAR's 9-move game that red wins (aicmd's testdata), with a
		// hint, and a takeback carried out, on the way
		p := startPage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 22})
		ls := []*listener{p.listen("en"), p.listen("tr")}
		for i, mv := range strings.Fields("b1-f3 l13-h11 k5-g3 c9-g11 d2-h4 j12-f10 c5-i1 k9-e13 f1-f5") {
			if i == 2 {
				must(t, p.ps.VB.Press(hardware.ButtonHint))
				p.waitFor("the hint", func(s referee.State) bool { return s.Hint != "" })
				p.synced(ls)
			}
			from, to, _ := strings.Cut(mv, "-")
			must(t, p.ps.VB.Lift(from))
			p.waitFor("the lift", func(s referee.State) bool { return !s.InSync })
			must(t, p.ps.VB.Place(to, ""))
			p.moves(i + 1)
			if i == 3 {
				p.synced(ls)
				must(t, p.ps.VB.Press(hardware.ButtonTakeback))
				p.waitFor("the takeback", func(s referee.State) bool { return len(s.Moves) == i })
				p.carryOut(ls)
				p.synced(ls)
				must(t, p.ps.VB.Lift(from))
				p.waitFor("the lift", func(s referee.State) bool { return !s.InSync })
				must(t, p.ps.VB.Place(to, ""))
				p.moves(i + 1)
			}
		}
		p.waitFor("red's win", func(s referee.State) bool { return s.Status == "won" })
		p.synced(ls)
		heard(t, "star", ls)
	})
}

// TestSpeechMoves: every part of a move said in both languages — GYGES's
// placement, its goal and the displaced piece of a replace, six's
// coordinates, a tied split and the pieces it takes off, DAHA's centre,
// a roll, a pass — as testdata/speech/moves.LANG.txt has them.
func TestSpeechMoves(t *testing.T) {
	t.Parallel()
	p := startPage(t, PageOptions{Game: "star", First: "red", Sensors: "identifying", Seed: 35})
	ls := []*listener{p.listen("en"), p.listen("tr")}
	const cases = `[
	  ["gyges", {"text": "3@c1", "to": ["c1"]}, "south"],
	  ["gyges", {"text": "c6-a6/e2", "from": ["c6"], "to": ["a6", "e2"]}, "north"],
	  ["gyges", {"text": "d6-S", "from": ["d6"], "to": ["S"]}, "north"],
	  ["gyges", {"text": "b1-N", "from": ["b1"], "to": ["N"]}, "south"],
	  ["gyges", {"text": "pass"}, "north"],
	  ["six", {"text": "-1,0", "to": ["-1,0"]}, "black"],
	  ["six", {"text": "0,0>-2,3", "from": ["0,0"], "to": ["-2,3"]}, "red2"],
	  ["six", {"text": "2,-1>1,1/3,-2", "from": ["2,-1"], "to": ["1,1"], "captured": ["red", "red", "black"]}, "black"],
	  ["daha", {"text": "O", "from": ["A4"], "to": ["O"], "roll": "4"}, "blue"],
	  ["daha", {"text": "C7", "from": ["O"], "to": ["C7"], "roll": "6", "captured": ["yellow"]}, "red"],
	  ["ray", {"text": "ab27", "from": ["ac28"], "to": ["ab27"], "roll": "W"}, "yellow"],
	  ["star", {"text": "b1-f3", "from": ["b1"], "to": ["f3"]}, "red"]
	]`
	for _, l := range ls {
		browsertest.Eval[int](t, l.ctx, `(JSON.parse(`+"`"+cases+"`"+`).forEach(([g, m, who]) => { Words.init(g); say(Words.say(m, I18N.seat(who)) + "."); }), 0)`)
	}
	heard(t, "moves", ls)
}
