package gyges

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// pos builds a movement-phase start: spec lists "cell:height" words.
func pos(toMove, spec string) *engine.Position {
	p := &engine.Position{ToMove: toMove, Pieces: map[string]string{}}
	for _, w := range strings.Fields(spec) {
		cell, h, _ := strings.Cut(w, ":")
		p.Pieces[cell] = h
	}
	return p
}

func moveSet(g engine.State) []string {
	var out []string
	for _, m := range g.Moves(nil) {
		out = append(out, engine.MoveString(g, m))
	}
	slices.Sort(out)
	return out
}

func play(t testing.TB, g engine.State, moves ...string) {
	t.Helper()
	for _, text := range moves {
		m, err := g.ParseMove(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		g.Play(m)
	}
}

func TestInfoAndRegistry(t *testing.T) {
	for _, tc := range []struct{ variant, want string }{{"", "basic"}, {"basic", "basic"}, {"advanced", "advanced"}} {
		s, err := engine.New("gyges", engine.Config{Variant: tc.variant})
		if err != nil {
			t.Fatal(err)
		}
		info := s.Info()
		if info.Game != "gyges" || info.Variant != tc.want || !reflect.DeepEqual(info.Seats, []string{"south", "north"}) ||
			!reflect.DeepEqual(info.Sides, info.Seats) || !reflect.DeepEqual(info.SideOf, []int{0, 1}) || info.Die != nil {
			t.Errorf("variant %q: info %+v", tc.variant, info)
		}
		if s.ToMove() != 0 || s.Awaiting() != engine.AwaitMove || s.Plies() != 0 || s.Result() != (engine.Result{Status: engine.Playing, Winner: -1}) {
			t.Errorf("variant %q: start state wrong", tc.variant)
		}
		if err := s.Roll(0); !errors.Is(err, engine.ErrNotNow) {
			t.Errorf("Roll: got %v, want ErrNotNow", err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	full := func(p *engine.Position, hands map[string]any) *engine.Position {
		p.Hands = hands
		return p
	}
	for _, tc := range []struct {
		name string
		cfg  engine.Config
		want string // in the message
	}{
		{"unknown variant", engine.Config{Variant: "expert"}, `"expert"`},
		{"unknown first", engine.Config{First: "east"}, `"east"`},
		{"star setting", engine.Config{N: 12}, "n is"},
		{"to_move not a seat", engine.Config{Start: pos("east", "a1:1")}, `to_move "east"`},
		{"to_move missing", engine.Config{Start: pos("", "a1:1")}, `to_move ""`},
		{"unknown cell", engine.Config{Start: pos("south", "a1:1 g7:2")}, `"g7"`},
		{"row 7", engine.Config{Start: pos("south", "a7:2")}, `"a7"`},
		{"not a height", engine.Config{Start: pos("south", "a1:4")}, `a1 holds "4"`},
		{"colour as piece", engine.Config{Start: pos("south", "b2:red")}, `b2 holds "red"`},
		{"five of a height", engine.Config{Start: pos("south", "a1:3 b1:3 c1:3 d1:3 e1:3")}, "5 pieces of height 3"},
		{"both goals", engine.Config{Start: pos("south", "N:1 S:2")}, "both goals"},
		{"hand of a stranger", engine.Config{Start: full(pos("south", ""), map[string]any{"east": map[string]int{"1": 1}})}, `"east" is not a player`},
		{"hand height", engine.Config{Start: full(pos("south", ""), map[string]any{"south": map[string]int{"4": 1}})}, `"4" is not a height`},
		{"hand too big", engine.Config{Start: full(pos("south", ""), map[string]any{"south": map[string]int{"2": 3}})}, "3 pieces of height 2"},
		{"hand not a map", engine.Config{Start: full(pos("south", ""), map[string]any{"south": 6})}, "want an object"},
		{"hand count not integer", engine.Config{Start: full(pos("south", ""), map[string]any{"south": map[string]any{"1": 1.5}})}, "not an integer"},
		{"hand exceeds home row", engine.Config{Start: full(pos("south", "a1:1 b1:1 c1:2 d1:2 e1:3"), map[string]any{"south": map[string]int{"3": 2}})}, "south holds 2 pieces but their home row has 1"},
		{"placer with empty hand", engine.Config{Start: full(pos("north", ""), map[string]any{"south": map[string]int{"3": 1}})}, "to_move: north has nothing in hand"},
		{"goal during setup", engine.Config{Start: full(pos("south", "N:1"), map[string]any{"south": map[string]int{"3": 1}})}, "goal N while pieces are still in hand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if !errors.Is(err, engine.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrConfig mentioning %s", err, tc.want)
			}
		})
	}
}

func TestSetup(t *testing.T) {
	t.Run("empty board, full hands, south places on row 1", func(t *testing.T) {
		g := mustGame(t, "basic", nil)
		got := moveSet(g)
		if len(got) != 18 || got[0] != "1@a1" || got[17] != "3@f1" {
			t.Fatalf("got %v, want 18 placements on row 1", got)
		}
		if p := g.Position(); len(p.Pieces) != 0 || p.Hands == nil || p.ToMove != "south" {
			t.Fatalf("position %+v", p)
		}
	})
	t.Run("alternation and home rows", func(t *testing.T) {
		g := mustGame(t, "basic", nil)
		play(t, g, "3@c1")
		if g.ToMove() != NorthSeat {
			t.Fatalf("after south's placement %d to move", g.ToMove())
		}
		for _, m := range moveSet(g) {
			if m[3] != '6' {
				t.Fatalf("north may place %s, off row 6", m)
			}
		}
		play(t, g, "3@c6", "3@d1")
		// South's height-3 pieces are used up.
		play(t, g, "1@a6")
		for _, m := range moveSet(g) {
			if m[0] == '3' || m == "1@c1" || m == "1@d1" {
				t.Fatalf("south may place %s", m)
			}
		}
		if g.Plies() != 4 || g.InHand(SouthSeat, 3) != 0 || g.InHand(NorthSeat, 3) != 1 {
			t.Fatalf("plies %d, hands %v", g.Plies(), g.hand)
		}
	})
	for _, first := range []string{"south", "north"} {
		t.Run("first "+first+" moves at ply 12", func(t *testing.T) {
			g, err := NewGame(engine.Config{First: first})
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if first == "north" {
				want = 1
			}
			rng := rand.New(rand.NewPCG(1, 2))
			buf := make([]engine.Move, 0, 64)
			for i := 0; i < 12; i++ {
				placer := (want + i) % 2
				if g.ToMove() != placer || !g.Setup() {
					t.Fatalf("placement %d: %d to place, want %d", i, g.ToMove(), placer)
				}
				enginetest.Step(g, rng, buf)
			}
			if g.Plies() != 12 || g.Setup() || g.ToMove() != want || g.Position().Hands != nil {
				t.Fatalf("after setup: ply %d setup %v to move %d", g.Plies(), g.Setup(), g.ToMove())
			}
			if k, _, _, _, _ := Unpack(g.Moves(nil)[0]); k != KindMove {
				t.Fatalf("first move is a %s", k)
			}
		})
	}
	t.Run("other hand empty: the same player places again", func(t *testing.T) {
		p := pos("south", "a6:1 b6:1 c6:2 d6:2 e6:3 f6:3 a1:3 b1:3")
		p.Hands = map[string]any{"south": map[string]int{"1": 2, "2": 2}}
		g := mustGame(t, "basic", p)
		for i := 0; i < 4; i++ {
			if g.ToMove() != SouthSeat {
				t.Fatalf("placement %d by %d", i, g.ToMove())
			}
			play(t, g, moveSet(g)[0])
		}
		if g.Setup() || g.ToMove() != SouthSeat || g.Plies() != 4 {
			t.Fatalf("setup %v to move %d", g.Setup(), g.ToMove())
		}
	})
	t.Run("last placement hands over to first", func(t *testing.T) {
		p := pos("south", "a6:1 b6:1 c6:2 d6:2 e6:3 f6:3 a1:1 b1:2 c1:2 d1:3 e1:3")
		p.Hands = map[string]any{"south": map[string]int{"1": 1}}
		g, err := NewGame(engine.Config{First: "north", Start: p})
		if err != nil {
			t.Fatal(err)
		}
		if got := moveSet(g); !reflect.DeepEqual(got, []string{"1@f1"}) {
			t.Fatalf("got %v", got)
		}
		play(t, g, "1@f1")
		if g.ToMove() != NorthSeat || g.Setup() {
			t.Fatalf("to move %d", g.ToMove())
		}
	})
}

func TestChains(t *testing.T) {
	for _, tc := range []struct {
		name, variant, toMove, spec string
		want                        []string // the exact move list, when given
		has, hasNot                 []string
	}{
		{name: "single steps", toMove: "south", spec: "c1:1",
			want: []string{"c1-b1", "c1-c2", "c1-d1"}},
		{name: "two segments", toMove: "south", spec: "c1:1 c2:2",
			want: []string{"c1-a2", "c1-b1", "c1-b3", "c1-c4", "c1-d1", "c1-d3", "c1-e2"}},
		{name: "three segments", toMove: "south", spec: "c1:1 c2:1 c3:1",
			want: []string{"c1-b1", "c1-b2", "c1-b3", "c1-c4", "c1-d1", "c1-d2", "c1-d3"}},
		{name: "bounce into the goal", toMove: "south", spec: "c4:1 c5:2",
			want: []string{"c4-N", "c4-a5", "c4-b4", "c4-b6", "c4-c3", "c4-d4", "c4-d6", "c4-e5"}},
		{name: "north bounces into S", toMove: "north", spec: "c3:1 c2:2",
			has: []string{"c3-S"}},
		{name: "goal only as a segment's last step", toMove: "north", spec: "b1:2 c1:2",
			want: []string{"b1-S", "b1-a2", "b1-b3", "b1-c2", "c1-S", "c1-b2", "c1-c3", "c1-d2", "c1-e1"}},
		{name: "goal never a shortcut", toMove: "south", spec: "a6:3",
			has: []string{"a6-N", "a6-d6"}, hasNot: []string{"a6-e6", "a6-f5", "a6-f6"}},
		{name: "own goal never entered, south", toMove: "south", spec: "c1:1 d1:1",
			want: []string{"c1-b1", "c1-c2", "c1-d2", "c1-e1", "d1-b1", "d1-c2", "d1-d2", "d1-e1"}},
		{name: "own goal never entered, north", toMove: "north", spec: "c6:1",
			want: []string{"c6-b6", "c6-c5", "c6-d6"}},
		{name: "boundary crossed twice refused", toMove: "south", spec: "d5:1 f5:2",
			want: []string{"d5-c5", "d5-d4", "d5-d6", "d5-e5", "f5-N", "f5-c5", "f5-d4", "f5-d6", "f5-e4", "f5-e6", "f5-f3"}},
		// c1 → d1 → e1 → f1, then f1 → f2 → e2 → e1: e1 is entered twice,
		// through different boundaries (the sheet's figure 8).
		{name: "cell revisited by another route", toMove: "south", spec: "c1:3 f1:3",
			has: []string{"c1-e1", "f1-d1"}},
		{name: "never back to rest on the start cell", toMove: "south", spec: "d4:2 e3:2",
			want: []string{"e3-b4", "e3-c3", "e3-c5", "e3-d2", "e3-d6", "e3-e1", "e3-e5", "e3-f2", "e3-f4"}},
		// A ring of pieces: d3 → c3 → b3 → a3 → a2 → a1 → b1 → c1 → c2 →
		// c3 would land on c3 a second time, so the chain stops there. (No
		// outcome depends on this rule, see TestRulesThatMatter; it is what
		// keeps every chain finite.)
		{name: "never lands twice on one piece", toMove: "north", spec: "d3:1 c3:2 a3:2 a1:2 c1:2",
			want: []string{"a3-S", "a3-a5", "a3-b2", "a3-b4", "a3-c5", "a3-d2", "a3-d4", "a3-e1",
				"c3-S", "c3-a5", "c3-b2", "c3-b4", "c3-c5", "c3-d2", "c3-d4", "c3-e1",
				"d3-S", "d3-a5", "d3-b2", "d3-b4", "d3-c5", "d3-d2", "d3-d4", "d3-e1", "d3-e3"}},
		{name: "nearest row only", toMove: "south", spec: "a1:1 a3:1",
			want: []string{"a1-a2", "a1-b1"}},
		{name: "nearest row only, north", toMove: "north", spec: "c6:1 c4:1",
			want: []string{"c6-b6", "c6-c5", "c6-d6"}},
		// b2 → b3 → c3, then c3 → c2 → b2 → a2 passes over the start cell.
		{name: "start cell counts as empty once left", toMove: "south", spec: "b2:2 c3:3",
			has: []string{"b2-a2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, variant := range []string{"basic", "advanced"} {
				g := mustGame(t, variant, pos(tc.toMove, tc.spec))
				got := moveSet(g)
				var plain []string
				for _, m := range got {
					if !strings.Contains(m, "/") {
						plain = append(plain, m)
					}
				}
				if tc.want != nil && !reflect.DeepEqual(plain, tc.want) {
					t.Errorf("%s: got %v, want %v", variant, plain, tc.want)
				}
				for _, m := range tc.has {
					if !slices.Contains(got, m) {
						t.Errorf("%s: %s missing from %v", variant, m, got)
					}
				}
				for _, m := range tc.hasNot {
					if slices.Contains(got, m) {
						t.Errorf("%s: %s should not be legal", variant, m)
					}
				}
			}
		})
	}
}

