package club

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
	"github.com/tabla-board/tabla/engine/rating"
)

// TestArbiterTools: a Swiss of six with a late entry (rated 1700 ± 80),
// a requested bye, a pause, a forfeit and a pairing by hand with a
// rematch: who is paired, the points (nothing for rounds missed, ½ for
// the bye, the forfeit scored but neither a meeting nor rated), the
// crosstable's cells, and the TRF report read back pairing the next
// round as the section itself does.
func TestArbiterTools(t *testing.T) {
	s := section(Swiss, two, 5, 4, "A", "B", "C", "D", "E", "F")
	if _, err := s.PairNext(); err != nil {
		t.Fatal(err)
	}
	finish(t, s)
	if err := s.Enter("Gina", rating.Rating{R: 1700, RD: 80, Sigma: 0.06}); err != nil {
		t.Fatal(err)
	}
	if err := s.Enter("gina", rating.New()); err == nil {
		t.Fatal("Gina entered twice")
	}
	if err := s.RequestBye("A", 1); err == nil {
		t.Fatal("a bye for a round paired already")
	}
	if err := s.RequestBye("A", 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Withdraw("F", Paused); err != nil {
		t.Fatal(err)
	}
	r2, err := s.PairNext()
	if err != nil {
		t.Fatal(err)
	}
	paired := map[string]bool{}
	for _, p := range r2.Pairings {
		for _, n := range p.Players {
			paired[n] = true
		}
	}
	if paired["A"] || paired["F"] || !paired["Gina"] || len(paired) != 4 || !slices.Equal(r2.Half, []string{"A"}) || !slices.Equal(r2.Absent, []string{"F"}) || len(r2.Byes) != 1 {
		t.Fatalf("round 2: %v, half %v, absent %v, byes %v", paired, r2.Half, r2.Absent, r2.Byes)
	}
	// board 1 forfeited by its second seat
	b1 := r2.Pairings[0]
	if _, err := s.Forfeit(2, 1, []string{"nobody"}); err == nil {
		t.Fatal("a forfeit by someone not on the board")
	}
	if _, err := s.Forfeit(2, 1, []string{b1.Players[1]}); err != nil {
		t.Fatal(err)
	}
	if r := b1.Result; !r.Forfeit || !slices.Equal(r.Points, []float64{1, 0}) {
		t.Fatalf("forfeit: %+v", r)
	}
	for _, p := range r2.Pairings[1:] {
		p.Result = &Result{Places: []int{1, 1}, Points: []float64{0.5, 0.5}, End: "draw", By: "table"}
	}
	h := s.history()
	if h.met[b1.Players[0]][b1.Players[1]] != 0 || h.games[b1.Players[0]] != 1 {
		t.Fatalf("the forfeit counted as a meeting or a game: met %d, %s's games %d", h.met[b1.Players[0]][b1.Players[1]], b1.Players[0], h.games[b1.Players[0]])
	}
	r1pts := map[string]float64{}
	for _, p := range s.Played[0].Pairings {
		for i, n := range p.Players {
			r1pts[n] = p.Result.Points[i]
		}
	}
	if h.points["A"] != r1pts["A"]+0.5 || h.points["F"] != r1pts["F"] {
		t.Fatalf("A (round 1, then a half bye) %v, F (round 1, then paused) %v; round 1 %v", h.points["A"], h.points["F"], r1pts)
	}
	gina := 0.0 // round 1 missed: nothing; round 2 as scored
	for _, p := range r2.Pairings {
		if i := slices.Index(p.Players, "Gina"); i >= 0 {
			gina = p.Result.Points[i]
		}
	}
	if h.points["Gina"] != gina {
		t.Fatalf("Gina %v, want %v (round 2 only)", h.points["Gina"], gina)
	}
	before, err := s.Ratings()
	if err != nil {
		t.Fatal(err)
	}
	// the forfeit is not rated: the winner's rating is that of their
	// other games alone
	win := b1.Players[0]
	saved := b1.Result
	b1.Result = nil
	s.Played[1].Pairings = slices.DeleteFunc(slices.Clone(s.Played[1].Pairings), func(p *Pairing) bool { return p == b1 })
	without, _ := s.Ratings()
	s.Played[1].Pairings = append([]*Pairing{b1}, s.Played[1].Pairings...)
	b1.Result = saved
	if before[win] != without[win] {
		t.Fatalf("the forfeit was rated: %v, without it %v", before[win], without[win])
	}
	// the crosstable: + and −, ½ bye, − for the paused and the round
	// Gina missed
	rows := s.Crosstable()
	cell := func(name string, round int) string {
		for _, r := range rows {
			if r.Name == name {
				return r.Cells[round-1].Text
			}
		}
		return "?"
	}
	if c := cell(b1.Players[0], 2); !strings.HasSuffix(c, "w+") {
		t.Errorf("the forfeit's winner: %q", c)
	}
	if c := cell(b1.Players[1], 2); !strings.HasSuffix(c, "b−") {
		t.Errorf("the forfeit's loser: %q", c)
	}
	if cell("A", 2) != "½ bye" || cell("F", 2) != "−" || cell("Gina", 1) != "−" {
		t.Errorf("A %q, F %q, Gina round 1 %q", cell("A", 2), cell("F", 2), cell("Gina", 1))
	}
	var csv bytes.Buffer
	if err := s.WriteCrosstableCSV(&csv); err != nil || !strings.HasPrefix(csv.String(), "no,rank,name,rating,rd,out,R1,R2,points,Buchholz,Sonneborn-Berger\n") {
		t.Errorf("CSV: %v\n%s", err, csv.String())
	}
	// the TRF report, read back, pairs round 3 as the section does
	if err := s.Enter("F", rating.New()); err != nil { // F back
		t.Fatal(err)
	}
	tr, err := s.TRF("Cup")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := trf.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := trf.Read(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	fromTRF, err := PairTRF(back, SystemDutch)
	if err != nil {
		t.Fatal(err)
	}
	sh, _, err := s.SwissHistory(0)
	if err != nil {
		t.Fatal(err)
	}
	own, err := PairDutch(sh)
	if err != nil {
		t.Fatal(err)
	}
	if fromTRF.String() != own.String() {
		t.Errorf("round 3 from the TRF %s, from the section %s\n%s", fromTRF, own, buf.String())
	}
	pts := map[string]float64{}
	for _, st := range s.Standings() {
		pts[st.Name] = st.Points
	}
	for _, p := range back.Players {
		if p.Points != pts[p.Name] {
			t.Errorf("TRF: %s has %v points, the standings %v", p.Name, p.Points, pts[p.Name])
		}
	}
	// a pairing by hand: every player once, a rematch warned of
	r1 := s.Played[0].Pairings[0]
	names := []string{}
	for _, p := range s.Players {
		names = append(names, p.Name)
	}
	others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(r1.Players, n) })
	if _, _, err := s.PairByHand([][]string{r1.Players, {others[0], others[1]}}, nil, "Zeynep"); err == nil || !strings.Contains(err.Error(), "not paired") {
		t.Fatalf("a pairing leaving players out: %v", err)
	}
	if _, _, err := s.PairByHand([][]string{r1.Players, {others[0], r1.Players[0]}}, nil, "Zeynep"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a player paired twice: %v", err)
	}
	r3, warn, err := s.PairByHand([][]string{r1.Players, {others[0], others[1]}, {others[2], others[3]}}, []string{others[4]}, "Zeynep")
	if err != nil {
		t.Fatal(err)
	}
	if r3.N != 3 || r3.By != "Zeynep" || len(warn) == 0 || !strings.Contains(warn[0].English(), "board 1: a rematch: "+r1.Players[0]+" and "+r1.Players[1]+" have met once") {
		t.Fatalf("round 3 by hand: %+v, warnings %v", r3, warn)
	}
	// an unfinished round: a new pairing by hand replaces it
	r3b, _, err := s.PairByHand([][]string{{others[0], r1.Players[0]}, {others[1], r1.Players[1]}, {others[2], others[3]}}, []string{others[4]}, "Zeynep")
	if err != nil || r3b.N != 3 || len(s.Played) != 3 {
		t.Fatalf("round 3 paired again: %v, %d rounds", err, len(s.Played))
	}
	if err := s.End(); err == nil || !strings.Contains(err.Error(), "round 3 waits for board 1, board 2, board 3") {
		t.Fatalf("ended with the round open: %v", err)
	}
	finish(t, s)
	if err := s.End(); err != nil || !s.Finished() {
		t.Fatalf("end: %v, finished %v", err, s.Finished())
	}
	if _, err := s.PairNext(); err == nil {
		t.Fatal("a round paired after the end")
	}
}

