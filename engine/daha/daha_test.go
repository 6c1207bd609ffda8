package daha

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

func mustStart(t testing.TB, pos engine.Position) *State {
	t.Helper()
	s, err := newState(engine.Config{Start: &pos})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return s
}

func roll(t testing.TB, s *State, k int) {
	t.Helper()
	if err := s.Roll(k - 1); err != nil {
		t.Fatalf("roll %d: %v", k, err)
	}
}

func play(t testing.TB, s *State, dest string) {
	t.Helper()
	m, err := s.ParseMove(dest)
	if err != nil {
		t.Fatalf("%s with %d: %v (legal: %v)", Colour(s.toMove), s.roll, err, moveNames(s))
	}
	s.Play(m)
	if h := s.computeHash(); h != s.hash {
		t.Fatalf("after %s: incremental hash %x, recomputed %x", dest, s.hash, h)
	}
}

func moveNames(s engine.State) []string {
	var out []string
	for _, m := range s.Moves(nil) {
		out = append(out, engine.MoveString(s, m))
	}
	sort.Strings(out)
	return out
}

func TestRegistered(t *testing.T) {
	s, err := engine.New("daha", engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if info.Game != "daha" || info.Variant != "basic" || !slices.Equal(info.Seats, []string{"red", "yellow", "blue", "black"}) ||
		!slices.Equal(info.Sides, info.Seats) || !slices.Equal(info.SideOf, []int{0, 1, 2, 3}) ||
		info.Die == nil || !info.Die.Numeric || !slices.Equal(info.Die.Faces, []string{"1", "2", "3", "4", "5", "6"}) {
		t.Errorf("info %+v", info)
	}
	if s.ToMove() != 0 || s.Awaiting() != engine.AwaitRoll || s.Plies() != 0 || s.Result() != (engine.Result{Status: engine.Playing, Winner: -1}) {
		t.Errorf("start: to move %d, awaiting %v, plies %d, result %+v", s.ToMove(), s.Awaiting(), s.Plies(), s.Result())
	}
	want := engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "C2": "yellow", "C4": "blue", "C6": "black"}}
	if got := s.Position(); !reflect.DeepEqual(got, want) {
		t.Errorf("start position: got %+v, want %+v", got, want)
	}
	if e := s.(engine.Eliminator).Eliminated(); len(e) != 0 {
		t.Errorf("eliminated at the start: %v", e)
	}
}

// TestSheetNarrative follows the worked example of the Turkish rule sheet:
// round 1 red 4, yellow 2, blue 6, black 3; round 2 red 1, yellow 2 (yellow
// paints: 2 twice), blue 5, black 4; round 3 red 1 (red paints: 1 twice),
// yellow 2 (yellow paints again: 2 three times). The sheet's pictures are
// lost, so the destinations are our choice.
func TestSheetNarrative(t *testing.T) {
	s, _ := newState(engine.Config{})
	steps := []struct {
		who     Colour
		roll    int
		dest    string
		painted map[string]string // all paint after the move
	}{
		{Red, 4, "A1", nil},
		{Yellow, 2, "A2", nil},
		{Blue, 6, "B5", nil},
		{Black, 3, "B0", nil},
		{Red, 1, "B1", nil},
		{Yellow, 2, "A4", map[string]string{"A4": "yellow"}},
		{Blue, 5, "C1", map[string]string{"A4": "yellow"}},
		{Black, 4, "A7", map[string]string{"A4": "yellow"}},
		{Red, 1, "B2", map[string]string{"A4": "yellow", "B2": "red"}},
		{Yellow, 2, "A6", map[string]string{"A4": "yellow", "B2": "red", "A6": "yellow"}},
	}
	for i, st := range steps {
		if Colour(s.ToMove()) != st.who {
			t.Fatalf("step %d: %s to move, want %s", i, Colour(s.ToMove()), st.who)
		}
		roll(t, s, st.roll)
		play(t, s, st.dest)
		got := s.Position().Painted
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, st.painted) {
			t.Fatalf("step %d (%s %d to %s): painted %v, want %v", i, st.who, st.roll, st.dest, got, st.painted)
		}
		if s.LastRoll(st.who) != st.roll {
			t.Fatalf("step %d: %s's previous roll %d, want %d", i, st.who, s.LastRoll(st.who), st.roll)
		}
	}
	if s.Plies() != len(steps) {
		t.Errorf("plies %d, want %d", s.Plies(), len(steps))
	}
}

