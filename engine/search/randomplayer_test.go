package search

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestRandomPlayer: a game's own RandomPlayout (DAHA's) plays the games
// of playout's loop, draw for draw, leaves the position as it found it,
// and MCTS finds the same with it as without.
func TestRandomPlayer(t *testing.T) {
	s := mustNew(t, "daha", engine.Config{})
	rp, ok := s.(RandomPlayer)
	if !ok {
		t.Fatal("DAHA is not a RandomPlayer")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	checked := 0
	for s.Awaiting() != engine.AwaitNone && s.Plies() < 60 {
		for _, capPlies := range []int{s.Plies() + 3, s.Plies() + 400} {
			hash, plies := s.Hash(), s.Plies()
			seed := rng.Uint64()
			// playout's loop, through the interface
			loop := rand.New(rand.NewPCG(seed, 1))
			n := 0
			for s.Awaiting() != engine.AwaitNone && s.Plies() < capPlies {
				if s.Awaiting() == engine.AwaitRoll {
					if err := s.Roll(loop.IntN(len(s.Info().Die.Faces))); err != nil {
						t.Fatal(err)
					}
				} else {
					s.Play(s.(engine.RandomMover).RandomMove(loop))
				}
				n++
			}
			wantHash, wantPlies, wantResult := s.Hash(), s.Plies(), s.Result()
			for ; n > 0; n-- {
				s.Undo()
			}
			own := rand.New(rand.NewPCG(seed, 1))
			ended := false
			rp.RandomPlayout(own, capPlies, func() {
				ended = true
				if s.Hash() != wantHash || s.Plies() != wantPlies || s.Result() != wantResult {
					t.Fatalf("ply %d, cap %d: the playout ended at %x (%d plies, %+v), the loop at %x (%d, %+v)",
						plies, capPlies, s.Hash(), s.Plies(), s.Result(), wantHash, wantPlies, wantResult)
				}
			})
			if !ended || s.Hash() != hash || s.Plies() != plies || own.Uint64() != loop.Uint64() {
				t.Fatalf("ply %d: ended %v, position %x (%d plies) after, want %x (%d); draws in step %v", plies, ended, s.Hash(), s.Plies(), hash, plies, own.Uint64() == loop.Uint64())
			}
			checked++
		}
		// the position's search, with and without
		if s.Plies()%10 == 0 {
			useRandomPlayer = false
			loop := Search(s, Options{Level: 2, Algo: MCTS, Seed: 3})
			useRandomPlayer = true
			own := Search(s, Options{Level: 2, Algo: MCTS, Seed: 3})
			loop.Time, own.Time = 0, 0
			if !reflect.DeepEqual(loop, own) {
				t.Fatalf("ply %d: MCTS with the loop %+v, with RandomPlayout %+v", s.Plies(), loop, own)
			}
		}
		if s.Awaiting() == engine.AwaitRoll {
			s.Roll(rng.IntN(6))
		} else {
			s.Play(s.(engine.RandomMover).RandomMove(rng))
		}
	}
	if checked < 60 {
		t.Fatalf("only %d positions", checked)
	}
}