func TestNearestRowFallback(t *testing.T) {
	// Row 1 is full of pieces of height 2 and 3 under a full row 2: none of
	// them can take a first step, so south moves from row 2.
	spec := "a1:2 b1:2 c1:2 d1:2 e1:3 f1:3 a2:1 b2:1 c2:1 d2:1 e2:3 f2:3"
	for _, variant := range []string{"basic", "advanced"} {
		g := mustGame(t, variant, pos("south", spec))
		got := moveSet(g)
		if len(got) == 0 {
			t.Fatal("no moves")
		}
		for _, m := range got {
			if m[1] != '2' {
				t.Fatalf("%s: %s does not start on row 2", variant, m)
			}
		}
		if !slices.Contains(got, "a2-a3") {
			t.Fatalf("%s: a2-a3 missing", variant)
		}
	}
	// With one free cell on row 2 a row-1 piece can move, and row 2 is closed.
	g := mustGame(t, "basic", pos("south", "a1:2 b1:2 c1:2 d1:2 e1:3 f1:3 a2:1 b2:1 c2:1 d2:1 e2:3"))
	for _, m := range moveSet(g) {
		if m[1] != '1' {
			t.Fatalf("%s: row 1 has a legal move", m)
		}
	}
}

func TestPassAndDraw(t *testing.T) {
	g := mustGame(t, "basic", pos("south", ""))
	if got := moveSet(g); !reflect.DeepEqual(got, []string{"pass"}) {
		t.Fatalf("got %v, want [pass]", got)
	}
	play(t, g, "pass")
	if g.Result().Status != engine.Playing || g.ToMove() != NorthSeat || g.Plies() != 1 {
		t.Fatalf("after one pass: %+v to move %d", g.Result(), g.ToMove())
	}
	play(t, g, "pass")
	if g.Result() != (engine.Result{Status: engine.Draw, Winner: -1}) || g.ToMove() != -1 ||
		g.Awaiting() != engine.AwaitNone || len(g.Moves(nil)) != 0 || g.Plies() != 2 {
		t.Fatalf("after two passes: %+v to move %d", g.Result(), g.ToMove())
	}
	g.Undo()
	if g.Result().Status != engine.Playing || g.ToMove() != NorthSeat {
		t.Fatal("undo of the second pass")
	}
}

