// Package club runs a club evening's games on paper: who plays whom and
// where (pairings: round robin, Swiss, tables of four), what each game
// scored, the standings with their tie-breaks and the players' Glicko-2
// ratings after the evening. It is pure: the club hub (package hub)
// keeps an Event in JetStream, sends each pairing to its table, and
// records each result as the table's journal ends the game.
//
// # Pairings
//
// Round robin: FIDE's Berger tables (C.05 Annex 1, Berger), players
// numbered by registration; with an odd count, meeting the missing
// number is the bye.
//
// Swiss: FIDE's Dutch system (C.04.3, PairDutch) with the first seat as
// white: pairing numbers by the rating a player came with; no rematch,
// no second pairing-allocated bye, no seat imbalance beyond ±2 and no
// seat three times running (except the last round's topscorers); then
// the fewest floaters and score differences, then seat preferences; the
// seats of each board by the Dutch colour rules. The Dutch engine is
// github.com/gnutterts/chesspairing; its pairing is checked against the
// absolute rules and, if it breaks one, replaced by a maximum-weight
// matching with the criteria in order. No pairing without a rematch:
// ErrNoPairing. The oracle test (TestDutchOracle) holds it to
// bbpPairings on ../shared/pairings. PairTRF pairs a tournament read
// from FIDE's TRF (package club/trf) by either system.
//
// Tables of four: by rank, the seats rotated so that each player sits
// each seat as evenly as the evening allows.
//
// # Points
//
// Two-player games: a win 1, a draw ½, a loss 0 (a game lost on time is a
// loss). Games of four (DAHA, RAY): by place, 3, 2, 1 and 0 points; players
// who share places share their points (RAY knows only its winner: the
// other three share 2+1+0, 1 each; DAHA places the others by elimination,
// the last one out second). A game lost on time puts the player whose
// flag fell last; the others share the first three places' points (2
// each). A bye scores 1 in a two-player game, 1½ (a table's average) in a
// game of four.
//
// # Tie-breaks
//
// Swiss: points, then Buchholz (the sum of the opponents' points), then
// Sonneborn-Berger (the opponents' points weighted by the score against
// each; a forfeit counts for neither). Round robin: points, then Sonneborn-Berger, then wins. Tables
// of four: points, then first places, then the sum of the table mates'
// points over the evening. The name decides last, so the order is total.
//
// # The arbiter's tools (arbiter.go)
//
// Enter registers a player, or after round 1 enters one late: they play
// from the next round and score nothing for the rounds missed (a round
// robin takes no late entries). Withdraw takes a player out for good or
// pauses them (Enter again brings them back); RequestBye gives a
// half-point bye (¾ at a table of four) in a round to come, which does
// not bar the pairing-allocated bye. Forfeit scores a game not played:
// the absent lose, the others win; it is scored but not rated, not a
// meeting (the two may be paired again) and no game for the tie-breaks.
// PairByHand sets a round (every player once; rematches are warned of);
// a Swiss round that cannot be paired leaves Section.Stuck set for the
// arbiter to pair by hand, PairAllowingRematch (the earliest rounds'
// games count as not met, one round more at a time), or End.
// ParseResult reads "1-0", "½-½", "0-1" and a table of four's places.
//
// # Exports (export.go)
//
// Crosstable and WriteCrosstableCSV: the players by rank, each round's
// cell (opponent's line, w or b for the first or second seat, the score,
// + and − for forfeits). TRF: FIDE's TRF-16 of a two-player game's
// complete rounds (package trf), numbered as the Swiss numbers its
// players, so that PairTRF pairs the next round as the section does.
//
// # Ratings
//
// One Glicko-2 rating per game (engine/rating), the evening one rating
// period: every player's games of the evening are rated at once against
// the opponents' ratings as they stood before it (the rating the arbiter
// entered at registration, else the hub's). A game of four counts as
// three results for each player, one against each table mate: 1 for a
// better place, ½ for the same, 0 for a worse. Byes and forfeits are not
// rated.
package club

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"github.com/tabla-board/tabla/engine/rating"
)

// Systems of pairing.
const (
	RoundRobin = "roundrobin" // everyone meets everyone (Berger tables)
	Swiss      = "swiss"      // equal scores meet, no one twice
	Fours      = "fours"      // tables of four by score, seats rotated
)