// TestSheetElimination is the sheet's last picture: blue must move 5 but has
// no path of five steps through empty or blue cells (with a 1 it could move),
// so blue is out; its four painted cells stay.
func TestSheetElimination(t *testing.T) {
	pos := engine.Position{
		ToMove: "blue",
		Pieces: map[string]string{"C4": "blue", "A4": "red", "A6": "yellow", "C7": "black"},
		Painted: map[string]string{
			"C3": "yellow", "C5": "red", "B3": "black", "B5": "yellow",
			"B1": "blue", "C1": "blue", "B2": "blue", "C2": "blue",
		},
		LastRoll: map[string]int{"blue": 2, "red": 3},
	}
	t.Run("with a 1 blue could move", func(t *testing.T) {
		s := mustStart(t, pos)
		roll(t, s, 1)
		if got := moveNames(s); !slices.Equal(got, []string{"B4"}) {
			t.Errorf("moves %v, want [B4]", got)
		}
	})
	s := mustStart(t, pos)
	before := enginetest.Take(s)
	roll(t, s, 5)
	if got := s.Eliminated(); !slices.Equal(got, []int{int(Blue)}) {
		t.Errorf("eliminated %v, want [blue]", got)
	}
	if s.ToMove() != int(Black) || s.Awaiting() != engine.AwaitRoll {
		t.Errorf("after the elimination: %s to %v, want black to roll", Colour(s.ToMove()), s.Awaiting())
	}
	p := s.Position()
	if _, ok := p.Pieces["C4"]; ok || len(p.Pieces) != 3 {
		t.Errorf("blue's piece still on the board: %v", p.Pieces)
	}
	if !reflect.DeepEqual(p.Painted, pos.Painted) {
		t.Errorf("painted after elimination %v, want unchanged %v", p.Painted, pos.Painted)
	}
	if _, ok := p.LastRoll["blue"]; ok || p.LastRoll["red"] != 3 {
		t.Errorf("last rolls after elimination: %v (blue's is dropped, red's stays)", p.LastRoll)
	}
	if !slices.Equal(p.Out, []string{"blue"}) {
		t.Errorf("out %v", p.Out)
	}
	if s.Plies() != 0 {
		t.Errorf("an elimination is not a ply: plies %d", s.Plies())
	}
	if s.hash != s.computeHash() {
		t.Errorf("hash not updated by the elimination")
	}
	s.Undo()
	if got := enginetest.Take(s); !reflect.DeepEqual(got, before) {
		t.Errorf("undo of the eliminating roll: got %+v, want %+v", got, before)
	}
}

func TestDestinations(t *testing.T) {
	tests := []struct {
		name     string
		pieces   map[string]string
		painted  map[string]string
		roll     int
		want     []string
		wantElim bool
	}{
		{name: "one step from the rim", pieces: map[string]string{"C0": "red", "C4": "blue"}, roll: 1, want: []string{"B0", "C1", "C7"}},
		{name: "foreign paint blocks the path",
			pieces: map[string]string{"C0": "red", "C4": "blue"}, painted: map[string]string{"B0": "yellow", "C7": "blue"},
			roll: 2, want: []string{"B1", "C2"}},
		{name: "foreign paint is never a destination",
			pieces: map[string]string{"C0": "red", "C4": "blue"}, painted: map[string]string{"C1": "black"},
			roll: 1, want: []string{"B0", "C7"}},
		{name: "paint of a colour not in play still blocks",
			pieces: map[string]string{"C0": "red", "C4": "blue"}, painted: map[string]string{"C1": "black", "C7": "black", "B0": "black"},
			roll: 1, wantElim: true},
		{name: "own paint is passable and a destination",
			pieces: map[string]string{"C0": "red", "C4": "blue"}, painted: map[string]string{"C1": "red", "B0": "red", "C7": "blue"},
			roll: 2, want: []string{"A0", "B1", "B7", "C2"}},
		{name: "pieces block paths and destinations",
			pieces: map[string]string{"C0": "red", "C1": "yellow", "B0": "blue", "C6": "black"},
			roll:   2, want: []string{"B7"}},
		{name: "no coming back to the start cell",
			pieces: map[string]string{"C0": "red", "C7": "yellow", "B0": "blue"},
			roll:   2, want: []string{"B1", "C2"}},
		{name: "no coming back even around a ring",
			// O and the B ring blocked: the A ring is a cycle of 8; 6 steps
			// reach the two cells at distance 6 along it, never A0 itself.
			pieces: map[string]string{"A0": "red", "O": "yellow"},
			painted: map[string]string{"B0": "yellow", "B1": "yellow", "B2": "yellow", "B3": "yellow",
				"B4": "yellow", "B5": "yellow", "B6": "yellow", "B7": "yellow"},
			roll: 6, want: []string{"A2", "A6"}},
		{name: "the centre reaches every ring cell in 2",
			pieces: map[string]string{"O": "red", "C0": "blue"},
			roll:   2, want: []string{"A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7"}},
		{name: "walled in",
			pieces: map[string]string{"C0": "red", "C1": "yellow", "C7": "blue", "B0": "black"},
			roll:   1, wantElim: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustStart(t, engine.Position{ToMove: "red", Pieces: tc.pieces, Painted: tc.painted})
			roll(t, s, tc.roll)
			if tc.wantElim {
				if got := s.Eliminated(); !slices.Equal(got, []int{0}) {
					t.Errorf("eliminated %v, want [red]", got)
				}
				return
			}
			if got := moveNames(s); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if want := naiveDests(defBoard(), tc.pieces, tc.painted, "red", tc.roll); !slices.Equal(want, tc.want) {
				t.Errorf("the reference says %v", want)
			}
		})
	}
}