func TestWin(t *testing.T) {
	for _, tc := range []struct {
		name, toMove, spec, move string
		winner                   int
		goal                     string
	}{
		{"south reaches N", "south", "c4:1 c5:2", "c4-N", SouthSeat, "N"},
		{"north reaches S", "north", "c3:1 c2:2", "c3-S", NorthSeat, "S"},
		{"straight in from the far row", "south", "c6:1", "c6-N", SouthSeat, "N"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, variant := range []string{"basic", "advanced"} {
				g := mustGame(t, variant, pos(tc.toMove, tc.spec))
				h := g.Height(Cell(mustCell(t, tc.move[:2])))
				play(t, g, tc.move)
				if g.Result() != (engine.Result{Status: engine.Won, Winner: tc.winner}) || g.ToMove() != -1 ||
					g.Awaiting() != engine.AwaitNone || len(g.Moves(nil)) != 0 {
					t.Fatalf("%s: %+v to move %d", variant, g.Result(), g.ToMove())
				}
				p := g.Position()
				if p.Pieces[tc.goal] != string(rune('0'+h)) {
					t.Fatalf("%s: position %v", variant, p.Pieces)
				}
				back, err := NewGame(engine.Config{Variant: variant, Start: &p})
				if err != nil || back.Result() != g.Result() || back.Hash() != g.Hash() {
					t.Fatalf("%s: round trip of the won position: %v %+v", variant, err, back.Result())
				}
				if _, err := g.ParseMove("pass"); !errors.Is(err, engine.ErrIllegal) {
					t.Fatalf("%s: move after the win: %v", variant, err)
				}
			}
		})
	}
}

