package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// Event is one message of a game's record on the hub (subject
// tabla.rec.TABLE.GAME): event 0 names the game and holds its header, each
// later one holds one decision line of the table's journal, in journal
// order — a move, a roll, a takeback ({"takeback":PLIES,"ops":OPS}: the
// last OPS moves and rolls are undone), an end ({"end":"new"}: the game
// was abandoned for a new one) or who plays and where, changed during the
// game ({"who":{…}}: record.Who, replacing the header's). A move or roll that a takeback undid later
// is published as it was first written: the journal's {"undone":…} lines
// keep their place, so event numbers never change.
type Event struct {
	N       int             `json:"n"`
	Table   string          `json:"table,omitempty"`
	Game    string          `json:"game,omitempty"`
	Journal string          `json:"journal,omitempty"` // the journal's file name
	Header  json.RawMessage `json:"header,omitempty"`
	// Remote is set on the record of a table that plays seats of a game
	// hosted by another table (or the hub's browser players).
	Remote *Ref            `json:"remote,omitempty"`
	Line   json.RawMessage `json:"line,omitempty"`
}

// Ref names a game on the hub, and a seat of it.
type Ref struct {
	Table string `json:"table"`
	Game  string `json:"game"`
	Seat  string `json:"seat,omitempty"`
}

func (r Ref) String() string {
	s := r.Table + "/" + r.Game
	if r.Seat != "" {
		s += ":" + r.Seat
	}
	return s
}

// Line is a decision line of a record.
type Line struct {
	Kind     string // move, roll, takeback, end
	Move     string
	Roll     string
	By       string
	T        time.Time
	Takeback int // plies
	Ops      int // moves and rolls undone
	End      string
	Flag     string // end "time": the seat whose time ran out
	MS       *int64 // move, roll: the turn's time when it ended one on a clock
	Who      *record.Who
	Raw      json.RawMessage
}

type rawLine struct {
	Move     *string         `json:"move"`
	Roll     json.RawMessage `json:"roll"`
	By       string          `json:"by"`
	T        time.Time       `json:"t"`
	Takeback *int            `json:"takeback"`
	Ops      int             `json:"ops"`
	End      *string         `json:"end"`
	Flag     string          `json:"flag"`
	MS       *int64          `json:"ms"`
	Who      *record.Who     `json:"who"`
}

// ParseLine reads a decision line.
func ParseLine(raw []byte) (Line, error) {
	var r rawLine
	if err := json.Unmarshal(raw, &r); err != nil {
		return Line{}, fmt.Errorf("hub: line %.80s: %v", raw, err)
	}
	l := Line{By: r.By, T: r.T, MS: r.MS, Raw: json.RawMessage(bytes.Clone(raw))}
	switch {
	case r.Move != nil:
		l.Kind, l.Move = "move", *r.Move
	case len(r.Roll) > 0:
		l.Kind = "roll"
		if s, err := strconv.Unquote(string(r.Roll)); err == nil {
			l.Roll = s
		} else {
			l.Roll = string(r.Roll)
		}
	case r.Takeback != nil:
		l.Kind, l.Takeback, l.Ops = "takeback", *r.Takeback, r.Ops
	case r.End != nil:
		l.Kind, l.End, l.Flag = "end", *r.End, r.Flag
	case r.Who != nil:
		l.Kind, l.Who = "who", r.Who
	default:
		return Line{}, fmt.Errorf("hub: line %.80s is no move, roll, takeback, end or who", raw)
	}
	return l, nil
}

// Step is one applied move or roll.
type Step struct {
	Roll bool   `json:"roll,omitempty"`
	Text string `json:"text"`
	Seat string `json:"seat"`
	// MS is the turn's time on the clock when this step ended a turn.
	MS *int64 `json:"ms,omitempty"`
}

func (s Step) String() string {
	if s.Roll {
		return s.Seat + " rolls " + s.Text
	}
	return s.Seat + " " + s.Text
}

// Game is a game as its published events make it.
type Game struct {
	Table, ID string
	Journal   string
	HeaderRaw json.RawMessage
	Header    *record.Header
	Remote    *Ref
	// N is the number of the last event applied (0: the header only).
	N     int
	State engine.State
	// Lines are the moves and rolls in effect (takebacks applied), as
	// published; Steps the same as applied.
	Lines []json.RawMessage
	Steps []Step
	// Ended is "new" when the game was abandoned for a new one, "time"
	// when Flag's time ran out.
	Ended string
	Flag  string
	// Who is who plays which seat, and the event, round, site and date:
	// the header's, or the latest who line's.
	Who record.Who
	// Err is set when an event could not be applied; later ones are not.
	Err error
	// Last is the time of the latest line (its "t").
	Last time.Time
	// Seq is the stream sequence of its event 0 on the hub (0: not known).
	Seq uint64
}

// MaxSteps is the most decision events (moves, rolls, takebacks, ends,
// who lines) the hub's copy of a game holds, record.MaxApplied: it keeps
// them all (a takeback undoes them), and a game at the table is a few
// hundred. A table publishes a longer journal up to there and says where
// it stopped; the hub refuses an event beyond.
const MaxSteps = record.MaxApplied

// ErrTooMany: an event beyond MaxSteps.
var ErrTooMany = errors.New("hub: too many events")

// ErrOrder: an event came out of order (a gap or a repeat).
var ErrOrder = errors.New("hub: event out of order")

