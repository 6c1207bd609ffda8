package referee

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

func TestDahaCountedPathAndPaint(t *testing.T) {
	tb := newTable(t, "daha", engine.Config{}, false, 1)
	tb.expect("to_move=red", "awaiting=roll", `lit={"roll":["C0"]}`)
	tb.do("roll 3")
	tb.expect("awaiting=move", "roll=3", `lit={"turn":["C0"],"target":["O","A1","A7","B0","B2","B6","C1","C7"]}`)
	// counted along C0 B0 A0 O, resting on each cell: B0 is itself a
	// destination, so it is accepted and then revised.
	tb.do("lift C0", "place B0", "lift B0", "place A0")
	tb.expect("mode=correct", "in_sync=false")
	tb.do("lift A0", "place O")
	tb.expect("in_sync=true", "to_move=yellow", "last_move=O", `moves=["O"]`)
	if got, want := tb.log(), "roll:3 red:B0 takeback:1 red:O"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
	tb.do("roll 1", "lift C2", "place C3")
	// blue puts its piece one step short: illegal, its destinations stay lit
	tb.do("roll 2", "lift C4", "place B4")
	tb.expect("in_sync=false", "mode=correct", `lit={"illegal":["B4"],"dest":["A4","B3","B5"],"fill":["C4"]}`)
	tb.do("lift B4", "place A4") // finished by going on
	tb.expect("in_sync=true", "to_move=black")
	tb.do("roll 1", "lift C6", "place C7", "roll 1", "lift O", "place A0")
	// yellow rolls 1 again: the move paints its destination
	tb.do("roll 1", "lift C3", "place C4")
	st := tb.r.State()
	if st.Painted["C4"] != "yellow" {
		t.Fatalf("painted %v", st.Painted)
	}
	tb.do("roll 1", "lift A4", "place A5")
	tb.expect(`lit={"paint":["C4"]}`)
}

func TestDahaElimination(t *testing.T) {
	// red on C0 boxed in by its three neighbours
	start := &engine.Position{ToMove: "red", Pieces: map[string]string{"C0": "red", "C1": "yellow", "C7": "blue", "B0": "black"}}
	tb := newTable(t, "daha", engine.Config{Start: start}, true, 1)
	tb.expect("in_sync=true", "awaiting=roll")
	tb.do("roll 1")
	tb.expect("in_sync=false", "mode=correct", `lit={"take":["C0"]}`, "to_move=yellow", `eliminated=["red"]`)
	tb.do("remove C0")
	tb.expect("in_sync=true", "mode=play", "to_move=yellow")
}

func TestRayForcedTargetTablaRollAndPass(t *testing.T) {
	tb := newTable(t, "ray", engine.Config{}, false, 7)
	tb.do("roll S")
	tb.expect("awaiting=move", `lit={"turn":["a29"],"target":["a28"]}`)
	tb.do("lift a29", "place a28")
	tb.expect("to_move=yellow", "in_sync=true")
	// yellow at ac29 rolls E: off the board, a forced pass played at once
	tb.do("roll E")
	tb.expect("to_move=blue", "awaiting=roll", `moves=["a28","pass"]`)
	// blue presses the roll button: tabla rolls with its seeded RNG
	tb.actions = nil
	tb.do("press roll")
	if len(tb.actions) == 0 || tb.actions[0].Kind != Rolled || !tb.actions[0].Tabla {
		t.Fatalf("actions %+v", tb.actions)
	}
}

func TestRayUnplugMidMove(t *testing.T) {
	tb := newTable(t, "ray", engine.Config{}, false, 1)
	tb.do("roll S")
	tb.expect("to_move=red", "awaiting=move")
	tb.do("roll E") // not expected now
	tb.expect("awaiting=move", "roll=S")
	tb.do("lift a29", "unplug")
	tb.expect("conn=disconnected")
	tb.do("offline place a28", "replug")
	tb.expect("conn=connected", "in_sync=true", "to_move=yellow", `moves=["a28"]`)
}