func mustCell(t testing.TB, s string) Cell {
	c, ok := ParseCell(s)
	if !ok {
		t.Fatalf("bad cell %q", s)
	}
	return c
}

func TestReplace(t *testing.T) {
	type check struct {
		move  string
		legal bool
		why   string // in the error when illegal
	}
	for _, tc := range []struct {
		name, toMove, spec string
		land               string // the landing cell whose replaces are counted
		count              int
		checks             []check
	}{
		{"south: not above north's nearest row", "south", "c1:1 c2:2 d4:1", "c1-c2/", 22, []check{
			{"c1-c2/c1", true, ""}, // the vacated start cell
			{"c1-c2/a4", true, ""}, // north's nearest row itself
			{"c1-c2/a1", true, ""}, // south's own home row
			{"c1-c2/a5", false, "behind north's nearest row (row 4)"},
			{"c1-c2/f6", false, "behind north's nearest row (row 4)"},
			{"c1-c2/N", false, "never goes to a goal"},
			{"c1-c2/S", false, "never goes to a goal"},
			{"c1-c2/d4", false, "d4 is occupied"},
			{"c1-c2/c2", false, "c2 is occupied"},
		}},
		{"north: not below south's nearest row", "north", "c6:1 c5:2 d3:1", "c6-c5/", 22, []check{
			{"c6-c5/c6", true, ""},
			{"c6-c5/b3", true, ""},
			{"c6-c5/b2", false, "behind south's nearest row (row 3)"},
		}},
		// c1 → c2 (height 2) → c3 → c4: the second segment lands on c4.
		{"deep in a chain", "south", "c1:1 c2:2 c4:1", "c1-c4/", 22, []check{
			{"c1-c4/a4", true, ""},
			{"c1-c4/a5", false, "behind north's nearest row (row 4)"},
			{"c1-c2/a4", true, ""},
		}},
		// The mover lands on the top piece and takes its place: north's
		// nearest row is where the mover now stands.
		{"nearest row with the mover on the landing cell", "south", "c3:1 c4:1", "c3-c4/", 23, []check{
			{"c3-c4/c3", true, ""},
			{"c3-c4/f4", true, ""},
			{"c3-c4/c5", false, "behind north's nearest row (row 4)"},
		}},
		{"the mover's new row is north's nearest", "south", "c4:1 c5:3", "c4-c5/", 29, []check{
			{"c4-c5/a5", true, ""},
			{"c4-c5/a6", false, "behind north's nearest row (row 5)"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, "advanced", pos(tc.toMove, tc.spec))
			n := 0
			for _, m := range moveSet(g) {
				if strings.HasPrefix(m, tc.land) {
					n++
				}
			}
			if n != tc.count {
				t.Errorf("%d moves %s…, want %d", n, tc.land, tc.count)
			}
			for _, c := range tc.checks {
				_, err := g.ParseMove(c.move)
				switch {
				case c.legal && err != nil:
					t.Errorf("%s: %v", c.move, err)
				case !c.legal && (!errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), c.why)):
					t.Errorf("%s: got %v, want ErrIllegal saying %q", c.move, err, c.why)
				}
			}
			basic := mustGame(t, "basic", pos(tc.toMove, tc.spec))
			if _, err := basic.ParseMove(tc.checks[0].move); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), "advanced") {
				t.Errorf("basic variant: %s: %v", tc.checks[0].move, err)
			}
		})
	}
	t.Run("play and undo", func(t *testing.T) {
		g := mustGame(t, "advanced", pos("south", "c1:1 c2:2 d4:1"))
		before := enginetest.Take(g)
		play(t, g, "c1-c2/c1")
		if g.Height(mustCell(t, "c2")) != 1 || g.Height(mustCell(t, "c1")) != 2 || g.ToMove() != NorthSeat {
			t.Fatalf("after c1-c2/c1: %v", g.Position().Pieces)
		}
		if g.Hash() != g.computeHash() {
			t.Fatal("hash")
		}
		g.Undo()
		if !reflect.DeepEqual(enginetest.Take(g), before) {
			t.Fatal("undo")
		}
		play(t, g, "c1-c2/a3")
		if got := g.Position().Pieces; !reflect.DeepEqual(got, map[string]string{"c2": "1", "a3": "2", "d4": "1"}) {
			t.Fatalf("after c1-c2/a3: %v", got)
		}
	})
}

