package library

import (
	"slices"
	"strings"
)

// GameStats are the figures of `tabla stats` for one game.
type GameStats struct {
	Game       string         `json:"game"`
	Sides      []string       `json:"sides"`
	Games      int            `json:"games"`
	Wins       map[string]int `json:"wins"` // by side
	Draws      int            `json:"draws"`
	Unfinished int            `json:"unfinished"`
	// FirstSeatWins counts finished games won by the side that moved first.
	FirstSeatWins int   `json:"first_seat_wins"`
	Lengths       []int `json:"lengths"` // plies per game, sorted
	// IDs are the games of Lengths, in its order: a chart's bar opens them.
	IDs          []string    `json:"ids"`
	MeanLength   float64     `json:"mean_length"`
	MedianLength int         `json:"median_length"`
	MinLength    int         `json:"min_length"`
	MaxLength    int         `json:"max_length"`
	FirstMoves   []FirstMove `json:"first_moves"` // the ten most played
}

// FirstMove is how games that began with one move ended.
type FirstMove struct {
	Move  string `json:"move"`
	Games int    `json:"games"`
	Wins  int    `json:"wins"` // won by the side that played it
	// Example is one game that began with it (the first listed: with
	// Games' order, the newest).
	Example string `json:"example"`
}

// Stats aggregates the library.
type Stats struct {
	Files      int          `json:"files"`
	Unreadable int          `json:"unreadable"`
	Games      []*GameStats `json:"by_game"`
}

// StatsOf aggregates index entries as `tabla stats` does its records.
func StatsOf(entries []Entry) *Stats {
	st := &Stats{}
	byGame := map[string]*GameStats{}
	firsts := map[string]map[string]*FirstMove{}
	for _, e := range entries {
		st.Files++
		if e.Error != nil {
			st.Unreadable++
			continue
		}
		gs := byGame[e.Game]
		if gs == nil {
			gs = &GameStats{Game: e.Game, Sides: e.Sides, Wins: map[string]int{}}
			byGame[e.Game] = gs
			firsts[e.Game] = map[string]*FirstMove{}
			st.Games = append(st.Games, gs)
		}
		gs.Games++
		gs.Lengths = append(gs.Lengths, e.Plies)
		gs.IDs = append(gs.IDs, e.ID)
		won := e.Status == "won"
		switch e.Status {
		case "won":
			gs.Wins[e.Winner]++
			if e.FirstMove != "" && e.FirstSide == e.Winner {
				gs.FirstSeatWins++
			}
		case "draw":
			gs.Draws++
		default:
			gs.Unfinished++
		}
		if e.FirstMove != "" {
			fm := firsts[e.Game][e.FirstMove]
			if fm == nil {
				fm = &FirstMove{Move: e.FirstMove, Example: e.ID}
				firsts[e.Game][e.FirstMove] = fm
			}
			fm.Games++
			if won && e.FirstSide == e.Winner {
				fm.Wins++
			}
		}
	}
	slices.SortFunc(st.Games, func(a, b *GameStats) int { return strings.Compare(a.Game, b.Game) })
	for _, gs := range st.Games {
		order := make([]int, len(gs.Lengths))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return gs.Lengths[a] - gs.Lengths[b] })
		lengths, ids := make([]int, len(order)), make([]string, len(order))
		for i, j := range order {
			lengths[i], ids[i] = gs.Lengths[j], gs.IDs[j]
		}
		gs.Lengths, gs.IDs = lengths, ids
		l := gs.Lengths
		sum := 0
		for _, v := range l {
			sum += v
		}
		gs.MeanLength = float64(sum) / float64(len(l))
		gs.MedianLength, gs.MinLength, gs.MaxLength = l[len(l)/2], l[0], l[len(l)-1]
		gs.FirstMoves = []FirstMove{}
		for _, fm := range firsts[gs.Game] {
			gs.FirstMoves = append(gs.FirstMoves, *fm)
		}
		slices.SortFunc(gs.FirstMoves, func(a, b FirstMove) int {
			if a.Games != b.Games {
				return b.Games - a.Games
			}
			return strings.Compare(a.Move, b.Move)
		})
		if len(gs.FirstMoves) > 10 {
			gs.FirstMoves = gs.FirstMoves[:10]
		}
	}
	if st.Games == nil {
		st.Games = []*GameStats{}
	}
	return st
}

// Stats aggregates the whole library.
func (l *Library) Stats() (*Stats, error) {
	entries, err := l.Games()
	if err != nil {
		return nil, err
	}
	return StatsOf(entries), nil
}

func sortStrings(s []string) { slices.Sort(s) }
