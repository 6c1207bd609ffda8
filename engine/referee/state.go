package referee

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/tabla-board/tabla/engine"
)

// LED is one lit cell as State reports it.
type LED struct {
	R     uint8  `json:"r"`
	G     uint8  `json:"g"`
	B     uint8  `json:"b"`
	Blink uint8  `json:"blink,omitempty"` // 1 slow, 2 fast
	Role  string `json:"role"`
}

// State is the referee's state as plain data: for `expect` assertions, the
// status API and the simulator page.
type State struct {
	Game     string  `json:"game"`
	Variant  string  `json:"variant"`
	Board    string  `json:"board"`
	ToMove   *string `json:"to_move"`
	Awaiting string  `json:"awaiting"`
	Status   string  `json:"status"`
	Winner   *string `json:"winner"`
	Ply      int     `json:"ply"`
	Mode     string  `json:"mode"`
	InSync   bool    `json:"in_sync"`
	Conn     string  `json:"conn"`
	// Roll is the die face waiting to be moved on (or just rolled), RollBy
	// who rolled it.
	Roll   string `json:"roll,omitempty"`
	RollBy string `json:"roll_by,omitempty"`
	// Moves are the accepted moves in order; LastMove the latest.
	Moves    []string `json:"moves"`
	LastMove string   `json:"last_move,omitempty"`
	// LEDs are the lit cells (cell name → colour, blink and role).
	LEDs map[string]LED `json:"leds"`
	// Sensed is what the sensors read (a piece kind, or "?" for a
	// presence-only reading), Expected what the position holds.
	Sensed   map[string]string `json:"sensed"`
	Expected map[string]string `json:"expected"`
	// Pending cells differ between the two.
	Pending    []string          `json:"pending,omitempty"`
	Painted    map[string]string `json:"painted,omitempty"`
	Eliminated []string          `json:"eliminated,omitempty"`
	Hands      map[string]any    `json:"hands,omitempty"`
	// Candidates are the readings to choose from in confirm mode — a move,
	// "revise:MOVE" (the last move was another), "takeback:N", "new" (the
	// board shows the start position); Proposal indexes the one the confirm
	// button accepts.
	Candidates []string `json:"candidates,omitempty"`
	Proposal   int      `json:"proposal,omitempty"`
	// TakenBack is the number of the last move a takeback undid while the
	// board is not yet back in line after it (the page says so in words).
	TakenBack int    `json:"taken_back,omitempty"`
	Hint      string `json:"hint,omitempty"`
	Message   string `json:"message,omitempty"`
}

// State returns the current state. It allocates; call it when something
// changed (Version).
func (r *Referee) State() State {
	info := r.info
	pos := r.st.Position()
	s := State{Game: info.Game, Variant: info.Variant, Board: r.b.Name, Awaiting: r.st.Awaiting().String(),
		Ply: r.st.Plies(), Mode: r.mode.String(), InSync: r.inSync, Conn: r.conn.String(),
		Roll: r.lastRoll, RollBy: r.rollBy, Moves: []string{}, LEDs: map[string]LED{},
		Sensed: map[string]string{}, Expected: pos.Pieces, Painted: pos.Painted, Hands: pos.Hands,
		Hint: r.hintText, Message: r.message, TakenBack: r.takenBack}
	if !r.known && r.conn == Connected {
		s.Conn = "waiting"
	}
	if t := r.st.ToMove(); t >= 0 {
		s.ToMove = &info.Seats[t]
	}
	res := r.st.Result()
	s.Status = res.Status.String()
	if res.Status == engine.Won {
		s.Winner = &info.Sides[res.Winner]
	}
	if e, ok := r.st.(engine.Eliminator); ok {
		for _, seat := range e.Eliminated() {
			s.Eliminated = append(s.Eliminated, info.Seats[seat])
		}
	}
	for _, o := range r.ops {
		if !o.roll {
			s.Moves = append(s.Moves, o.text)
		}
	}
	if n := len(s.Moves); n > 0 {
		s.LastMove = s.Moves[n-1]
	}
	for _, l := range r.lit {
		s.LEDs[r.b.Cells[l.cell].Name] = LED{R: l.led.R, G: l.led.G, B: l.led.B, Blink: uint8(l.led.Blink), Role: l.role.String()}
	}
	for c, v := range r.sensed {
		if v == empty || !r.hasSensor[c] {
			continue
		}
		name := r.kindName(v)
		if name == "" {
			name = "?"
		}
		s.Sensed[r.b.Cells[c].Name] = name
	}
	if r.known {
		for _, c := range r.mismatch(nil, r.cur) {
			s.Pending = append(s.Pending, r.b.Cells[c].Name)
		}
	}
	for _, c := range r.confirm {
		switch c.kind {
		case candMove:
			s.Candidates = append(s.Candidates, c.text)
		case candRevise:
			if c.depth == 0 { // a move and the next player's after it
				s.Candidates = append(s.Candidates, c.text)
				break
			}
			s.Candidates = append(s.Candidates, "revise:"+c.text)
		case candTakeback:
			s.Candidates = append(s.Candidates, fmt.Sprintf("takeback:%d", c.plies))
		case candNew:
			s.Candidates = append(s.Candidates, "new")
		case candCurrent:
			s.Candidates = append(s.Candidates, c.text) // the last move, as it stands
		}
	}
	s.Proposal = r.proposal
	return s
}

