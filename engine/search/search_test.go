package search

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
)

func jsonPos(t testing.TB, text string) *engine.Position {
	t.Helper()
	var p engine.Position
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

type mateCase struct {
	name string
	slow bool // run only with TABLA_SLOW=1 (movement-phase six: ~25 s)
	game string
	cfg  engine.Config
	in   int // forced win in this many own moves
}

func mateCases(t testing.TB) []mateCase {
	starWhite := colour("white", "a8 c8 e8 g8 i8 k8 m8 a11 c11 e11 g11 i11")
	return []mateCase{
		{"star/in1", false, "star", engine.Config{First: "red", Start: pieces("red",
			colour("red", "a1 b1 c1 a2 b2 c2 a3 b3 c3 b5 k10 m12")+starWhite)}, 1},
		// An 8-block and four loose pieces: any jump next to the block makes
		// 9 with more landing cells than white can fill.
		{"star/in2", false, "star", engine.Config{First: "red", Start: pieces("red",
			colour("red", "a1 b1 c1 d1 a2 b2 c2 d2 b5 f1 k10 m12")+starWhite)}, 2},
		{"gyges/in1", false, "gyges", engine.Config{Start: pieces("south", "c5=2 f6=1 a6=3")}, 1},
		{"gyges/in2-north", false, "gyges", engine.Config{Start: jsonPos(t,
			`{"to_move":"north","pieces":{"a1":"2","a6":"1","b1":"3","b6":"2","c1":"1","c2":"3","c6":"3","d1":"2","e6":"3","f3":"1","f4":"1","f6":"2"}}`)}, 2},
		{"gyges/in2-south", false, "gyges", engine.Config{Start: jsonPos(t,
			`{"to_move":"south","pieces":{"a1":"3","a6":"2","b6":"2","c1":"3","c2":"1","c3":"1","d1":"1","d3":"1","d4":"2","d6":"3","e6":"3","f1":"2"}}`)}, 2},
		{"six/in1-line", false, "six", engine.Config{Start: &engine.Position{ToMove: "black",
			Pieces: map[string]string{"0,0": "red", "1,0": "black", "2,0": "black", "3,0": "black", "4,0": "black", "5,0": "black",
				"0,1": "red", "1,1": "red", "2,1": "red", "3,1": "red"},
			Hands: map[string]any{"black": 16, "red": 16}}}, 1},
		{"six/in2-placing", false, "six", engine.Config{Start: jsonPos(t,
			`{"to_move":"red","pieces":{"-1,-1":"black","-1,-2":"black","-1,0":"black","-2,0":"black","0,-1":"red","0,0":"red","0,2":"red","0,3":"red","1,-1":"red","1,0":"black","1,1":"red","2,-1":"black","2,-2":"black"},"hands":{"black":14,"red":15}}`)}, 2},
		{"six/in2-moving", true, "six", engine.Config{Start: jsonPos(t,
			`{"to_move":"red","pieces":{"-1,-1":"red","-1,-2":"black","-1,0":"red","-1,1":"red","-1,2":"black","-2,-1":"red","-2,0":"red","-3,-1":"red","-3,1":"black","-4,0":"red","-4,2":"black","-5,2":"black","-6,1":"red","-6,2":"black","-7,3":"black","0,-1":"black","0,0":"red","0,1":"red","1,-1":"red","1,0":"black","1,1":"red","2,-2":"red","2,0":"black","3,-1":"black","3,-2":"black","3,-3":"black","3,-4":"black","3,0":"red","4,-1":"black","4,-5":"red","4,0":"red","5,-1":"black","5,-2":"red","5,-3":"red","5,-5":"red","5,-6":"black","5,0":"black","6,-2":"black","6,-4":"red","6,-6":"black","7,-3":"black","8,-4":"red"},"hands":{"black":0,"red":0}}`)}, 2},
	}
}

// TestForcedWins: the search proves the win at the right distance, and in
// the win-in-2 positions every defence leaves a win in 1 that it finds too.
func TestForcedWins(t *testing.T) {
	for _, tc := range mateCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow && os.Getenv("TABLA_SLOW") == "" {
				t.Skip("slow: set TABLA_SLOW=1")
			}
			s := mustNew(t, tc.game, tc.cfg)
			if tc.in == 2 && anyWinAtOnce(s) {
				t.Fatal("position has a win in 1")
			}
			r := Search(s, Options{Nodes: 3_000_000})
			if want := Win - int32(2*tc.in-1); r.Score != want || r.Proven != 1 || r.Value != 1 {
				t.Fatalf("move %s: score %d proven %d value %v, want score %d, proven", engine.MoveString(s, r.Move), r.Score, r.Proven, r.Value, want)
			}
			if len(r.PV) != 2*tc.in-1 || r.PV[0] != r.Move {
				t.Errorf("PV %d moves, want %d starting with the move", len(r.PV), 2*tc.in-1)
			}
			if tc.in == 1 {
				if !winsAtOnce(s, r.Move) {
					t.Errorf("%s does not win", engine.MoveString(s, r.Move))
				}
				return
			}
			s.Play(r.Move)
			replies := s.Moves(nil)
			for _, reply := range replies {
				s.Play(reply)
				r2 := Search(s, Options{Level: 2})
				if r2.Score != Win-1 || !winsAtOnce(s, r2.Move) {
					t.Errorf("after %s: %s does not win at once (score %d)", engine.MoveString(s, reply), engine.MoveString(s, r2.Move), r2.Score)
				}
				s.Undo()
			}
		})
	}
}

