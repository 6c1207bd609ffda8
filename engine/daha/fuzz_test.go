package daha

import (
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// FuzzPlayout plays a game steered by the fuzzer's bytes: each byte picks a
// die face when a roll is due, a move otherwise, or (every 16th byte value)
// an undo. It must never panic, the incremental hash must match a fresh one,
// and every listed move must parse back.
func FuzzPlayout(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 2, 2, 3, 3})
	f.Add([]byte{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{4, 2, 16, 3, 9, 1, 200, 7, 7, 7, 0, 32, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := newState(engine.Config{})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]engine.Move, 0, 64)
		for _, b := range data {
			if b%16 == 15 && len(s.hist) > 0 {
				s.Undo()
			} else {
				switch s.Awaiting() {
				case engine.AwaitNone:
					return
				case engine.AwaitRoll:
					if err := s.Roll(int(b) % 6); err != nil {
						t.Fatal(err)
					}
				case engine.AwaitMove:
					moves := s.Moves(buf)
					if len(moves) == 0 {
						t.Fatal("no moves while a move is due")
					}
					for _, m := range moves {
						if back, err := s.ParseMove(engine.MoveString(s, m)); err != nil || back != m {
							t.Fatalf("move %s parses back as %v, %v", engine.MoveString(s, m), back, err)
						}
					}
					s.Play(moves[int(b)%len(moves)])
				}
			}
			if h := s.computeHash(); h != s.hash {
				t.Fatalf("hash %x, fresh %x", s.hash, h)
			}
		}
	})
}

// FuzzParseMove feeds arbitrary text to ParseMove in every phase: errors
// only, never a panic, and success only for a listed move.
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"C1", "O", "", "B0", "c1", "A9", "\x00", "C1 "} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, k uint8) {
		s, _ := newState(engine.Config{})
		if _, err := s.ParseMove(text); err == nil {
			t.Fatal("a move accepted while a roll is due")
		}
		_ = s.Roll(int(k % 6))
		m, err := s.ParseMove(text)
		if err == nil && !engine.Legal(s, m) {
			t.Fatalf("%q parsed as an illegal move", text)
		}
	})
}
