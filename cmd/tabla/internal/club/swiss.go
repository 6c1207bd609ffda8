package club

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/gnutterts/chesspairing"
	"github.com/gnutterts/chesspairing/algorithm/blossom"
	"github.com/gnutterts/chesspairing/pairing/dutch"
)

// ErrNoPairing: no pairing of the round avoids a rematch or a second
// pairing-allocated bye. The arbiter decides (a rematch by hand, or the
// event ends).
var ErrNoPairing = errors.New("no pairing without a rematch or a second bye")

// SwissHistory is a Swiss tournament as the pairing sees it: players by
// pairing number (1 the highest rated, fixed for the event) and the
// rounds so far.
type SwissHistory struct {
	Ratings []int // Ratings[i] is player i+1's
	Rounds  []SwissRound
	// Planned is the number of rounds the event has (0 unknown): in the
	// last one the seat limits are relaxed for the topscorers (more than
	// half the maximum score) and their opponents, as the Dutch rules do.
	Planned int
	// SecondSeatFirst gives player 1 the second seat in round 1 (TRF's
	// XXC black1); by default player 1 has the first seat.
	SecondSeatFirst bool
	// Out are the players not to pair in the next round (withdrawn, or a
	// bye they asked for).
	Out []int
	// Lookahead sets the Dutch pairing aside when, with rounds still to
	// come, it would leave the next round without any pairing free of
	// rematches (small fields: six players in four rounds can end in two
	// triangles of players who have all met): then the best pairing by
	// the matching's criteria with one of its boards (or its bye) left
	// out that keeps the next round pairable. FIDE's Dutch looks no
	// further than the round; a club evening should not dead-end.
	Lookahead bool
}

// SwissRound is one round's games and the players without a game.
type SwissRound struct {
	Games []SwissGame
	Byes  []SwissBye
}

// SwissGame is a game: the first and second seat's pairing numbers and
// the first seat's score (1, ½, 0). A forfeit is scored but the two have
// not met and may be paired again; it gives no seat.
type SwissGame struct {
	First, Second int
	Score         float64
	Forfeit       bool
}

// SwissBye is a round without a game: its points, and whether it was
// the pairing-allocated bye (or counts as one: no second is given).
type SwissBye struct {
	Player    int
	Points    float64
	Allocated bool
}

// SwissPairing is a round's pairing: boards (first seat, second seat),
// board 1 first, and the pairing-allocated bye (0 none).
type SwissPairing struct {
	Boards [][2]int
	Bye    int
}

// PairDutch pairs the next round by FIDE's Dutch system (C.04.3) with
// the first seat as white: the library's Dutch engine, whose pairing is
// then checked against the absolute criteria (every player once, the bye
// only for an odd field and never twice, no rematch, no seat imbalance
// beyond ±2 and no seat three times running but for the topscorers of
// the last round and their opponents). Should it fail them, the round is
// paired by a maximum-weight matching of its own with the criteria in
// the Dutch order (absolute; seat faults; score differences, their sum
// then their squares; seat preferences) and the Dutch seat allocation.
// ErrNoPairing when no pairing avoids a rematch or a second bye.
func PairDutch(h *SwissHistory) (*SwissPairing, error) {
	p, _, err := pairDutch(h)
	return p, err
}

// pairDutch is PairDutch, and whether the library's pairing was set
// aside for the matching's.
func pairDutch(h *SwissHistory) (p *SwissPairing, fallback bool, err error) {
	if err := h.validate(); err != nil {
		return nil, false, err
	}
	st := h.build()
	if st.active < 2 {
		return nil, false, fmt.Errorf("club: round %d: %d players to pair, a Swiss pairs at least 2", len(h.Rounds)+1, st.active)
	}
	p = h.library()
	if p == nil || st.check(p, true) != nil {
		fallback = true
		if p, err = st.match(); err != nil {
			return nil, true, err
		}
	}
	if !h.Lookahead || st.round >= h.Planned || st.pairableAfter(p) {
		return p, fallback, nil
	}
	var edges [][2]int
	for _, b := range p.Boards {
		edges = append(edges, [2]int{b[0] - 1, b[1] - 1})
	}
	if p.Bye != 0 {
		edges = append(edges, [2]int{p.Bye - 1, len(st.Ratings)})
	}
	for _, e := range edges {
		st.forbid = map[[2]int]bool{e: true, {e[1], e[0]}: true}
		if q, err := st.match(); err == nil && st.pairableAfter(q) {
			return q, true, nil
		}
	}
	return p, fallback, nil
}

