package club

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tabla-board/tabla/engine/rating"
)

func section(system string, seats []string, rounds int, tables int, names ...string) *Section {
	s := &Section{Game: "g", Seats: seats, System: system, Rounds: rounds}
	for i := range tables {
		s.Tables = append(s.Tables, fmt.Sprintf("t%d", i+1))
	}
	for _, n := range names {
		if err := s.Register(n, rating.New()); err != nil {
			panic(err)
		}
	}
	return s
}

var two = []string{"south", "north"}
var four = []string{"red", "yellow", "blue", "black"}

// finish gives every game of the current round a result: the first seat
// wins (places as given per board, default 1, 2).
func finish(t *testing.T, s *Section, places ...[]int) {
	t.Helper()
	for i, p := range s.Current().Pairings {
		pl := []int{1, 2}
		if len(s.Seats) == 4 {
			pl = []int{1, 2, 3, 4}
		}
		if i < len(places) {
			pl = places[i]
		}
		p.Result = &Result{Places: pl, Points: s.Points(pl), End: "won", By: "table"}
	}
}

func TestRoundRobin(t *testing.T) {
	for _, n := range []int{4, 5, 6} {
		names := []string{"A", "B", "C", "D", "E", "F"}[:n]
		s := section(RoundRobin, two, roundsOf(n), 3, names...)
		met := map[[2]string]int{}
		byes := map[string]int{}
		for range s.Rounds {
			r, err := s.PairNext()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range r.Pairings {
				a, b := p.Players[0], p.Players[1]
				met[[2]string{min(a, b), max(a, b)}]++
			}
			for _, b := range r.Byes {
				byes[b]++
			}
			finish(t, s)
		}
		if len(met) != n*(n-1)/2 {
			t.Errorf("%d players: %d pairs met, want %d", n, len(met), n*(n-1)/2)
		}
		for k, v := range met {
			if v != 1 {
				t.Errorf("%d players: %v met %d times", n, k, v)
			}
		}
		if n%2 == 1 {
			for _, nm := range names {
				if byes[nm] != 1 {
					t.Errorf("%d players: %s had %d byes", n, nm, byes[nm])
				}
			}
		}
		if _, err := s.PairNext(); err == nil {
			t.Errorf("%d players: a round beyond the last was paired", n)
		}
	}
	s := section(RoundRobin, two, 5, 2, "A", "B", "C", "D")
	if _, err := s.PairNext(); err == nil {
		t.Error("a round robin of 4 players in 5 rounds was paired")
	}
}

// TestRoundRobinBerger: a section's round robin is FIDE's Berger table
// with the players numbered by registration, so nobody takes the same
// seat more than twice running (16 players: Monrad's circle had 8).
func TestRoundRobinBerger(t *testing.T) {
	for _, n := range []int{7, 16} {
		var names []string
		for i := range n {
			names = append(names, fmt.Sprintf("P%02d", i+1))
		}
		s := section(RoundRobin, two, roundsOf(n), 8, names...)
		run := map[string][2]int{} // seat, how many times running
		for r := 1; r <= s.Rounds; r++ {
			got, err := s.PairNext()
			if err != nil {
				t.Fatal(err)
			}
			table, _ := Berger(n, r)
			var want []string
			for _, p := range table {
				if p[0] <= n && p[1] <= n {
					want = append(want, names[p[0]-1]+"-"+names[p[1]-1])
				}
			}
			var have []string
			for _, p := range got.Pairings {
				have = append(have, p.Players[0]+"-"+p.Players[1])
				for seat, x := range p.Players {
					if run[x][0] == seat {
						run[x] = [2]int{seat, run[x][1] + 1}
					} else {
						run[x] = [2]int{seat, 1}
					}
					if run[x][1] > 2 {
						t.Errorf("%d players, round %d: %s in seat %d %d times running", n, r, x, seat, run[x][1])
					}
				}
			}
			if !slices.Equal(have, want) {
				t.Errorf("%d players, round %d: %v, Berger %v", n, r, have, want)
			}
			finish(t, s)
		}
	}
}

