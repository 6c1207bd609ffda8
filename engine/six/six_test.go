package six

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

func TestInfo(t *testing.T) {
	for _, tc := range []struct {
		variant string
		players int
		seats   []string
		sideOf  []int
		wantVar string
	}{
		{"", 0, []string{"black", "red"}, []int{0, 1}, "basic"},
		{"basic", 2, []string{"black", "red"}, []int{0, 1}, "basic"},
		{"advanced", 4, []string{"black1", "red1", "black2", "red2"}, []int{0, 1, 0, 1}, "advanced"},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.variant, tc.players), func(t *testing.T) {
			s, err := engine.New("six", engine.Config{Variant: tc.variant, Players: tc.players})
			if err != nil {
				t.Fatal(err)
			}
			info := s.Info()
			if info.Game != "six" || info.Variant != tc.wantVar || !slices.Equal(info.Seats, tc.seats) ||
				!slices.Equal(info.Sides, []string{"black", "red"}) || !slices.Equal(info.SideOf, tc.sideOf) || info.Die != nil {
				t.Fatalf("got %+v", info)
			}
			if s.ToMove() != 0 || s.Awaiting() != engine.AwaitMove || s.Result() != (engine.Result{Status: engine.Playing, Winner: -1}) || s.Plies() != 0 {
				t.Fatalf("start: to move %d awaiting %v result %v plies %d", s.ToMove(), s.Awaiting(), s.Result(), s.Plies())
			}
			p := s.Position()
			want := map[string]string{"0,0": "red", "1,0": "black"}
			if !reflect.DeepEqual(p.Pieces, want) || p.ToMove != tc.seats[0] {
				t.Fatalf("position %+v", p)
			}
			for _, seat := range tc.seats {
				if want := 20 / (len(tc.seats) / 2); p.Hands[seat] != want {
					t.Fatalf("hand of %s: got %v want %d", seat, p.Hands[seat], want)
				}
			}
			if err := s.Roll(0); !errors.Is(err, engine.ErrNotNow) {
				t.Fatalf("Roll: %v", err)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  engine.Config
		want string
	}{
		{"variant", engine.Config{Variant: "expert"}, "variant"},
		{"players", engine.Config{Players: 3}, "players 3"},
		{"first", engine.Config{First: "red"}, "first"},
		{"n", engine.Config{N: 12}, "\"n\""},
		{"to_move", engine.Config{Start: pos("white", "1,0", "0,0", nil)}, "to_move \"white\""},
		{"to_move four", engine.Config{Players: 4, Start: pos("black", "1,0", "0,0", nil)}, "to_move \"black\""},
		{"cell syntax", engine.Config{Start: pos("black", "1,0 2;0", "0,0", nil)}, "bad cell \"2;0\""},
		{"cell +", engine.Config{Start: pos("black", "+1,0", "0,0", nil)}, "bad cell \"+1,0\""},
		{"cell -0", engine.Config{Start: pos("black", "1,-0", "0,0", nil)}, "bad cell \"1,-0\""},
		{"cell far", engine.Config{Start: pos("black", "70000,0", "", nil)}, "bad cell \"70000,0\""},
		{"colour", engine.Config{Start: &engine.Position{ToMove: "black", Pieces: map[string]string{"0,0": "white"}}}, "unknown piece \"white\""},
		{"disconnected", engine.Config{Start: pos("black", "1,0", "0,0 3,0", nil)}, "not one edge-connected group"},
		{"far apart", engine.Config{Start: pos("black", "1,0", "0,0 300,0", nil)}, "not one edge-connected group"},
		{"hand seat", engine.Config{Start: pos("black", "1,0", "0,0", map[string]any{"blue": 3})}, "\"blue\" is not a seat"},
		{"hand negative", engine.Config{Start: pos("black", "1,0", "0,0", map[string]any{"red": -1})}, "hands.red: -1"},
		{"hand fraction", engine.Config{Start: pos("black", "1,0", "0,0", map[string]any{"red": 2.5})}, "hands.red: 2.5"},
		{"hand text", engine.Config{Start: pos("black", "1,0", "0,0", map[string]any{"red": "3"})}, "hands.red"},
		{"hand too big", engine.Config{Start: pos("black", "1,0", "0,0", map[string]any{"red": 22})}, "hands.red: 22"},
		{"hand four", engine.Config{Players: 4, Start: pos("black1", "1,0", "0,0", map[string]any{"red2": 11})}, "hands.red2: 11"},
		{"set exceeded", engine.Config{Start: pos("black", "1,0 2,0", "0,0", map[string]any{"black": 20})}, "22 black hexagons"},
		{"board", engine.Config{Board: boards.Default("gyges")}, "not six"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if !errors.Is(err, engine.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrConfig mentioning %q", err, tc.want)
			}
		})
	}
	// Accepted: numbers as JSON decodes them, missing hands, an empty table.
	for _, p := range []*engine.Position{
		pos("red", "1,0", "0,0", map[string]any{"black": float64(20), "red": 20}),
		pos("black", "1,0", "0,0", nil),
		pos("red", "", "", nil),
	} {
		if _, err := New(engine.Config{Start: p}); err != nil {
			t.Errorf("start %+v: %v", p, err)
		}
	}
}

