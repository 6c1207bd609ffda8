package companion

import "github.com/tabla-board/tabla/engine/referee"

// Publisher is told whenever a session has written to its journal what a
// hub must know: a decision (move, roll, takeback), a journal started or
// resumed, a game abandoned for a new one. It reads the journal itself
// (the journal is the source of truth; cmd/tabla/internal/hub's Table
// publishes it to a club hub). It is called with the session's lock held:
// it must not block nor call the session.
type Publisher interface {
	Journalled(path string, ply int)
}

// publish tells the publisher, if any, that the journal was written.
func (s *Session) publish() {
	// a journal paused tells nothing: its lines are not on disk yet
	// (journalCheckLocked publishes once they are)
	if s.opts.Publisher != nil && s.journal != nil && !s.journalPausedLocked() {
		s.opts.Publisher.Journalled(s.journal.Path(), s.ref.Game().Plies())
	}
}

// History is the game's moves and rolls as applied, in order (takebacks
// applied): what a hub's remote play compares with the other board's.
func (s *Session) History() []referee.Applied {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ref.History()
}
