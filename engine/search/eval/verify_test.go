package eval

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/six"
)

// evalGames are the setups with an evaluator, indexed by the fuzz input.
var evalGames = []struct {
	game string
	cfg  engine.Config
}{
	{"star", engine.Config{First: "red"}},
	{"star", engine.Config{First: "white"}},
	{"gyges", engine.Config{}},
	{"gyges", engine.Config{Variant: "advanced", First: "north"}},
	{"six", engine.Config{}},
	{"six", engine.Config{Variant: "advanced"}},
	{"six", engine.Config{Players: 4}},
	{"six", engine.Config{Variant: "advanced", Players: 4}},
}

// Modes of walkEval.
const (
	walkRestart  = 1 << iota // start a new game from the reached Position
	walkLowEdge              // six: move the window so the hexagons touch its low edges
	walkHighEdge             // … its high edges (both: low q, high r)
)

// walkEval plays plies random moves from the start of setup g (restarting
// from the reached Position with walkRestart, as a search root is), then
// takes steps random steps that undo (about one in three) or play, and
// checks the evaluator against a fresh one after every Play and Undo. The
// edge modes make six moves take the window near its edge often.
func walkEval(t *testing.T, g int, seed uint64, plies, steps int, mode uint8) {
	t.Helper()
	setup := evalGames[g%len(evalGames)]
	rng := rand.New(rand.NewPCG(seed, uint64(g)))
	s, err := engine.New(setup.game, setup.cfg)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]engine.Move, 0, 4096)
	for s.Awaiting() == engine.AwaitMove && s.Plies() < plies {
		moves := s.Moves(buf[:0])
		s.Play(moves[rng.IntN(len(moves))])
	}
	if mode&walkRestart != 0 {
		cfg := setup.cfg
		p := s.Position()
		cfg.Start = &p
		cfg.First = ""
		if setup.game == "star" {
			cfg.First = p.ToMove
		}
		if s, err = engine.New(setup.game, cfg); err != nil {
			t.Fatalf("restart from %+v: %v", p, err)
		}
	}
	e := New(setup.game)
	e.Reset(s)
	if six, ok := e.(*Six); ok && mode&(walkLowEdge|walkHighEdge) != 0 {
		minQ, minR, maxQ, maxR := sixSide, sixSide, 0, 0
		for _, t := range six.tiles {
			q, r := int(t&(sixSide-1)), int(t>>sixBits)
			minQ, maxQ, minR, maxR = min(minQ, q), max(maxQ, q), min(minR, r), max(maxR, r)
		}
		dq, dr := minQ-8, minR-8
		if mode&walkLowEdge == 0 {
			dq, dr = maxQ-(sixSide-9), maxR-(sixSide-9)
		} else if mode&walkHighEdge != 0 {
			dr = maxR - (sixSide - 9)
		}
		six.shiftTo(six.offQ+dq, six.offR+dr)
	}
	v := e.(Verifier)
	check := func(what string, path []string) {
		if err := v.Verify(s); err != nil {
			t.Fatalf("%s %+v after %d plies, then %v: %s: %v", setup.game, setup.cfg, plies, path, what, err)
		}
	}
	check("reset", nil)
	var path []string
	for range steps {
		if len(path) > 0 && (s.Awaiting() != engine.AwaitMove || rng.IntN(3) == 0) {
			s.Undo()
			e.Undone(s)
			path = path[:len(path)-1]
			check("undo", path)
			continue
		}
		if s.Awaiting() != engine.AwaitMove {
			break
		}
		moves := s.Moves(buf[:0])
		m := moves[rng.IntN(len(moves))]
		seat := s.ToMove()
		path = append(path, engine.MoveString(s, m))
		s.Play(m)
		e.Played(s, m, seat)
		check("play", path)
	}
	for len(path) > 0 {
		s.Undo()
		e.Undone(s)
		path = path[:len(path)-1]
		check("undo", path)
	}
}

// FuzzEvalTracking: any game with an evaluator, any depth: the incremental
// state always equals one built from scratch.
func FuzzEvalTracking(f *testing.F) {
	for g := range evalGames {
		for _, plies := range []uint16{0, 38, 80} {
			mode := uint8(0)
			if plies == 38 {
				mode = walkRestart
			}
			f.Add(uint8(g), uint64(g)+uint64(plies), plies, uint16(60), mode)
		}
		if evalGames[g].game == "six" {
			for mode := uint8(2); mode < 8; mode++ {
				f.Add(uint8(g), uint64(mode), uint16(60), uint16(100), mode)
			}
		}
	}
	f.Fuzz(func(t *testing.T, g uint8, seed uint64, plies, steps uint16, mode uint8) {
		walkEval(t, int(g), seed, int(plies%300), int(steps%200), mode)
	})
}