// Limits keep an event's state small (it is one JetStream value).
const (
	MaxPlayers  = 64
	MaxRounds   = 16
	MaxSections = 5
	MaxName     = 40
)

// Section is one game of an event: its players, system and rounds.
type Section struct {
	Game    string   `json:"game"`
	Seats   []string `json:"seats"` // the game's seats in turn order
	System  string   `json:"system"`
	Rounds  int      `json:"rounds"` // how many rounds the evening has
	Clock   string   `json:"clock,omitempty"`
	Tables  []string `json:"tables"` // the hub's tables that play it, board 1 first
	Players []Player `json:"players"`
	Played  []*Round `json:"played,omitempty"` // rounds paired so far
	// Ended: the arbiter ended the section (its final standings are
	// those of the rounds played).
	Ended bool `json:"ended,omitempty"`
	// Stuck says why the next round could not be paired (the arbiter
	// pairs it by hand, allows a rematch, or ends the section).
	Stuck string `json:"stuck,omitempty"`
}

// Player is a registered player and the rating they came with.
type Player struct {
	Name   string        `json:"name"`
	Rating rating.Rating `json:"rating"`
	// From is the first round a late entry plays (0: from the start);
	// the rounds before score nothing.
	From int `json:"from,omitempty"`
	// Out is Withdrawn or Paused: the player is not paired.
	Out string `json:"out,omitempty"`
	// Byes are the rounds the player asked a half-point bye for.
	Byes []int `json:"byes,omitempty"`
}

// Why a player is not paired (Player.Out).
const (
	Withdrawn = "withdrawn" // for the rest of the event
	Paused    = "paused"    // until the arbiter enters them again
)

// Round is one round's pairings.
type Round struct {
	N        int        `json:"n"`
	Pairings []*Pairing `json:"pairings"`
	Byes     []string   `json:"byes,omitempty"`   // the pairing-allocated byes (a full bye)
	Half     []string   `json:"half,omitempty"`   // half-point byes the players asked for
	Absent   []string   `json:"absent,omitempty"` // withdrawn or paused: no game, no points
	// By is who paired the round by hand ("" the pairing system).
	By string `json:"by,omitempty"`
	// Clocks is when the arbiter started the round's clocks (zero: each
	// game's clocks start with its first move).
	Clocks time.Time `json:"clocks,omitzero"`
}

// Pairing is one game of a round: who sits at which seat of which table.
type Pairing struct {
	Board   int      `json:"board"` // 1, 2, … within the round
	Table   string   `json:"table"`
	Players []string `json:"players"` // by seat, as Section.Seats
	Result  *Result  `json:"result,omitempty"`
}

// Result is how a game ended: each seat's place (1 first; shared places
// repeat) and points.
type Result struct {
	Places []int     `json:"places"`
	Points []float64 `json:"points"`
	End    string    `json:"end"` // won, draw, time, arbiter, forfeit
	// Forfeit: a game not played (a player did not come): scored, not
	// rated, not a meeting (the two may be paired again).
	Forfeit bool   `json:"forfeit,omitempty"`
	Flag    string `json:"flag,omitempty"` // end time: the seat whose flag fell
	Game    string `json:"game,omitempty"` // the hub's TABLE/GAME it came from
	By      string `json:"by"`             // "table" or "arbiter"
}

// Round is the Round tag of a pairing's game record: "3.2", round 3,
// board 2 (RULES.md's record header).
func (p *Pairing) Round(round int) string { return fmt.Sprintf("%d.%d", round, p.Board) }