// TestSwiss: six players (all rated 1500: pairing numbers by
// registration), three rounds, the first seat always wins. By hand, the
// Dutch system:
// round 1: S1 = A B C against S2 = D E F, board by board; player 1 takes
// the first seat, the seats alternate down the boards: A-D, E-B, C-F.
// round 2: A, C, E have 1 point: A meets C (S1 A, S2 C E), E floats down
// to B, D, F and meets the highest ranked not met, D; then B-F. Seats:
// A and C both prefer the second (one first seat each), no round where
// they differed, so the higher ranked A gets it: C-A; E prefers the
// second and D the first: D-E; B and F both prefer the first, B ranks
// higher: B-F.
func TestSwiss(t *testing.T) {
	s := section(Swiss, two, 3, 3, "A", "B", "C", "D", "E", "F")
	var got [][]string
	for range 3 {
		r, err := s.PairNext()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Pairings {
			got = append(got, p.Players)
		}
		finish(t, s)
	}
	want := [][]string{{"A", "D"}, {"E", "B"}, {"C", "F"}, {"C", "A"}, {"D", "E"}, {"B", "F"}}
	if !slices.EqualFunc(got[:6], want, slices.Equal) {
		t.Fatalf("rounds 1-2: %v, want %v", got[:6], want)
	}
	met := map[[2]string]int{}
	first := map[string]int{}
	for _, g := range got {
		met[[2]string{min(g[0], g[1]), max(g[0], g[1])}]++
		first[g[0]]++
	}
	for k, v := range met {
		if v != 1 {
			t.Errorf("%v met %d times", k, v)
		}
	}
	for _, p := range []string{"A", "B", "C", "D", "E", "F"} {
		if first[p] < 1 || first[p] > 2 {
			t.Errorf("%s had the first seat %d times in 3 rounds", p, first[p])
		}
	}
	if !s.Finished() {
		t.Error("not finished after three rounds")
	}
}

// TestSwissDeadEnd: when no pairing avoids a rematch, PairNext says so
// (the hub logs it; the arbiter decides).
func TestSwissDeadEnd(t *testing.T) {
	s := section(Swiss, two, 3, 2, "A", "B")
	if _, err := s.PairNext(); err != nil {
		t.Fatal(err)
	}
	finish(t, s)
	if _, err := s.PairNext(); !errors.Is(err, ErrNoPairing) {
		t.Fatalf("two players, round 2: %v, want ErrNoPairing", err)
	}
}

func TestSwissBye(t *testing.T) {
	s := section(Swiss, two, 3, 2, "A", "B", "C", "D", "E")
	byes := map[string]bool{}
	for range 3 {
		r, err := s.PairNext()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Byes) != 1 || byes[r.Byes[0]] {
			t.Fatalf("round %d: byes %v (before %v)", r.N, r.Byes, byes)
		}
		byes[r.Byes[0]] = true
		finish(t, s)
	}
	st := s.Standings()
	total := 0.0
	for _, x := range st {
		total += x.Points
	}
	if total != 6+3 { // six games and three byes
		t.Errorf("points %v", total)
	}
}

func TestFoursSeatsGoRound(t *testing.T) {
	s := section(Fours, four, 4, 1, "A", "B", "C", "D")
	seats := map[string][]int{}
	for range 4 {
		r, err := s.PairNext()
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range r.Pairings[0].Players {
			seats[p] = append(seats[p], i)
		}
		finish(t, s)
	}
	for p, ss := range seats {
		sorted := slices.Sorted(slices.Values(ss))
		if !slices.Equal(sorted, []int{0, 1, 2, 3}) {
			t.Errorf("%s sat %v", p, ss)
		}
	}
	s = section(Fours, four, 2, 2, "A", "B", "C", "D", "E", "F")
	r, err := s.PairNext()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pairings) != 1 || len(r.Byes) != 2 {
		t.Fatalf("six players: %d tables, byes %v", len(r.Pairings), r.Byes)
	}
}