// Lit returns the lit cells' names, sorted.
func (s *State) Lit() []string {
	out := make([]string, 0, len(s.LEDs))
	for c := range s.LEDs {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Check tests one `expect` key of a script against the state and says what
// differs. Keys: to_move (a seat or null), awaiting, status, winner (a side
// or null), mode, in_sync, ply, last_move, roll, moves (the whole list),
// lit (a list: exactly these cells are lit; or an object role → cells:
// exactly these cells have that role), conn, eliminated.
func (s *State) Check(key string, want json.RawMessage) error {
	str := func(got *string) error {
		var w *string
		if err := json.Unmarshal(want, &w); err != nil {
			return fmt.Errorf("expect %s: want a string or null, got %s", key, want)
		}
		switch {
		case w == nil && got == nil:
			return nil
		case w != nil && got != nil && *w == *got:
			return nil
		}
		return fmt.Errorf("%s: got %s, want %s", key, show(got), show(w))
	}
	strv := func(got string) error { return str(&got) }
	switch key {
	case "to_move":
		return str(s.ToMove)
	case "winner":
		return str(s.Winner)
	case "awaiting":
		return strv(s.Awaiting)
	case "status":
		return strv(s.Status)
	case "mode":
		return strv(s.Mode)
	case "conn":
		return strv(s.Conn)
	case "last_move":
		return strv(s.LastMove)
	case "roll":
		var n int
		if json.Unmarshal(want, &n) == nil {
			want = json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(n)))
		}
		return strv(s.Roll)
	case "in_sync":
		var w bool
		if err := json.Unmarshal(want, &w); err != nil {
			return fmt.Errorf("expect in_sync: want true or false, got %s", want)
		}
		if w != s.InSync {
			return fmt.Errorf("in_sync: got %v, want %v (pending %v)", s.InSync, w, s.Pending)
		}
	case "ply":
		var w int
		if err := json.Unmarshal(want, &w); err != nil {
			return fmt.Errorf("expect ply: want an integer, got %s", want)
		}
		if w != s.Ply {
			return fmt.Errorf("ply: got %d, want %d", s.Ply, w)
		}
	case "moves", "eliminated":
		var w []string
		if err := json.Unmarshal(want, &w); err != nil {
			return fmt.Errorf("expect %s: want a list of strings, got %s", key, want)
		}
		got := s.Moves
		if key == "eliminated" {
			got = s.Eliminated
		}
		if !slices.Equal(w, got) && !(len(w) == 0 && len(got) == 0) {
			return fmt.Errorf("%s: got %q, want %q", key, got, w)
		}
	case "lit":
		want = bytes.TrimSpace(want)
		if len(want) > 0 && want[0] == '{' {
			var w map[string][]string
			if err := json.Unmarshal(want, &w); err != nil {
				return fmt.Errorf("expect lit: want a list of cells or an object role → cells, got %s", want)
			}
			roles := make([]string, 0, len(w))
			for role := range w {
				roles = append(roles, role)
			}
			sort.Strings(roles)
			for _, role := range roles {
				var got []string
				for c, l := range s.LEDs {
					if l.Role == role {
						got = append(got, c)
					}
				}
				if err := sameCells("lit "+role, got, w[role]); err != nil {
					return err
				}
			}
			return nil
		}
		var w []string
		if err := json.Unmarshal(want, &w); err != nil {
			return fmt.Errorf("expect lit: want a list of cells or an object role → cells, got %s", want)
		}
		return sameCells("lit", s.Lit(), w)
	default:
		return fmt.Errorf("expect: unknown key %q (want to_move, awaiting, status, winner, mode, in_sync, ply, last_move, roll, moves, lit, conn, eliminated)", key)
	}
	return nil
}

func sameCells(what string, got, want []string) error {
	got, want = slices.Clone(got), slices.Clone(want)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		return fmt.Errorf("%s: got %q, want %q", what, got, want)
	}
	return nil
}

func show(s *string) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *s)
}

// Expect checks a whole `expect` object; keys are checked in sorted order.
func (s *State) Expect(obj map[string]json.RawMessage) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := s.Check(k, obj[k]); err != nil {
			return err
		}
	}
	return nil
}