// triangleBoard is a 3-cycle X–Y–Z with a loose cell W: three steps around
// the triangle would come back to the start.
func triangleBoard(t testing.TB) *boards.Board {
	b, err := boards.Parse("triangle", []byte("board triangle\ngame daha\ncell X 0 0\ncell Y 1 0\ncell Z 0 1\ncell W 5 5\n"+
		"adj X Y Z\nadj Y X Z\nadj Z X Y\nstart X red\nstart W black\n"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTriangleNoReturn(t *testing.T) {
	b := triangleBoard(t)
	for k, want := range map[int][]string{1: {"Y", "Z"}, 2: {"Y", "Z"}, 3: nil, 4: nil} {
		s, err := newState(engine.Config{Board: b})
		if err != nil {
			t.Fatal(err)
		}
		roll(t, s, k)
		if got := moveNames(s); !slices.Equal(got, want) {
			t.Errorf("roll %d: got %v, want %v", k, got, want)
		}
		if want == nil && (s.Result() != engine.Result{Status: engine.Won, Winner: int(Black)}) {
			t.Errorf("roll %d: red is stuck, so black wins; got %+v", k, s.Result())
		}
	}
}

func TestColourWithoutStartCellDoesNotPlay(t *testing.T) {
	b := triangleBoard(t)
	s, err := newState(engine.Config{Board: b})
	if err != nil {
		t.Fatal(err)
	}
	roll(t, s, 1)
	play(t, s, "Y")
	if s.ToMove() != int(Black) {
		t.Fatalf("after red: %s to move, want black (yellow and blue have no start cell)", Colour(s.ToMove()))
	}
	if err := s.Roll(0); err != nil {
		t.Fatal(err)
	}
	// Black on the loose cell W can never move: it is eliminated, red wins.
	if s.Result() != (engine.Result{Status: engine.Won, Winner: int(Red)}) || !slices.Equal(s.Eliminated(), []int{int(Black)}) {
		t.Errorf("result %+v, eliminated %v", s.Result(), s.Eliminated())
	}
}

func TestPainting(t *testing.T) {
	base := func(last map[string]int, painted map[string]string) engine.Position {
		return engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "C4": "blue"}, LastRoll: last, Painted: painted}
	}
	t.Run("first turn never paints", func(t *testing.T) {
		s, _ := newState(engine.Config{})
		roll(t, s, 3)
		if slices.ContainsFunc(s.Moves(nil), Paints) {
			t.Error("a first-turn move is marked as painting")
		}
		play(t, s, "B2")
		if p := s.Position(); len(p.Painted) != 0 || p.LastRoll["red"] != 3 {
			t.Errorf("after red's first move: painted %v, last %v", p.Painted, p.LastRoll)
		}
	})
	t.Run("equal roll paints the destination", func(t *testing.T) {
		s := mustStart(t, base(map[string]int{"red": 2}, nil))
		roll(t, s, 2)
		for _, m := range s.Moves(nil) {
			if !Paints(m) || RollOf(m) != 2 || Mover(m) != Red {
				t.Errorf("move %s: paints %v, roll %d, mover %s", engine.MoveString(s, m), Paints(m), RollOf(m), Mover(m))
			}
		}
		play(t, s, "B1")
		if got := s.PaintAt(s.g.index["B1"]); got != Red {
			t.Errorf("B1 painted %s, want red", got)
		}
	})
	t.Run("different roll does not paint", func(t *testing.T) {
		s := mustStart(t, base(map[string]int{"red": 2}, nil))
		roll(t, s, 1)
		play(t, s, "B0")
		if p := s.Position(); len(p.Painted) != 0 || p.LastRoll["red"] != 1 {
			t.Errorf("painted %v, last %v", p.Painted, p.LastRoll)
		}
	})
	t.Run("three equal rolls paint twice", func(t *testing.T) {
		s := mustStart(t, engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "A4": "blue"}})
		for i, st := range []struct {
			dest  string
			paint int
		}{{"C1", 0}, {"C2", 1}, {"C3", 2}} {
			roll(t, s, 1)
			play(t, s, st.dest)
			if n := bits.OnesCount64(s.paint[Red]); n != st.paint {
				t.Fatalf("after red's move %d: %d painted cells, want %d", i+1, n, st.paint)
			}
			// blue: roll 2 and shuffle between A4 and its neighbours' neighbours.
			roll(t, s, 2)
			play(t, s, moveNames(s)[0])
		}
	})
	t.Run("own painted destination stays painted through undo", func(t *testing.T) {
		s := mustStart(t, base(map[string]int{"red": 1}, map[string]string{"C1": "red"}))
		roll(t, s, 1)
		h := s.Hash()
		play(t, s, "C1")
		if got := s.Position().Painted; !reflect.DeepEqual(got, map[string]string{"C1": "red"}) {
			t.Errorf("painted %v", got)
		}
		s.Undo()
		if got := s.Position().Painted; !reflect.DeepEqual(got, map[string]string{"C1": "red"}) || s.Hash() != h {
			t.Errorf("after undo: painted %v (hash restored: %v)", got, s.Hash() == h)
		}
	})
	t.Run("previous roll is set only by a roll followed by a move", func(t *testing.T) {
		s := mustStart(t, base(map[string]int{"red": 2}, nil))
		roll(t, s, 5)
		if s.LastRoll(Red) != 2 {
			t.Errorf("a roll not yet followed by a move changed the previous roll to %d", s.LastRoll(Red))
		}
		s.Undo() // the 5 is taken back: it never happened
		roll(t, s, 2)
		play(t, s, "B1")
		if s.PaintAt(s.g.index["B1"]) != Red || s.LastRoll(Red) != 2 {
			t.Errorf("2 after an undone 5 should paint: paint %s, last %d", s.PaintAt(s.g.index["B1"]), s.LastRoll(Red))
		}
	})
	t.Run("an eliminating roll leaves no previous roll", func(t *testing.T) {
		s := mustStart(t, engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "C1": "yellow", "C7": "blue", "B0": "black"},
			LastRoll: map[string]int{"red": 4, "yellow": 1}})
		roll(t, s, 4)
		if _, ok := s.Position().LastRoll["red"]; ok || s.LastRoll(Yellow) != 1 {
			t.Errorf("last rolls %v", s.Position().LastRoll)
		}
		s.Undo()
		if s.LastRoll(Red) != 4 {
			t.Errorf("undo did not restore red's previous roll: %d", s.LastRoll(Red))
		}
	})
	t.Run("paint of a previous roll spans other players' turns", func(t *testing.T) {
		s, _ := newState(engine.Config{})
		for _, st := range []struct {
			k    int
			dest string
		}{{3, "B2"}, {1, "C1"}, {1, "B4"}, {1, "C7"}, {3, "A1"}} {
			roll(t, s, st.k)
			play(t, s, st.dest)
		}
		if got := s.Position().Painted; !reflect.DeepEqual(got, map[string]string{"A1": "red"}) {
			t.Errorf("painted %v, want red on A1 (3 then 3)", got)
		}
	})
}

