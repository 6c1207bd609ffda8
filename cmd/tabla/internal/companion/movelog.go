package companion

import (
	"slices"
	"strings"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/referee"
)

// MoveEntry is one move as the live page lists and draws it: who made it,
// the roll it was made on, where the piece came from and went, and what it
// took off the board. From and To come from the position before and after
// the move, so they hold for every game's notation.
type MoveEntry struct {
	N    int    `json:"n"`    // 1 for the first move
	Seat string `json:"seat"` // who moved
	Text string `json:"text"` // canonical notation
	// Roll is the die face the move was made on (DAHA, RAY).
	Roll string `json:"roll,omitempty"`
	// From are the cells the move emptied of its own piece (none for a
	// placement); To the cells it filled, the moved piece's first (a GYGES
	// replace also puts the displaced piece down).
	From []string `json:"from,omitempty"`
	To   []string `json:"to,omitempty"`
	// Captured are the kinds of the pieces the move took off the board (six
	// removes the groups a split cuts off), one per piece.
	Captured []string `json:"captured,omitempty"`
	// MS is the turn's time on the clock, when the game has clocks and
	// this move ended its player's turn (clock.go).
	MS *int64 `json:"ms,omitempty"`
}

// moveLog is the cache of the move list: the history it was built from and
// the game after it, so a new move costs one replayed move.
type moveLog struct {
	hist    []referee.Applied
	entries []MoveEntry
	st      engine.State // the game after hist; nil: replay failed
	started bool         // st was set up
	roll    string       // the roll waiting for its move
	hint    string       // the hint last described, and its description
	hintN   int
	hintOut *MoveEntry
}

// MoveLog is the game's moves with their seats, rolls, cells and captures,
// in order (takebacks applied): one entry per State().Moves entry.
func (s *Session) MoveLog() []MoveEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.moveLogLocked())
}

func (s *Session) moveLogLocked() []MoveEntry {
	c := &s.mlog
	hist := s.ref.History()
	if len(hist) < len(c.hist) || !slices.Equal(hist[:len(c.hist)], c.hist) {
		*c = moveLog{hint: c.hint, hintN: c.hintN, hintOut: c.hintOut}
	}
	if !c.started {
		c.started = true
		st, err := s.newState()
		if err != nil {
			s.log.Warn("move list: the game cannot be set up to replay", "err", err)
		}
		c.st = st
	}
	for _, a := range hist[len(c.hist):] {
		c.hist = append(c.hist, a)
		if a.Roll {
			c.roll = ""
			if c.st != nil {
				if d := c.st.Info().Die; d != nil && a.Face >= 0 && a.Face < len(d.Faces) {
					c.roll = d.Faces[a.Face]
				}
				if err := c.st.Roll(a.Face); err != nil {
					s.log.Warn("move list: a roll does not replay", "face", a.Face, "err", err)
					c.st = nil
				}
			}
			continue
		}
		e := MoveEntry{N: len(c.entries) + 1, Text: a.Text, Roll: c.roll}
		if j := len(c.hist) - 1; s.clocks != nil && j < len(s.clocks.turns) && s.clocks.turns[j].timed {
			ms := s.clocks.turns[j].ms
			e.MS = &ms
		}
		c.roll = ""
		if c.st != nil {
			if seats := c.st.Info().Seats; a.Seat >= 0 && a.Seat < len(seats) {
				e.Seat = seats[a.Seat]
			}
			if engine.MoveString(c.st, a.Move) != a.Text || !engine.Legal(c.st, a.Move) {
				s.log.Warn("move list: a move does not replay; the list shows the rest without cells", "move", a.Text)
				c.st = nil
			} else {
				before := c.st.Position().Pieces
				c.st.Play(a.Move)
				e.From, e.To, e.Captured = moveCells(a.Text, before, c.st.Position().Pieces)
			}
		}
		c.entries = append(c.entries, e)
	}
	return c.entries
}

// Glance is State with its move list and hint move, read at one instant:
// what the live page draws.
func (s *Session) Glance() (st referee.State, log []MoveEntry, hint *MoveEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st = s.ref.State()
	s.pairingStateLocked(&st)
	s.pausedStateLocked(&st)
	s.timeStateLocked(&st)
	return st, slices.Clone(s.moveLogLocked()), s.hintMoveLocked(st.Hint)
}

// HintMove describes the standing hint (State().Hint) as a move: its cells
// for the page's arrow. Nil without a hint, or when it cannot be read.
func (s *Session) HintMove() *MoveEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hintMoveLocked(s.ref.State().Hint)
}

func (s *Session) hintMoveLocked(hint string) *MoveEntry {
	c := &s.mlog
	if hint == "" {
		return nil
	}
	game := s.ref.Game()
	if hint == c.hint && game.Plies() == c.hintN {
		return c.hintOut
	}
	c.hint, c.hintN, c.hintOut = hint, game.Plies(), nil
	st := game.Clone()
	m, err := st.ParseMove(hint)
	if err != nil {
		s.log.Warn("hint: not a move of this position", "hint", hint, "err", err)
		return nil
	}
	e := &MoveEntry{N: len(s.moveLogLocked()) + 1, Text: hint}
	if t := st.ToMove(); t >= 0 {
		e.Seat = st.Info().Seats[t]
	}
	before := st.Position().Pieces
	st.Play(m)
	e.From, e.To, e.Captured = moveCells(hint, before, st.Position().Pieces)
	c.hintOut = e
	return e
}

// moveCells compares the pieces before and after a move: the cells it
// filled (to, the notation's landing cell first), the cell its piece left
// (from: the notation's first cell when it names one, else the one cell
// emptied) and the pieces taken off (every other cell emptied, or filled
// with another kind without a piece leaving: none in tabla's games).
func moveCells(text string, before, after map[string]string) (from, to, captured []string) {
	var emptied []string
	for c, k := range before {
		if after[c] == "" && k != "" {
			emptied = append(emptied, c)
		}
	}
	for c, k := range after {
		if k != "" && before[c] != k {
			to = append(to, c)
		}
	}
	slices.Sort(emptied)
	slices.Sort(to)
	origin, landing := notationCells(text)
	if i := slices.Index(to, landing); i > 0 {
		to[0], to[i] = to[i], to[0]
	}
	switch {
	case origin != "" && slices.Contains(emptied, origin):
		from = []string{origin}
	case len(emptied) == 1 && len(to) > 0:
		from = emptied
	case len(emptied) > 0 && len(to) > 0 && origin == "":
		// a step whose notation names only its landing cell (DAHA, RAY): the
		// emptied cell that held the landing piece's kind
		for _, c := range emptied {
			if before[c] == after[to[0]] {
				from = []string{c}
				break
			}
		}
	}
	for _, c := range emptied {
		if !slices.Contains(from, c) {
			captured = append(captured, before[c])
		}
	}
	return from, to, captured
}

// notationCells reads the cells a move's notation names: "a4-b5" (STAR,
// GYGES, a replace "e1-c1/a3"), "q,r>q,r" (six), "3@c1" (a placement),
// "B3" (a landing cell only). Six's cells hold '-' as a minus sign, so '>'
// is looked for first.
func notationCells(text string) (origin, landing string) {
	text, _, _ = strings.Cut(text, "/")
	if o, l, ok := strings.Cut(text, ">"); ok {
		return o, l
	}
	if _, l, ok := strings.Cut(text, "@"); ok {
		return "", l
	}
	if !strings.Contains(text, ",") {
		if o, l, ok := strings.Cut(text, "-"); ok {
			return o, l
		}
	}
	return "", text
}
