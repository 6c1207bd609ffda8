package companion

import (
	"errors"
	"maps"

	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// A club evening's pairing (the hub's, package hub) reaches the table as
// who and where plus the evening's time control: StartPaired starts the
// paired game with them in its header, so that every line of its journal
// — and the hub's copy — names the players, the event and the round from
// the start.

// ErrGameUnderWay: a paired game waits for the game on the board to end
// (a game with moves is never abandoned for a pairing).
var ErrGameUnderWay = errors.New("companion: a game is under way; the paired game starts when it ends")

// Paired reports whether the game on the board is the one of w: the same
// event, round and players.
func (s *Session) Paired(w record.Who) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return samePairing(s.header.Who(), w)
}

func samePairing(a, b record.Who) bool {
	return a.Event == b.Event && a.Round == b.Round && maps.Equal(a.Names, b.Names)
}

// StartPaired starts a new game whose header carries w and the time
// control ctl (none: untimed), unless the game on the board already is
// that pairing (false, nil). A game over, or one without a move or roll
// yet, is replaced; one under way is ErrGameUnderWay. Names for seats
// the game does not have, or of the wrong form, are refused as SetWho
// refuses them.
func (s *Session) StartPaired(w record.Who, ctl clock.Controls) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if samePairing(s.header.Who(), w) {
		return false, nil
	}
	h := s.header
	h.SetWho(w)
	h.Clock = ctl
	seats := s.ref.Game().Info().Seats
	if err := record.CheckWho(&h, seats); err != nil {
		return false, err
	}
	if len(ctl) > 0 {
		if err := ctl.Check(seats); err != nil {
			return false, err
		}
	}
	if !s.overLocked() && len(s.ref.History()) > 0 {
		return false, ErrGameUnderWay
	}
	at := s.nowLocked()
	s.clkNow = at
	s.journalRetryLocked(false)
	if s.halted { // the journal's backlog is full: not now
		return false, s.refusedLocked()
	}
	// the new journal is written with the new header; the clocks of the
	// game left behind decide its end line (a game over on time keeps
	// its own), then the new control's clocks start with the new game
	h0 := s.header
	s.header = h
	if s.journal != nil && s.journal.Command("new", "", at) != nil {
		s.header = h0
		s.haltLocked()
		return false, s.refusedLocked()
	}
	if err := runCommand(s.ref, "new", "", at); err != nil {
		return false, err
	}
	s.afterLocked()
	// the new control's clocks start at the board's next event, when the
	// players set the game up (the host's estimate of board time is no
	// press: a board quiet for long would start them in the past)
	s.clocks = newClockState(&s.header, s.ref.Game())
	s.notifyLocked()
	return true, nil
}

// GameName is the game the session plays ("gyges", "daha", …).
func (s *Session) GameName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ref.Game().Info().Game
}
