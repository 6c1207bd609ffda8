package club

import (
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

// TestSwiss: six players, four rounds, the first seat always wins. By
// hand, ranked by points then registration (all rated 1500):
// round 1: A-B, C-D, E-F → A, C, E 1 point.
// round 2: the leaders A, C, E, then B, D, F: A-C, E-B (E has met F),
// D-F; the first seat to whoever had it less (equal: the higher ranked):
// A and C had it once: A-C; B never, E once: B-E; D and F never: D-F.
// Winners (first seat): A, B, D → A 2, B 1, C 1, D 1, E 1, F 0.
func TestSwiss(t *testing.T) {
	s := section(Swiss, two, 4, 3, "A", "B", "C", "D", "E", "F")
	var got [][]string
	for range 4 {
		r, err := s.PairNext()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Pairings {
			got = append(got, p.Players)
		}
		finish(t, s)
	}
	want := [][]string{{"A", "B"}, {"C", "D"}, {"E", "F"}, {"A", "C"}, {"B", "E"}, {"D", "F"}}
	if !slices.EqualFunc(got[:6], want, slices.Equal) {
		t.Fatalf("rounds 1-2: %v, want %v", got[:6], want)
	}
	met := map[[2]string]int{}
	for _, g := range got {
		met[[2]string{min(g[0], g[1]), max(g[0], g[1])}]++
	}
	for k, v := range met {
		if v != 1 {
			t.Errorf("%v met %d times", k, v)
		}
	}
	if !s.Finished() {
		t.Error("not finished after four rounds")
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

// TestStandingsSwiss: after TestSwiss's two rounds (A-B, C-D, E-F; A-C,
// B-E, D-F; the first seat won each), by hand —
// points: A 2, B 1, C 1, D 1, E 1, F 0.
// Buchholz: A: B 1 + C 1 = 2; B: A 2 + E 1 = 3; C: D 1 + A 2 = 3;
// D: C 1 + F 0 = 1; E: F 0 + B 1 = 1; F: E 1 + D 1 = 2.
// Sonneborn-Berger (points of those beaten, half of those drawn):
// A: B 1 + C 1 = 2; B: E 1; C: D 1; D: F 0; E: F 0; F: 0.
// So A; B and C equal on all (rank 2, by name); D and E equal (rank 4); F.
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
		{1, "A", 2, 2, []float64{2, 2}},
		{2, "B", 1, 2, []float64{3, 1}},
		{2, "C", 1, 2, []float64{3, 1}},
		{4, "D", 1, 2, []float64{1, 0}},
		{4, "E", 1, 2, []float64{1, 0}},
		{6, "F", 0, 2, []float64{2, 0}},
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
