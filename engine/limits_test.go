package engine_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
	_ "github.com/tabla-board/tabla/engine/games"
)

func TestPlyCap(t *testing.T) {
	s, err := engine.New("star", engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := engine.WithLimits(s, engine.Limits{PlyCap: 10})
	rng := rand.New(rand.NewPCG(1, 1))
	n := enginetest.Playout(w, rng, nil, 1000)
	if w.Plies() != 10 || w.Result().Status != engine.Draw || w.ToMove() != -1 || len(w.Moves(nil)) != 0 {
		t.Fatalf("after %d steps: plies %d result %+v", n, w.Plies(), w.Result())
	}
	w.Undo()
	if w.Result().Status != engine.Playing || w.Awaiting() != engine.AwaitMove {
		t.Errorf("undo of the capped ply: %+v", w.Result())
	}
	enginetest.CheckUndo(t, engine.WithLimits(s, engine.Limits{PlyCap: 30}), 10, 50, 3)
}

func TestRepetition(t *testing.T) {
	// RAY: red stepping east and back west returns to the same position;
	// with the other walkers passing (blocked at the edge) the start recurs.
	s, err := engine.New("ray", engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := engine.WithLimits(s, engine.Limits{Repetition: true})
	// faces: N=0 S=1 E=2 W=3. Red E, yellow E (blocked), blue S (blocked),
	// black W (blocked); red W, yellow E, blue S, black W: back at the start.
	cycle := []int{2, 2, 1, 3, 3, 2, 1, 3}
	plays := 0
	for round := 0; round < 2 && w.Result().Status == engine.Playing; round++ {
		for _, f := range cycle {
			if err := w.Roll(f); err != nil {
				t.Fatal(err)
			}
			w.Play(w.Moves(nil)[0])
			plays++
			if w.Result().Status != engine.Playing {
				break
			}
		}
	}
	if w.Result().Status != engine.Draw || plays != 16 {
		t.Fatalf("result %+v after %d plays, want a draw on the third occurrence after 16", w.Result(), plays)
	}
	w.Undo()
	if w.Result().Status != engine.Playing {
		t.Error("undo did not reopen the game")
	}
}