func TestParseMoveErrors(t *testing.T) {
	setup := func() *engine.Position {
		p := pos("south", "c1:3")
		p.Hands = map[string]any{"south": map[string]int{"1": 2, "2": 2, "3": 1}, "north": map[string]int{"1": 2, "2": 2, "3": 2}}
		return p
	}
	for _, tc := range []struct {
		name, variant string
		start         *engine.Position
		text          string
		want          error
		why           string
	}{
		{"empty", "basic", nil, "", engine.ErrNotation, "want H@cell"},
		{"upper case", "basic", pos("south", "c1:1"), "C1-c2", engine.ErrNotation, `"C1"`},
		{"off the board", "basic", pos("south", "c1:1"), "c1-g2", engine.ErrNotation, `"g2"`},
		{"row 0", "basic", pos("south", "c1:1"), "c1-c0", engine.ErrNotation, `"c0"`},
		{"en dash", "basic", pos("south", "c1:1"), "c1–c2", engine.ErrNotation, ""},
		{"spaces", "basic", pos("south", "c1:1"), " c1-c2", engine.ErrNotation, ""},
		{"trailing slash", "advanced", pos("south", "c1:1"), "c1-c2/", engine.ErrNotation, `""`},
		{"three cells", "basic", pos("south", "c1:1"), "c1-c2-c3", engine.ErrNotation, `"c2-c3"`},
		{"height 4", "basic", nil, "4@c1", engine.ErrNotation, "height"},
		{"placement on a goal", "basic", nil, "3@N", engine.ErrNotation, "goal"},
		{"start on a goal", "basic", pos("south", "c1:1"), "N-c2", engine.ErrNotation, "goal"},
		{"replace on a goal", "advanced", pos("south", "c1:1"), "c1-N/b2", engine.ErrNotation, "goal"},
		{"Pass", "basic", pos("south", ""), "Pass", engine.ErrNotation, ""},

		{"placement off the home row", "basic", nil, "3@c2", engine.ErrIllegal, "home row (row 1)"},
		{"north's row for south", "basic", nil, "3@c6", engine.ErrIllegal, "home row"},
		{"placement on a piece", "basic", setup(), "2@c1", engine.ErrIllegal, "c1 is occupied"},
		{"height used up", "basic", func() *engine.Position {
			p := setup()
			p.Hands["south"] = map[string]int{"1": 2, "2": 2}
			p.Pieces["d1"] = "3"
			return p
		}(), "3@a1", engine.ErrIllegal, "no piece of height 3"},
		{"move during the setup", "basic", setup(), "c1-c2", engine.ErrIllegal, "must place"},
		{"placement after the setup", "basic", pos("south", "c1:1"), "1@a1", engine.ErrIllegal, "setup is over"},
		{"no piece", "basic", pos("south", "c1:1"), "b1-b2", engine.ErrIllegal, "no piece on b1"},
		{"not the nearest row", "basic", pos("south", "c1:1 c3:1"), "c3-c4", engine.ErrIllegal, "row 1"},
		{"back to the start", "basic", pos("south", "d4:2 e3:2"), "e3-e3", engine.ErrIllegal, "where it started"},
		{"own goal", "basic", pos("south", "c1:1"), "c1-S", engine.ErrIllegal, "own goal"},
		{"too far", "basic", pos("south", "c1:1"), "c1-c5", engine.ErrIllegal, "no chain from c1 ends on c5"},
		{"onto a piece, basic", "basic", pos("south", "c1:1 c2:1"), "c1-c2", engine.ErrIllegal, "c2 is occupied"},
		{"onto a piece, advanced", "advanced", pos("south", "c1:1 c2:1"), "c1-c2", engine.ErrIllegal, "replace is"},
		{"replace in basic", "basic", pos("south", "c1:1 c2:1"), "c1-c2/a3", engine.ErrIllegal, "advanced"},
		{"replace on an empty cell", "advanced", pos("south", "c1:1"), "c1-c2/a3", engine.ErrIllegal, "needs a piece on c2"},
		{"replace out of reach", "advanced", pos("south", "c1:1 c4:1"), "c1-c4/a3", engine.ErrIllegal, "no chain from c1 lands"},
		{"pass with moves", "basic", pos("south", "c1:1"), "pass", engine.ErrIllegal, "cannot pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.variant, tc.start)
			_, err := g.ParseMove(tc.text)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("got %v, want %v saying %q", err, tc.want, tc.why)
			}
		})
	}
}