func TestFirstPlacement(t *testing.T) {
	want := []string{"-1,0", "-1,1", "0,-1"}
	for _, players := range []int{2, 4} {
		t.Run(fmt.Sprint(players), func(t *testing.T) {
			s := mustNew(t, "basic", players, nil)
			if got := sortedMoves(s); !slices.Equal(got, want) {
				t.Fatalf("black's first placements: got %v want %v", got, want)
			}
			for _, text := range []string{"1,1", "0,1", "2,0", "1,-1"} {
				_, err := s.ParseMove(text)
				if !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), "must touch red 0,0 and not black 1,0") {
					t.Errorf("%s: got %v", text, err)
				}
			}
			for text, why := range map[string]string{"0,0": "occupied", "5,5": "must touch", "0,0>2,0": "still in hand", "pass": "may not pass"} {
				if _, err := s.ParseMove(text); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), why) {
					t.Errorf("%s: got %v, want %q", text, err, why)
				}
			}
			playText(t, s, "-1,1")
			// Red: any cell touching a hexagon.
			got := sortedMoves(s)
			wantRed := []string{"-1,0", "-1,2", "-2,1", "-2,2", "0,-1", "0,1", "1,-1", "1,1", "2,-1", "2,0"}
			if !slices.Equal(got, wantRed) {
				t.Fatalf("red's placements: got %v want %v", got, wantRed)
			}
		})
	}
	// The restriction is black's: red to move on the same table places freely.
	s := mustNew(t, "basic", 2, pos("red", "1,0", "0,0", map[string]any{"black": 20, "red": 20}))
	if got := len(s.Moves(nil)); got != 8 {
		t.Fatalf("red on the start table: %d placements, want 8", got)
	}
}

// connect adds red hexagons to the black cells so the table is connected,
// never on avoid; it returns the red cells.
func connect(black []rc, avoid rc) []rc {
	occ := map[rc]bool{}
	for _, c := range black {
		occ[c] = true
	}
	var red []rc
	for {
		set := map[rc]bool{}
		for c := range occ {
			set[c] = true
		}
		gs := refGroups(set)
		if len(gs) <= 1 {
			return red
		}
		in0 := map[rc]bool{}
		for _, c := range gs[0] {
			in0[c] = true
		}
		prev := map[rc]rc{}
		queue := slices.Clone(gs[0])
		seen := maps(gs[0])
		var end rc
	search:
		for h := 0; h < len(queue); h++ {
			for _, n := range queue[h].nb() {
				if seen[n] || n == avoid {
					continue
				}
				seen[n] = true
				prev[n] = queue[h]
				if occ[n] {
					end = n
					break search
				}
				queue = append(queue, n)
			}
		}
		for c := prev[end]; !in0[c]; c = prev[c] {
			occ[c] = true
			red = append(red, c)
		}
	}
}

func maps(cs []rc) map[rc]bool {
	m := map[rc]bool{}
	for _, c := range cs {
		m[c] = true
	}
	return m
}

func cellsText(cs []rc) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " ")
}

var shapeTemplates = []struct {
	name  string
	cells []rc
	want  Ending
}{
	{"line q", []rc{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}}, ByLine},
	{"line r", []rc{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}}, ByLine},
	{"line diagonal", []rc{{0, 0}, {1, -1}, {2, -2}, {3, -3}, {4, -4}, {5, -5}}, ByLine},
	{"triangle up", []rc{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {0, 2}}, ByTriangle},
	{"triangle down", []rc{{0, 0}, {1, 0}, {2, 0}, {1, -1}, {2, -1}, {2, -2}}, ByTriangle},
	{"ring", []rc{{1, 0}, {1, -1}, {0, -1}, {-1, 0}, {-1, 1}, {0, 1}}, ByRing},
}

