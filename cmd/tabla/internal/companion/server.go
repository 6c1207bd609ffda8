package companion

import (
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"math"

	"github.com/tabla-board/tabla/engine/record"
)

// Status is the status document of a session: what GET /api/state of
// `tabla run` serves and what the live board page draws.
type Status struct {
	// State is the referee's state (Session.State: the LEDs as lit).
	State   any    `json:"state"`
	Journal string `json:"journal,omitempty"`
	Board   string `json:"board"`
	Frames  int    `json:"frames"`
	// Pieces are the pieces as the sensors see them, by cell: the piece
	// kind, or for a presence-only reading the kind the position expects
	// there ("?" where it expects none).
	Pieces map[string]string `json:"pieces"`
	// AI are the seats the engine plays.
	AI []string `json:"ai"`
	// Pairing is set while a phone asks to control the board.
	Pairing *PairingStatus `json:"pairing,omitempty"`
	// Log is the move list (MoveLog); HintMove the standing hint's cells.
	Log      []MoveEntry `json:"log"`
	HintMove *MoveEntry  `json:"hint_move,omitempty"`
	// Who is who plays which seat, and the event, round, site and date
	// (each omitted when unset).
	Who record.Who `json:"who"`
	// Clock is the clocks, when the game has a time control.
	Clock *ClockStatus `json:"clock,omitempty"`
	// BoardProblem says, in words for people, why nothing is played: the
	// board plugged in is not the board this table is set up for.
	BoardProblem string `json:"board_problem,omitempty"`
	// JournalProblem says, in words for people, why the game is paused:
	// its journal cannot be written (the card is full, read-only or
	// gone), and what to do; Unrecorded counts the moves, rolls and
	// takebacks kept in memory meanwhile, not yet on disk.
	JournalProblem string `json:"journal_problem,omitempty"`
	Unrecorded     int    `json:"unrecorded,omitempty"`
	// SpareJournal: while paused, the journal can be written to the
	// spare folder instead (the command spare; spare.go).
	SpareJournal bool `json:"spare_journal,omitempty"`
	// The same in the page's words (catalogue keys with arguments):
	// BoardProblemText, JournalProblemText, and MessageText the
	// session's own messages (the pause, a pairing request) around the
	// referee's, RefereeMessage (State's message is all of them in
	// English).
	BoardProblemText   *i18n.Text  `json:"board_problem_text,omitempty"`
	JournalProblemText *i18n.Text  `json:"journal_problem_text,omitempty"`
	MessageText        []i18n.Text `json:"message_text,omitempty"`
	RefereeMessage     string      `json:"referee_message"`
}

// PairingStatus is a standing pairing request.
type PairingStatus struct {
	Seconds int `json:"seconds"` // left to press the confirm button
}

// StatusJSON is the status document.
func (s *Session) StatusJSON() Status {
	st, log, hint := s.Glance()
	out := Status{State: st, Log: log, HintMove: hint, Journal: s.JournalPath(), Board: s.hw.Info().Name, Frames: s.Frames(),
		Pieces: make(map[string]string, len(st.Sensed)), AI: []string{}, Who: s.Who(), Clock: s.Clock()}
	for cell, kind := range st.Sensed {
		if kind == "?" && st.Expected[cell] != "" {
			kind = st.Expected[cell]
		}
		out.Pieces[cell] = kind
	}
	if s.opts.Engines != nil {
		out.AI = s.opts.Engines.Seats()
	}
	if wrong := s.WrongBoard(); wrong != nil {
		w := wrong.Words()
		out.BoardProblem, out.BoardProblemText = w.English(), &w
	}
	if p := s.JournalProblem(); p != nil {
		w := p.Words()
		out.JournalProblem, out.JournalProblemText, out.Unrecorded = w.English(), &w, p.Held
		out.SpareJournal = s.opts.SpareJournalDir != ""
	}
	s.mu.Lock()
	out.RefereeMessage = s.ref.State().Message
	if w := s.pairingWordsLocked(); w != nil {
		out.MessageText = append(out.MessageText, *w)
	}
	s.mu.Unlock()
	if pending, left := s.Pairing(); pending {
		out.Pairing = &PairingStatus{Seconds: int(math.Ceil(left.Seconds()))}
	}
	return out
}

// SetEngine makes the engine play a seat at a level (1–5, 0 the default),
// or stops it (on false): the page's "AI plays this seat".
func (s *Session) SetEngine(seat string, on bool, level int) error {
	if s.opts.Engines == nil {
		return errNoEngines
	}
	if err := s.opts.Engines.Set(seat, on, level); err != nil {
		return err
	}
	s.mu.Lock()
	s.notifyLocked()
	s.mu.Unlock()
	return nil
}
