package eval

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/gyges"
	_ "github.com/tabla-board/tabla/engine/six"
	_ "github.com/tabla-board/tabla/engine/star"
)

// TestTracking plays random games forward and back and checks that the
// incrementally kept evaluation equals a fresh one at every step.
func TestTracking(t *testing.T) {
	for _, tc := range []struct{ game, variant string }{{"star", ""}, {"six", ""}, {"six", "advanced"}, {"gyges", ""}} {
		rng := rand.New(rand.NewPCG(1, 2))
		for g := 0; g < 4; g++ {
			s, err := engine.New(tc.game, engine.Config{Variant: tc.variant})
			if err != nil {
				t.Fatal(err)
			}
			e := New(tc.game)
			e.Reset(s)
			steps := 0
			for ; steps < 120 && s.Awaiting() == engine.AwaitMove; steps++ {
				moves := s.Moves(nil)
				m := moves[rng.IntN(len(moves))]
				seat := s.ToMove()
				s.Play(m)
				e.Played(s, m, seat)
				if s.Awaiting() != engine.AwaitMove {
					break
				}
				fresh := New(tc.game)
				fresh.Reset(s)
				if got, want := e.Eval(s), fresh.Eval(s); got != want {
					t.Fatalf("%s %s game %d step %d: tracked eval %d, fresh %d", tc.game, tc.variant, g, steps, got, want)
				}
				if six, ok := e.(*Six); ok && six.slowEval() != six.score {
					t.Fatalf("six step %d: incremental %v, recomputed %v", steps, six.score, six.slowEval())
				}
			}
			for s.Plies() > 0 {
				s.Undo()
				e.Undone(s)
				if s.Awaiting() == engine.AwaitMove {
					fresh := New(tc.game)
					fresh.Reset(s)
					if got, want := e.Eval(s), fresh.Eval(s); got != want {
						t.Fatalf("%s undo to ply %d: tracked %d, fresh %d", tc.game, s.Plies(), got, want)
					}
				}
			}
		}
	}
}

func BenchmarkEval(b *testing.B) {
	for _, game := range []string{"star", "gyges", "six"} {
		b.Run(game, func(b *testing.B) {
			s, _ := engine.New(game, engine.Config{})
			rng := rand.New(rand.NewPCG(1, 2))
			for s.Plies() < 30 {
				moves := s.Moves(nil)
				s.Play(moves[rng.IntN(len(moves))])
			}
			e := New(game)
			e.Reset(s)
			b.ReportAllocs()
			for b.Loop() {
				e.Eval(s)
			}
		})
	}
}

// BenchmarkTrack: Played and Undone of every legal move of a position 30
// plies into a random game (the evaluator's work at every node of a search).
func BenchmarkTrack(b *testing.B) {
	for _, tc := range []struct{ game, variant string }{{"star", ""}, {"six", ""}, {"six", "advanced"}} {
		b.Run(tc.game+tc.variant, func(b *testing.B) {
			cfg := engine.Config{Variant: tc.variant}
			if tc.game == "star" {
				cfg.First = "red"
			}
			s, err := engine.New(tc.game, cfg)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for s.Plies() < 30 {
				moves := s.Moves(nil)
				s.Play(moves[rng.IntN(len(moves))])
			}
			e := New(tc.game)
			e.Reset(s)
			moves := s.Moves(nil)
			seat := s.ToMove()
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range moves {
					s.Play(m)
					e.Played(s, m, seat)
					s.Undo()
					e.Undone(s)
				}
			}
			b.ReportMetric(float64(len(moves)), "moves")
		})
	}
}