// TestVerifyFails: Verify notices a corrupted state (so the fuzz target can
// fail).
func TestVerifyFails(t *testing.T) {
	s, err := engine.New("six", engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	six := &Six{}
	six.Reset(s)
	six.tiles[0], six.tiles[1] = six.tiles[1], six.tiles[0]
	six.slot[six.tiles[0]], six.slot[six.tiles[1]] = 0, 1
	if err := six.Verify(s); err != nil {
		t.Fatalf("a reordered tile list (with its slots) is fine, got %v", err)
	}
	six.slot[six.tiles[0]] = 1
	if six.Verify(s) == nil {
		t.Error("six: a wrong slot passes")
	}
	six.Reset(s)
	six.cell[six.tiles[0]] = 3 - six.cell[six.tiles[0]]
	if six.Verify(s) == nil {
		t.Error("six: a recoloured cell passes")
	}
	six.Reset(s)
	six.tiles = append(six.tiles, six.tiles[0])
	if six.Verify(s) == nil {
		t.Error("six: a duplicated tile passes")
	}
	six.Reset(s)
	six.win[int(six.tiles[0])*6]++
	if six.Verify(s) == nil {
		t.Error("six: a wrong window count passes")
	}

	st, err := engine.New("star", engine.Config{First: "red"})
	if err != nil {
		t.Fatal(err)
	}
	star := &Star{}
	star.Reset(st)
	star.cellOf[0][0] = star.cellOf[1][0]
	if star.Verify(st) == nil {
		t.Error("star: a moved piece passes")
	}
	star.Reset(st)
	star.pot[1]++
	if star.Verify(st) == nil {
		t.Error("star: a wrong pair potential passes")
	}
	star.Reset(st)
	star.adj[0][0] ^= 1 << 1
	if star.Verify(st) == nil {
		t.Error("star: a wrong touching set passes")
	}
}

// Positions where `tabla hint` and `tabla analyze` crashed (index out of
// range [-1] in Six.count): the last placements, then a movement whose split
// removes hexagons. Undoing the movement put the removed tiles back at the
// end of the tile list, so undoing the placement before it (which drops the
// last tile) dropped a wrong one.
var sixCrashes = []struct {
	players int
	pos     string
}{
	{2, `{"to_move":"black","pieces":{"-1,-1":"red","-1,4":"red","-2,0":"black","-2,4":"black","-3,0":"red","-3,1":"black","-3,2":"red","-3,3":"black","-4,-2":"red","-4,0":"red","-4,1":"black","-5,-1":"black","-5,0":"black","-5,1":"black","-6,1":"red","-7,1":"black","-7,2":"black","-8,-1":"black","-8,0":"red","-8,1":"red","-8,2":"red","-9,2":"red","0,-1":"black","0,-2":"black","0,0":"red","0,1":"red","0,2":"red","0,3":"red","1,-2":"black","1,-3":"red","1,0":"black","1,1":"red","1,2":"black","1,3":"red","2,-2":"black","2,-3":"black","2,2":"red","2,3":"black","3,2":"black","4,1":"red"},"hands":{"black":1,"red":1}}`},
	{4, `{"to_move":"red1","pieces":{"-1,-1":"black","-1,-2":"black","-1,-3":"red","-1,0":"red","-2,-1":"red","-2,-2":"red","-2,1":"black","-2,2":"red","-2,3":"red","-3,-1":"black","-3,0":"black","-3,1":"red","-4,-1":"black","-4,0":"red","-4,2":"black","-5,0":"black","-5,3":"red","-5,4":"black","-6,0":"red","0,-1":"black","0,-2":"black","0,-3":"black","0,0":"red","0,1":"black","0,2":"red","1,-1":"black","1,-3":"black","1,-4":"black","1,0":"black","1,1":"red","2,-1":"black","2,-3":"red","2,-4":"red","2,1":"red","3,-1":"red","3,-2":"black","3,-3":"red","3,-5":"red","3,1":"black"},"hands":{"black1":0,"black2":1,"red1":1,"red2":1}}`},
}

func TestSixUndoPlacementAfterSplit(t *testing.T) {
	for _, tc := range sixCrashes {
		var p engine.Position
		if err := json.Unmarshal([]byte(tc.pos), &p); err != nil {
			t.Fatal(err)
		}
		s, err := engine.New("six", engine.Config{Variant: "advanced", Players: tc.players, Start: &p})
		if err != nil {
			t.Fatal(err)
		}
		e := &Six{}
		e.Reset(s)
		play := func(m engine.Move) {
			seat := s.ToMove()
			s.Play(m)
			e.Played(s, m, seat)
		}
		undo := func() {
			s.Undo()
			e.Undone(s)
		}
		// Place until the movement phase, taking the first placement after
		// which some movement splits the table.
		var placed []string
		tested := 0
		var walk func()
		walk = func() {
			if s.Awaiting() != engine.AwaitMove || tested > 0 {
				return
			}
			if !s.(*six.State).Placing() {
				n := len(s.Position().Pieces)
				for _, m := range s.Moves(nil) {
					play(m)
					split := len(s.Position().Pieces) < n
					undo()
					if split {
						tested++
						placed = append(placed, engine.MoveString(s, m))
						play(m)
						undo()
						for range placed[:len(placed)-1] {
							undo()
							if err := e.Verify(s); err != nil {
								t.Fatalf("%d players: after %v and back to ply %d: %v", tc.players, placed, s.Plies(), err)
							}
						}
						return
					}
				}
				return
			}
			for _, m := range s.Moves(nil) {
				placed = append(placed, engine.MoveString(s, m))
				play(m)
				walk()
				if tested > 0 {
					return
				}
				undo()
				placed = placed[:len(placed)-1]
			}
		}
		walk()
		if tested == 0 {
			t.Fatalf("%d players: no split movement found", tc.players)
		}
		t.Logf("%d players: %v", tc.players, placed)
	}
}