func TestEliminationOrderAndWin(t *testing.T) {
	// Yellow, blue and black are walled in by red paint; red has room.
	pos := engine.Position{
		ToMove: "yellow",
		Pieces: map[string]string{"O": "red", "C2": "yellow", "C4": "blue", "C6": "black"},
		Painted: map[string]string{"C1": "red", "C3": "red", "B2": "red", "C5": "red", "B4": "red",
			"C7": "red", "B6": "red"},
	}
	s := mustStart(t, pos)
	for i, want := range []struct {
		next Colour
		out  []int
	}{{Blue, []int{1}}, {Black, []int{1, 2}}, {NoColour, []int{1, 2, 3}}} {
		roll(t, s, 1+i)
		if got := s.Eliminated(); !slices.Equal(got, want.out) {
			t.Fatalf("step %d: eliminated %v, want %v", i, got, want.out)
		}
		if s.ToMove() != int(want.next) {
			t.Fatalf("step %d: to move %d, want %d", i, s.ToMove(), want.next)
		}
	}
	if s.Result() != (engine.Result{Status: engine.Won, Winner: int(Red)}) || s.Awaiting() != engine.AwaitNone {
		t.Errorf("result %+v, awaiting %v", s.Result(), s.Awaiting())
	}
	if !slices.Equal(s.Position().Out, []string{"yellow", "blue", "black"}) || s.Position().ToMove != "" {
		t.Errorf("position %+v", s.Position())
	}
	if err := s.Roll(0); !errors.Is(err, engine.ErrNotNow) {
		t.Errorf("roll after the end: %v", err)
	}
	if got := s.Moves(make([]engine.Move, 0, 8)); len(got) != 0 {
		t.Errorf("moves after the end: %v", got)
	}
	// Undo the win.
	s.Undo()
	if s.Result().Status != engine.Playing || s.ToMove() != int(Black) || s.Awaiting() != engine.AwaitRoll {
		t.Errorf("after undoing the win: %+v, to move %d, %v", s.Result(), s.ToMove(), s.Awaiting())
	}
}