// Validate checks a section as given by the arbiter: its system fits its
// seats, the rounds and limits hold, names are unique.
func (s *Section) Validate() error {
	switch {
	case len(s.Seats) != 2 && len(s.Seats) != 4:
		return fmt.Errorf("%s: %d seats; a club evening pairs two or four", s.Game, len(s.Seats))
	case s.System == Fours && len(s.Seats) != 4, s.System != Fours && len(s.Seats) == 4:
		return fmt.Errorf("%s has %d seats: pair it with %s", s.Game, len(s.Seats), map[bool]string{true: "fours", false: "swiss or roundrobin"}[len(s.Seats) == 4])
	case s.System != RoundRobin && s.System != Swiss && s.System != Fours:
		return fmt.Errorf("%s: no pairing system %q (roundrobin, swiss, fours)", s.Game, s.System)
	case s.Rounds < 1 || s.Rounds > MaxRounds:
		return fmt.Errorf("%s: %d rounds; 1 to %d", s.Game, s.Rounds, MaxRounds)
	case len(s.Tables) == 0:
		return fmt.Errorf("%s: no table plays it", s.Game)
	case len(s.Players) > MaxPlayers:
		return fmt.Errorf("%s: %d players, at most %d", s.Game, len(s.Players), MaxPlayers)
	}
	seen := map[string]bool{}
	for _, p := range s.Players {
		if err := CheckName(p.Name); err != nil {
			return err
		}
		if seen[strings.ToLower(p.Name)] {
			return fmt.Errorf("%s: %s is registered twice", s.Game, p.Name)
		}
		seen[strings.ToLower(p.Name)] = true
	}
	return nil
}

// CheckName checks a player's name: 1 to MaxName characters, printable,
// not only spaces.
func CheckName(name string) error {
	n := 0
	for _, r := range name {
		if r < ' ' || r == 0x7f {
			return refuse(i18n.T("club.err.name.control", "name", name), fmt.Errorf("the name %q has a control character", name))
		}
		n++
	}
	if strings.TrimSpace(name) == "" || n > MaxName {
		return refuse(i18n.T("club.err.name.length", "max", MaxName, "name", name, "n", n), fmt.Errorf("a name has 1 to %d characters, %q has %d", MaxName, name, n))
	}
	return nil
}

// Register adds a player before the first round.
func (s *Section) Register(name string, r rating.Rating) error {
	name = strings.TrimSpace(name)
	if err := CheckName(name); err != nil {
		return err
	}
	if len(s.Played) > 0 {
		return refuse(i18n.T("club.err.started", "game", s.Game), fmt.Errorf("%s has started: players register before the first round", s.Game))
	}
	if len(s.Players) >= MaxPlayers {
		return refuse(i18n.T("club.err.full", "game", s.Game, "n", MaxPlayers), fmt.Errorf("%s is full (%d players)", s.Game, MaxPlayers))
	}
	for _, p := range s.Players {
		if strings.EqualFold(p.Name, name) {
			return refuse(i18n.T("club.err.registered", "name", name, "game", s.Game), fmt.Errorf("%s is already registered for %s", name, s.Game))
		}
	}
	s.Players = append(s.Players, Player{Name: name, Rating: r})
	return nil
}

// Current is the latest round (nil before the first).
func (s *Section) Current() *Round {
	if len(s.Played) == 0 {
		return nil
	}
	return s.Played[len(s.Played)-1]
}

// Complete reports whether every game of the round has its result.
func (r *Round) Complete() bool {
	for _, p := range r.Pairings {
		if p.Result == nil {
			return false
		}
	}
	return true
}

// Finished reports whether the section has played all its rounds.
func (s *Section) Finished() bool {
	c := s.Current()
	return (len(s.Played) == s.Rounds || s.Ended) && c != nil && c.Complete()
}

// ErrRoundOpen: the current round still waits for results.
var ErrRoundOpen = errors.New("club: the round is not finished")

// PairNext pairs the next round by the section's system and seats its
// games at the tables, board 1 at the first.
func (s *Section) PairNext() (*Round, error) {
	if c := s.Current(); c != nil && !c.Complete() {
		return nil, ErrRoundOpen
	}
	if len(s.Played) >= s.Rounds {
		return nil, refuse(i18n.T("club.err.allplayed", "game", s.Game, "n", s.Rounds), fmt.Errorf("%s: all %d rounds are played", s.Game, s.Rounds))
	}
	return s.pairNext(0)
}