// TestShapes completes every shape in every orientation, with each of its
// cells as the last one, at several places of the plane.
func TestShapes(t *testing.T) {
	for _, sh := range shapeTemplates {
		for _, at := range []rc{{0, 0}, {-17, 40}, {523, -300}} {
			for last := range sh.cells {
				name := fmt.Sprintf("%s/at %s/last %d", sh.name, at, last)
				t.Run(name, func(t *testing.T) {
					var black []rc
					var lastCell rc
					for i, c := range sh.cells {
						c = rc{c.q + at.q, c.r + at.r}
						if i == last {
							lastCell = c
						} else {
							black = append(black, c)
						}
					}
					red := connect(black, lastCell)
					hands := map[string]any{"black": 5, "red": 5}
					s := mustNew(t, "basic", 2, pos("black", cellsText(black), cellsText(red), hands))
					if s.fullScan {
						t.Fatal("the set-up already holds a shape")
					}
					playText(t, s, lastCell.String())
					if r := s.Result(); r.Status != engine.Won || r.Winner != 0 || s.Ending() != sh.want {
						t.Fatalf("after %s: %v by %v, want black's win by %v", lastCell, r, s.Ending(), sh.want)
					}
					if s.ToMove() != -1 || s.Awaiting() != engine.AwaitNone || len(s.Moves(nil)) != 0 {
						t.Fatalf("game over but to move %d awaiting %v", s.ToMove(), s.Awaiting())
					}
					// The same cells in the opponent's colour, completed by
					// black: a mixed shape wins for nobody.
					s = mustNew(t, "basic", 2, pos("black", cellsText(red), cellsText(black), hands))
					playText(t, s, lastCell.String())
					if r := s.Result(); r.Status != engine.Playing {
						t.Fatalf("mixed shape: %v by %v", r, s.Ending())
					}
				})
			}
		}
	}
}

// TestRing completes a ring whatever its centre holds, by placement and by
// movement, and checks the rings of a longer list of variations.
func TestRing(t *testing.T) {
	c := rc{3, -2}
	ring := []rc{}
	for _, d := range refDirs {
		ring = append(ring, rc{c.q + d.q, c.r + d.r})
	}
	x := rc{c.q + 1, c.r} // the missing ring cell
	others := []rc{}
	for _, r := range ring {
		if r != x {
			others = append(others, r)
		}
	}
	spare := rc{c.q - 2, c.r} // touches the ring at c-1,0 only
	for _, centre := range []string{"empty", "red", "black"} {
		for _, phase := range []string{"placement", "movement"} {
			t.Run(centre+"/"+phase, func(t *testing.T) {
				black, red := cellsText(others), "3,0 4,0"
				switch centre {
				case "red":
					red += " " + c.String()
				case "black":
					black += " " + c.String()
				}
				// red 3,0 and 4,0 hang off the ring at 3,-1.
				hands := map[string]any{"black": 5, "red": 5}
				move := x.String()
				if phase == "movement" {
					hands = nil
					black += " " + spare.String()
					move = spare.String() + ">" + x.String()
				}
				s := mustNew(t, "basic", 2, pos("black", black, red, hands))
				playText(t, s, move)
				if r := s.Result(); r.Status != engine.Won || r.Winner != int(Black) || s.Ending() != ByRing {
					t.Fatalf("%s: %v by %v, want black's ring", move, r, s.Ending())
				}
			})
		}
	}
}

func TestLineLengths(t *testing.T) {
	for _, tc := range []struct {
		name  string
		black string
		place string
		won   bool
	}{
		{"five", "0,0 1,0 3,0 4,0", "2,0", false},
		{"six", "0,0 1,0 3,0 4,0 5,0", "2,0", true},
		{"seven", "0,0 1,0 2,0 4,0 5,0 6,0", "3,0", true},
		{"seven at the end", "0,0 1,0 2,0 3,0 4,0 5,0", "6,0", true},
		{"broken", "0,0 1,0 2,0 4,0 5,0 6,0", "3,1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var black []rc
			for _, f := range strings.Fields(tc.black) {
				black = append(black, refCell(f))
			}
			red := connect(black, refCell(tc.place))
			s := mustNew(t, "basic", 2, pos("black", tc.black, cellsText(red), map[string]any{"black": 3, "red": 3}))
			playText(t, s, tc.place)
			if got := s.Result().Status == engine.Won; got != tc.won {
				t.Fatalf("won %v, want %v (%v)", got, tc.won, s.Ending())
			}
		})
	}
}

// TestDoubleThreat is the sheet's example 6: black makes five in a row open
// at both ends; red can block only one end.
func TestDoubleThreat(t *testing.T) {
	s := mustNew(t, "basic", 2, pos("black", "1,0 2,0 3,0 4,0", "1,1 2,1 3,1", map[string]any{"black": 5, "red": 5}))
	playText(t, s, "5,0")
	if s.Result().Status != engine.Playing {
		t.Fatal("five in a row ended the game")
	}
	for _, red := range s.Moves(nil) {
		s.Play(red)
		wins := 0
		var winning []string
		for _, black := range s.Moves(nil) {
			s.Play(black)
			if r := s.Result(); r.Status == engine.Won && r.Winner == int(Black) {
				wins++
				winning = append(winning, engine.MoveString(s, black))
			}
			s.Undo()
		}
		s.Undo()
		if wins == 0 {
			t.Fatalf("red %s stops black", engine.MoveString(s, red))
		}
		if rt := engine.MoveString(s, red); rt == "0,0" || rt == "6,0" {
			if len(winning) != 1 {
				t.Fatalf("red blocks %s: black's wins %v", rt, winning)
			}
		}
	}
}