func TestCheckUndo(t *testing.T) {
	games, steps := 12, 200
	if testing.Short() || enginetest.Reduced() {
		games = 4 // CI plays the 12 without the race detector (go test ./engine/...)
	}
	for _, variant := range []string{"basic", "advanced"} {
		for name, start := range map[string]*engine.Position{
			"setup":      nil,
			"rows321123": rowsPosition("321123", "321123", "south"),
			"asym":       rowsPosition("123321", "231213", "north"),
		} {
			t.Run(variant+"/"+name, func(t *testing.T) {
				enginetest.CheckUndo(t, mustGame(t, variant, start), games, steps, 42)
			})
		}
	}
}

// randomGames walks random games from the starts and calls f on every
// position on the way.
func randomGames(t testing.TB, variant string, games, maxPlies int, seed uint64, f func(g *Game)) {
	rng := rand.New(rand.NewPCG(seed, 7))
	buf := make([]engine.Move, 0, 4096)
	starts := []*engine.Position{nil, rowsPosition("321123", "321123", "south"), rowsPosition("123321", "231213", "south")}
	for i := 0; i < games; i++ {
		g, err := NewGame(engine.Config{Variant: variant, Start: starts[i%3], First: seatNames[i/3%2]})
		if err != nil {
			t.Fatal(err)
		}
		for {
			f(g)
			if g.Plies() >= maxPlies || !enginetest.Step(g, rng, buf) {
				break
			}
		}
	}
}

