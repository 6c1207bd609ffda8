package companion

import (
	"errors"
	"fmt"
	"maps"

	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// The game is paused while the journal cannot be written (backlog.go): the
// page says why and what to do (Status.JournalProblem, the state's
// message), the board's corners blink red (PausedLight), nothing is
// published to a hub, and the moves made meanwhile wait in memory. The
// referee goes on following the board, so that those moves are recorded
// as they were made once the card can be written again; when the backlog
// is full the board is no longer followed (halted), commands are refused,
// and when the journal is written again the board is read afresh
// (correction mode lights the way back to the position recorded).

// ErrJournalPaused: a command refused while the journal cannot be
// written and its backlog is full.
var ErrJournalPaused = errors.New("companion: the game is paused: its journal cannot be written")

// PausedLight is the colour the board's corners blink with while the
// game is paused because its journal cannot be written.
var PausedLight = hardware.LED{R: 255, Blink: hardware.Fast}

// JournalProblem says why the game is paused (nil while the journal is
// written): the journal that cannot be written, and the moves, rolls and
// takebacks kept in memory, those of games left for a new one included.
func (s *Session) JournalProblem() *JournalProblem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.journalProblemLocked()
}

func (s *Session) journalProblemLocked() *JournalProblem {
	var out *JournalProblem
	for _, j := range append(s.retired, s.journal) {
		p := j.Problem()
		if p == nil {
			continue
		}
		if out == nil {
			out = p
			continue
		}
		out.Held += p.Held
		out.Refused += p.Refused
	}
	return out
}

// RetryJournal tries to write the journal's backlog now (Run retries on
// its own every RetryEvery, and so does every board event after that).
func (s *Session) RetryJournal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.journalRetryLocked(true)
	if p := s.journalProblemLocked(); p != nil {
		return p
	}
	return nil
}

// journalPausedLocked reports whether a journal of the session waits to
// be written.
func (s *Session) journalPausedLocked() bool {
	return s.journal.Paused() || len(s.retired) > 0
}

// journalRetryLocked writes the backlogs, oldest journal first: always
// when forced, else when their retry is due.
func (s *Session) journalRetryLocked(force bool) {
	if !s.journalPausedLocked() {
		return
	}
	for len(s.retired) > 0 {
		j := s.retired[0]
		if force {
			j.Retry()
		} else {
			j.flushDue()
		}
		if j.Paused() {
			break
		}
		j.Close()
		s.retired = s.retired[1:]
	}
	if len(s.retired) == 0 {
		if force {
			s.journal.Retry()
		} else if s.journal.Paused() {
			s.journal.flushDue()
		}
	}
	s.journalCheckLocked()
}

// journalCheckLocked follows the journal's pause: said once in the log
// when it starts, again when the journal is written again; the page and
// the LEDs are told.
func (s *Session) journalCheckLocked() {
	paused := s.journalPausedLocked()
	if paused == s.jpaused {
		return
	}
	s.pauseClockLocked(s.clkNow) // before jpaused changes: a resume is seen
	s.jpaused = paused
	if paused {
		p := s.journalProblemLocked()
		s.log.Error("journal cannot be written: the game is paused, its lines are kept in memory until it can",
			"journal", p.Path, "why", p.Kind(), "err", p.Err, "do", p.Do())
	} else {
		s.log.Info("journal written again: every move kept in memory is on disk, the game goes on", "journal", s.journal.Path())
		s.publish()
		if s.halted {
			s.halted = false
			s.hw.RequestSnapshot() // the board moved on unfollowed: read it afresh
		}
	}
	s.sendFrameLocked()
	s.notifyLocked()
}

// haltLocked stops following the board: the backlog is full.
func (s *Session) haltLocked() {
	if s.halted {
		return
	}
	s.halted = true
	p := s.journalProblemLocked()
	s.log.Error("journal backlog full: the board is no longer followed until the journal can be written",
		"journal", p.Path, "held", p.Held, "do", p.Do())
	s.notifyLocked()
}

// pausedOverlayLocked blinks the board's corners red while paused.
func (s *Session) pausedOverlayLocked(frame []hardware.LED) []hardware.LED {
	if !s.journalPausedLocked() {
		return frame
	}
	for _, c := range pairCorners(s.board) {
		if led := s.board.LEDs[c]; led < len(frame) {
			frame[led] = PausedLight
		}
	}
	return frame
}

// pausedStateLocked puts the pause in the state the page draws: its
// words first in the message, the corners' lights.
func (s *Session) pausedStateLocked(st *referee.State) {
	p := s.journalProblemLocked()
	if p == nil {
		return
	}
	lit := make(map[string]referee.LED, len(st.LEDs)+4)
	maps.Copy(lit, st.LEDs)
	for _, c := range pairCorners(s.board) {
		lit[s.board.Cells[c].Name] = referee.LED{R: PausedLight.R, G: PausedLight.G, B: PausedLight.B, Blink: uint8(PausedLight.Blink), Role: "paused"}
	}
	st.LEDs = lit
	msg := p.People()
	if st.Message != "" {
		msg += " — " + st.Message
	}
	st.Message = msg
}

// refusedLocked is the error of a command refused while halted.
func (s *Session) refusedLocked() error {
	return fmt.Errorf("%w: %s", ErrJournalPaused, s.journalProblemLocked().People())
}
