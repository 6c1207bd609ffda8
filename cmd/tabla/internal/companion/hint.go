package companion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/engine/search"
)

// SearchHint returns a Hint function backed by engine/search: the engine's
// move at the level that level(seat) gives for the seat to move (0: the
// default level).
func SearchHint(level func(seat int) int) func(engine.State) (string, error) {
	return func(st engine.State) (string, error) {
		lv := 0
		if level != nil {
			lv = level(st.ToMove())
		}
		m, _, _ := search.Best(st, search.Options{Level: lv, Seed: uint64(st.Plies()) + 1})
		if m == engine.NoMove {
			return "", errors.New("companion: no move is due")
		}
		return engine.MoveString(st, m), nil
	}
}

// ErrNoHintYet is a Hint's answer when the move to show is not known yet
// (a seat played at another board that has not moved): nothing is lit and
// nothing is logged as a failure; the hint comes when the move does.
var ErrNoHintYet = errors.New("the move is not known yet")

// PanicError is a panic that Guard recovered.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Guard runs f and returns a panic in it as a *PanicError, so that a failing
// computation (a hint, an engine seat's move, an analysis) cannot take the
// daemon down.
func Guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return f()
}

// hintLocked answers the hint button (a person's, or AutoPlay's for an
// engine seat) with the session's Hint on a copy of the game. The search
// runs off the session's lock, so the board loop keeps reading the board,
// lighting LEDs and pinging the watchdog however long it takes (a level-5
// search on a Pi Zero runs for most of a minute); one search at a time.
// Its answer is shown only if the game is still where it was asked. A hint
// that panics, fails or names no legal move is logged with the position and
// shown as "no hint" (no hint lit, the page's message says so); the game,
// the journal and the board loop go on.
func (s *Session) hintLocked(st engine.State) {
	if s.hintBusy {
		s.log.Info("hint: a search is already under way")
		return
	}
	hint := s.opts.Hint
	if hint == nil {
		hint = SearchHint(nil)
	}
	s.hintBusy = true
	game, hash, plies := st.Clone(), st.Hash(), st.Plies()
	go func() {
		m, err := Guard(func() (string, error) { return hint(game) })
		s.mu.Lock()
		defer s.mu.Unlock()
		s.hintBusy = false
		if s.closed {
			return
		}
		if cur := s.ref.Game(); cur.Hash() != hash || cur.Plies() != plies {
			s.log.Info("hint: the game moved on while it was searched", "move", m, "err", err)
			return
		}
		if errors.Is(err, ErrNoHintYet) {
			s.log.Info("no hint yet", "err", err)
			return
		}
		if err == nil {
			if err = s.ref.ShowHint(m); err == nil {
				s.log.Info("hint", "move", m)
				s.afterLocked()
				return
			}
		}
		s.log.Error("no hint", failureAttrs(err, &s.header, game, s.ref.History())...)
		s.ref.ShowNoHint()
		s.afterLocked()
	}()
}

// WaitHints waits until no hint search is under way (for scripts on virtual
// time, which must see a hint's answer before their next action).
// It polls the busy flag under the session's lock (a sync.WaitGroup here
// raced: another goroutine's hint command may start a search while a
// script waits).
func (s *Session) WaitHints() {
	for {
		s.mu.Lock()
		busy := s.hintBusy
		s.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// failureAttrs describe a failed computation on st for the log: the error
// (and the stack of a panic), the position in the record's start format, and
// the game as a record (header and moves) that `tabla hint -` reads back.
func failureAttrs(err error, h *record.Header, st engine.State, hist []referee.Applied) []any {
	attrs := []any{"err", err, "game", h.Game, "variant", st.Info().Variant, "ply", st.Plies()}
	if pos, jerr := json.Marshal(st.Position()); jerr == nil {
		attrs = append(attrs, "start", string(pos))
	}
	var rec bytes.Buffer
	w := record.NewWriter(&rec)
	hh := *h
	hh.Meta = nil
	werr := w.WriteHeader(&hh)
	die := st.Info().Die
	for _, a := range hist {
		if werr != nil {
			break
		}
		if a.Roll {
			werr = w.Write(record.Line{Roll: a.Text, Numeric: die != nil && die.Numeric})
		} else {
			werr = w.Write(record.Line{Move: a.Text})
		}
	}
	if werr == nil {
		attrs = append(attrs, "record", rec.String())
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		attrs = append(attrs, slog.String("stack", string(pe.Stack)))
	}
	return attrs
}