func TestPositionRoundTrip(t *testing.T) {
	for _, variant := range []string{"basic", "advanced"} {
		n := 0
		randomGames(t, variant, 30, 120, 9, func(g *Game) {
			n++
			if n%5 != 0 || g.Result().Status == engine.Draw {
				return
			}
			p := g.Position()
			data, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var decoded engine.Position
			if err := json.Unmarshal(data, &decoded); err != nil {
				t.Fatal(err)
			}
			for _, start := range []*engine.Position{&p, &decoded} {
				back, err := NewGame(engine.Config{Variant: variant, First: seatNames[g.first], Start: start})
				if err != nil {
					t.Fatalf("%s: %v", data, err)
				}
				want, got := enginetest.Take(g), enginetest.Take(back)
				want.Plies = 0
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: round trip differs:\n got %+v\nwant %+v", data, got, want)
				}
			}
		})
	}
}

func TestHash(t *testing.T) {
	t.Run("incremental equals from scratch", func(t *testing.T) {
		for _, variant := range []string{"basic", "advanced"} {
			randomGames(t, variant, 20, 200, 5, func(g *Game) {
				if g.Hash() != g.computeHash() {
					t.Fatalf("ply %d: incremental hash differs", g.Plies())
				}
			})
		}
	})
	for _, tc := range []struct {
		name, variant string
		start         *engine.Position
		a, b          []string
	}{
		{"placements", "basic", nil,
			[]string{"3@a1", "3@a6", "2@b1", "2@b6"}, []string{"2@b1", "2@b6", "3@a1", "3@a6"}},
		{"moves", "basic", rowsPosition("321123", "321123", "south"),
			[]string{"c1-c2", "c6-c5", "d1-d2"}, []string{"d1-d2", "c6-c5", "c1-c2"}},
		{"replaces", "advanced", pos("south", "a1:1 a2:1 f1:1 f2:1 c6:2 d6:2"),
			[]string{"a1-a2/b3", "c6-c4", "f1-f2/e3"}, []string{"f1-f2/e3", "c6-c4", "a1-a2/b3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := mustGame(t, tc.variant, tc.start), mustGame(t, tc.variant, tc.start)
			play(t, x, tc.a...)
			play(t, y, tc.b...)
			if !reflect.DeepEqual(x.Position(), y.Position()) {
				t.Fatalf("not the same position: %v vs %v", x.Position(), y.Position())
			}
			if x.Hash() != y.Hash() {
				t.Fatalf("hashes differ: %x vs %x", x.Hash(), y.Hash())
			}
			play(t, y, moveSet(y)[0])
			if x.Hash() == y.Hash() {
				t.Fatal("hash unchanged by a move")
			}
		})
	}
}