func TestTurnOrderSkipsEliminated(t *testing.T) {
	pos := engine.Position{
		ToMove: "red",
		Pieces: map[string]string{"C0": "red", "C4": "blue", "C6": "black"},
		Out:    []string{"yellow"},
	}
	s := mustStart(t, pos)
	want := []Colour{Red, Blue, Black, Red, Blue}
	for i, w := range want {
		if Colour(s.ToMove()) != w {
			t.Fatalf("turn %d: %s to move, want %s", i, Colour(s.ToMove()), w)
		}
		roll(t, s, 1)
		play(t, s, moveNames(s)[0])
	}
	// Then blue drops out (walled in by black paint): black, then red.
	s = mustStart(t, engine.Position{ToMove: "blue", Pieces: map[string]string{"C0": "red", "C4": "blue", "C6": "black"},
		Painted: map[string]string{"C3": "black", "C5": "black", "B4": "black"}, Out: []string{"yellow"}})
	roll(t, s, 6)
	if s.ToMove() != int(Black) || !slices.Equal(s.Eliminated(), []int{1, 2}) {
		t.Fatalf("to move %d, eliminated %v", s.ToMove(), s.Eliminated())
	}
	roll(t, s, 1)
	play(t, s, moveNames(s)[0])
	if s.ToMove() != int(Red) {
		t.Errorf("after black: %d to move, want red", s.ToMove())
	}
}