// TestCannotSplit is the sheet's figure 4: under the basic rule a hexagon
// whose lifting splits the others may not move.
func TestCannotSplit(t *testing.T) {
	start := pos("black", "1,0 3,0 2,-1", "0,0 2,0", nil)
	// 1,0 joins red 0,0 to the rest; 3,0 and 2,-1 hang together round 2,0.
	s := mustNew(t, "basic", 2, start)
	for _, m := range sortedMoves(s) {
		if strings.HasPrefix(m, "1,0>") {
			t.Fatalf("basic rule lists %s", m)
		}
	}
	_, err := s.ParseMove("1,0>-1,0")
	if !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), "would split") {
		t.Fatalf("got %v", err)
	}
	if !slices.Contains(sortedMoves(s), "3,0>-1,0") {
		t.Fatal("3,0 cannot move")
	}
	// The advanced rule allows it: red 0,0 leaves the game.
	a := mustNew(t, "advanced", 2, start)
	found := false
	for _, m := range sortedMoves(a) {
		found = found || strings.HasPrefix(m, "1,0>")
	}
	if !found {
		t.Fatal("advanced rule forbids the split")
	}
	if _, err := a.ParseMove("1,0>-1,0"); err == nil || !strings.Contains(err.Error(), "touches no hexagon that stays") {
		t.Fatalf("destination next to a removed group: %v", err)
	}
}

// TestAdvancedSplit is the sheet's figures 7 and 8: a split removes every
// group but the largest, and on a tie the mover picks the group that stays.
func TestAdvancedSplit(t *testing.T) {
	t.Run("smaller groups leave", func(t *testing.T) {
		black := "0,0 1,0 3,0 5,0 7,0 2,1 4,1 6,1"
		red := "0,-1 -1,1 2,0 4,0 6,0 1,1 3,1 5,1 7,1"
		s := mustNew(t, "advanced", 2, pos("black", black, red, nil))
		for _, m := range sortedMoves(s) {
			if strings.Contains(m, "/") {
				t.Fatalf("no tie, but %s", m)
			}
		}
		for text, why := range map[string]string{"0,0>0,-1": "freed by a removed group but touches no hexagon that stays", "0,0>0,0": "different cell"} {
			if _, err := s.ParseMove(text); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), why) {
				t.Errorf("%s: got %v want %q", text, err, why)
			}
		}
		playText(t, s, "0,0>0,2")
		p := s.Position()
		if len(p.Pieces) != 15 || p.Pieces["0,-1"] != "" || p.Pieces["-1,1"] != "" || p.Pieces["0,2"] != "black" {
			t.Fatalf("after the split: %v", p.Pieces)
		}
		if s.Result().Status != engine.Playing {
			t.Fatalf("result %v", s.Result())
		}
		s.Undo()
		if len(s.Position().Pieces) != 17 {
			t.Fatal("undo did not bring the groups back")
		}
	})
	t.Run("tie", func(t *testing.T) {
		// A: 2×4 left of 0,0 (7 red, 1 black); B: 2×4 right (6 black, 2 red).
		a := "-1,0 -2,0 -3,0 -4,0 -1,1 -2,1 -3,1"
		b := "1,0 2,0 3,0 1,-1 2,-1 3,-1"
		start := pos("red", "-4,1 "+b, "0,0 "+a+" 4,0 4,-1", nil)
		s := mustNew(t, "advanced", 2, start)
		var fromZero []string
		for _, m := range sortedMoves(s) {
			if strings.HasPrefix(m, "0,0>") {
				fromZero = append(fromZero, m)
				if !strings.HasSuffix(m, "/-1,0") && !strings.HasSuffix(m, "/1,-1") {
					t.Fatalf("tied split without a canonical suffix: %s", m)
				}
			}
		}
		if !slices.Contains(fromZero, "0,0>-5,0/-1,0") || !slices.Contains(fromZero, "0,0>5,0/1,-1") {
			t.Fatalf("moves of 0,0: %v", fromZero)
		}
		// Any cell of the kept group names it.
		for _, keep := range []string{"-1,0", "-4,1", "-3,0"} {
			m, err := s.ParseMove("0,0>-5,0/" + keep)
			if err != nil || engine.MoveString(s, m) != "0,0>-5,0/-1,0" {
				t.Fatalf("keep %s: %v %v", keep, engine.MoveString(s, m), err)
			}
		}
		for text, why := range map[string]string{
			"0,0>5,0":       "name the one that stays",
			"0,0>5,0/-1,0":  "touches no hexagon of the kept group",
			"0,0>-5,0/1,-1": "touches no hexagon of the kept group",
			"0,0>-5,0/3,0":  "touches no hexagon of the kept group",
			"0,0>5,0/0,0":   "no hexagon of a remaining group",
			"0,0>5,0/9,9":   "no hexagon of a remaining group",
			"-1,0>-5,0/1,0": "no tie",
		} {
			_, err := s.ParseMove(text)
			if !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), why) {
				t.Errorf("%s: got %v, want %q", text, err, why)
			}
		}
		// Keeping the left group leaves black one hexagon: red wins.
		playText(t, s, "0,0>-5,0/-4,1")
		if r := s.Result(); r.Status != engine.Won || r.Winner != int(Red) || s.Ending() != ByFewer {
			t.Fatalf("keep left: %v %v", r, s.Ending())
		}
		s.Undo()
		// Keeping the right group leaves red three: black wins.
		playText(t, s, "0,0>5,0/3,-1")
		if r := s.Result(); r.Status != engine.Won || r.Winner != int(Black) || s.Ending() != ByFewer {
			t.Fatalf("keep right: %v %v", r, s.Ending())
		}
		if n := len(s.Position().Pieces); n != 9 {
			t.Fatalf("%d hexagons left, want 9", n)
		}
	})
	t.Run("both fall to five", func(t *testing.T) {
		s := mustNew(t, "advanced", 2, pos("black", "1,0 3,0 2,-1", "0,0 2,0", nil))
		playText(t, s, "1,0>4,-1")
		if r := s.Result(); r.Status != engine.Draw || r.Winner != -1 || s.Ending() != ByFewer {
			t.Fatalf("%v %v", r, s.Ending())
		}
	})
}