func TestPoints(t *testing.T) {
	s4 := &Section{Seats: four}
	s2 := &Section{Seats: two}
	for _, c := range []struct {
		s      *Section
		places []int
		want   []float64
	}{
		{s2, []int{1, 2}, []float64{1, 0}},
		{s2, []int{1, 1}, []float64{0.5, 0.5}},
		{s4, []int{2, 1, 4, 3}, []float64{2, 3, 0, 1}},
		{s4, []int{1, 2, 2, 2}, []float64{3, 1, 1, 1}}, // RAY: the winner, the rest share 2+1+0
		{s4, []int{1, 1, 1, 4}, []float64{2, 2, 2, 0}}, // a flag fell: last, the rest share 3+2+1
		{s4, []int{1, 1, 1, 1}, []float64{1.5, 1.5, 1.5, 1.5}},
	} {
		if got := c.s.Points(c.places); !slices.Equal(got, c.want) {
			t.Errorf("%v: %v, want %v", c.places, got, c.want)
		}
	}
}

// TestStandingsSwiss: after TestSwiss's two rounds (A-D, E-B, C-F;
// C-A, D-E, B-F; the first seat won each), by hand —
// points: A 1, B 1, C 2, D 1, E 1, F 0.
// Buchholz: A: D 1 + C 2 = 3; B: E 1 + F 0 = 1; C: F 0 + A 1 = 1;
// D: A 1 + E 1 = 2; E: B 1 + D 1 = 2; F: C 2 + B 1 = 3.
// Sonneborn-Berger (points of those beaten, half of those drawn):
// A: D 1; B: F 0; C: F 0 + A 1 = 1; D: E 1; E: B 1; F: 0.
// So C; A; D and E equal on all (rank 3, by name); B; F.
func TestStandingsSwiss(t *testing.T) {
	s := section(Swiss, two, 4, 3, "A", "B", "C", "D", "E", "F")
	for range 2 {
		if _, err := s.PairNext(); err != nil {
			t.Fatal(err)
		}
		finish(t, s)
	}
	got := s.Standings()
	want := []Standing{
		{1, "C", 2, 2, []float64{1, 1}},
		{2, "A", 1, 2, []float64{3, 1}},
		{3, "D", 1, 2, []float64{2, 1}},
		{3, "E", 1, 2, []float64{2, 1}},
		{5, "B", 1, 2, []float64{1, 0}},
		{6, "F", 0, 2, []float64{3, 0}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("standings\n%v\nwant\n%v", got, want)
	}
}

// TestRatingsOfFour: a game of four is three results for each player. Four
// new players (1500, 350, 0.06), places 1-2-3-4: the winner's results are
// 1, 1, 1 against three 1500/350 players, which is Update's own case;
// the second's 0, 1, 1; ratings sum (equal deviations, symmetric
// opponents) to 4 × 1500.
func TestRatingsOfFour(t *testing.T) {
	s := section(Fours, four, 1, 1, "A", "B", "C", "D")
	r, err := s.PairNext()
	if err != nil {
		t.Fatal(err)
	}
	finish(t, s, []int{1, 2, 3, 4})
	got, err := s.Ratings()
	if err != nil {
		t.Fatal(err)
	}
	first := r.Pairings[0].Players[0]
	want, _ := rating.Update(rating.New(), []rating.Result{{Opponent: rating.New(), Score: 1}, {Opponent: rating.New(), Score: 1}, {Opponent: rating.New(), Score: 1}}, 0)
	if got[first] != want {
		t.Errorf("winner %+v, want %+v", got[first], want)
	}
	sum := 0.0
	for _, x := range got {
		sum += x.R
	}
	if math.Abs(sum-6000) > 1e-6 {
		t.Errorf("ratings sum to %v", sum)
	}
}

func TestValidate(t *testing.T) {
	for _, s := range []*Section{
		{Game: "daha", Seats: four, System: Swiss, Rounds: 3, Tables: []string{"a"}},
		{Game: "gyges", Seats: two, System: Fours, Rounds: 3, Tables: []string{"a"}},
		{Game: "gyges", Seats: two, System: "knockout", Rounds: 3, Tables: []string{"a"}},
		{Game: "gyges", Seats: two, System: Swiss, Rounds: 0, Tables: []string{"a"}},
		{Game: "gyges", Seats: two, System: Swiss, Rounds: 3},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	s := section(Swiss, two, 3, 1, "Ayşe")
	if err := s.Register("ayşe", rating.New()); err == nil {
		t.Error("a name registered twice")
	}
	if err := s.Register("\x1b[2J", rating.New()); err == nil {
		t.Error("a control character in a name")
	}
}