// pairableAfter reports whether, after the pairing p, a next round could
// be paired without a rematch or a second bye (everyone playing).
func (st *swissState) pairableAfter(p *SwissPairing) bool {
	n := len(st.Ratings)
	met := func(i, j int) bool { return st.met[i][j] }
	now := map[[2]int]bool{}
	for _, b := range p.Boards {
		now[[2]int{b[0] - 1, b[1] - 1}], now[[2]int{b[1] - 1, b[0] - 1}] = true, true
	}
	var edges []blossom.BlossomEdge
	for i := range n {
		for j := i + 1; j < n; j++ {
			if !met(i, j) && !now[[2]int{i, j}] {
				edges = append(edges, blossom.BlossomEdge{I: i, J: j, Weight: 1})
			}
		}
		if n%2 == 1 && !st.hadBye[i] && p.Bye != i+1 {
			edges = append(edges, blossom.BlossomEdge{I: i, J: n, Weight: 1})
		}
	}
	mate := blossom.MaxWeightMatching(edges, true)
	for i := range n {
		if i >= len(mate) || mate[i] < 0 {
			return false
		}
	}
	return true
}

func (h *SwissHistory) validate() error {
	n := len(h.Ratings)
	for _, p := range h.Out {
		if p < 1 || p > n {
			return fmt.Errorf("club: no player %d (1..%d) to leave out", p, n)
		}
	}
	for k, r := range h.Rounds {
		seen := map[int]bool{}
		mark := func(p int) error {
			if p < 1 || p > n {
				return fmt.Errorf("club: round %d: no player %d (1..%d)", k+1, p, n)
			}
			if seen[p] {
				return fmt.Errorf("club: round %d: player %d twice", k+1, p)
			}
			seen[p] = true
			return nil
		}
		for _, g := range r.Games {
			if err := errors.Join(mark(g.First), mark(g.Second)); err != nil {
				return err
			}
		}
		for _, b := range r.Byes {
			if err := mark(b.Player); err != nil {
				return err
			}
		}
	}
	return nil
}

// library is the Dutch engine's pairing (nil if it failed).
func (h *SwissHistory) library() (p *SwissPairing) {
	defer func() {
		if recover() != nil {
			p = nil
		}
	}()
	st := &chesspairing.TournamentState{CurrentRound: len(h.Rounds) + 1}
	for i, r := range h.Ratings {
		st.Players = append(st.Players, chesspairing.PlayerEntry{ID: strconv.Itoa(i + 1), Rating: r})
	}
	for k, r := range h.Rounds {
		rd := chesspairing.RoundData{Number: k + 1}
		for _, g := range r.Games {
			res := map[float64]chesspairing.GameResult{1: chesspairing.ResultWhiteWins, 0.5: chesspairing.ResultDraw, 0: chesspairing.ResultBlackWins}[g.Score]
			if g.Forfeit {
				res = map[bool]chesspairing.GameResult{true: chesspairing.ResultForfeitWhiteWins, false: chesspairing.ResultForfeitBlackWins}[g.Score > 0]
			}
			rd.Games = append(rd.Games, chesspairing.GameData{WhiteID: strconv.Itoa(g.First), BlackID: strconv.Itoa(g.Second), Result: res, IsForfeit: g.Forfeit})
		}
		for _, b := range r.Byes {
			t := chesspairing.ByeAbsent
			switch {
			case b.Allocated:
				t = chesspairing.ByePAB
			case b.Points == 0.5:
				t = chesspairing.ByeHalf
			}
			rd.Byes = append(rd.Byes, chesspairing.ByeEntry{PlayerID: strconv.Itoa(b.Player), Type: t})
		}
		st.Rounds = append(st.Rounds, rd)
	}
	for _, x := range h.Out {
		st.PreAssignedByes = append(st.PreAssignedByes, chesspairing.ByeEntry{PlayerID: strconv.Itoa(x), Type: chesspairing.ByeAbsent})
	}
	top := "white"
	if h.SecondSeatFirst {
		top = "black"
	}
	res, err := dutch.New(dutch.Options{TopSeedColor: &top}).Pair(context.Background(), st)
	if err != nil {
		return nil
	}
	p = &SwissPairing{}
	for _, g := range res.Pairings {
		a, errA := strconv.Atoi(g.WhiteID)
		b, errB := strconv.Atoi(g.BlackID)
		if errA != nil || errB != nil {
			return nil
		}
		p.Boards = append(p.Boards, [2]int{a, b})
	}
	for _, b := range res.Byes {
		x, err := strconv.Atoi(b.PlayerID)
		switch {
		case err != nil || p.Bye != 0 && b.Type == chesspairing.ByePAB:
			return nil
		case b.Type == chesspairing.ByePAB:
			p.Bye = x
		}
	}
	return p
}

