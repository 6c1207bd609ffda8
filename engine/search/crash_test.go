package search

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// TestSixAdvancedCrashes: positions of random advanced six games (two and
// four players) where the hint and analysis crashed with index out of range
// [-1] in the six evaluation (eval.Six.count from Played): the search at
// level 2 undid a movement whose split removed hexagons and then the
// placement before it, and the evaluation dropped a wrong tile. The search
// must return a legal move with a sane value.
func TestSixAdvancedCrashes(t *testing.T) {
	for _, tc := range []struct {
		players int
		pos     string
	}{
		{2, `{"to_move":"black","pieces":{"-1,-1":"red","-1,4":"red","-2,0":"black","-2,4":"black","-3,0":"red","-3,1":"black","-3,2":"red","-3,3":"black","-4,-2":"red","-4,0":"red","-4,1":"black","-5,-1":"black","-5,0":"black","-5,1":"black","-6,1":"red","-7,1":"black","-7,2":"black","-8,-1":"black","-8,0":"red","-8,1":"red","-8,2":"red","-9,2":"red","0,-1":"black","0,-2":"black","0,0":"red","0,1":"red","0,2":"red","0,3":"red","1,-2":"black","1,-3":"red","1,0":"black","1,1":"red","1,2":"black","1,3":"red","2,-2":"black","2,-3":"black","2,2":"red","2,3":"black","3,2":"black","4,1":"red"},"hands":{"black":1,"red":1}}`},
		{4, `{"to_move":"red1","pieces":{"-1,-1":"black","-1,-2":"black","-1,-3":"red","-1,0":"red","-2,-1":"red","-2,-2":"red","-2,1":"black","-2,2":"red","-2,3":"red","-3,-1":"black","-3,0":"black","-3,1":"red","-4,-1":"black","-4,0":"red","-4,2":"black","-5,0":"black","-5,3":"red","-5,4":"black","-6,0":"red","0,-1":"black","0,-2":"black","0,-3":"black","0,0":"red","0,1":"black","0,2":"red","1,-1":"black","1,-3":"black","1,-4":"black","1,0":"black","1,1":"red","2,-1":"black","2,-3":"red","2,-4":"red","2,1":"red","3,-1":"red","3,-2":"black","3,-3":"red","3,-5":"red","3,1":"black"},"hands":{"black1":0,"black2":1,"red1":1,"red2":1}}`},
	} {
		s := mustNew(t, "six", engine.Config{Variant: "advanced", Players: tc.players, Start: jsonPos(t, tc.pos)})
		for _, lv := range []int{2, 3} {
			r := Search(s, Options{Level: lv})
			if !engine.Legal(s, r.Move) || r.Value < 0 || r.Value > 1 {
				t.Errorf("%d players, level %d: move %v value %v", tc.players, lv, r.Move, r.Value)
			}
		}
	}
}

// TestEveryAlgorithmEveryGame: any algorithm asked for, on positions of
// every game, variant and player count (rolls due and moves due, every seat
// to move), gives a sane result: one that cannot search the game (alpha-beta
// on DAHA and RAY, exact odds on all but RAY) resolves as Auto. Under the
// race detector the first 6 steps of each game (every seat of four still
// moves; its time is MCTS playouts in six, one worker), 12 without it
// (.ci/run's go test ./engine/...).
func TestEveryAlgorithmEveryGame(t *testing.T) {
	steps := 12
	if enginetest.Reduced() {
		steps = 6
	}
	setups := []struct {
		game string
		cfg  engine.Config
	}{
		{"daha", engine.Config{}}, {"star", engine.Config{First: "white"}}, {"gyges", engine.Config{}},
		{"gyges", engine.Config{Variant: "advanced"}}, {"ray", engine.Config{}}, {"six", engine.Config{}},
		{"six", engine.Config{Variant: "advanced"}}, {"six", engine.Config{Players: 4}},
		{"six", engine.Config{Variant: "advanced", Players: 4}},
	}
	for _, su := range setups {
		s := mustNew(t, su.game, su.cfg)
		rng := rand.New(rand.NewPCG(7, 8))
		for step := 0; step < steps && s.Awaiting() != engine.AwaitNone; step++ {
			for _, algo := range []Algorithm{Auto, AlphaBeta, MCTS, Exact} {
				want := Pick(s, Auto)
				if algo != Auto && Supports(s.Info(), algo) {
					want = algo
				}
				r := Search(s, Options{Level: 1, Nodes: 40, Algo: algo})
				sum := 0.0
				for _, v := range r.Values {
					sum += v
				}
				if r.Algo != want || len(r.Values) != len(s.Info().Sides) || sum < 0.99 || sum > 1.01 {
					t.Errorf("%s %+v ply %d, %v: algorithm %v (want %v), values %v", su.game, su.cfg, s.Plies(), algo, r.Algo, want, r.Values)
				}
				if s.Awaiting() == engine.AwaitMove && !engine.Legal(s, r.Move) {
					t.Errorf("%s ply %d, %v: illegal move %v", su.game, s.Plies(), algo, r.Move)
				}
			}
			if s.Awaiting() == engine.AwaitRoll {
				if err := s.Roll(rng.IntN(len(s.Info().Die.Faces))); err != nil {
					t.Fatal(err)
				}
				continue
			}
			moves := s.Moves(nil)
			s.Play(moves[rng.IntN(len(moves))])
		}
	}
}