// TestStuckSwiss: four players, four rounds: after three everyone has
// met everyone, round 4 cannot be paired (Stuck says so); the arbiter
// allows rematches: round 1's games are played again.
func TestStuckSwiss(t *testing.T) {
	s := section(Swiss, two, 4, 2, "A", "B", "C", "D")
	for range 3 {
		if _, err := s.PairNext(); err != nil {
			t.Fatal(err)
		}
		finish(t, s)
	}
	if _, err := s.PairNext(); !errors.Is(err, ErrNoPairing) || s.Stuck == "" {
		t.Fatalf("round 4: %v, stuck %q", err, s.Stuck)
	}
	r, k, err := s.PairAllowingRematch()
	if err != nil || k != 1 || s.Stuck != "" {
		t.Fatalf("rematch: %v, k %d, stuck %q", err, k, s.Stuck)
	}
	key := func(p *Pairing) string { a, b := p.Players[0], p.Players[1]; return min(a, b) + max(a, b) }
	var got, want []string
	for _, p := range r.Pairings {
		got = append(got, key(p))
	}
	for _, p := range s.Played[0].Pairings {
		want = append(want, key(p))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("round 4 %v, want round 1's games again %v", got, want)
	}
}

func TestParseResult(t *testing.T) {
	for in, want := range map[string][]int{"1-0": {1, 2}, "1–0": {1, 2}, "0-1": {2, 1}, "½-½": {1, 1}, "1/2-1/2": {1, 1}, "0.5 - 0.5": {1, 1}, "=": {1, 1}} {
		if got, err := ParseResult(in, 2); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for in, want := range map[string][]int{"2 1 4 3": {2, 1, 4, 3}, "1,1,3,4": {1, 1, 3, 4}, "2-2-1-4": {2, 2, 1, 4}} {
		if got, err := ParseResult(in, 4); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"2-0", "1-1", "", "1-0-0"} {
		if _, err := ParseResult(bad, 2); err == nil {
			t.Errorf("%q read as a result", bad)
		}
	}
	for _, bad := range []string{"1 2 3", "1 1 2 4", "2 2 3 4", "1 2 3 5"} {
		if _, err := ParseResult(bad, 4); err == nil {
			t.Errorf("%q read as places", bad)
		}
	}
	for v, want := range map[float64]string{0.25: "0.25", 0.5: "½", 1.5: "1½", 3: "3", 2.75: "2.75"} {
		if got := FormatPoints(v); got != want {
			t.Errorf("FormatPoints(%v) = %q, want %q", v, got, want)
		}
	}
}
