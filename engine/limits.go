package engine

import "math/rand/v2"

// Limits are draw rules outside the official rules (RULES.md §6), off by
// default in the companion and used by analysis and self-play so that games
// that could run without end (DAHA, RAY, six, GYGES, STAR) always finish.
type Limits struct {
	// PlyCap ends the game as a draw once this many plies were played
	// (0: no cap).
	PlyCap int
	// Repetition ends the game as a draw when a position (by Hash) occurs
	// for the third time.
	Repetition bool
}

// WithLimits wraps a state so that it also obeys l. The wrapper passes
// Eliminator and RandomMover through.
func WithLimits(s State, l Limits) State {
	w := &limited{State: s, l: l}
	if l.Repetition {
		w.seen = map[uint64]int{s.Hash(): 1}
	}
	w.check()
	return w
}

type limited struct {
	State
	l     Limits
	seen  map[uint64]int
	trail []bool // per Play/Roll: whether it ended the game by a limit
	ended bool
}

func (w *limited) check() {
	if w.State.Result().Status != Playing {
		return
	}
	if w.l.PlyCap > 0 && w.State.Plies() >= w.l.PlyCap {
		w.ended = true
	}
	if w.seen != nil && w.seen[w.State.Hash()] >= 3 {
		w.ended = true
	}
}

func (w *limited) ToMove() int {
	if w.ended {
		return -1
	}
	return w.State.ToMove()
}

func (w *limited) Awaiting() Awaiting {
	if w.ended {
		return AwaitNone
	}
	return w.State.Awaiting()
}

func (w *limited) Result() Result {
	if w.ended {
		return Result{Status: Draw, Winner: -1}
	}
	return w.State.Result()
}

func (w *limited) Moves(buf []Move) []Move {
	if w.ended {
		return buf[:0]
	}
	return w.State.Moves(buf)
}

func (w *limited) after() {
	was := w.ended
	if w.seen != nil {
		w.seen[w.State.Hash()]++
	}
	w.check()
	w.trail = append(w.trail, w.ended && !was)
}

func (w *limited) Play(m Move) {
	w.State.Play(m)
	w.after()
}

func (w *limited) Roll(face int) error {
	if w.ended {
		return ErrNotNow
	}
	if err := w.State.Roll(face); err != nil {
		return err
	}
	w.after()
	return nil
}

func (w *limited) Undo() {
	if w.seen != nil {
		h := w.State.Hash()
		if w.seen[h]--; w.seen[h] == 0 {
			delete(w.seen, h)
		}
	}
	if w.trail[len(w.trail)-1] {
		w.ended = false
	}
	w.trail = w.trail[:len(w.trail)-1]
	w.State.Undo()
}

func (w *limited) ParseMove(s string) (Move, error) {
	if w.ended {
		return NoMove, ErrNotNow
	}
	return w.State.ParseMove(s)
}

func (w *limited) Clone() State {
	c := &limited{State: w.State.Clone(), l: w.l, ended: w.ended}
	if w.seen != nil {
		c.seen = make(map[uint64]int, len(w.seen))
		for k, v := range w.seen {
			c.seen[k] = v
		}
	}
	return c
}

func (w *limited) Eliminated() []int {
	if e, ok := w.State.(Eliminator); ok {
		return e.Eliminated()
	}
	return nil
}

func (w *limited) RandomMove(rng *rand.Rand) Move {
	if w.ended {
		return NoMove
	}
	if r, ok := w.State.(RandomMover); ok {
		return r.RandomMove(rng)
	}
	moves := w.State.Moves(make([]Move, 0, 256))
	if len(moves) == 0 {
		return NoMove
	}
	return moves[rng.IntN(len(moves))]
}
