package library

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// Step is the game after a number of moves: step 0 is the start, step k
// the position after the k-th move, as `tabla rules check` and the engine
// see the record cut after that move's line.
type Step struct {
	Ply int `json:"ply"`
	// Move is the move that led here, by Seat, on the record's Line; Roll
	// is the roll it was made on (DAHA, RAY).
	Move string `json:"move,omitempty"`
	Seat string `json:"seat,omitempty"`
	Line int    `json:"line,omitempty"`
	Roll string `json:"roll,omitempty"`
	// NextRoll is the roll made after this position, before the next move.
	NextRoll   string            `json:"next_roll,omitempty"`
	ToMove     *string           `json:"to_move"`
	Awaiting   string            `json:"awaiting"`
	Status     string            `json:"status"`
	Winner     *string           `json:"winner"`
	Eliminated []string          `json:"eliminated"`
	Pieces     map[string]string `json:"pieces"`
	Painted    map[string]string `json:"painted,omitempty"`
	Hands      map[string]any    `json:"hands,omitempty"`
}

// Game is one game of the library, stepped.
type Game struct {
	Entry  Entry          `json:"entry"`
	Header *record.Header `json:"header"`
	Board  *boards.Board  `json:"-"`
	Seats  []string       `json:"seats"`
	Sides  []string       `json:"sides"`
	Die    []string       `json:"die"`
	Steps  []Step         `json:"steps"`
}

// Game reads and steps one game.
func (l *Library) Game(id string) (*Game, error) {
	e, _, err := l.Entry(id)
	if err != nil {
		return nil, err
	}
	if e.Error != nil {
		return nil, e.Error
	}
	f, err := l.open(filepath.FromSlash(e.ID))
	if err != nil {
		return nil, fmt.Errorf("library: %q: %w", id, ErrNotFound)
	}
	defer f.Close()
	return stepGame(e, f)
}

// Record opens a game's record file for reading, with its entry; the
// caller closes it.
func (l *Library) Record(id string) (*os.File, *Entry, error) {
	e, _, err := l.Entry(id)
	if err != nil {
		return nil, nil, err
	}
	if e.Error != nil {
		return nil, nil, e.Error
	}
	f, err := l.open(filepath.FromSlash(e.ID))
	if err != nil {
		return nil, nil, fmt.Errorf("library: %q: %w", id, ErrNotFound)
	}
	return f, e, nil
}

func stepGame(e *Entry, r io.Reader) (*Game, error) {
	g, _, err := replay(r, e.ID, nil)
	if err != nil {
		return nil, err
	}
	name := g.Header.Board
	if name == "" {
		name = g.Header.Game
	}
	def, err := boards.Open(name)
	if err != nil {
		return nil, fmt.Errorf("library: %s: board %s: %w", e.ID, name, err)
	}
	st, err := newState(g.Header)
	if err != nil {
		return nil, err
	}
	info := st.Info()
	out := &Game{Entry: *e, Header: g.Header, Board: def, Seats: info.Seats, Sides: info.Sides}
	if info.Die != nil {
		out.Die = info.Die.Faces
	}
	out.Steps = append(out.Steps, stepOf(st))
	roll := ""
	for _, a := range g.Applied {
		if a.Roll {
			if err := st.Roll(a.Face); err != nil {
				return nil, fmt.Errorf("library: %s:%d: %w", e.ID, a.Line, err)
			}
			roll = a.Text
			out.Steps[len(out.Steps)-1].NextRoll = a.Text
			continue
		}
		st.Play(a.Move)
		s := stepOf(st)
		s.Move, s.Seat, s.Line, s.Roll = a.Text, info.Seats[a.Seat], a.Line, roll
		roll = ""
		out.Steps = append(out.Steps, s)
	}
	return out, nil
}

func stepOf(st engine.State) Step {
	sum := record.Summary(st)
	pos := st.Position()
	return Step{Ply: sum.Ply, ToMove: sum.ToMove, Awaiting: sum.Awaiting, Status: sum.Status, Winner: sum.Winner,
		Eliminated: sum.Eliminated, Pieces: pos.Pieces, Painted: pos.Painted, Hands: pos.Hands}
}

// Arrow is a move drawn on the board: the cells pieces leave and the cells
// they reach (a placement leaves none).
type Arrow struct {
	Move string   `json:"move"`
	From []string `json:"from"`
	To   []string `json:"to"`
}

// arrowOf plays text on a copy of st and compares the pieces.
func arrowOf(st engine.State, text string) (*Arrow, error) {
	m, err := st.ParseMove(text)
	if err != nil {
		return nil, err
	}
	before := st.Position().Pieces
	c := st.Clone()
	c.Play(m)
	after := c.Position().Pieces
	a := &Arrow{Move: text, From: []string{}, To: []string{}}
	for cell, p := range before {
		if after[cell] == "" {
			a.From = append(a.From, cell)
		} else if after[cell] != p {
			a.To = append(a.To, cell)
		}
	}
	for cell := range after {
		if before[cell] == "" {
			a.To = append(a.To, cell)
		}
	}
	sortStrings(a.From)
	sortStrings(a.To)
	return a, nil
}