func TestNoAllocs(t *testing.T) {
	for _, variant := range []string{"basic", "advanced"} {
		g := mustGame(t, variant, rowsPosition("321123", "321123", "south"))
		buf := make([]engine.Move, 0, 4096)
		if n := testing.AllocsPerRun(100, func() { buf = g.Moves(buf) }); n != 0 {
			t.Errorf("%s: Moves allocates %v times", variant, n)
		}
		m := g.Moves(buf)[7]
		if n := testing.AllocsPerRun(100, func() { g.Play(m); g.Undo() }); n != 0 {
			t.Errorf("%s: Play+Undo allocates %v times", variant, n)
		}
		var text []byte
		if n := testing.AllocsPerRun(100, func() { text = g.AppendMove(text[:0], m) }); n != 0 {
			t.Errorf("%s: AppendMove allocates %v times", variant, n)
		}
	}
}

// TestRows321123 pins the move counts of the benchmark position: both home
// rows 3,2,1,1,2,3 from a to f, south to move.
func TestRows321123(t *testing.T) {
	for _, tc := range []struct {
		variant string
		want    int
	}{{"basic", 24}, {"advanced", 224}} {
		g := mustGame(t, tc.variant, rowsPosition("321123", "321123", "south"))
		if got := len(g.Moves(nil)); got != tc.want {
			t.Errorf("%s: %d moves, want %d", tc.variant, got, tc.want)
		}
	}
}