// TestDeterministic: same seed and node limit, same answer — one worker and
// two, alpha-beta and MCTS.
func TestDeterministic(t *testing.T) {
	cases := []struct {
		game string
		opts Options
	}{
		{"star", Options{Level: 2}},
		{"star", Options{Level: 2, Workers: 2}},
		{"gyges", Options{Level: 2, Workers: 2}},
		{"six", Options{Nodes: 2000, Workers: 2}},
		{"star", Options{Algo: MCTS, Nodes: 300, Workers: 2, Seed: 5}},
		{"daha", Options{Nodes: 400, Workers: 2, Seed: 9}},
	}
	for _, tc := range cases {
		s := mustNew(t, tc.game, engine.Config{})
		if s.Awaiting() == engine.AwaitRoll {
			if err := s.Roll(3); err != nil {
				t.Fatal(err)
			}
		}
		before := s.Hash()
		a := Search(s, tc.opts)
		b := Search(s, tc.opts)
		if s.Hash() != before {
			t.Fatalf("%s: search changed the state", tc.game)
		}
		a.Time, b.Time = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s %+v: two runs differ:\n%+v\n%+v", tc.game, tc.opts, a, b)
		}
		if a.Move == engine.NoMove || !engine.Legal(s, a.Move) {
			t.Errorf("%s: illegal move %v", tc.game, a.Move)
		}
	}
}

func TestNoMoveDue(t *testing.T) {
	s := mustNew(t, "daha", engine.Config{})
	r := Search(s, Options{Nodes: 200})
	if r.Move != engine.NoMove {
		t.Errorf("roll due: got move %v", r.Move)
	}
	sum := 0.0
	for _, v := range r.Values {
		sum += v
	}
	if sum < 0.99 || sum > 1.01 {
		t.Errorf("values %v sum to %v", r.Values, sum)
	}
	won := mustNew(t, "gyges", engine.Config{Start: pieces("north", "N=2 a3=1")})
	if m, _, _ := Best(won, Options{}); m != engine.NoMove {
		t.Errorf("game over: got a move")
	}
}

// TestRay: the forced move, and values from the exact computation.
func TestRayBest(t *testing.T) {
	s := mustNew(t, "ray", engine.Config{})
	if err := s.Roll(2); err != nil {
		t.Fatal(err)
	}
	r := Search(s, Options{})
	if r.Algo != Exact || engine.MoveString(s, r.Move) != "b29" {
		t.Errorf("got %s by %s", engine.MoveString(s, r.Move), r.Algo)
	}
	sum := 0.0
	for _, v := range r.Values {
		sum += v
	}
	if sum < 1-1e-9 || sum > 1+1e-9 {
		t.Errorf("values %v sum to %v", r.Values, sum)
	}
}

// TestZeroAlloc: the alpha-beta hot loop allocates nothing per node.
func TestZeroAlloc(t *testing.T) {
	s := mustNew(t, "star", engine.Config{})
	opts := Options{Level: 2, MaxPlies: DefaultMaxPlies}
	w := newABWorker(s.Clone(), opts, 1<<40, MaxDepth, time.Time{}, new(atomic.Bool))
	w.search(3, 0, -inf, inf) // warm the buffers
	allocs := testing.AllocsPerRun(3, func() {
		w.nodes = 0
		w.search(4, 0, -inf, inf)
	})
	if allocs > 0 {
		t.Errorf("%v allocations per search of %d nodes", allocs, w.nodes)
	}
}

// A closed Stop ends a search at once, as its time limit would: with a
// legal move and a fraction of its node budget.
func TestStop(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	for _, tc := range []struct {
		game string
		opts Options
	}{
		{"star", Options{Algo: AlphaBeta, Nodes: 1 << 40, Workers: 2, Stop: stop}},
		{"star", Options{Algo: MCTS, Nodes: 1 << 40, Workers: 2, Stop: stop}},
		{"gyges", Options{Level: 5, Nodes: 1 << 40, Stop: stop}},
	} {
		s := mustNew(t, tc.game, engine.Config{})
		r := Search(s, tc.opts)
		if r.Nodes > 1<<16 || r.Move == engine.NoMove || !engine.Legal(s, r.Move) {
			t.Errorf("%s %v: %d nodes, move %v; want a legal move after a few nodes", tc.game, tc.opts.Algo, r.Nodes, r.Move)
		}
	}
}

// TestSortRestIsPick: sorting the moves left after some picks gives the
// order the picks would have gone on in, ties in the score included.
func TestSortRestIsPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(60)
		moves := make([]engine.Move, n)
		sc := make([]int32, n)
		for k := range moves {
			moves[k] = engine.Move(1 + rng.IntN(1000)*7919 + k) // distinct
			sc[k] = int32(rng.IntN(5)) - 2                      // many ties
			if rng.IntN(10) == 0 {
				sc[k] = 1 << 30
			}
		}
		picked, pickedSc := slices.Clone(moves), slices.Clone(sc)
		for i := range picked {
			pick(picked, pickedSc, i)
		}
		from := rng.IntN(n)
		for i := 0; i < from; i++ {
			pick(moves, sc, i)
		}
		sortRest(moves, sc, from, nil, nil)
		if !slices.Equal(moves, picked) || !slices.Equal(sc, pickedSc) {
			t.Fatalf("trial %d (sorted from %d): %v, picks give %v", trial, from, moves, picked)
		}
	}
}