func TestFourPlayers(t *testing.T) {
	s := mustNew(t, "basic", 4, nil)
	rng := rand.New(rand.NewPCG(4, 4))
	want := [4]int{10, 10, 10, 10}
	for ply := 0; ply < 40; ply++ {
		seat := s.ToMove()
		if seat != ply%4 {
			t.Fatalf("ply %d: seat %d to move", ply, seat)
		}
		if !s.Placing() {
			t.Fatalf("ply %d: placement over early", ply)
		}
		moves := s.Moves(nil)
		if moves[0] == Pass {
			t.Fatalf("ply %d: pass with %d in hand", ply, want[seat])
		}
		s.Play(moves[rng.IntN(len(moves))])
		if s.Result().Status != engine.Playing {
			t.Skip("a shape ended the game during placement")
		}
		want[seat]--
		p := s.Position()
		for i, name := range s.Info().Seats {
			if p.Hands[name] != want[i] {
				t.Fatalf("ply %d: hand of %s is %v, want %d", ply, name, p.Hands[name], want[i])
			}
		}
	}
	if s.Placing() {
		t.Fatal("hands not empty after 40 placements")
	}
	// Movement: each seat moves its team's colour.
	for ply := 0; ply < 4 && s.Result().Status == engine.Playing; ply++ {
		seat := s.ToMove()
		for _, m := range s.Moves(nil) {
			if m == Pass {
				continue
			}
			_, from, _, _, _ := DecodeMove(m)
			if c, _ := s.At(from.Q, from.R); int(c) != seat%2 {
				t.Fatalf("seat %d moves a %v hexagon", seat, c)
			}
		}
		s.Play(s.Moves(nil)[0])
	}
}

func TestPass(t *testing.T) {
	t.Run("empty hand in placement", func(t *testing.T) {
		s := mustNew(t, "basic", 2, pos("black", "1,0", "0,0", map[string]any{"black": 0, "red": 3}))
		if got := sortedMoves(s); !slices.Equal(got, []string{"pass"}) {
			t.Fatalf("got %v", got)
		}
		if _, err := s.ParseMove("-1,0"); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), "no hexagon in hand and must pass") {
			t.Fatalf("got %v", err)
		}
		playText(t, s, "pass")
		if s.ToMove() != 1 || s.Plies() != 1 || len(sortedMoves(s)) != 8 {
			t.Fatalf("after pass: to move %d plies %d moves %v", s.ToMove(), s.Plies(), sortedMoves(s))
		}
		playText(t, s, "2,0")
		if s.Result().Status != engine.Playing {
			t.Fatal("pass, place ended the game")
		}
	})
	t.Run("four players", func(t *testing.T) {
		hands := map[string]any{"black1": 0, "red1": 2, "black2": 1, "red2": 0}
		s := mustNew(t, "basic", 4, pos("black1", "1,0", "0,0", hands))
		playText(t, s, "pass", "2,0", "3,0", "pass", "pass")
		if r := s.Result(); r.Status != engine.Draw || s.Ending() != ByPasses || s.Plies() != 5 {
			t.Fatalf("got %v %v plies %d", r, s.Ending(), s.Plies())
		}
	})
	t.Run("double pass whoever made them", func(t *testing.T) {
		hands := map[string]any{"black1": 0, "red1": 0, "black2": 1, "red2": 1}
		s := mustNew(t, "basic", 4, pos("black1", "1,0", "0,0", hands))
		playText(t, s, "pass", "pass")
		if r := s.Result(); r.Status != engine.Draw || r.Winner != -1 || s.ToMove() != -1 || s.Awaiting() != engine.AwaitNone {
			t.Fatalf("got %v to move %d", r, s.ToMove())
		}
		if _, err := s.ParseMove("pass"); !errors.Is(err, engine.ErrIllegal) || !errors.Is(err, engine.ErrNotNow) {
			t.Fatalf("move after the end: %v", err)
		}
		if p := s.Position(); p.ToMove != "black2" {
			t.Fatalf("position to_move %q", p.ToMove)
		}
	})
	t.Run("movement", func(t *testing.T) {
		s := mustNew(t, "basic", 2, pos("red", "0,0", "", nil))
		playText(t, s, "pass", "pass")
		if r := s.Result(); r.Status != engine.Draw {
			t.Fatalf("got %v", r)
		}
	})
	t.Run("cut tiles only", func(t *testing.T) {
		// Black's hexagons all join others: black must pass; red moves.
		s := mustNew(t, "basic", 2, pos("black", "1,0 3,0", "0,0 2,0 4,0", nil))
		if got := sortedMoves(s); !slices.Equal(got, []string{"pass"}) {
			t.Fatalf("got %v", got)
		}
		if _, err := s.ParseMove("1,0>1,1"); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), "would split") {
			t.Fatalf("got %v", err)
		}
		playText(t, s, "pass", "0,0>5,0")
		if s.Result().Status != engine.Playing || s.passes != 0 {
			t.Fatal("a move between passes must reset the count")
		}
	})
}

