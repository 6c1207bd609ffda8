package library

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
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
	// MS is the time the move took on its mover's clock, in milliseconds,
	// when the record kept it (a line's "ms").
	MS *int64 `json:"ms,omitempty"`
	// Clocks is every seat's time left after the move, in milliseconds,
	// when the header has a time control ("clock"): the base times
	// charged with each timed move as the live clock charged them
	// (engine/clock's Charge).
	Clocks map[string]int64 `json:"clocks,omitempty"`
}

// Game is one game of the library, stepped: a page of its steps, Steps[i]
// being step From+i of Total (the moves and the start).
type Game struct {
	Entry  Entry          `json:"entry"`
	Header *record.Header `json:"header"`
	Board  *boards.Board  `json:"-"`
	Seats  []string       `json:"seats"`
	Sides  []string       `json:"sides"`
	Die    []string       `json:"die"`
	From   int            `json:"from"`
	Total  int            `json:"total"`
	Steps  []Step         `json:"steps"`
}

// MaxPage is the most steps a page of a game holds: a step holds the
// whole position, so a game of a million moves is read a page at a time.
const MaxPage = 1000

// ErrPage: a page starts beyond the game's last step.
var ErrPage = errors.New("no such step")

// Game reads and steps one game: its first page (the whole game up to
// MaxPage steps).
func (l *Library) Game(id string) (*Game, error) {
	return l.GamePage(id, 0, MaxPage)
}

// GamePage reads one game and steps it from step from, count steps (at
// most MaxPage; fewer at the end of the game). The record is streamed to
// the page's end: its memory is the page's whatever the game's length.
func (l *Library) GamePage(id string, from, count int) (*Game, error) {
	if from < 0 || count < 1 {
		return nil, fmt.Errorf("library: steps from %d, %d of them: want from 0 or more and at least one: %w", from, count, ErrPage)
	}
	count = min(count, MaxPage)
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
	return stepGame(e, f, from, count)
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

func stepGame(e *Entry, r io.Reader, from, count int) (*Game, error) {
	var out *Game
	var info *engine.Info
	var clk *clock.Clock // the game's clocks, nil without a time control
	clocks := func() map[string]int64 {
		if clk == nil {
			return nil
		}
		m := make(map[string]int64, len(info.Seats))
		for i, seat := range info.Seats {
			m[seat] = clk.Left(i, 0).Milliseconds()
		}
		return m
	}
	k, roll := 0, ""
	last := from + count - 1 // the page's last step
	_, _, err := replay(r, e.ID, nil, func(st engine.State, a *record.Applied) error {
		if clk != nil && a.Timed {
			clk.Charge(a.Seat, time.Duration(a.MS)*time.Millisecond)
		}
		if a.Roll {
			roll = a.Text
			if k >= from && k <= last {
				out.Steps[len(out.Steps)-1].NextRoll = a.Text
			}
			return nil
		}
		k++
		if k > last {
			return errReached // the page is full, with the roll after its last step
		}
		if k >= from {
			s := stepOf(st)
			s.Move, s.Seat, s.Line, s.Roll = a.Text, info.Seats[a.Seat], a.Line, roll
			if a.Timed {
				ms := a.MS
				s.MS = &ms
			}
			s.Clocks = clocks()
			out.Steps = append(out.Steps, s)
		}
		roll = ""
		return nil
	}, 0, func(g *record.Game) error {
		// the header read: the game's frame, and step 0 if on the page
		name := g.Header.Board
		if name == "" {
			name = g.Header.Game
		}
		def, err := boards.Open(name)
		if err != nil {
			return fmt.Errorf("library: %s: board %s: %w", e.ID, name, err)
		}
		info = g.State.Info()
		out = &Game{Entry: *e, Header: g.Header, Board: def, Seats: info.Seats, Sides: info.Sides, From: from, Total: e.Plies + 1}
		if info.Die != nil {
			out.Die = info.Die.Faces
		}
		// a time control that does not fit the seats is shown as no clock
		// (the record is still a game to step through)
		if len(g.Header.Clock) > 0 && g.Header.Clock.Check(info.Seats) == nil {
			clk = g.Header.Clock.New(info.Seats)
		}
		if from == 0 {
			s := stepOf(g.State)
			s.Clocks = clocks()
			out.Steps = append(out.Steps, s)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errReached) {
		return nil, err
	}
	if from > k {
		return nil, fmt.Errorf("library: %s: step %d: the game has %d moves (steps 0 to %d): %w", e.ID, from, k, k, ErrPage)
	}
	if errors.Is(err, errReached) {
		out.Total = max(out.Total, last+2)
	} else {
		out.Total = k + 1
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