func TestGygesSetupPresenceConfirm(t *testing.T) {
	tb := newTable(t, "gyges", engine.Config{}, false, 1)
	tb.expect("mode=setup", "to_move=south", `lit={"turn":["a1","b1","c1","d1","e1","f1"]}`)
	tb.do("place c1 2")
	// presence sensors cannot tell heights: three readings
	tb.expect("mode=confirm")
	st := tb.r.State()
	if len(st.Candidates) != 3 || st.Candidates[0] != "1@c1" {
		t.Fatalf("candidates %v", st.Candidates)
	}
	tb.do("press takeback", "press confirm")
	tb.expect("mode=setup", "to_move=north", `moves=["2@c1"]`)
	// a placement on the wrong row is illegal
	tb.do("place c3 1")
	tb.expect("mode=correct", `lit={"take":["c3"]}`)
	tb.do("remove c3")
	tb.expect("mode=setup", "in_sync=true")
}

func TestGygesIdentifyingSetupAndBounce(t *testing.T) {
	start := &engine.Position{ToMove: "south", Pieces: map[string]string{
		"a1": "1", "b1": "2", "c1": "3", "d1": "1", "e1": "2", "f1": "3",
		"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3", "b3": "1"}}
	_ = start
	tb := newTable(t, "gyges", engine.Config{}, true, 1)
	for _, p := range []string{"place c1 2", "place c6 3", "place a1 1", "place a6 1"} {
		tb.do(p)
	}
	tb.expect("mode=setup", `moves=["2@c1","3@c6","1@a1","1@a6"]`, "in_sync=true")
	// a bumped neighbour while placing
	tb.do("lift a1", "place a1", "place b1 3")
	tb.expect(`moves=["2@c1","3@c6","1@a1","1@a6","3@b1"]`, "in_sync=true")
}

func TestSixAdvancedRemoval(t *testing.T) {
	// black to move in the movement phase; lifting 1,0 splits off 2,0 and 3,0.
	start := &engine.Position{ToMove: "black", Hands: map[string]any{"black": 0, "red": 0},
		Pieces: map[string]string{
			"0,0": "red", "-1,0": "red", "-2,0": "red", "-3,0": "red", "-4,0": "red", "0,1": "red", "-1,1": "red",
			"1,0": "black", "2,0": "red", "3,0": "black",
			"0,-1": "black", "-1,-1": "black", "-2,-1": "black", "-3,-1": "black", "-4,-1": "black", "1,-1": "red",
		}}
	tb := newTable(t, "six", engine.Config{Variant: "advanced", Start: start}, false, 1)
	tb.expect("in_sync=true", "to_move=black")
	tb.do("lift 3,0")
	st := tb.r.State()
	if len(st.LEDs) == 0 {
		t.Fatal("nothing lit")
	}
	tb.do("place 3,0")
	tb.do("lift 1,0")
	tb.expect(`lit={"remove":["2,0","3,0"]}`)
	tb.do("remove 2,0", "remove 3,0")
	tb.expect("mode=play", "in_sync=false")
	tb.do("place -5,0")
	tb.expect("in_sync=true", "to_move=red", "last_move=1,0>-5,0")
}

func TestTakebackButtonAndNewGame(t *testing.T) {
	tb := newTable(t, "star", engine.Config{First: "white"}, false, 1)
	tb.do("lift d13", "place h11") // d13 through f12
	tb.expect("to_move=red", "ply=1")
	tb.do("press takeback")
	tb.expect("to_move=white", "ply=0", "in_sync=false", "mode=correct", `lit={"illegal":["h11"],"fill":["d13"]}`)
	// the state says which move was taken back until the board is in
	// line again (a page that did not see the moves drop says it so)
	if n := tb.r.State().TakenBack; n != 1 {
		t.Errorf("taken back %d after the takeback, want 1", n)
	}
	tb.do("lift h11")
	if n := tb.r.State().TakenBack; n != 1 {
		t.Errorf("taken back %d while the piece goes back, want 1", n)
	}
	tb.do("place d13")
	tb.expect("in_sync=true", "mode=play")
	if n := tb.r.State().TakenBack; n != 0 {
		t.Errorf("taken back %d once the board is in line, want 0", n)
	}
	tb.do("lift d13", "place h11", "press new")
	tb.expect("ply=0", "in_sync=false", "mode=setup")
	if got, want := tb.log(), "white:d13-h11 takeback:1 white:d13-h11 new"; got != want {
		t.Errorf("log %q want %q", got, want)
	}
	// the board set back to the start position is a new game too
	tb.do("lift h11", "place d13", "lift d13", "place h11")
	tb.expect("ply=1")
	tb.do("lift h11", "place d13")
	tb.expect("mode=confirm", "ply=1")
	tb.do("press confirm")
	tb.expect("ply=0", "in_sync=true")
}