// TestStartShape: a start may already hold a shape. It counts for its colour
// only, and only once that colour has moved and the shape is still there.
func TestStartShape(t *testing.T) {
	start := pos("black", "0,1 1,1", "0,0 1,0 2,0 3,0 4,0 5,0", nil)
	s := mustNew(t, "basic", 2, start)
	if !s.fullScan {
		t.Fatal("fullScan not set")
	}
	playText(t, s, "0,1>-1,1")
	if s.Result().Status != engine.Playing {
		t.Fatalf("black wins with red's line: %v", s.Result())
	}
	playText(t, s, "5,0>-1,0")
	if r := s.Result(); r.Status != engine.Won || r.Winner != int(Red) || s.Ending() != ByLine {
		t.Fatalf("red's move leaving a line: %v %v", r, s.Ending())
	}
	s.Undo()
	playText(t, s, "5,0>2,1")
	if r := s.Result(); r.Status != engine.Playing {
		t.Fatalf("red broke the line but %v", r)
	}
}

func TestParseMoveErrors(t *testing.T) {
	s := mustNew(t, "basic", 2, nil)
	for _, text := range []string{"", "pas", "PASS", "+1,0", "01,0", "-0,1", "1,-0", "1,", ",1", "1", "1,0>", "1,0>2",
		"1,0x", "1,0>2,0/", "1,0>2,0/3,0x", "1 ,0", "1,0 ", "1,0>2,0>3,0", "--1,0", "1.5,0", "a,b", "-,1"} {
		_, err := s.ParseMove(text)
		if !errors.Is(err, engine.ErrNotation) {
			t.Errorf("%q: got %v, want ErrNotation", text, err)
		}
	}
	for _, text := range []string{"70000,0", "1,0>99999999999999999999,0"} {
		if _, err := s.ParseMove(text); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), "beyond") {
			t.Errorf("%q: got %v", text, err)
		}
	}
	m := mustNew(t, "basic", 2, pos("black", "1,0 2,0", "0,0 -1,0", nil))
	for text, why := range map[string]string{
		"3,0":      "all hexagons are on the table",
		"5,5>3,0":  "no hexagon on 5,5",
		"0,0>3,0":  "moves black hexagons, and 0,0 is red",
		"1,0>-1,0": "occupied",
		"2,0>9,9":  "touches no other hexagon",
		"2,0>3,0":  "touches no other hexagon",
		"1,0>1,1":  "would split",
	} {
		if _, err := m.ParseMove(text); !errors.Is(err, engine.ErrIllegal) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: got %v, want %q", text, err, why)
		}
	}
}