// swissState is what the history says of each player before the round.
type swissState struct {
	Ratings     []int
	planned     int
	round       int       // the round being paired
	points      []float64 // by index (pairing number - 1)
	met         []map[int]bool
	hadBye      []bool
	seats       [][]byte // per round: 'w', 'b' or 0 (no game)
	played      [][]byte // seats of played games only, in order
	secondFirst bool
	out         []bool          // not to pair this round
	active      int             // players to pair
	forbid      map[[2]int]bool // boards (indices) the matching may not make
}

func (h *SwissHistory) build() *swissState {
	n := len(h.Ratings)
	st := &swissState{Ratings: h.Ratings, planned: h.Planned, round: len(h.Rounds) + 1, points: make([]float64, n),
		met: make([]map[int]bool, n), hadBye: make([]bool, n), seats: make([][]byte, n), played: make([][]byte, n), secondFirst: h.SecondSeatFirst}
	st.out = make([]bool, n)
	for _, p := range h.Out {
		st.out[p-1] = true
	}
	for i := range n {
		st.met[i] = map[int]bool{}
		st.seats[i] = make([]byte, len(h.Rounds))
		if !st.out[i] {
			st.active++
		}
	}
	for k, r := range h.Rounds {
		for _, g := range r.Games {
			a, b := g.First-1, g.Second-1
			st.points[a] += g.Score
			st.points[b] += 1 - g.Score
			if g.Forfeit {
				continue
			}
			st.met[a][b], st.met[b][a] = true, true
			st.seats[a][k], st.seats[b][k] = 'w', 'b'
			st.played[a] = append(st.played[a], 'w')
			st.played[b] = append(st.played[b], 'b')
		}
		for _, b := range r.Byes {
			st.points[b.Player-1] += b.Points
			if b.Allocated {
				st.hadBye[b.Player-1] = true
			}
		}
	}
	return st
}

// topscorer: more than half the maximum score before the last round.
func (st *swissState) topscorer(i int) bool {
	return st.planned > 0 && st.round == st.planned && st.points[i] > float64(st.planned)/2
}

// seatFault reports whether taking seat c breaks player i's seat limits:
// an imbalance beyond ±2 or the same seat a third time running.
func (st *swissState) seatFault(i int, c byte) bool {
	seq := append(slices.Clip(st.played[i]), c)
	d := 0
	for _, x := range seq {
		d += map[byte]int{'w': 1, 'b': -1}[x]
	}
	k := len(seq)
	return d > 2 || d < -2 || (k >= 3 && seq[k-2] == c && seq[k-3] == c)
}

