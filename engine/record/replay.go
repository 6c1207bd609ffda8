package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
)

// Applied is a move or roll that Replay applied.
type Applied struct {
	Line int
	Roll bool        // a roll, else a move
	Move engine.Move // for moves
	Face int         // for rolls
	Text string      // canonical text: the move, or the die face
	Seat int         // who rolled or moved
	// MS is the turn's time in milliseconds the line kept ("ms"), when
	// Timed: the line ended its mover's turn on a clock.
	MS    int64
	Timed bool
}

// Game is a replayed record.
type Game struct {
	Header *Header
	State  engine.State
	// Applied is every move and roll applied, in order, when the game
	// keeps them (Each is nil): at most Max of them.
	Applied []Applied
	// Other counts the events of other kinds (sensor changes, ticks,
	// corrections…). They are not kept: a journal is mostly such lines, and
	// a game's memory is bounded by its moves. ReplayFunc shows them.
	Other int
	Lines int
	// Count is the number of moves and rolls applied.
	Count int
	// Each, when set, streams the game: Apply calls it with every move and
	// roll once applied (State is then the position after it; a is valid
	// only during the call), and keeps neither them (Applied stays empty)
	// nor the engine's undo history, so that the game's memory does not
	// grow with its moves. An error from Each is returned by Apply as it is.
	Each func(a *Applied) error
	// Max bounds the moves and rolls a game that keeps them reads: 0 is
	// MaxApplied. MaxWhat names the reader in the error ("analyze").
	Max     int
	MaxWhat string
	clock   *clock.Clock // the clocks as the timed turns left them
}

// MaxApplied is the most moves and rolls a reader that keeps them all
// (Replay) reads: a game at the table is a few hundred. A longer record
// is refused with ErrTooMany naming the line of the first move beyond.
// Stream, which keeps none, reads any number (`tabla rules check`,
// `hint`, the library's index and board).
const MaxApplied = 100_000

// ErrTooMany: a record has more moves and rolls than its reader keeps
// (Game.Max).
var ErrTooMany = errors.New("too many moves")

// Replay reads a whole record and applies it. On error it returns the game as
// far as it got (nil if the header failed) together with an *Error.
func Replay(r io.Reader, file string) (*Game, error) {
	return ReplayFunc(r, file, nil)
}

// ReplayFunc is Replay that calls other, if not nil, with every event of
// another kind as it is read (its Raw is valid only during the call). An
// error from other stops the replay and is returned as it is.
func ReplayFunc(r io.Reader, file string, other func(*Event) error) (*Game, error) {
	return ReplayReader(NewReader(r, file), other)
}

// ReplayReader is ReplayFunc on a reader set up by the caller (SkipDamaged).
func ReplayReader(rd *Reader, other func(*Event) error) (*Game, error) {
	return replay(rd, other, nil)
}

// ReplayLimit is ReplayReader that keeps at most max moves and rolls
// (Game.Max; 0: MaxApplied): a record with more is refused with an *Error
// of kind ErrTooMany naming the line of the first one beyond, where what
// ("analyze reads") is said to stop.
func ReplayLimit(rd *Reader, other func(*Event) error, max int, what string) (*Game, error) {
	return replayWith(rd, other, func(g *Game) { g.Max, g.MaxWhat = max, what })
}

// Stream reads a record as ReplayReader does, but streams it (Game.Each):
// each, if not nil, is called with every move and roll once applied, and
// neither they nor the engine's undo history are kept. Its memory is that
// of one position whatever the number of moves.
func Stream(rd *Reader, other func(*Event) error, each func(*Applied) error) (*Game, error) {
	if each == nil {
		each = func(*Applied) error { return nil }
	}
	return replay(rd, other, each)
}

func replay(rd *Reader, other func(*Event) error, each func(*Applied) error) (*Game, error) {
	return replayWith(rd, other, func(g *Game) { g.Each = each })
}