func TestStartAlreadyWon(t *testing.T) {
	s := mustStart(t, engine.Position{Pieces: map[string]string{"B3": "yellow"}, Out: []string{"red", "blue"}})
	if s.Result() != (engine.Result{Status: engine.Won, Winner: int(Yellow)}) || s.ToMove() != -1 || s.Awaiting() != engine.AwaitNone {
		t.Errorf("result %+v, to move %d, awaiting %v", s.Result(), s.ToMove(), s.Awaiting())
	}
	if !slices.Equal(s.Eliminated(), []int{0, 2}) {
		t.Errorf("eliminated %v", s.Eliminated())
	}
	if _, err := s.ParseMove("B2"); !errors.Is(err, engine.ErrNotNow) {
		t.Errorf("move in a won game: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	piece := map[string]string{"C0": "red", "C4": "blue"}
	tests := []struct {
		name string
		cfg  engine.Config
		want string // in the message
	}{
		{"variant", engine.Config{Variant: "advanced"}, "variant"},
		{"first", engine.Config{First: "red"}, "first"},
		{"n", engine.Config{N: 12}, "n "},
		{"players", engine.Config{Players: 4}, "players"},
		{"board of another game", engine.Config{Board: boards.Default("ray")}, "ray"},
		{"hand-built board with a shared start cell", engine.Config{Board: &boards.Board{Name: "hb", Game: "daha",
			Cells: []boards.Cell{{Name: "P", Adj: []int{1}}, {Name: "Q", Adj: []int{0}}},
			Start: []boards.Placement{{Cell: "P", Piece: "red"}, {Cell: "P", Piece: "blue"}}}}, "both start on P"},
		{"hand-built board with a bad neighbour", engine.Config{Board: &boards.Board{Name: "hb2", Game: "daha",
			Cells: []boards.Cell{{Name: "P", Adj: []int{7}}, {Name: "Q"}}}}, "bad neighbour"},
		{"board without start cells", engine.Config{Board: &boards.Board{Name: "hb3", Game: "daha",
			Cells: []boards.Cell{{Name: "P", Adj: []int{1}}, {Name: "Q", Adj: []int{0}}}}}, "no start cells"},
		{"unknown cell", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "D9": "blue"}}}, `"D9"`},
		{"unknown colour", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "C1": "green"}}}, `"green"`},
		{"colour twice", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "C1": "red", "C3": "blue"}}}, "red is on both"},
		{"no pieces", engine.Config{Start: &engine.Position{ToMove: "red"}}, "no piece"},
		{"out and on the board", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Out: []string{"blue"}}}, "blue is out but has a piece on C4"},
		{"out unknown", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Out: []string{"pink"}}}, `"pink"`},
		{"out twice", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Out: []string{"black", "black"}}}, "black listed twice"},
		{"painted unknown cell", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Painted: map[string]string{"Q1": "red"}}}, `"Q1"`},
		{"painted unknown colour", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Painted: map[string]string{"B1": "mauve"}}}, `"mauve"`},
		{"piece on foreign paint", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Painted: map[string]string{"C4": "red"}}}, "painted.C4"},
		{"last roll 0", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, LastRoll: map[string]int{"red": 0}}}, "last_roll.red"},
		{"last roll 7", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, LastRoll: map[string]int{"blue": 7}}}, "last_roll.blue"},
		{"last roll unknown colour", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, LastRoll: map[string]int{"grey": 1}}}, `"grey"`},
		{"last roll of a colour not in play", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, LastRoll: map[string]int{"black": 1}, Out: []string{"black"}}}, "last_roll.black"},
		{"hands", engine.Config{Start: &engine.Position{ToMove: "red", Pieces: piece, Hands: map[string]any{"red": 1}}}, "hands"},
		{"to_move missing", engine.Config{Start: &engine.Position{Pieces: piece}}, "to_move"},
		{"to_move unknown", engine.Config{Start: &engine.Position{ToMove: "south", Pieces: piece}}, `"south"`},
		{"to_move without piece", engine.Config{Start: &engine.Position{ToMove: "yellow", Pieces: piece}}, "to_move: yellow"},
		{"to_move out", engine.Config{Start: &engine.Position{ToMove: "black", Pieces: piece, Out: []string{"black"}}}, "to_move: black"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if !errors.Is(err, engine.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrConfig mentioning %q", err, tc.want)
			}
		})
	}
}

func TestParseMoveErrors(t *testing.T) {
	pos := engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "B0": "blue", "C6": "black"},
		Painted: map[string]string{"C2": "black"}}
	tests := []struct {
		name  string
		roll  int // 0: no roll made
		text  string
		err   error
		words string
	}{
		{"awaiting a roll", 0, "C1", engine.ErrNotNow, "must roll"},
		{"not a cell", 1, "Z9", engine.ErrNotation, "not a cell"},
		{"empty", 1, "", engine.ErrNotation, "not a cell"},
		{"wrong case", 1, "c1", engine.ErrNotation, "not a cell"},
		{"with spaces", 1, " C1", engine.ErrNotation, "not a cell"},
		{"path notation", 1, "C0-C1", engine.ErrNotation, "not a cell"},
		{"own cell", 2, "C0", engine.ErrIllegal, "own cell"},
		{"occupied", 1, "B0", engine.ErrIllegal, "occupied by blue"},
		{"foreign paint", 2, "C2", engine.ErrIllegal, "painted black"},
		{"too far", 1, "A4", engine.ErrIllegal, "exactly 1 steps"},
		{"wrong parity", 2, "C1", engine.ErrIllegal, "exactly 2 steps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustStart(t, pos)
			if tc.roll > 0 {
				roll(t, s, tc.roll)
			}
			_, err := s.ParseMove(tc.text)
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.words) {
				t.Errorf("got %v, want %v saying %q", err, tc.err, tc.words)
			}
		})
	}
}