// faults counts the board's seat faults that are not excused (the last
// round's topscorers and their opponents are).
func (st *swissState) faults(first, second int) int {
	if st.topscorer(first) || st.topscorer(second) {
		return 0
	}
	f := 0
	if st.seatFault(first, 'w') {
		f++
	}
	if st.seatFault(second, 'b') {
		f++
	}
	return f
}

// check is nil if the pairing (numbers 1-based) meets the absolute
// criteria (with seats, the seat limits too).
func (st *swissState) check(p *SwissPairing, seats bool) error {
	n := len(st.Ratings)
	seen := make([]bool, n)
	mark := func(x int) error {
		if x < 1 || x > n || seen[x-1] || st.out[x-1] {
			return fmt.Errorf("player %d not once", x)
		}
		seen[x-1] = true
		return nil
	}
	for _, b := range p.Boards {
		if err := errors.Join(mark(b[0]), mark(b[1])); err != nil {
			return err
		}
		if st.met[b[0]-1][b[1]-1] {
			return fmt.Errorf("%d and %d have met", b[0], b[1])
		}
		if seats && st.faults(b[0]-1, b[1]-1) > 0 {
			return fmt.Errorf("%d-%d breaks the seat limits", b[0], b[1])
		}
	}
	if (p.Bye != 0) != (st.active%2 == 1) {
		return fmt.Errorf("bye %d in a field of %d", p.Bye, st.active)
	}
	if p.Bye != 0 {
		if err := mark(p.Bye); err != nil {
			return err
		}
		if st.hadBye[p.Bye-1] {
			return fmt.Errorf("%d had the bye", p.Bye)
		}
	}
	for i, ok := range seen {
		if !ok && !st.out[i] {
			return fmt.Errorf("player %d left out", i+1)
		}
	}
	return nil
}

// Weights of the matching, one tier per criterion, each tier's largest
// possible sum below one unit of the tier above (at most 32 boards, 64
// players, score differences up to 32 half points).
const (
	wEdge  = int64(1) << 44 // every edge: as many boards as possible
	wFault = int64(1) << 36 // a seat fault
	wDiff  = int64(1) << 25 // a half point of score difference
	wSq    = int64(1) << 7  // its square
	wPref  = int64(1)       // a seat preference not granted
)

// match pairs the round by a maximum-weight matching (the fallback).
func (st *swissState) match() (*SwissPairing, error) {
	n := len(st.Ratings)
	var edges []blossom.BlossomEdge
	for i := range n {
		for j := i + 1; j < n; j++ {
			if st.met[i][j] || st.out[i] || st.out[j] || st.forbid[[2]int{i, j}] {
				continue
			}
			f, s := st.allocate(i, j)
			d := int64(2 * abs(st.points[i]-st.points[j]))
			miss := int64(0)
			if c, _ := st.preference(f); c == 'b' {
				miss++
			}
			if c, _ := st.preference(s); c == 'w' {
				miss++
			}
			w := wEdge - int64(st.faults(f, s))*wFault - d*wDiff - d*d*wSq - miss*wPref
			edges = append(edges, blossom.BlossomEdge{I: i, J: j, Weight: w})
		}
	}
	if st.active%2 == 1 {
		for i := range n {
			if !st.hadBye[i] && !st.out[i] && !st.forbid[[2]int{i, n}] {
				// the lowest score, then the lowest ranked
				w := wEdge - int64(2*st.points[i])*wDiff - int64(n-1-i)*wPref
				edges = append(edges, blossom.BlossomEdge{I: i, J: n, Weight: w})
			}
		}
	}
	mate := blossom.MaxWeightMatching(edges, true)
	p := &SwissPairing{}
	var boards [][2]int
	for i := range n {
		if st.out[i] {
			continue
		}
		if i >= len(mate) || mate[i] < 0 {
			return nil, fmt.Errorf("club: round %d: %w", st.round, ErrNoPairing)
		}
		switch j := mate[i]; {
		case j == n:
			p.Bye = i + 1
		case i < j:
			f, s := st.allocate(i, j)
			boards = append(boards, [2]int{f, s})
		}
	}
	slices.SortFunc(boards, func(a, b [2]int) int {
		return cmp.Or(
			cmp.Compare(max(st.points[b[0]], st.points[b[1]]), max(st.points[a[0]], st.points[a[1]])),
			cmp.Compare(st.points[b[0]]+st.points[b[1]], st.points[a[0]]+st.points[a[1]]),
			cmp.Compare(min(a[0], a[1]), min(b[0], b[1])))
	})
	for _, b := range boards {
		p.Boards = append(p.Boards, [2]int{b[0] + 1, b[1] + 1})
	}
	return p, nil
}