// pairNext is PairNext; a Swiss with rematches > 0 may repeat the
// games of the first rematches rounds (PairAllowingRematch).
func (s *Section) pairNext(rematches int) (*Round, error) {
	if s.Ended {
		return nil, refuse(i18n.T("club.err.ended", "game", s.Game), fmt.Errorf("%s: the arbiter ended it", s.Game))
	}
	need := len(s.Seats)
	n := len(s.Played) + 1
	half, absent := s.notPaired(n)
	if active := len(s.Players) - len(half) - len(absent); active < need {
		return nil, refuse(i18n.T("club.err.toofew", "game", s.Game, "n", active, "need", need), fmt.Errorf("%s: %d players to pair, a game needs %d", s.Game, active, need))
	}
	var games [][]string
	var byes []string
	var err error
	switch s.System {
	case RoundRobin:
		if rr := roundsOf(len(s.Players)); s.Rounds > rr {
			return nil, fmt.Errorf("%s: a round robin of %d players has %d rounds, not %d", s.Game, len(s.Players), rr, s.Rounds)
		}
		games, byes, err = s.pairRoundRobin(n)
	case Swiss:
		games, byes, err = s.pairSwiss(rematches)
	case Fours:
		games, byes = s.pairFours(n)
	}
	if err != nil {
		if errors.Is(err, ErrNoPairing) {
			s.Stuck = err.Error()
		}
		return nil, err
	}
	if len(games) > len(s.Tables) {
		return nil, fmt.Errorf("%s: round %d has %d games and %d tables", s.Game, n, len(games), len(s.Tables))
	}
	r := &Round{N: n, Byes: byes, Half: half, Absent: absent}
	for i, g := range games {
		r.Pairings = append(r.Pairings, &Pairing{Board: i + 1, Table: s.Tables[i], Players: g})
	}
	s.Played = append(s.Played, r)
	s.Stuck = ""
	return r, nil
}

// notPaired are the players round n leaves out: those who asked a
// half-point bye, and those withdrawn or paused (or entering later).
func (s *Section) notPaired(n int) (half, absent []string) {
	for _, p := range s.Players {
		switch {
		case p.Out != "" || p.From > n:
			absent = append(absent, p.Name)
		case slices.Contains(p.Byes, n):
			half = append(half, p.Name)
		}
	}
	return half, absent
}

// plays reports whether a player is paired in round n.
func (s *Section) plays(p Player, n int) bool {
	return p.Out == "" && p.From <= n && !slices.Contains(p.Byes, n)
}

// roundsOf is how many rounds a round robin of n players has.
func roundsOf(n int) int {
	if n%2 == 1 {
		return n
	}
	return n - 1
}

// pairRoundRobin is round n of FIDE's Berger table (Berger), the
// players numbered in registration order; with an odd count, meeting the
// missing last number is a bye.
func (s *Section) pairRoundRobin(n int) (games [][]string, byes []string, err error) {
	names := s.names()
	table, err := Berger(len(names), n)
	if err != nil {
		return nil, nil, err
	}
	// a player not paired this round (a bye asked for, withdrawn) leaves
	// the opponent the table's bye
	in := func(k int) bool { return k <= len(names) && s.plays(s.Players[k-1], n) }
	for _, p := range table {
		switch {
		case in(p[0]) && in(p[1]):
			games = append(games, []string{names[p[0]-1], names[p[1]-1]})
		case in(p[0]):
			byes = append(byes, names[p[0]-1])
		case in(p[1]):
			byes = append(byes, names[p[1]-1])
		}
	}
	return games, byes, nil
}

// names are the registered players in registration order.
func (s *Section) names() []string {
	out := make([]string, len(s.Players))
	for i, p := range s.Players {
		out[i] = p.Name
	}
	return out
}

// history is what the rounds played so far say of each player.
type history struct {
	points  map[string]float64
	met     map[string]map[string]int // games between two players
	seat    map[string][]int          // how often each seat was taken
	byes    map[string]int
	wins    map[string]int // first places
	games   map[string]int
	against map[string][]float64 // per game: my score against each opponent, by opponent in opp
	opp     map[string][]string
}