func TestRollErrors(t *testing.T) {
	s, _ := newState(engine.Config{})
	for _, f := range []int{-1, 6, 100} {
		if err := s.Roll(f); !errors.Is(err, engine.ErrNotation) {
			t.Errorf("face %d: %v, want ErrNotation", f, err)
		}
	}
	if s.Awaiting() != engine.AwaitRoll || len(s.hist) != 0 {
		t.Errorf("a bad roll changed the state")
	}
	roll(t, s, 3)
	if err := s.Roll(2); !errors.Is(err, engine.ErrNotNow) {
		t.Errorf("roll while a move is due: %v, want ErrNotNow", err)
	}
}

func TestUndoRandomGames(t *testing.T) {
	games, steps := enginetest.Scale(150), 400
	if testing.Short() {
		games, steps = 30, 200
	}
	s, _ := newState(engine.Config{})
	enginetest.CheckUndo(t, s, games, steps, 1)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < games/5; i++ {
		pos := randomStart(defBoard(), rng)
		enginetest.CheckUndo(t, mustStart(t, pos), 5, steps, uint64(i))
	}
	// Eliminations and wins are reached often on a tiny crowded board.
	b := randomBoard(t, rng, 7, 3)
	s2, err := newState(engine.Config{Board: b})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckUndo(t, s2, games, steps, 2)
}

// TestIncrementalHash checks the incremental hash against a fresh one at
// every step of random games, and that Undo restores it.
func TestIncrementalHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]engine.Move, 0, 64)
	for g := 0; g < 50; g++ {
		s, _ := newState(engine.Config{})
		var hashes []uint64
		for len(hashes) < 400 && enginetest.Step(s, rng, buf) {
			hashes = append(hashes, s.hash)
			if h := s.computeHash(); h != s.hash {
				t.Fatalf("game %d step %d: incremental %x, fresh %x", g, len(hashes), s.hash, h)
			}
		}
		for i := len(hashes) - 1; i >= 0; i-- {
			if s.hash != hashes[i] {
				t.Fatalf("game %d: hash before undo %d differs", g, i)
			}
			s.Undo()
		}
	}
}

func TestPositionRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	buf := make([]engine.Move, 0, 64)
	n := 2000
	if testing.Short() {
		n = 300
	}
	check := func(t *testing.T, s *State) {
		t.Helper()
		pos := s.Position()
		back, err := newState(engine.Config{Board: s.g.board, Start: &pos})
		if err != nil {
			t.Fatalf("New from %+v: %v", pos, err)
		}
		if got := back.Position(); !reflect.DeepEqual(got, pos) {
			t.Fatalf("round trip: got %+v, want %+v", got, pos)
		}
		if back.Hash() != s.Hash() || back.ToMove() != s.ToMove() || back.Result() != s.Result() ||
			!slices.Equal(back.Eliminated(), s.Eliminated()) || back.Awaiting() != s.Awaiting() {
			t.Fatalf("round trip of %+v: hash %x/%x, to move %d/%d, result %+v/%+v", pos,
				back.Hash(), s.Hash(), back.ToMove(), s.ToMove(), back.Result(), s.Result())
		}
	}
	t.Run("played positions", func(t *testing.T) {
		s, _ := newState(engine.Config{})
		for i := 0; i < n; i++ {
			if s.Awaiting() != engine.AwaitMove {
				check(t, s)
			}
			if !enginetest.Step(s, rng, buf) || s.Plies() > 400 {
				s, _ = newState(engine.Config{})
			}
		}
	})
	t.Run("random starts", func(t *testing.T) {
		for i := 0; i < n; i++ {
			check(t, mustStart(t, randomStart(defBoard(), rng)))
		}
	})
}

func TestTransposition(t *testing.T) {
	type step struct {
		k    int
		dest string
	}
	a := []step{{1, "C1"}, {1, "B2"}, {1, "B4"}, {1, "B6"}, {1, "B1"}}
	b := []step{{1, "B0"}, {1, "B2"}, {1, "B4"}, {1, "B6"}, {1, "B1"}}
	c := []step{{2, "B1"}, {1, "B2"}, {1, "B4"}, {1, "B6"}}
	run := func(steps []step) *State {
		s, _ := newState(engine.Config{})
		for _, st := range steps {
			roll(t, s, st.k)
			play(t, s, st.dest)
		}
		return s
	}
	sa, sb := run(a), run(b)
	if sa.Hash() != sb.Hash() || !reflect.DeepEqual(sa.Position(), sb.Position()) {
		t.Errorf("red via C1 and via B0 (both painting B1): hashes %x and %x, positions %+v and %+v",
			sa.Hash(), sb.Hash(), sa.Position(), sb.Position())
	}
	// Same pieces and paint, but red's previous roll is 2, not 1: different.
	sc := run(c)
	if sc.Position().Pieces["B1"] != "red" || sc.Hash() == sa.Hash() {
		t.Errorf("a different previous roll must change the hash")
	}
	// A pending roll changes the hash, and so does the roll value.
	h := sa.Hash()
	roll(t, sa, 1)
	h1 := sa.Hash()
	sa.Undo()
	roll(t, sa, 2)
	if h1 == h || sa.Hash() == h || sa.Hash() == h1 {
		t.Errorf("roll values not in the hash")
	}
}