func abs(x float64) float64 { return max(x, -x) }

// preference is a player's seat preference ('w' first seat, 'b' second,
// 0 none) and its strength: 3 absolute (imbalance beyond ±1, or the same
// seat the last two games), 2 strong (imbalance ±1), 1 mild (balanced:
// the other seat than last time), 0 none (no game yet).
func (st *swissState) preference(i int) (byte, int) {
	seq := st.played[i]
	if len(seq) == 0 {
		return 0, 0
	}
	d := 0
	for _, x := range seq {
		d += map[byte]int{'w': 1, 'b': -1}[x]
	}
	last := seq[len(seq)-1]
	other := map[byte]byte{'w': 'b', 'b': 'w'}
	switch {
	case d > 1 || (len(seq) >= 2 && seq[len(seq)-2] == 'w' && last == 'w'):
		return 'b', 3
	case d < -1 || (len(seq) >= 2 && seq[len(seq)-2] == 'b' && last == 'b'):
		return 'w', 3
	case d == 1:
		return 'b', 2
	case d == -1:
		return 'w', 2
	}
	return other[last], 1
}

// allocate seats two players (indices) by the Dutch rules (C.04.3
// Article 5): grant both preferences; else the stronger (of two absolute
// ones, the wider imbalance); else alternate from the latest round in
// which they had different seats; else the higher ranked player's
// preference; else by the higher ranked's pairing number (odd: the
// initial seat). It returns (first seat, second seat).
func (st *swissState) allocate(i, j int) (int, int) {
	hi, lo := i, j // hi ranks higher: more points, then the lower number
	if st.points[j] > st.points[i] || (st.points[j] == st.points[i] && j < i) {
		hi, lo = j, i
	}
	give := func(p int, c byte) (int, int) {
		if (p == hi) == (c == 'w') {
			return hi, lo
		}
		return lo, hi
	}
	ph, sh := st.preference(hi)
	pl, sl := st.preference(lo)
	switch {
	case ph != 0 && pl != 0 && ph != pl:
		return give(hi, ph)
	case ph != 0 && pl == 0:
		return give(hi, ph)
	case ph == 0 && pl != 0:
		return give(lo, pl)
	case ph != 0 && sh != sl:
		if sh > sl {
			return give(hi, ph)
		}
		return give(lo, pl)
	case ph != 0 && sh == 3:
		if dh, dl := st.imbalance(hi), st.imbalance(lo); dh != dl {
			if dh > dl {
				return give(hi, ph)
			}
			return give(lo, pl)
		}
	}
	if ph != 0 {
		for k := st.round - 2; k >= 0; k-- {
			a, b := st.seats[hi][k], st.seats[lo][k]
			if a != 0 && b != 0 && a != b {
				return give(hi, map[byte]byte{'w': 'b', 'b': 'w'}[a])
			}
		}
		return give(hi, ph)
	}
	initial := byte('w')
	if st.secondFirst {
		initial = 'b'
	}
	if hi%2 == 1 { // an even pairing number
		initial = map[byte]byte{'w': 'b', 'b': 'w'}[initial]
	}
	return give(hi, initial)
}

// imbalance is the absolute difference of first and second seats.
func (st *swissState) imbalance(i int) int {
	d := 0
	for _, x := range st.played[i] {
		d += map[byte]int{'w': 1, 'b': -1}[x]
	}
	return max(d, -d)
}