func (s *Section) history() *history {
	h := &history{points: map[string]float64{}, met: map[string]map[string]int{}, seat: map[string][]int{}, byes: map[string]int{},
		wins: map[string]int{}, games: map[string]int{}, against: map[string][]float64{}, opp: map[string][]string{}}
	for _, p := range s.Players {
		h.seat[p.Name] = make([]int, len(s.Seats))
		h.met[p.Name] = map[string]int{}
	}
	for _, r := range s.Played {
		for _, b := range r.Byes {
			h.byes[b]++
			h.points[b] += s.byePoints()
		}
		for _, b := range r.Half {
			h.points[b] += s.byePoints() / 2
		}
		for _, g := range r.Pairings {
			forfeit := g.Result != nil && g.Result.Forfeit
			for i, a := range g.Players {
				if !forfeit {
					h.seat[a][i]++
				}
				for j, b := range g.Players {
					if i != j && !forfeit {
						h.met[a][b]++
					}
				}
				if g.Result == nil {
					continue
				}
				h.points[a] += g.Result.Points[i]
				if forfeit {
					continue // scored; not a game, not a meeting, not rated
				}
				h.games[a]++
				if g.Result.Places[i] == 1 && !slices.Contains(g.Result.Places[:i], 1) && !slices.Contains(g.Result.Places[i+1:], 1) {
					h.wins[a]++
				}
				for j, b := range g.Players {
					if i != j {
						h.opp[a] = append(h.opp[a], b)
						h.against[a] = append(h.against[a], pairScore(g.Result.Places[i], g.Result.Places[j]))
					}
				}
			}
		}
	}
	return h
}

// pairScore is a player's score against one table mate from their places.
func pairScore(mine, theirs int) float64 {
	switch {
	case mine < theirs:
		return 1
	case mine == theirs:
		return 0.5
	}
	return 0
}

func (s *Section) byePoints() float64 {
	if len(s.Seats) == 4 {
		return 1.5
	}
	return 1
}

// ranked are the players by points, then the rating they came with, then
// registration: the order Swiss and tables of four pair in.
func (s *Section) ranked(h *history) []string {
	ps := slices.Clone(s.Players)
	idx := map[string]int{}
	for i, p := range s.Players {
		idx[p.Name] = i
	}
	slices.SortStableFunc(ps, func(a, b Player) int {
		return cmp.Or(cmp.Compare(h.points[b.Name], h.points[a.Name]), cmp.Compare(b.Rating.R, a.Rating.R), cmp.Compare(idx[a.Name], idx[b.Name]))
	})
	out := make([]string, 0, len(ps))
	n := len(s.Played) + 1
	for _, p := range ps {
		if s.plays(p, n) {
			out = append(out, p.Name)
		}
	}
	return out
}

// pairSwiss pairs by FIDE's Dutch system (PairDutch), the first seat
// as white: pairing numbers by the rating the players came with (then
// registration), the section's rounds as planned.
//
// Players not paired in a round (a bye asked for, withdrawn, paused, not
// yet entered) have a bye without the allocated bye's bar; a forfeit is
// no meeting. rematches > 0 counts the games of the first rematches
// rounds as no meeting either (the arbiter allowing a rematch).
func (s *Section) pairSwiss(rematches int) (games [][]string, byes []string, err error) {
	h, order, err := s.SwissHistory(rematches)
	if err != nil {
		return nil, nil, err
	}
	p, err := PairDutch(h)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Game, err)
	}
	for _, b := range p.Boards {
		games = append(games, []string{order[b[0]-1].Name, order[b[1]-1].Name})
	}
	if p.Bye != 0 {
		byes = []string{order[p.Bye-1].Name}
	}
	return games, byes, nil
}