// TestWandering drives the group east for hundreds of plies, far beyond the
// window it started in, comparing with the reference on the way.
func TestWandering(t *testing.T) {
	for _, adv := range []bool{false, true} {
		t.Run(variantName(adv), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 13))
			s := movementPosition(t, variantName(adv), 2, rng)
			ref := refFrom(s.Position(), adv, 2)
			startOff := s.offQ
			recentres := 0
			for ply := 0; ply < 1500 && s.Result().Status == engine.Playing; ply++ {
				moves := s.Moves(nil)
				var best engine.Move
				bestGain := int32(-1 << 30)
				for _, m := range moves {
					if m == Pass {
						best = m
						continue
					}
					fq, _ := moveFrom(m)
					tq, _ := moveTo(m)
					gain := tq - fq + int32(rng.IntN(2))
					s.Play(m)
					ends := s.Result().Status != engine.Playing
					s.Undo()
					if !ends && gain > bestGain {
						best, bestGain = m, gain
					}
				}
				if best == engine.NoMove {
					best = moves[0]
				}
				text := engine.MoveString(s, best)
				if ply%25 == 0 {
					if got, want := sortedMoves(s), ref.moves(); !slices.Equal(got, want) {
						t.Fatalf("ply %d: engine %v reference %v", ply, minus(got, want), minus(want, got))
					}
				}
				off := s.offQ
				s.Play(best)
				ref.play(text)
				if s.offQ != off {
					recentres++
				}
				checkInvariants(t, s)
				if s.Result().Status != ref.status {
					t.Fatalf("ply %d: %v vs reference %v", ply, s.Result(), ref.status)
				}
			}
			if s.offQ-startOff < 100 || recentres < 3 {
				t.Fatalf("the group went only %d cells east (%d recentres)", s.offQ-startOff, recentres)
			}
			t.Logf("window moved %d cells east in %d recentres, %d plies", s.offQ-startOff, recentres, s.Plies())
			enginetest.CheckUndo(t, s, 5, 60, 3)
			// Undo all the way back.
			for s.Plies() > 0 {
				s.Undo()
				checkInvariants(t, s)
			}
		})
	}
}

func TestCheckUndo(t *testing.T) {
	games := enginetest.Scale(30)
	if testing.Short() {
		games = 6
	}
	for _, adv := range []bool{false, true} {
		for _, seats := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%dp", variantName(adv), seats), func(t *testing.T) {
				enginetest.CheckUndo(t, mustNew(t, variantName(adv), seats, nil), games, 300, uint64(seats))
				rng := rand.New(rand.NewPCG(uint64(seats), 99))
				for g := 0; g < games; g++ {
					p := randomStart(rng, seats, g%2 == 0)
					enginetest.CheckUndo(t, mustNew(t, variantName(adv), seats, p), 2, 40, uint64(g))
				}
			})
		}
	}
}

// TestPositionRoundTrip exports random positions and sets them up again.
func TestPositionRoundTrip(t *testing.T) {
	for _, adv := range []bool{false, true} {
		for _, seats := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%dp", variantName(adv), seats), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seats), 5))
				buf := make([]engine.Move, 0, 2048)
				for g := 0; g < 40; g++ {
					s := mustNew(t, variantName(adv), seats, nil)
					for s.Result().Status == engine.Playing && s.Plies() < 200 {
						if rng.IntN(10) == 0 {
							p := s.Position()
							c := mustNew(t, variantName(adv), seats, &p)
							if !reflect.DeepEqual(c.Position(), p) || !slices.Equal(sortedMoves(c), sortedMoves(s)) ||
								c.ToMove() != s.ToMove() || c.Plies() != 0 {
								t.Fatalf("ply %d: round trip differs", s.Plies())
							}
							if s.passes == 0 && c.Hash() != s.Hash() {
								t.Fatalf("ply %d: hash %#x after the round trip, %#x before", s.Plies(), c.Hash(), s.Hash())
							}
						}
						enginetest.Step(s, rng, buf)
					}
				}
			})
		}
	}
}

func TestHashTransposition(t *testing.T) {
	line := pos("black", "1,0 2,0 3,0", "0,0 -1,0 -2,0", nil)
	for _, tc := range []struct {
		name    string
		players int
		start   *engine.Position
		a, b    []string
		same    bool
	}{
		{"placement", 2, nil, []string{"-1,0", "2,0", "-1,1", "3,0"}, []string{"-1,1", "2,0", "-1,0", "3,0"}, true},
		{"placement differs", 2, nil, []string{"-1,0", "2,0", "-2,0", "3,0"}, []string{"-1,0", "2,0", "-2,1", "3,0"}, false},
		{"four players", 4, nil, []string{"-1,0", "2,0", "-1,1", "3,0"}, []string{"-1,1", "2,0", "-1,0", "3,0"}, true},
		{"movement", 2, line, []string{"3,0>3,-1", "-2,0>-2,1", "3,-1>2,-1", "-2,1>-1,1"},
			[]string{"3,0>1,1", "-2,0>-2,1", "1,1>2,-1", "-2,1>-1,1"}, true},
		{"movement differs", 2, line, []string{"3,0>3,-1", "-2,0>-2,1", "3,-1>2,-1", "-2,1>-1,1"},
			[]string{"3,0>3,-1", "-2,0>-2,1", "3,-1>2,-1", "-2,1>0,1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := mustNew(t, "basic", tc.players, tc.start), mustNew(t, "basic", tc.players, tc.start)
			playText(t, x, tc.a...)
			playText(t, y, tc.b...)
			if same := reflect.DeepEqual(x.Position(), y.Position()); same != tc.same {
				t.Fatalf("positions equal %v, want %v", same, tc.same)
			}
			if (x.Hash() == y.Hash()) != tc.same {
				t.Fatalf("hashes %#x %#x, want equal=%v", x.Hash(), y.Hash(), tc.same)
			}
		})
	}
}