func replayWith(rd *Reader, other func(*Event) error, set func(*Game)) (*Game, error) {
	file := rd.file
	h, err := rd.Header()
	if err != nil {
		return nil, err
	}
	st, err := NewState(h)
	if err != nil {
		return nil, &Error{File: file, Line: 1, Kind: ErrHeader, Msg: "header: " + err.Error(), Err: err}
	}
	g := &Game{Header: h, State: st}
	set(g)
	for rd.Next() {
		ev := rd.Event()
		if err := g.Apply(ev); err != nil {
			return g, g.LineError(rd, err)
		}
		if other != nil && ev.Kind != "move" && ev.Kind != "roll" {
			if err := other(ev); err != nil {
				return g, err
			}
		}
	}
	g.Lines = rd.Line()
	return g, rd.Err()
}

// LineError is the error of Apply on the event rd read last: an *Error
// naming its line (of kind ErrTooMany or ErrEvent), or Each's error as it
// is.
func (g *Game) LineError(rd *Reader, err error) error {
	var ee *eachError
	if errors.As(err, &ee) {
		return ee.err
	}
	kind := ErrEvent
	if errors.Is(err, ErrTooMany) {
		kind = ErrTooMany
	}
	return &Error{File: rd.file, Line: rd.Event().Line, Offset: rd.Offset(), Kind: kind, Msg: err.Error(), Err: err}
}

// eachError carries Each's error through Apply.
type eachError struct{ err error }

func (e *eachError) Error() string { return e.err.Error() }
func (e *eachError) Unwrap() error { return e.err }

// Apply applies one event to the game (other kinds are only counted).
func (g *Game) Apply(ev *Event) error {
	st := g.State
	info := st.Info()
	if ev.Kind != "move" && ev.Kind != "roll" {
		g.Other++
		return nil
	}
	if st.Awaiting() == engine.AwaitNone {
		return fmt.Errorf("%s after the game is over (%s)", ev.Kind, describeResult(st))
	}
	if g.Each == nil {
		max, what := g.Max, g.MaxWhat
		if max <= 0 {
			max = MaxApplied
		}
		if what == "" {
			what = "a reader that keeps every move holds (record.MaxApplied; `tabla rules check`, `hint` and the library's board read games of any length)"
		}
		if len(g.Applied) >= max {
			return fmt.Errorf("%w: this %s is move or roll %d, beyond the %d %s", ErrTooMany, ev.Kind, g.Count+1, max, what)
		}
	}
	seat := st.ToMove()
	if ev.By != "" && ev.By != info.Seats[seat] {
		if info.SeatIndex(ev.By) < 0 {
			return fmt.Errorf("by %q: not a player of %s (want %s)", ev.By, info.Game, strings.Join(info.Seats, ", "))
		}
		return fmt.Errorf("%s by %s, but it is %s's turn", ev.Kind, ev.By, info.Seats[seat])
	}
	var a Applied
	if ev.Kind == "roll" {
		if st.Awaiting() != engine.AwaitRoll {
			return fmt.Errorf("roll %s: %s must move, not roll", ev.Roll, info.Seats[seat])
		}
		face := -1
		for i, f := range info.Die.Faces {
			if f == ev.Roll {
				face = i
			}
		}
		if face < 0 {
			return fmt.Errorf("roll %s: want one of %s", ev.Roll, strings.Join(info.Die.Faces, ", "))
		}
		if err := st.Roll(face); err != nil {
			return fmt.Errorf("roll %s: %w", ev.Roll, err)
		}
		a = Applied{Line: ev.Line, Roll: true, Face: face, Text: ev.Roll, Seat: seat, MS: ev.MS, Timed: ev.Timed}
	} else {
		if st.Awaiting() == engine.AwaitRoll {
			return fmt.Errorf("move %q: %s must roll first", ev.Move, info.Seats[seat])
		}
		m, err := st.ParseMove(ev.Move)
		if err != nil {
			return fmt.Errorf("move %q: %w", ev.Move, err)
		}
		text := engine.MoveString(st, m) // notation belongs to the position before the move
		st.Play(m)
		a = Applied{Line: ev.Line, Move: m, Text: text, Seat: seat, MS: ev.MS, Timed: ev.Timed}
	}
	g.Count++
	if a.Timed && len(g.Header.Clock) > 0 {
		if g.clock == nil {
			g.clock = g.Header.Clock.New(info.Seats)
		}
		g.clock.Charge(a.Seat, time.Duration(a.MS)*time.Millisecond)
	}
	if g.Each == nil {
		g.Applied = append(g.Applied, a)
		return nil
	}
	if f, ok := st.(engine.Forgetter); ok {
		f.Forget()
	}
	if err := g.Each(&a); err != nil {
		return &eachError{err}
	}
	return nil
}