// SwissHistory is the section as the Swiss pairing sees it before its
// next round, and the players in pairing-number order (by the rating
// they came with, then registration). See pairSwiss for rematches.
func (s *Section) SwissHistory(rematches int) (*SwissHistory, []Player, error) {
	order := slices.Clone(s.Players)
	slices.SortStableFunc(order, func(a, b Player) int { return cmp.Compare(b.Rating.R, a.Rating.R) })
	num := map[string]int{}
	h := &SwissHistory{Planned: s.Rounds, Lookahead: true}
	for i, p := range order {
		num[p.Name] = i + 1
		h.Ratings = append(h.Ratings, int(math.Round(p.Rating.R)))
	}
	for k, r := range s.Played {
		var sr SwissRound
		for _, b := range r.Byes {
			sr.Byes = append(sr.Byes, SwissBye{Player: num[b], Points: s.byePoints(), Allocated: true})
		}
		for _, b := range r.Half {
			sr.Byes = append(sr.Byes, SwissBye{Player: num[b], Points: s.byePoints() / 2})
		}
		seen := map[string]bool{}
		for _, b := range append(slices.Clone(r.Byes), r.Half...) {
			seen[b] = true
		}
		for _, g := range r.Pairings {
			if g.Result == nil {
				return nil, nil, fmt.Errorf("%s: round %d board %d has no result", s.Game, r.N, g.Board)
			}
			seen[g.Players[0]], seen[g.Players[1]] = true, true
			if g.Result.Forfeit && g.Result.Points[0]+g.Result.Points[1] != 1 {
				// both lost by forfeit: two rounds without a game
				sr.Byes = append(sr.Byes, SwissBye{Player: num[g.Players[0]]}, SwissBye{Player: num[g.Players[1]]})
				continue
			}
			sr.Games = append(sr.Games, SwissGame{First: num[g.Players[0]], Second: num[g.Players[1]], Score: g.Result.Points[0], Forfeit: g.Result.Forfeit || k < rematches})
		}
		for _, p := range order { // absent, or not yet entered: no points
			if !seen[p.Name] {
				sr.Byes = append(sr.Byes, SwissBye{Player: num[p.Name]})
			}
		}
		h.Rounds = append(h.Rounds, sr)
	}
	n := len(s.Played) + 1
	for _, p := range order {
		if !s.plays(p, n) {
			h.Out = append(h.Out, num[p.Name])
		}
	}
	return h, order, nil
}

// pairFours seats players four to a table by rank (round 1: by rating),
// the players left over sit out with a bye (the lowest ranked who have
// had fewest). The seats go round so that each player sits each seat as
// evenly as the evening allows: at each table the assignment of the 24
// that least widens any player's spread (most taken seat against least,
// seatCost), and players on equal points swap tables when that lets
// more of them take a seat they have sat least.
func (s *Section) pairFours(n int) (games [][]string, byes []string) {
	h := s.history()
	order := s.ranked(h)
	for len(order)%4 != 0 {
		best := len(order) - 1
		for i := len(order) - 1; i >= 0; i-- {
			if h.byes[order[i]] < h.byes[order[best]] {
				best = i
			}
		}
		byes = append(byes, order[best])
		order = slices.Delete(order, best, best+1)
	}
	var groups [][]string
	for t := 0; t+4 <= len(order); t += 4 {
		groups = append(groups, slices.Clone(order[t:t+4]))
	}
	cost := make([]int, len(groups))
	for i, g := range groups {
		_, cost[i] = seatFour(g, h, n)
	}
	// swap players of equal points between tables while it lowers the
	// seats' cost (each swap lowers it, so this ends; bounded anyway)
	for pass, better := 0, true; better && pass < 8; pass++ {
		better = false
		for a := range groups {
			for b := a + 1; b < len(groups); b++ {
				for i := range 4 {
					for j := range 4 {
						x, y := groups[a][i], groups[b][j]
						if h.points[x] != h.points[y] {
							continue
						}
						groups[a][i], groups[b][j] = y, x
						_, ca := seatFour(groups[a], h, n)
						_, cb := seatFour(groups[b], h, n)
						if ca+cb < cost[a]+cost[b] {
							cost[a], cost[b], better = ca, cb, true
						} else {
							groups[a][i], groups[b][j] = x, y
						}
					}
				}
			}
		}
	}
	for _, g := range groups {
		seats, _ := seatFour(g, h, n)
		games = append(games, seats)
	}
	return games, byes
}

