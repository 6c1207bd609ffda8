package hub

import (
	"encoding/json"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// TableView is what the hub's pages show of a table: GET
// /api/tables/{table} and its event stream.
type TableView struct {
	Table  string    `json:"table"`
	Online bool      `json:"online"`          // its live status arrives
	Seen   time.Time `json:"seen,omitzero"`   // the latest live status
	Game   *GameView `json:"game"`            // the current game, as its record stands on the hub
	Live   *LiveView `json:"live,omitempty"`  // the table's own view (board in sync, LEDs)
	Eval   *Eval     `json:"eval,omitempty"`  // the evaluation bar of the position
	Seats  []SeatRef `json:"seats,omitempty"` // seats played elsewhere
}

// SeatRef is a seat of the table's game played at another table or in a
// browser.
type SeatRef struct {
	Seat string `json:"seat"`
	By   Ref    `json:"by"`
}

// LiveView is the part of a table's live status the hub's page shows.
type LiveView struct {
	Mode    string          `json:"mode"`
	InSync  bool            `json:"in_sync"`
	Conn    string          `json:"conn"`
	Message string          `json:"message,omitempty"`
	Hint    string          `json:"hint,omitempty"`
	LEDs    json.RawMessage `json:"leds,omitempty"`
	Pieces  json.RawMessage `json:"pieces,omitempty"` // as the sensors see them
	// MessageText is the table's own messages in the page's words (a
	// pairing request); Expected the pieces the game has, by cell (what
	// the board needs, in words).
	MessageText []i18n.Text     `json:"message_text,omitempty"`
	Expected    json.RawMessage `json:"expected,omitempty"`
}

// GameView is a game as its record stands on the hub.
type GameView struct {
	ID       string            `json:"id"`
	Game     string            `json:"game"`
	Variant  string            `json:"variant"`
	Board    string            `json:"board"`
	Seats    []string          `json:"seats"`
	Sides    []string          `json:"sides"`
	Die      []string          `json:"die,omitempty"`
	Events   int               `json:"events"`
	Plies    int               `json:"plies"`
	Steps    []Step            `json:"steps"`
	Moves    []string          `json:"moves"`
	LastMove string            `json:"last_move,omitempty"`
	Roll     string            `json:"roll,omitempty"` // the roll waiting to be moved on
	ToMove   *string           `json:"to_move"`
	Awaiting string            `json:"awaiting"`
	Status   string            `json:"status"`
	Winner   string            `json:"winner,omitempty"`
	Ended    string            `json:"ended,omitempty"`
	Pieces   map[string]string `json:"pieces"`
	Painted  map[string]string `json:"painted,omitempty"`
	Hands    map[string]any    `json:"hands,omitempty"`
	Remote   *Ref              `json:"remote,omitempty"`
	Last     time.Time         `json:"last,omitzero"` // the latest line's time
	Error    string            `json:"error,omitempty"`
	// Who is who plays which seat, and the event, round, site and date.
	Who record.Who `json:"who"`
	// Flag is the seat whose time ran out (Ended "time").
	Flag string `json:"flag,omitempty"`
	// Clock is the clocks as the game's lines make them (the running seat
	// counts down from Last on the page; the table's clock decides).
	Clock *ClockView `json:"clock,omitempty"`
}

// ClockView is a game's clocks on the hub, in the live page's form
// (companion.ClockStatus): TurnMs is 0, the page counts from the game's
// Last line.
type ClockView struct {
	Control string           `json:"control"`
	LeftMs  map[string]int64 `json:"left_ms"`
	Running string           `json:"running,omitempty"`
	TurnMs  int64            `json:"turn_ms"`
	DelayMs map[string]int64 `json:"delay_ms,omitempty"`
	LowMs   map[string]int64 `json:"low_ms"`
	Flag    string           `json:"flag,omitempty"`
}

func clockView(g *Game) *ClockView {
	c := g.Clocks()
	if c == nil {
		return nil
	}
	info := g.State.Info()
	v := &ClockView{Control: g.Header.Clock.String(), LeftMs: map[string]int64{}, LowMs: map[string]int64{}}
	for i, seat := range info.Seats {
		ctl := c.Control(i)
		v.LeftMs[seat] = c.Left(i, 0).Milliseconds()
		v.LowMs[seat] = ctl.Low().Milliseconds()
		if ctl.Delay > 0 {
			if v.DelayMs == nil {
				v.DelayMs = map[string]int64{}
			}
			v.DelayMs[seat] = ctl.Delay.Milliseconds()
		}
	}
	if g.Ended == "time" {
		v.Flag = g.Flag
		v.LeftMs[g.Flag] = 0
	} else if t := g.State.ToMove(); t >= 0 && g.Ended == "" && len(g.Steps) > 0 {
		v.Running = info.Seats[t]
	}
	return v
}

func gameView(g *Game) *GameView {
	st := g.State
	info := st.Info()
	pos := st.Position()
	board := g.Header.Board
	if board == "" {
		board = info.Game
	}
	v := &GameView{ID: g.ID, Game: info.Game, Variant: info.Variant, Board: board, Seats: info.Seats, Sides: info.Sides,
		Events: g.N, Plies: st.Plies(), Steps: slices.Clone(g.Steps), Moves: g.Moves(), Awaiting: st.Awaiting().String(),
		Ended: g.Ended, Pieces: pos.Pieces, Painted: pos.Painted, Hands: pos.Hands, Remote: g.Remote, Last: g.Last, Who: g.Who,
		Flag: g.Flag, Clock: clockView(g)}
	if info.Die != nil {
		v.Die = info.Die.Faces
	}
	if v.Steps == nil {
		v.Steps = []Step{}
	}
	if n := len(v.Moves); n > 0 {
		v.LastMove = v.Moves[n-1]
	}
	if n := len(g.Steps); n > 0 && g.Steps[n-1].Roll && st.Awaiting() == engine.AwaitMove {
		v.Roll = g.Steps[n-1].Text
	}
	if t := st.ToMove(); t >= 0 {
		v.ToMove = &info.Seats[t]
	}
	v.Status, v.Winner = g.Result()
	if g.Err != nil {
		v.Error = g.Err.Error()
	}
	return v
}

// liveView is the page's part of a live status.
func liveView(l *link.Live) *LiveView {
	if l == nil {
		return nil
	}
	type stateDoc struct {
		Mode     string          `json:"mode"`
		InSync   bool            `json:"in_sync"`
		Conn     string          `json:"conn"`
		Message  string          `json:"message"`
		Hint     string          `json:"hint"`
		LEDs     json.RawMessage `json:"leds"`
		Expected json.RawMessage `json:"expected"`
	}
	var sd stateDoc
	raw, _ := json.Marshal(l.Status.State)
	json.Unmarshal(raw, &sd)
	pieces, _ := json.Marshal(l.Status.Pieces)
	return &LiveView{Mode: sd.Mode, InSync: sd.InSync, Conn: sd.Conn, Message: sd.Message, Hint: sd.Hint, LEDs: sd.LEDs,
		Pieces: pieces, MessageText: l.Status.MessageText, Expected: sd.Expected}
}

// tableViewLocked builds (or returns the cached) JSON view of a table.
func (h *Hub) tableViewLocked(name string) []byte {
	ts := h.tables[name]
	if ts == nil {
		return nil
	}
	if ts.view != nil && ts.viewAt == ts.version {
		return ts.view
	}
	v := TableView{Table: name, Online: ts.online, Seen: ts.seen, Eval: ts.eval}
	if g := h.games[name+"/"+ts.game]; g != nil {
		v.Game = gameView(g)
		if ts.eval != nil && ts.eval.Events != g.N {
			v.Eval = ts.eval // the previous position's, until the new one is done
		}
		prefix := name + "." + g.ID + "."
		for k, r := range h.seats {
			if seat, ok := strings.CutPrefix(k, prefix); ok {
				v.Seats = append(v.Seats, SeatRef{Seat: seat, By: r})
			}
		}
		slices.SortFunc(v.Seats, func(a, b SeatRef) int { return strings.Compare(a.Seat, b.Seat) })
	}
	if ts.live != nil && ts.online {
		v.Live = liveView(ts.live)
	}
	data, _ := json.Marshal(v)
	ts.view, ts.viewAt = data, ts.version
	return data
}

// TableSummary is a table in the list of GET /api/tables.
type TableSummary struct {
	Table    string            `json:"table"`
	Online   bool              `json:"online"`
	ID       string            `json:"id,omitempty"`
	Game     string            `json:"game,omitempty"`
	Board    string            `json:"board,omitempty"`
	Plies    int               `json:"plies"`
	ToMove   *string           `json:"to_move"`
	Status   string            `json:"status,omitempty"`
	Winner   string            `json:"winner,omitempty"`
	LastMove string            `json:"last_move,omitempty"`
	Pieces   map[string]string `json:"pieces,omitempty"`
	Remote   *Ref              `json:"remote,omitempty"`
	Who      record.Who        `json:"who"`
	Ended    string            `json:"ended,omitempty"`
	Flag     string            `json:"flag,omitempty"`
}

// Summaries lists every table with its current game.
func (h *Hub) Summaries() []TableSummary {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []TableSummary{}
	for name, ts := range h.tables {
		s := TableSummary{Table: name, Online: ts.online}
		if g := h.games[name+"/"+ts.game]; g != nil {
			v := gameView(g)
			s.ID, s.Game, s.Board, s.Plies, s.ToMove, s.Status, s.Winner, s.LastMove, s.Pieces, s.Remote =
				v.ID, v.Game, v.Board, v.Plies, v.ToMove, v.Status, v.Winner, v.LastMove, v.Pieces, v.Remote
			s.Who, s.Ended, s.Flag = v.Who, v.Ended, v.Flag
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b TableSummary) int { return strings.Compare(a.Table, b.Table) })
	return out
}

// TableJSON is GET /api/tables/{table} (nil: no such table).
func (h *Hub) TableJSON(name string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tableViewLocked(name)
}
