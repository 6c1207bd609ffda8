package companion

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tabla-board/tabla/cmd/tabla/internal/watchers"
)

// EngineSeats are the seats the engine plays, with their level (1–5; 0 the
// default level).
type EngineSeats map[string]int

// ParseEngineSeats reads --ai values, SEAT or SEAT=LEVEL, checking the seats
// against the game's.
func ParseEngineSeats(vals []string, seats []string) (EngineSeats, error) {
	ai := EngineSeats{}
	for _, v := range vals {
		seat, lv, has := strings.Cut(v, "=")
		if !slices.Contains(seats, seat) {
			return nil, fmt.Errorf("--ai %s: %q is not a seat (want %s)", v, seat, strings.Join(seats, ", "))
		}
		level := 0
		if has {
			n, err := strconv.Atoi(lv)
			if err != nil || n < 1 || n > 5 {
				return nil, fmt.Errorf("--ai %s: the level is 1–5", v)
			}
			level = n
		}
		ai[seat] = level
	}
	return ai, nil
}

var errNoEngines = errors.New("companion: this session has no engine seats")

// Engines are the seats the engine plays while a session runs: set from
// --ai at start, changed by a paired phone ("AI plays this seat"). Safe for
// concurrent use.
type Engines struct {
	seats []string
	mu    sync.Mutex
	m     EngineSeats
	watch watchers.Set
}

// NewEngines returns the engine seats of a game with seats, starting with
// ai (nil: none).
func NewEngines(ai EngineSeats, seats []string) *Engines {
	e := &Engines{seats: slices.Clone(seats), m: EngineSeats{}}
	for k, v := range ai {
		e.m[k] = v
	}
	return e
}

// Set makes the engine play seat at level (1–5; 0 the default level), or
// stops it when on is false.
func (e *Engines) Set(seat string, on bool, level int) error {
	if !slices.Contains(e.seats, seat) {
		return fmt.Errorf("companion: %q is not a seat (want %s)", seat, strings.Join(e.seats, ", "))
	}
	if level < 0 || level > 5 {
		return fmt.Errorf("companion: engine level %d: want 1–5 (0: the default)", level)
	}
	e.mu.Lock()
	if on {
		e.m[seat] = level
	} else {
		delete(e.m, seat)
	}
	e.mu.Unlock()
	e.watch.Wake()
	return nil
}

// Plays reports whether the engine plays seat.
func (e *Engines) Plays(seat string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.m[seat]
	return ok
}

// Seats lists the engine's seats in turn order.
func (e *Engines) Seats() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []string{}
	for _, s := range e.seats {
		if _, ok := e.m[s]; ok {
			out = append(out, s)
		}
	}
	return out
}

// Level is the level of the seat with index seat for SearchHint: the
// engine seat's own, the default level (0) for the others (hint requests).
func (e *Engines) Level(seat int) int {
	if seat < 0 || seat >= len(e.seats) {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.m[e.seats[seat]]
}

// changes returns a channel poked on every Set until ctx ends.
func (e *Engines) changes(ctx context.Context) <-chan struct{} {
	return e.watch.Watch(ctx)
}

// AutoPlay acts for the engine's seats until ctx ends: when such a seat is to
// roll, tabla rolls; when it is to move, the engine's move is asked for and
// lit as a hint (cyan) for the person at the table to carry out. The session's
// Hint must be set (SearchHint) for the engine to choose. Seats may be added
// and removed while it runs (Engines.Set).
func AutoPlay(ctx context.Context, s *Session, ai *Engines, log *slog.Logger) {
	if ai == nil {
		return
	}
	changes := s.Subscribe(ctx)
	seats := ai.changes(ctx)
	asked := -1 // the ply whose move was asked for
	for {
		st := s.State()
		if st.ToMove != nil && st.Status == "playing" && st.Mode == "play" && st.InSync && ai.Plays(*st.ToMove) {
			switch {
			case st.Awaiting == "roll":
				if err := s.Command("roll", ""); err != nil {
					log.Warn("engine roll", "err", err)
				}
			case st.Awaiting == "move" && st.Hint == "" && asked != st.Ply:
				asked = st.Ply
				if err := s.Command("hint", ""); err != nil {
					log.Warn("engine move", "err", err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
		case <-seats:
		}
	}
}