func TestCorrectionPairs(t *testing.T) {
	tb := newTable(t, "star", engine.Config{First: "red"}, false, 1)
	// two pieces knocked off their cells and put down elsewhere, one piece
	// swept off the table
	tb.do("lift b1", "place b2", "lift f1", "place g2", "remove j1")
	tb.expect("mode=correct", "in_sync=false", `lit={"pair":["b2","b1","g2","f1"],"fill":["j1"]}`)
	st := tb.r.State()
	if st.LEDs["b2"].R != st.LEDs["b1"].R || st.LEDs["b2"].B != st.LEDs["b1"].B || st.LEDs["b2"].Blink != 2 || st.LEDs["b1"].Blink != 0 {
		t.Errorf("pair b2→b1 not shown in one colour: %+v %+v", st.LEDs["b2"], st.LEDs["b1"])
	}
	tb.do("lift b2", "place b1", "lift g2", "place f1", "place j1 red")
	tb.expect("mode=play", "in_sync=true", "ply=0")
}

func TestReplaceBackAsks(t *testing.T) {
	start := &engine.Position{ToMove: "south", Pieces: map[string]string{
		"a1": "1", "b1": "2", "c1": "3", "d1": "1", "f1": "3",
		"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3", "a2": "2"}}
	_ = start
	for _, tc := range []struct {
		name  string
		steps []string
		mode  string
	}{
		// the landing piece lifted while the mover is off, the mover
		// put on the landing cell first: a replace or nothing — ask
		{"replace order", []string{"lift a1", "lift a2", "place a2", "place a1"}, "confirm"},
		// put back the other way round: to presence sensors the same as
		// a replace whose displaced piece is put down first — ask
		{"put back", []string{"lift a1", "lift a2", "place a1", "place a2"}, "confirm"},
		// lifted one after the other: bumps
		{"bumps", []string{"lift a1", "place a1", "lift a2", "place a2"}, "play"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTable(t, "gyges", engine.Config{Variant: "advanced", Start: start}, false, 1)
			tb.do(tc.steps...)
			tb.expect("mode="+tc.mode, "ply=0", "in_sync=true")
			if tc.mode == "confirm" {
				tb.do("press confirm")
				tb.expect("ply=1", "last_move=a1-a2/a1", "to_move=north")
			}
		})
	}
}

// The example of issue 12: a presence-sensor GYGES board, b1 (height 1)
// bounces off a1 (height 3) to b3, or replaces a1 and puts it on b3. A glitch
// on a1 while b1 is in the hand is no lift: the bounce is recorded. A real
// lift of a1 leaves both readings: asked, the replace (which explains every
// touch) first, the bounce offered too.
func TestGygesGlitchIsNoReplace(t *testing.T) {
	start := &engine.Position{ToMove: "south", Pieces: map[string]string{
		"a1": "3", "b1": "1", "c1": "2", "d1": "2", "e1": "1", "f1": "3",
		"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3"}}
	t.Run("glitch", func(t *testing.T) {
		tb := newTable(t, "gyges", engine.Config{Variant: "advanced", Start: start}, false, 1)
		tb.do("lift b1", "bounce a1 1", "place b3")
		tb.expect("ply=1", "last_move=b1-b3", "in_sync=true", "mode=play")
	})
	t.Run("chatter", func(t *testing.T) {
		tb := newTable(t, "gyges", engine.Config{Variant: "advanced", Start: start}, false, 1)
		tb.do("lift b1", "bounce a1 5", "bounce b3 2", "place b3", "bounce a1 3")
		tb.expect("ply=1", "last_move=b1-b3", "in_sync=true", "mode=play")
	})
	t.Run("lifted", func(t *testing.T) {
		tb := newTable(t, "gyges", engine.Config{Variant: "advanced", Start: start}, false, 1)
		tb.do("lift b1", "lift a1", "place a1", "place b3")
		tb.expect("ply=0", "mode=confirm")
		st := tb.r.State()
		if !slices.Contains(st.Candidates, "b1-b3") || !slices.Contains(st.Candidates, "b1-a1/b3") || st.Candidates[0] != "b1-a1/b3" {
			t.Fatalf("candidates %v, want b1-a1/b3 first and b1-b3", st.Candidates)
		}
		tb.do("press takeback", "press confirm")
		tb.expect("ply=1", "last_move=b1-b3")
	})
}

