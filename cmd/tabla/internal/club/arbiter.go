package club

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"github.com/tabla-board/tabla/engine/rating"
)

// The arbiter's tools: late entries, withdrawals and pauses, requested
// byes, forfeits, pairings by hand, a way out of a round that cannot be
// paired, and the end of a section. Each checks what it is given and
// changes the section only when all is well. A refusal is an
// i18n.Refusal: the English for the log and the CLI, its words for the
// event page.

// refuse words a refusal of the arbiter's tools for the event page.
func refuse(say i18n.Text, err error) error { return i18n.Refuse(say, err) }

// Enter adds a player: before the first round as Register; after it a
// late entry, who plays from the next round on and scores nothing for
// the rounds missed (a round robin's table is fixed: no late entries).
// A player withdrawn or paused is entered again (from the next round).
func (s *Section) Enter(name string, r rating.Rating) error {
	name = strings.TrimSpace(name)
	if i := s.player(name); i >= 0 {
		p := &s.Players[i]
		if p.Out == "" {
			return refuse(i18n.T("club.err.registered", "name", p.Name, "game", s.Game), fmt.Errorf("%s is already registered for %s", p.Name, s.Game))
		}
		if p.Out == Withdrawn && s.System == RoundRobin {
			return refuse(i18n.T("club.err.rrback", "name", p.Name, "game", s.Game), fmt.Errorf("%s withdrew from %s's round robin: a round robin takes no one back", p.Name, s.Game))
		}
		p.Out, p.From = "", max(p.From, len(s.Played)+1)
		return nil
	}
	if len(s.Played) == 0 {
		return s.Register(name, r)
	}
	if s.System == RoundRobin {
		return refuse(i18n.T("club.err.rrlate", "game", s.Game), fmt.Errorf("%s is a round robin under way: its table is fixed, no late entries", s.Game))
	}
	if s.Ended || s.Finished() {
		return refuse(i18n.T("club.err.over", "game", s.Game), fmt.Errorf("%s is over", s.Game))
	}
	if err := CheckName(name); err != nil {
		return err
	}
	if len(s.Players) >= MaxPlayers {
		return refuse(i18n.T("club.err.full", "game", s.Game, "n", MaxPlayers), fmt.Errorf("%s is full (%d players)", s.Game, MaxPlayers))
	}
	s.Players = append(s.Players, Player{Name: name, Rating: r, From: len(s.Played) + 1})
	return nil
}

// player is the index of a player by name (any case), -1 if none.
func (s *Section) player(name string) int {
	return slices.IndexFunc(s.Players, func(p Player) bool { return strings.EqualFold(p.Name, strings.TrimSpace(name)) })
}

// Withdraw takes a player out of the rounds still to pair: for good
// (Withdrawn) or until entered again (Paused). A game of theirs in the
// round under way keeps its pairing (the arbiter scores it: a result or
// a forfeit).
func (s *Section) Withdraw(name, how string) error {
	i := s.player(name)
	if i < 0 {
		return refuse(i18n.T("club.err.noplayer", "game", s.Game, "name", name), fmt.Errorf("%s has no player %q", s.Game, name))
	}
	if how != Withdrawn && how != Paused {
		return fmt.Errorf("withdraw: %q is neither %s nor %s", how, Withdrawn, Paused)
	}
	if s.Players[i].Out == how {
		return refuse(i18n.T("club.err.already", "name", s.Players[i].Name, "how", i18n.T("club.out."+how)), fmt.Errorf("%s is %s already", s.Players[i].Name, how))
	}
	s.Players[i].Out = how
	return nil
}