// NewGame starts a game from its event 0.
func NewGame(ev *Event) (*Game, error) {
	if ev.N != 0 || len(ev.Header) == 0 {
		return nil, fmt.Errorf("hub: %s/%s: the first event holds no header", ev.Table, ev.Game)
	}
	h, err := ParseHeader(ev.Header)
	if err != nil {
		return nil, err
	}
	st, err := record.NewState(h)
	if err != nil {
		return nil, fmt.Errorf("hub: %s/%s: header: %v", ev.Table, ev.Game, err)
	}
	return &Game{Table: ev.Table, ID: ev.Game, Journal: ev.Journal, HeaderRaw: bytes.Clone(ev.Header), Header: h,
		Remote: ev.Remote, State: st, Who: h.Who()}, nil
}

// ParseHeader reads a record header.
func ParseHeader(raw []byte) (*record.Header, error) {
	rd := record.NewReader(bytes.NewReader(append(bytes.Clone(raw), '\n')), "header")
	h, err := rd.Header()
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Apply applies event n's line. An event already applied is ignored (nil);
// a gap is ErrOrder.
func (g *Game) Apply(n int, raw json.RawMessage) error {
	if n <= g.N {
		return nil
	}
	if n != g.N+1 {
		return fmt.Errorf("%w: %s/%s: event %d after %d", ErrOrder, g.Table, g.ID, n, g.N)
	}
	g.N = n
	if g.Err != nil {
		return g.Err
	}
	if n > MaxSteps {
		g.Err = fmt.Errorf("hub: %s/%s event %d: %w: the hub's copy of a game holds at most %d (wire.MaxSteps)", g.Table, g.ID, n, ErrTooMany, MaxSteps)
		return g.Err
	}
	l, err := ParseLine(raw)
	if err == nil {
		err = g.apply(l)
	}
	if err != nil {
		g.Err = fmt.Errorf("hub: %s/%s event %d: %w", g.Table, g.ID, n, err)
		return g.Err
	}
	return nil
}

func (g *Game) apply(l Line) error {
	st := g.State
	info := st.Info()
	if !l.T.IsZero() {
		g.Last = l.T
	}
	switch l.Kind {
	case "end":
		g.Ended, g.Flag = l.End, l.Flag
		return nil
	case "who":
		hh := *g.Header
		hh.SetWho(*l.Who)
		if err := record.CheckWho(&hh, g.State.Info().Seats); err != nil {
			return fmt.Errorf("who: %v", err)
		}
		raw, err := json.Marshal(&hh)
		if err != nil {
			return err
		}
		g.Who, g.Header, g.HeaderRaw = *l.Who, &hh, raw
		return nil
	case "takeback":
		if l.Ops > len(g.Steps) {
			return fmt.Errorf("takeback of %d, %d applied", l.Ops, len(g.Steps))
		}
		for i := 0; i < l.Ops; i++ {
			st.Undo()
		}
		g.Steps = g.Steps[:len(g.Steps)-l.Ops]
		g.Lines = g.Lines[:len(g.Lines)-l.Ops]
		return nil
	case "roll":
		if st.Awaiting() != engine.AwaitRoll {
			return fmt.Errorf("roll %s: no roll is due", l.Roll)
		}
		face := -1
		for i, f := range info.Die.Faces {
			if f == l.Roll {
				face = i
			}
		}
		seat := info.Seats[st.ToMove()]
		if face < 0 {
			return fmt.Errorf("roll %s is not a face of the die", l.Roll)
		}
		if err := st.Roll(face); err != nil {
			return err
		}
		g.Steps = append(g.Steps, Step{Roll: true, Text: l.Roll, Seat: seat, MS: l.MS})
	case "move":
		if st.Awaiting() != engine.AwaitMove {
			return fmt.Errorf("move %s: no move is due", l.Move)
		}
		seat := info.Seats[st.ToMove()]
		m, err := st.ParseMove(l.Move)
		if err != nil {
			return err
		}
		text := engine.MoveString(st, m)
		st.Play(m)
		g.Steps = append(g.Steps, Step{Text: text, Seat: seat, MS: l.MS})
	}
	g.Lines = append(g.Lines, l.Raw)
	return nil
}

// Clocks are the game's clocks as its lines make them (nil: no time
// control): each seat's time left after the timed turns, none running.
func (g *Game) Clocks() *clock.Clock {
	if len(g.Header.Clock) == 0 {
		return nil
	}
	seats := g.State.Info().Seats
	c := g.Header.Clock.New(seats)
	for _, st := range g.Steps {
		if st.MS != nil {
			c.Charge(slices.Index(seats, st.Seat), time.Duration(*st.MS)*time.Millisecond)
		}
	}
	return c
}

// Result is how the game stands: playing, won or draw, and the winner.
func (g *Game) Result() (status, winner string) {
	r := g.State.Result()
	if r.Status == engine.Won {
		return "won", g.State.Info().Sides[r.Winner]
	}
	return r.Status.String(), ""
}

// Over reports whether the game has ended (won, drawn or abandoned).
func (g *Game) Over() bool {
	return g.Ended != "" || g.State.Result().Status != engine.Playing
}

// Moves are the moves in effect.
func (g *Game) Moves() []string {
	out := []string{}
	for _, s := range g.Steps {
		if !s.Roll {
			out = append(out, s.Text)
		}
	}
	return out
}

// Record is the game as a game record (RULES.md §6): the header and the
// moves and rolls in effect, lines as the table wrote them.
func (g *Game) Record() []byte {
	var b bytes.Buffer
	b.Write(g.HeaderRaw)
	b.WriteByte('\n')
	for _, l := range g.Lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