// TestHashFarTransposition reaches one position through different windows:
// the hash must not depend on the window offset.
func TestHashFarTransposition(t *testing.T) {
	// A domino walking east: move the back hexagon to the front.
	walk := func(s *State, steps int) {
		for i := 0; i < steps; i++ {
			p := s.Position()
			var cells []rc
			for c := range p.Pieces {
				cells = append(cells, refCell(c))
			}
			slices.SortFunc(cells, func(a, b rc) int { return a.q - b.q })
			back, front := cells[0], cells[len(cells)-1]
			playText(t, s, fmt.Sprintf("%s>%d,0", back, front.q+1))
		}
	}
	// Single colour per seat so both players can walk: black 1,0 2,0; red 0,0 3,0.
	a := mustNew(t, "basic", 2, pos("black", "0,0 2,0", "1,0 3,0", nil))
	walk(a, 200)
	b := mustNew(t, "basic", 2, &engine.Position{ToMove: a.Position().ToMove, Pieces: a.Position().Pieces})
	if a.Result().Status != engine.Playing || a.offQ == b.offQ {
		t.Fatalf("status %v, offsets %d %d", a.Result(), a.offQ, b.offQ)
	}
	if a.Hash() != b.Hash() {
		t.Fatalf("hash %#x after walking, %#x set up", a.Hash(), b.Hash())
	}
}

func TestAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, adv := range []bool{false, true} {
		s := movementPosition(t, variantName(adv), 2, rng)
		buf := make([]engine.Move, 0, 4096)
		if n := testing.AllocsPerRun(100, func() { buf = s.Moves(buf[:0]) }); n != 0 {
			t.Errorf("%s: Moves allocates %v", variantName(adv), n)
		}
		moves := s.Moves(buf[:0])
		i := 0
		// Warm the history slices up to their size.
		for _, m := range moves {
			s.Play(m)
			s.Undo()
		}
		if n := testing.AllocsPerRun(100, func() {
			s.Play(moves[i%len(moves)])
			s.Undo()
			i++
		}); n != 0 {
			t.Errorf("%s: Play+Undo allocates %v", variantName(adv), n)
		}
		var nb []byte
		nb = make([]byte, 0, 64)
		if n := testing.AllocsPerRun(100, func() { nb = s.AppendMove(nb[:0], moves[0]) }); n != 0 {
			t.Errorf("AppendMove allocates %v", n)
		}
	}
}

// TestPlaneEdge: no move leaves |q|,|r| ≤ MaxCoord; otherwise the moves are
// the reference's.
func TestPlaneEdge(t *testing.T) {
	inside := func(m string) bool {
		if m == "pass" {
			return true
		}
		for _, part := range strings.FieldsFunc(m, func(r rune) bool { return r == '>' || r == '/' }) {
			c := refCell(part)
			if c.q > MaxCoord || c.q < -MaxCoord || c.r > MaxCoord || c.r < -MaxCoord {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		name, toMove, black, red string
		hands                    map[string]any
	}{
		{"placement east", "black", "65535,0 65534,1", "65533,1 65535,-1", map[string]any{"black": 3, "red": 3}},
		{"placement south-west", "red", "-65535,-65535 -65534,-65535", "-65535,-65534", map[string]any{"black": 3, "red": 3}},
		{"movement east", "black", "65535,0 65534,1 65533,0", "65533,1 65535,-1 65534,0", nil},
		{"movement north", "red", "0,65535 1,65534 2,65533", "0,65534 1,65535 -1,65535", nil},
	} {
		for _, adv := range []bool{false, true} {
			t.Run(tc.name+"/"+variantName(adv), func(t *testing.T) {
				s := mustNew(t, variantName(adv), 2, pos(tc.toMove, tc.black, tc.red, tc.hands))
				if !s.nearEdge {
					t.Fatal("window not near the edge")
				}
				rng := rand.New(rand.NewPCG(1, 1))
				ref := refFrom(s.Position(), adv, 2)
				for ply := 0; ply < 30 && s.Result().Status == engine.Playing; ply++ {
					var want []string
					for _, m := range ref.moves() {
						if inside(m) {
							want = append(want, m)
						}
					}
					if len(want) == 0 {
						want = []string{"pass"}
					}
					got := sortedMoves(s)
					if !slices.Equal(got, want) {
						t.Fatalf("ply %d: engine %v, reference %v", ply, minus(got, want), minus(want, got))
					}
					m := got[rng.IntN(len(got))]
					playText(t, s, m)
					ref.play(m)
					checkInvariants(t, s)
				}
				for s.Plies() > 0 {
					s.Undo()
				}
				checkInvariants(t, s)
			})
		}
	}
}