// A move made while tabla was down (a power cut between the move and its
// journal line) is recognised from the first snapshot after the resume.
func TestMoveWhileDown(t *testing.T) {
	for _, ident := range []bool{false, true} {
		tb := newTable(t, "star", engine.Config{First: "red"}, ident, 1)
		tb.do("lift b1", "place f3")
		tb.expect("ply=1", "to_move=white")
		hist := tb.r.History()
		// the daemon restarts on the journal; meanwhile white moved
		tb.do("offline lift d13", "offline place h11")
		st, _ := engine.New("star", engine.Config{First: "red", Board: tb.b})
		for _, a := range hist {
			st.Play(a.Move)
		}
		r, err := New(st, Config{Board: tb.b})
		if err != nil {
			t.Fatal(err)
		}
		r.Resume(st, hist)
		tb.r = r
		tb.send(Input{Kind: SensorSnapshot, Codes: tb.codes()})
		tb.expect("ply=2", "last_move=d13-h11", "in_sync=true")
	}
}

// A GYGES move made while the cable was out is read from the snapshot
// after it: a snapshot tells no order, so its lifts count before its fills.
func TestGygesMoveWhileUnplugged(t *testing.T) {
	start := &engine.Position{ToMove: "north", Pieces: map[string]string{
		"a1": "1", "b1": "2", "c1": "3", "d1": "1", "e1": "2", "f1": "3",
		"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3"}}
	for _, ident := range []bool{false, true} {
		tb := newTable(t, "gyges", engine.Config{Start: start}, ident, 1)
		tb.do("unplug", "offline lift a6", "offline place a5", "replug")
		tb.expect("last_move=a6-a5", "in_sync=true", "ply=1")
	}
}

// The other example of issue 12: a six advanced move that lifts exactly the
// hexagons placed in the last two turns passes through the position before
// them. That transient board is no takeback: the move is recorded.
func TestSixMoveThroughEarlierPosition(t *testing.T) {
	cfg := engine.Config{Variant: "advanced"}
	buf := make([]engine.Move, 0, 1024)
	found := 0
	for seed := uint64(1); seed < 3000 && found < 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 12))
		st, _ := engine.New("six", cfg)
		var played []engine.Move
		var placed []string // cells of the placements so far
		for st.Awaiting() == engine.AwaitMove && st.Plies() < 120 {
			moves := st.Moves(buf[:0])
			if len(placed) >= 2 && len(played) == len(placed) && strings.Contains(engine.MoveString(st, moves[0]), ">") {
				x, y := placed[len(placed)-2], placed[len(placed)-1]
				for _, m := range moves {
					text := engine.MoveString(st, m)
					from, _, ok := strings.Cut(text, ">")
					if !ok || from != x {
						continue
					}
					c := st.Clone()
					c.Play(m)
					if _, still := c.Position().Pieces[y]; still || len(c.Position().Pieces) != len(st.Position().Pieces)-1 {
						continue
					}
					if runThroughEarlier(t, cfg, played, m, x, y) {
						found++
					}
					break
				}
				break // the placement phase is over
			}
			m := moves[rng.IntN(len(moves))]
			text := engine.MoveString(st, m)
			if !strings.Contains(text, ">") && text != "pass" {
				placed = append(placed, text)
			}
			st.Play(m)
			played = append(played, m)
		}
	}
	if found == 0 {
		t.Fatal("no six advanced game in 3000 seeds lifts the last two placements")
	}
	t.Logf("%d games whose first movement lifts the last two placements", found)
}