func TestAllocations(t *testing.T) {
	s, _ := newState(engine.Config{})
	rng := rand.New(rand.NewPCG(1, 1))
	buf := make([]engine.Move, 0, 64)
	for i := 0; i < 41; i++ {
		enginetest.Step(s, rng, buf)
	}
	for s.Awaiting() != engine.AwaitMove {
		enginetest.Step(s, rng, buf)
	}
	if n := testing.AllocsPerRun(100, func() { buf = s.Moves(buf) }); n != 0 {
		t.Errorf("Moves: %v allocations", n)
	}
	m := s.Moves(buf)[0]
	if n := testing.AllocsPerRun(100, func() { s.Play(m); s.Undo() }); n != 0 {
		t.Errorf("Play+Undo: %v allocations", n)
	}
	s.Play(m)
	if n := testing.AllocsPerRun(100, func() {
		for f := 0; f < 6; f++ {
			_ = s.Roll(f)
			s.Undo()
		}
	}); n != 0 {
		t.Errorf("Roll+Undo: %v allocations", n)
	}
	var nb [16]byte
	if n := testing.AllocsPerRun(100, func() { _ = s.AppendMove(nb[:0], m) }); n != 0 {
		t.Errorf("AppendMove: %v allocations", n)
	}
}

func TestRandomMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	s, _ := newState(engine.Config{})
	if m := s.RandomMove(rng); m != engine.NoMove {
		t.Errorf("random move while a roll is due: %x", m)
	}
	roll(t, s, 5)
	legal := s.Moves(nil)
	seen := map[engine.Move]int{}
	for i := 0; i < 100*len(legal); i++ {
		m := s.RandomMove(rng)
		if !slices.Contains(legal, m) {
			t.Fatalf("random move %x is not legal", m)
		}
		seen[m]++
	}
	for _, m := range legal {
		if seen[m] < 50 {
			t.Errorf("move %s drawn %d times in %d", engine.MoveString(s, m), seen[m], 100*len(legal))
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.RandomMove(rng) }); n != 0 {
		t.Errorf("RandomMove: %v allocations", n)
	}
}

func TestCloneIndependent(t *testing.T) {
	s, _ := newState(engine.Config{})
	roll(t, s, 3)
	c := s.Clone().(*State)
	play(t, c, "B2")
	if s.Awaiting() != engine.AwaitMove || s.Plies() != 0 || s.pos[Red] != int8(s.g.index["C0"]) {
		t.Error("playing on the clone changed the original")
	}
	c.Undo()
	c.Undo()
	if c.Awaiting() != engine.AwaitRoll {
		t.Error("clone history does not undo the roll")
	}
}

func TestMoveAccessorsAndStrings(t *testing.T) {
	if Red.String() != "red" || Black.String() != "black" || Colour(9).String() != "Colour(9)" {
		t.Error("Colour.String")
	}
	s, _ := newState(engine.Config{})
	if got := string(s.AppendMove(nil, engine.NoMove)); got != "?" {
		t.Errorf("AppendMove(NoMove) = %q", got)
	}
	roll(t, s, 1)
	for _, m := range s.Moves(nil) {
		if m == engine.NoMove || RollOf(m) != 1 || Mover(m) != Red || Paints(m) {
			t.Errorf("move %x", m)
		}
		if s.Destinations()>>uint(Dest(m))&1 == 0 {
			t.Errorf("move %s not in Destinations", engine.MoveString(s, m))
		}
	}
	if s.DestinationsFor(Yellow, 1) != s.g.adj[s.g.index["C2"]]&^s.occ {
		t.Error("DestinationsFor(yellow, 1)")
	}
	if s.DestinationsFor(Yellow, 7) != 0 || s.DestinationsFor(NoColour, 1) != 0 {
		t.Error("DestinationsFor out of range")
	}
	if s.Board().Name != "daha" || s.PieceCell(Blue) != s.g.index["C4"] || s.Rolled() != 1 {
		t.Error("accessors")
	}
}