// RequestBye gives a player a half-point bye (half a pairing-allocated
// bye's points: ½ in a two-player game, ¾ in a game of four) in a round
// not yet paired.
func (s *Section) RequestBye(name string, round int) error {
	i := s.player(name)
	if i < 0 {
		return refuse(i18n.T("club.err.noplayer", "game", s.Game, "name", name), fmt.Errorf("%s has no player %q", s.Game, name))
	}
	p := &s.Players[i]
	switch {
	case round <= len(s.Played):
		return refuse(i18n.T("club.err.byepaired", "game", s.Game, "round", round, "next", len(s.Played)+1),
			fmt.Errorf("%s round %d is paired already: a bye is asked for a round to come (%d or later)", s.Game, round, len(s.Played)+1))
	case round > s.Rounds:
		return refuse(i18n.T("club.err.noround", "game", s.Game, "n", s.Rounds, "round", round), fmt.Errorf("%s has %d rounds, no round %d", s.Game, s.Rounds, round))
	case p.Out != "":
		return refuse(i18n.T("club.err.out", "name", p.Name, "how", i18n.T("club.out."+p.Out)), fmt.Errorf("%s is %s", p.Name, p.Out))
	case slices.Contains(p.Byes, round):
		return refuse(i18n.T("club.err.byetwice", "name", p.Name, "round", round), fmt.Errorf("%s has a bye in round %d already", p.Name, round))
	}
	p.Byes = append(p.Byes, round)
	slices.Sort(p.Byes)
	return nil
}

// Forfeit scores a game not played: the absent players (by name) lose
// it, the others share the points of the places before them; scored,
// not rated, shown + and − (Result.Forfeit).
func (s *Section) Forfeit(round, board int, absent []string) (*Pairing, error) {
	p := s.Find(round, board)
	if p == nil {
		return nil, refuse(i18n.T("club.err.noboard", "game", s.Game, "round", round, "board", board), fmt.Errorf("%s has no round %d board %d", s.Game, round, board))
	}
	if len(absent) == 0 {
		return nil, refuse(i18n.T("club.err.forfeitwho"), errors.New("forfeit: name the player (or players) who did not come"))
	}
	out := make([]bool, len(p.Players))
	for _, a := range absent {
		k := slices.IndexFunc(p.Players, func(n string) bool { return strings.EqualFold(n, strings.TrimSpace(a)) })
		if k < 0 {
			return nil, refuse(i18n.T("club.err.notonboard", "game", s.Game, "round", round, "board", board, "players", strings.Join(p.Players, " – "), "name", a),
				fmt.Errorf("%s round %d board %d is %s: %q does not play it", s.Game, round, board, strings.Join(p.Players, " – "), a))
		}
		out[k] = true
	}
	places := make([]int, len(out))
	for i, o := range out {
		places[i] = 1
		if o {
			places[i] = len(out) - len(absent) + 1
		}
	}
	points := s.Points(places)
	for i, o := range out {
		if o {
			points[i] = 0
		}
	}
	p.Result = &Result{Places: places, Points: points, End: "forfeit", Forfeit: true, By: "arbiter"}
	return p, nil
}

