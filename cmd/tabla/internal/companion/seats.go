package companion

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
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

// Level returns a level function for SearchHint: the engine seats' own
// levels, the default level for the others (hint requests).
func (e EngineSeats) Level(seats []string) func(seat int) int {
	return func(seat int) int {
		if seat >= 0 && seat < len(seats) {
			return e[seats[seat]]
		}
		return 0
	}
}

// AutoPlay acts for the engine's seats until ctx ends: when such a seat is to
// roll, tabla rolls; when it is to move, the engine's move is asked for and
// lit as a hint (cyan) for the person at the table to carry out. The session's
// Hint must be set (SearchHint) for the engine to choose.
func AutoPlay(ctx context.Context, s *Session, ai EngineSeats, log *slog.Logger) {
	if len(ai) == 0 {
		return
	}
	changes := s.Subscribe(ctx)
	asked := -1 // the ply whose move was asked for
	for {
		st := s.State()
		if st.ToMove != nil && st.Status == "playing" && st.Mode == "play" && st.InSync {
			if _, ok := ai[*st.ToMove]; ok {
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
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
		}
	}
}