// runThroughEarlier installs the game played so far (with its history, so
// that takebacks are possible readings) and carries out m: lift x, remove y,
// a pause, then the placement.
func runThroughEarlier(t *testing.T, cfg engine.Config, played []engine.Move, m engine.Move, x, y string) bool {
	t.Helper()
	tb := newTable(t, "six", cfg, false, 1)
	cfg.Board = tb.b
	st, _ := engine.New("six", cfg)
	var applied []Applied
	for _, pm := range played {
		applied = append(applied, Applied{Move: pm, Text: engine.MoveString(st, pm), Seat: st.ToMove()})
		st.Play(pm)
	}
	text := engine.MoveString(st, m)
	_, to, _ := strings.Cut(text, ">")
	to, _, _ = strings.Cut(to, "/")
	for _, cell := range []string{x, y, to} {
		if _, ok := tb.b.Index(cell); !ok {
			return false // off the physical board
		}
	}
	tb.r.Resume(st, applied)
	clear(tb.pieces)
	for name, p := range st.Position().Pieces {
		c, ok := tb.b.Index(name)
		if !ok {
			return false
		}
		tb.pieces[c] = p
	}
	tb.send(Input{Kind: SensorSnapshot, Codes: tb.codes()})
	tb.expect("in_sync=true", fmt.Sprintf("ply=%d", len(played)))
	tb.do("lift "+x, "remove "+y, "wait 500")
	if st := tb.r.State(); st.Mode != "confirm" || len(st.Candidates) == 0 || st.Candidates[0] != "takeback:2" {
		t.Errorf("%s: mid-move board: mode %s candidates %v, want takeback:2 proposed", text, st.Mode, st.Candidates)
	}
	tb.do("place " + to)
	tb.expect("in_sync=true", fmt.Sprintf("ply=%d", len(played)+1), "last_move="+text)
	return true
}

// The examples of issue 23: a piece set down on its way, long enough to
// settle, then picked up by the same hand and carried on. The move at the
// rest is recorded and then revised to where the piece ends.
func TestSetDownOnTheWay(t *testing.T) {
	t.Run("gyges", func(t *testing.T) {
		// north to move after the setup, south's pieces on its first row:
		// c6 (height 3) rests on d4 and goes on to e5. South cannot move
		// the piece on d4 (its nearest row is row 1): c6-e5 is the one
		// reading.
		for _, ident := range []bool{true, false} {
			tb := newTable(t, "gyges", engine.Config{Variant: "advanced", First: "north"}, ident, 1)
			tb.do("place c6 3", "place a1 1", "place a6 1", "place b1 2", "place b6 2", "place c1 3",
				"place d6 1", "place d1 1", "place e6 2", "place e1 2", "place f6 3", "place f1 3")
			if !ident {
				// presence sensors cannot tell the heights placed: confirm each
				tb = newTable(t, "gyges", engine.Config{Variant: "advanced", First: "north", Start: &engine.Position{ToMove: "north",
					Pieces: map[string]string{"a1": "1", "b1": "2", "c1": "3", "d1": "1", "e1": "2", "f1": "3",
						"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3"}}}, ident, 1)
			}
			tb.do("lift c6", "place d4", "lift d4", "place e5", "wait 500")
			tb.expect("last_move=c6-e5", "to_move=south", "in_sync=true", "mode=play")
		}
	})
	t.Run("six", func(t *testing.T) {
		// six advanced, presence sensors, the movement phase: -3,1 rests on
		// -3,2 (a legal destination) and goes on to -4,3.
		pieces := map[string]string{
			"-3,1": "black", "-2,1": "red", "-1,1": "black", "0,1": "red", "1,1": "black", "2,1": "red", "3,1": "black",
			"-3,0": "red", "-2,0": "black", "-1,0": "red", "0,0": "black", "1,0": "red", "2,0": "black", "3,0": "red",
			"-4,1": "red", "-4,2": "black",
		}
		for _, tc := range []struct {
			players int
			mover   string
			hands   map[string]any
		}{
			{4, "black1", map[string]any{"black1": 0, "red1": 0, "black2": 0, "red2": 0}},
			{2, "black", map[string]any{"black": 0, "red": 0}},
		} {
			start := &engine.Position{ToMove: tc.mover, Hands: tc.hands, Pieces: pieces}
			tb := newTable(t, "six", engine.Config{Variant: "advanced", Players: tc.players, Start: start}, false, 1)
			tb.expect("in_sync=true", "to_move="+tc.mover)
			tb.do("lift -3,1", "place -3,2", "lift -3,2", "place -4,3", "wait 500")
			tb.expect("last_move=-3,1>-4,3", "in_sync=true", "mode=play", "ply=1")
		}
	})
}
