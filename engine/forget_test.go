package engine_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestForget: every game's State forgets its undo history (what a reader of
// a million moves relies on) and goes on as it was: the moves played
// after Forget are taken back to the position Forget kept, and no further.
func TestForget(t *testing.T) {
	for _, tc := range []struct {
		game string
		cfg  engine.Config
	}{{"daha", engine.Config{}}, {"star", engine.Config{}}, {"gyges", engine.Config{}}, {"ray", engine.Config{}},
		{"six", engine.Config{}}, {"six", engine.Config{Players: 4, Variant: "advanced"}}} {
		t.Run(tc.game, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				s, err := engine.New(tc.game, tc.cfg)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(seed, 7))
				step := func() bool {
					switch s.Awaiting() {
					case engine.AwaitRoll:
						if err := s.Roll(rng.IntN(len(s.Info().Die.Faces))); err != nil {
							t.Fatal(err)
						}
					case engine.AwaitMove:
						ms := s.Moves(nil)
						s.Play(ms[rng.IntN(len(ms))])
					default:
						return false
					}
					return true
				}
				for i := 0; i < 40 && step(); i++ {
				}
				f, ok := s.(engine.Forgetter)
				if !ok {
					t.Fatalf("%T does not implement engine.Forgetter", s)
				}
				f.Forget()
				kept, plies := s.Hash(), s.Plies()
				var hashes []uint64
				for i := 0; i < 30; i++ {
					hashes = append(hashes, s.Hash())
					if !step() {
						hashes = hashes[:len(hashes)-1]
						break
					}
				}
				for i := len(hashes) - 1; i >= 0; i-- {
					s.Undo()
					if s.Hash() != hashes[i] {
						t.Fatalf("seed %d: undo %d after Forget: hash %x, want %x", seed, i, s.Hash(), hashes[i])
					}
				}
				if s.Hash() != kept || s.Plies() != plies {
					t.Fatalf("seed %d: back at %x ply %d, want %x ply %d", seed, s.Hash(), s.Plies(), kept, plies)
				}
				func() {
					defer func() { recover() }()
					s.Undo()
					t.Fatalf("seed %d: Undo past Forget did not panic", seed)
				}()
			}
		})
	}
}
