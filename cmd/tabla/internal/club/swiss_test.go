package club

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestDutchRandom pairs random tournaments with what the oracle lacks —
// forfeits, requested half-point byes, players left out of a round,
// player 1 starting in the second seat — and checks every pairing:
// each player to pair once, nobody left out paired, the bye only for an
// odd count and never a second, no rematch of a game played.
func TestDutchRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	rounds, refused := 0, 0
	for range 150 {
		n := 4 + rng.IntN(17)
		h := &SwissHistory{Planned: 3 + rng.IntN(7), SecondSeatFirst: rng.IntN(2) == 0}
		for i := range n {
			h.Ratings = append(h.Ratings, 2400-50*i)
		}
		for len(h.Rounds) < h.Planned {
			h.Out = nil
			for i := 1; i <= n; i++ {
				if rng.IntN(12) == 0 {
					h.Out = append(h.Out, i)
				}
			}
			p, err := PairDutch(h)
			if errors.Is(err, ErrNoPairing) {
				refused++
				break
			}
			if err != nil {
				t.Fatalf("%d players, round %d: %v", n, len(h.Rounds)+1, err)
			}
			rounds++
			if err := h.build().check(p, false); err != nil {
				t.Fatalf("%d players, round %d, out %v: %v: %v", n, len(h.Rounds)+1, h.Out, p, err)
			}
			var r SwissRound
			for _, b := range p.Boards {
				g := SwissGame{First: b[0], Second: b[1], Score: []float64{0, 0.5, 1}[rng.IntN(3)], Forfeit: rng.IntN(15) == 0}
				if g.Forfeit && g.Score == 0.5 {
					g.Score = 1
				}
				r.Games = append(r.Games, g)
			}
			if p.Bye != 0 {
				r.Byes = append(r.Byes, SwissBye{Player: p.Bye, Points: 1, Allocated: true})
			}
			for _, x := range h.Out {
				r.Byes = append(r.Byes, SwissBye{Player: x, Points: []float64{0, 0.5}[rng.IntN(2)]})
			}
			h.Rounds = append(h.Rounds, r)
		}
	}
	t.Logf("%d rounds paired, %d refused", rounds, refused)
	if rounds < 500 {
		t.Errorf("only %d rounds", rounds)
	}
}

// TestSwissLookahead: six players, four rounds, results that lead the
// plain Dutch pairing of round 3 (Cem–Bora, Elif–Deniz, Ayşe–Filiz) to
// a round 4 of two triangles who have all met; the section looks ahead
// and plays all four rounds without a rematch (hub's TestClubEvening
// works the rounds out by hand).
func TestSwissLookahead(t *testing.T) {
	s := section(Swiss, two, 4, 3, "Ayşe", "Bora", "Cem", "Deniz", "Elif", "Filiz")
	res := [][][]int{{{2, 1}, {1, 2}, {1, 2}}, {{2, 1}, {1, 2}, {1, 2}}, {{1, 2}, {1, 2}, {1, 2}}, {{2, 1}, {2, 1}, {2, 1}}}
	met := map[[2]string]bool{}
	for r := range 4 {
		rd, err := s.PairNext()
		if err != nil {
			t.Fatalf("round %d: %v", r+1, err)
		}
		for _, p := range rd.Pairings {
			k := [2]string{min(p.Players[0], p.Players[1]), max(p.Players[0], p.Players[1])}
			if met[k] {
				t.Errorf("round %d: %v again", r+1, k)
			}
			met[k] = true
		}
		finish(t, s, res[r]...)
	}
}