func describeResult(st engine.State) string {
	r := st.Result()
	if r.Status == engine.Won {
		return st.Info().Sides[r.Winner] + " won"
	}
	return r.Status.String()
}

// Status is the summary `tabla rules check` prints, in its key order.
type Status struct {
	Game       string   `json:"game"`
	Ply        int      `json:"ply"`
	ToMove     *string  `json:"to_move"`
	Awaiting   string   `json:"awaiting"`
	Status     string   `json:"status"`
	Winner     *string  `json:"winner"`
	Eliminated []string `json:"eliminated"`
	// Who and where, from the header (each omitted when unset, so a record
	// without them reads as it always did).
	Who
	// Clock is the header's time control and ClockLeft each seat's time
	// left after the record's timed turns (its lines' "ms"), in ms.
	Clock     clock.Controls   `json:"clock,omitempty"`
	ClockLeft map[string]int64 `json:"clock_left_ms,omitempty"`
	// End is how a journal says the game ended outside the rules ("time":
	// Flag's time ran out), from its {"end":…} line.
	End  string `json:"end,omitempty"`
	Flag string `json:"flag,omitempty"`
}

// Clock is the game's clocks as its header's time control and the turn
// times its lines kept ("ms") leave them; nil when the header has no
// clock. No clock runs in the result: the caller starts the seat to
// move's. It is the game's own: a later Apply charges it.
func (g *Game) Clock() *clock.Clock {
	if len(g.Header.Clock) == 0 {
		return nil
	}
	if g.clock == nil {
		g.clock = g.Header.Clock.New(g.State.Info().Seats)
	}
	return g.clock
}

// Summary describes a game state for `tabla rules check`.
func Summary(st engine.State) Status {
	info := st.Info()
	s := Status{Game: info.Game, Ply: st.Plies(), Awaiting: st.Awaiting().String(), Eliminated: []string{}}
	if t := st.ToMove(); t >= 0 {
		s.ToMove = &info.Seats[t]
	}
	r := st.Result()
	s.Status = r.Status.String()
	if r.Status == engine.Won {
		s.Winner = &info.Sides[r.Winner]
	}
	if e, ok := st.(engine.Eliminator); ok {
		for _, seat := range e.Eliminated() {
			s.Eliminated = append(s.Eliminated, info.Seats[seat])
		}
	}
	return s
}

// Repair makes a record file whose last write was cut short readable again:
// a torn last line (no newline, not valid JSON) is cut off, a whole last line
// missing only its newline gets one. It returns the torn bytes it removed.
// It reads only the file's last line (at most MaxLine bytes).
func Repair(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	n := min(size, MaxLine)
	data := make([]byte, n)
	if _, err := f.ReadAt(data, size-n); err != nil && err != io.EOF {
		return nil, err
	}
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return nil, nil
	}
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 && n < size {
		return nil, fmt.Errorf("record: %s: the last line is longer than %d bytes", path, MaxLine)
	}
	tail := data[i+1:]
	start := size - int64(len(tail))
	if json.Valid(tail) {
		_, err := f.WriteAt([]byte{'\n'}, size)
		if err == nil {
			err = f.Sync()
		}
		return nil, err
	}
	if err := f.Truncate(start); err != nil {
		return nil, err
	}
	return bytes.Clone(tail), f.Sync()
}

// IsTorn reports whether err is a torn last line.
func IsTorn(err error) bool { return errors.Is(err, ErrTorn) }