// seatFour gives the four seats of a table to a group: the assignment of
// the 24 that costs least (seatCost), the first in the order of
// permutations (rotated by the round, so that equals alternate), and its
// cost.
func seatFour(group []string, h *history, n int) ([]string, int) {
	var best []string
	bestCost := -1
	perm := []int{0, 1, 2, 3}
	var rec func(k int)
	rec = func(k int) {
		if k == 4 {
			cost := 0
			seats := make([]string, 4)
			for seat, gi := range perm {
				p := group[(gi+n-1)%4]
				seats[seat] = p
				cost += seatCost(h.seat[p], seat)
			}
			if bestCost < 0 || cost < bestCost {
				best, bestCost = seats, cost
			}
			return
		}
		for i := k; i < 4; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best, bestCost
}

// seatCost is what taking a seat costs a player who has sat the seats
// counts times: most, a spread (most taken seat against least) beyond
// one; then a seat taken more often than the least; then the count.
func seatCost(counts []int, seat int) int {
	after := slices.Clone(counts)
	after[seat]++
	spread := slices.Max(after) - slices.Min(after)
	return 10000*max(spread-1, 0) + 100*(counts[seat]-slices.Min(counts)) + counts[seat]
}

// Find is the pairing of round n, board b (nil if none).
func (s *Section) Find(n, board int) *Pairing {
	if n < 1 || n > len(s.Played) {
		return nil
	}
	for _, p := range s.Played[n-1].Pairings {
		if p.Board == board {
			return p
		}
	}
	return nil
}

// Points are the points of each seat for the places of a game (1 first;
// players on the same place share its points).
func (s *Section) Points(places []int) []float64 {
	scheme := []float64{1, 0}
	if len(s.Seats) == 4 {
		scheme = []float64{3, 2, 1, 0}
	}
	out := make([]float64, len(places))
	for i, pl := range places {
		// the places pl .. pl+k-1 shared by the k players on pl
		k := 0
		for _, q := range places {
			if q == pl {
				k++
			}
		}
		sum := 0.0
		for j := pl - 1; j < pl-1+k && j < len(scheme); j++ {
			sum += scheme[j]
		}
		out[i] = sum / float64(k)
	}
	return out
}

// Standing is one line of the standings.
type Standing struct {
	Rank      int       `json:"rank"`
	Name      string    `json:"name"`
	Points    float64   `json:"points"`
	Games     int       `json:"games"`
	Tiebreaks []float64 `json:"tiebreaks"`
}

// TiebreakNames are the names of the tie-break columns of a system.
func TiebreakNames(system string) []string {
	switch system {
	case Swiss:
		return []string{"Buchholz", "Sonneborn-Berger"}
	case RoundRobin:
		return []string{"Sonneborn-Berger", "wins"}
	}
	return []string{"first places", "table mates' points"}
}

// Standings rank the players by points and the system's tie-breaks (then
// name); players equal on all share a rank.
func (s *Section) Standings() []Standing {
	h := s.history()
	out := make([]Standing, 0, len(s.Players))
	for _, p := range s.Players {
		st := Standing{Name: p.Name, Points: h.points[p.Name], Games: h.games[p.Name]}
		var buchholz, sb, mates float64
		for i, o := range h.opp[p.Name] {
			buchholz += h.points[o]
			sb += h.against[p.Name][i] * h.points[o]
			mates += h.points[o]
		}
		switch s.System {
		case Swiss:
			st.Tiebreaks = []float64{buchholz, sb}
		case RoundRobin:
			st.Tiebreaks = []float64{sb, float64(h.wins[p.Name])}
		default:
			st.Tiebreaks = []float64{float64(h.wins[p.Name]), mates}
		}
		out = append(out, st)
	}
	key := func(a Standing) []float64 { return append([]float64{a.Points}, a.Tiebreaks...) }
	slices.SortStableFunc(out, func(a, b Standing) int {
		if c := slices.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i := range out {
		out[i].Rank = i + 1
		if i > 0 && slices.Equal(key(out[i]), key(out[i-1])) {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out
}

// Ratings are the players' ratings after the evening's games so far (one
// rating period), from the ratings they came with.
func (s *Section) Ratings() (map[string]rating.Rating, error) {
	before := map[string]rating.Rating{}
	for _, p := range s.Players {
		before[p.Name] = p.Rating
	}
	h := s.history()
	out := map[string]rating.Rating{}
	for _, p := range s.Players {
		var res []rating.Result
		for i, o := range h.opp[p.Name] {
			res = append(res, rating.Result{Opponent: before[o], Score: h.against[p.Name][i]})
		}
		r, err := rating.Update(p.Rating, res, 0)
		if err != nil {
			return nil, err
		}
		out[p.Name] = r
	}
	return out, nil
}