// PairByHand sets the next round (or the round under way, when none of
// its games has a result yet) as the arbiter gives it: the games, each
// its players by seat, board 1 first at the first table, and the
// players given the pairing-allocated bye. Every player the round pairs
// must be in it once (those who asked a bye or are out must not); the
// rematches it makes are returned as warnings.
func (s *Section) PairByHand(games [][]string, byes []string, by string) (r *Round, warnings []i18n.Text, err error) {
	if s.Ended {
		return nil, nil, refuse(i18n.T("club.err.ended", "game", s.Game), fmt.Errorf("%s: the arbiter ended it", s.Game))
	}
	replace := false
	if c := s.Current(); c != nil && !c.Complete() {
		for _, p := range c.Pairings {
			if p.Result != nil {
				return nil, nil, refuse(i18n.T("club.err.hasresults", "game", s.Game, "round", c.N),
					fmt.Errorf("%s round %d has results already: pair the next round when it is complete", s.Game, c.N))
			}
		}
		replace = true
	}
	n := len(s.Played) + 1
	if replace {
		n--
	}
	if n > s.Rounds {
		return nil, nil, refuse(i18n.T("club.err.allplayed", "game", s.Game, "n", s.Rounds), fmt.Errorf("%s: all %d rounds are played", s.Game, s.Rounds))
	}
	if len(games) > len(s.Tables) {
		return nil, nil, refuse(i18n.T("club.err.tables", "game", s.Game, "n", len(games), "tables", len(s.Tables)), fmt.Errorf("%s: %d games and %d tables", s.Game, len(games), len(s.Tables)))
	}
	want := map[string]string{} // lower name → name, the players to pair
	for _, p := range s.Players {
		if s.plays(p, n) {
			want[strings.ToLower(p.Name)] = p.Name
		}
	}
	seen := map[string]i18n.Text{}
	// where is "board N" or "the bye", in words
	canon := func(name string, where i18n.Text) (string, error) {
		k := strings.ToLower(strings.TrimSpace(name))
		if i := s.player(name); i < 0 {
			return "", refuse(i18n.T("club.err.where.noplayer", "game", s.Game, "where", where, "name", name),
				fmt.Errorf("%s: %s: no player %q", s.Game, where.English(), name))
		}
		if _, ok := want[k]; !ok {
			return "", refuse(i18n.T("club.err.where.notpaired", "game", s.Game, "where", where, "name", s.Players[s.player(name)].Name, "round", n),
				fmt.Errorf("%s: %s: %s is not paired in round %d (a bye asked for, withdrawn or paused)", s.Game, where.English(), s.Players[s.player(name)].Name, n))
		}
		if w, ok := seen[k]; ok {
			return "", refuse(i18n.T("club.err.where.twice", "game", s.Game, "where", where, "name", want[k], "also", w),
				fmt.Errorf("%s: %s: %s is paired twice (also %s)", s.Game, where.English(), want[k], w.English()))
		}
		seen[k] = where
		return want[k], nil
	}
	h := s.history()
	var out [][]string
	for b, g := range games {
		where := i18n.T("club.where.board", "n", b+1)
		if len(g) != len(s.Seats) {
			return nil, nil, refuse(i18n.T("club.err.where.size", "game", s.Game, "where", where, "n", len(g), "seats", len(s.Seats)),
				fmt.Errorf("%s: %s has %d players, a game %d", s.Game, where.English(), len(g), len(s.Seats)))
		}
		var names []string
		for _, name := range g {
			c, err := canon(name, where)
			if err != nil {
				return nil, nil, err
			}
			names = append(names, c)
		}
		for i, a := range names {
			for _, b := range names[i+1:] {
				if k := h.met[a][b]; k > 0 {
					warnings = append(warnings, i18n.T("club.warn.rematch", "where", where, "a", a, "b", b, "times", i18n.T("club.times", "n", k)))
				}
			}
		}
		out = append(out, names)
	}
	var bye []string
	for _, name := range byes {
		c, err := canon(name, i18n.T("club.where.bye"))
		if err != nil {
			return nil, nil, err
		}
		if h.byes[c] > 0 {
			warnings = append(warnings, i18n.T("club.warn.secondbye", "name", c))
		}
		bye = append(bye, c)
	}
	var missing []string
	for k, name := range want {
		if _, ok := seen[k]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, nil, refuse(i18n.T("club.err.missing", "game", s.Game, "round", n, "names", strings.Join(missing, ", ")),
			fmt.Errorf("%s round %d: %s not paired (give each a board or the bye)", s.Game, n, strings.Join(missing, ", ")))
	}
	half, absent := s.notPaired(n)
	r = &Round{N: n, Byes: bye, Half: half, Absent: absent, By: by}
	for i, g := range out {
		r.Pairings = append(r.Pairings, &Pairing{Board: i + 1, Table: s.Tables[i], Players: g})
	}
	if replace {
		s.Played[n-1] = r
	} else {
		s.Played = append(s.Played, r)
	}
	s.Stuck = ""
	return r, warnings, nil
}

// PairAllowingRematch pairs the next round of a Swiss that cannot be
// paired without a rematch: the games of the earliest rounds count as no
// meeting, one round more at a time, until a pairing is found (so the
// rematches are of the oldest games). It returns the round and how many
// rounds' games it let be repeated.
func (s *Section) PairAllowingRematch() (*Round, int, error) {
	if s.System != Swiss {
		return nil, 0, refuse(i18n.T("club.err.notswiss", "game", s.Game, "system", i18n.T("ev.system."+s.System)),
			fmt.Errorf("%s is paired by %s: only a Swiss can run out of pairings", s.Game, s.System))
	}
	var last error
	for k := 1; k <= len(s.Played); k++ {
		r, err := s.pairNext(k)
		if err == nil {
			return r, k, nil
		}
		if !errors.Is(err, ErrNoPairing) {
			return nil, 0, err
		}
		last = err
	}
	if last == nil {
		last = refuse(i18n.T("club.err.norepeat", "game", s.Game), fmt.Errorf("%s: no round to repeat", s.Game))
	}
	return nil, 0, last
}

// End ends the section after the rounds played: the current round must
// be complete (its games scored, by the tables or the arbiter).
func (s *Section) End() error {
	if s.Ended {
		return refuse(i18n.T("club.err.endedalready", "game", s.Game), fmt.Errorf("%s has ended already", s.Game))
	}
	if c := s.Current(); c != nil && !c.Complete() {
		var open, boards []string
		for _, p := range c.Pairings {
			if p.Result == nil {
				open = append(open, fmt.Sprintf("board %d", p.Board))
				boards = append(boards, strconv.Itoa(p.Board))
			}
		}
		return refuse(i18n.T("club.err.waits", "game", s.Game, "round", c.N, "boards", strings.Join(boards, ", ")),
			fmt.Errorf("%s round %d waits for %s: set or forfeit those results first", s.Game, c.N, strings.Join(open, ", ")))
	}
	s.Ended, s.Stuck = true, ""
	return nil
}

// ParseResult reads a result as an arbiter types it: for two seats
// "1-0", "0-1", "½-½" (also "1/2-1/2", "0.5-0.5", "=", with – or -); for
// four seats the places by seat, "2 1 4 3" (commas or dashes too; shared
// places repeat). It returns each seat's place.
func ParseResult(text string, seats int) ([]int, error) {
	t := strings.TrimSpace(text)
	if seats == 2 {
		norm := strings.NewReplacer("–", "-", "—", "-", " ", "", "1/2", "½", "0.5", "½", ",5", "½").Replace(t)
		switch norm {
		case "1-0":
			return []int{1, 2}, nil
		case "0-1":
			return []int{2, 1}, nil
		case "½-½", "=":
			return []int{1, 1}, nil
		}
		return nil, refuse(i18n.T("club.err.result.two", "text", text), fmt.Errorf("result %q: a two-player game's result is 1–0, ½–½ or 0–1", text))
	}
	f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '-' || r == '–' })
	if len(f) != seats {
		return nil, refuse(i18n.T("club.err.result.count", "text", text, "n", len(f), "seats", seats),
			fmt.Errorf("result %q: %d places for %d seats (the places by seat, e.g. 2 1 4 3)", text, len(f), seats))
	}
	places := make([]int, seats)
	for i, x := range f {
		v, err := strconv.Atoi(x)
		if err != nil || v < 1 || v > seats {
			return nil, refuse(i18n.T("club.err.result.place", "text", text, "place", x, "seat", i+1, "seats", seats),
				fmt.Errorf("result %q: place %q of seat %d: a place is 1 to %d", text, x, i+1, seats))
		}
		places[i] = v
	}
	// places are consistent: k players on place p leave p+1..p+k-1 empty
	for _, p := range places {
		k := 0
		for _, q := range places {
			if q == p {
				k++
			}
		}
		for q := p + 1; q < p+k; q++ {
			if slices.Contains(places, q) {
				return nil, refuse(i18n.T("club.err.result.share", "text", text, "n", k, "place", p, "next", q),
					fmt.Errorf("result %q: %d players share place %d, so no one is %d", text, k, p, q))
			}
		}
	}
	if !slices.Contains(places, 1) {
		return nil, refuse(i18n.T("club.err.result.nofirst", "text", text), fmt.Errorf("result %q: no one is first", text))
	}
	return places, nil
}
