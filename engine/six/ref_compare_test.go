package six

import (
	"errors"
	"fmt"
	"github.com/tabla-board/tabla/engine/enginetest"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// compareGame plays one random game in both the engine and the reference,
// comparing the legal moves, the outcome and the position at every step. It
// returns the number of positions compared.
func compareGame(t *testing.T, s *State, rng *rand.Rand, maxPlies int, checkEnding bool) int {
	t.Helper()
	ref := refFrom(s.Position(), s.advanced, int(s.nSeats))
	positions := 0
	for ply := 0; ply < maxPlies; ply++ {
		got, want := sortedMoves(s), ref.moves()
		positions++
		if !slices.Equal(got, want) {
			t.Fatalf("ply %d, %s:\nengine    %d moves %v\nreference %d moves %v\nonly engine %v\nonly reference %v",
				ply, ref, len(got), got, len(want), want, minus(got, want), minus(want, got))
		}
		if len(got) == 0 {
			break
		}
		for _, x := range got {
			if strings.Contains(x, "/") {
				tiedSeen++
			}
		}
		text := got[rng.IntN(len(got))]
		nBefore := s.n
		m, err := s.ParseMove(text)
		if err != nil {
			t.Fatalf("ply %d: ParseMove(%q): %v", ply, text, err)
		}
		s.Play(m)
		ref.play(text)
		checkInvariants(t, s)
		if s.n < nBefore {
			splitsSeen++
		}
		if r := s.Result(); r.Status != ref.status || r.Winner != ref.winner || (checkEnding && s.ending != ref.ending) {
			t.Fatalf("ply %d after %s: engine %v %v, reference %v %d %v (%s)", ply, text, r, s.ending, ref.status, ref.winner, ref.ending, ref)
		}
		if s.status == engine.Playing && s.ToMove() != ref.toMove {
			t.Fatalf("ply %d: to move %d, reference %d", ply, s.ToMove(), ref.toMove)
		}
		back := refFrom(s.Position(), s.advanced, int(s.nSeats))
		if back.String() != ref.String() {
			t.Fatalf("ply %d: position\n%s\nreference\n%s", ply, back, ref)
		}
	}
	return positions
}

// Coverage counters of the reference comparisons.
var tiedSeen, splitsSeen int

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func TestReferenceFromStart(t *testing.T) {
	games := 40
	if enginetest.Reduced() {
		// 3 games under the race detector (one goroutine: it watches
		// nothing here); CI plays the 40 without it (go test ./engine/...)
		games = 3
	}
	if testing.Short() {
		games = 8
	}
	for _, adv := range []bool{false, true} {
		for _, seats := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%dp", variantName(adv), seats), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seats), 7))
				total := 0
				for g := 0; g < games; g++ {
					s := mustNew(t, variantName(adv), seats, nil)
					total += compareGame(t, s, rng, 400, true)
				}
				t.Logf("%d positions compared", total)
			})
		}
	}
	t.Logf("%d tied-split moves listed, %d splits played", tiedSeen, splitsSeen)
}

func TestReferenceRandomTables(t *testing.T) {
	games := 600
	if enginetest.Reduced() {
		games = 40 // as TestReferenceFromStart: CI plays the 600 without -race
	}
	if testing.Short() {
		games = 100
	}
	for _, adv := range []bool{false, true} {
		for _, seats := range []int{2, 4} {
			for _, placing := range []bool{false, true} {
				name := fmt.Sprintf("%s/%dp/placing=%v", variantName(adv), seats, placing)
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(seats)*31+1, uint64(len(name))))
					total := 0
					for g := 0; g < games; g++ {
						p := randomStart(rng, seats, placing)
						s := mustNew(t, variantName(adv), seats, p)
						total += compareGame(t, s, rng, 12, !s.fullScan)
					}
					t.Logf("%d positions compared", total)
				})
			}
		}
	}
	t.Logf("%d tied-split moves listed, %d splits played", tiedSeen, splitsSeen)
}

// TestParseMatchesMoves checks that ParseMove accepts exactly the listed
// moves: every placement and movement text over the table's surroundings,
// and every suffix cell of tied splits, on random positions.
func TestParseMatchesMoves(t *testing.T) {
	positions := enginetest.Scale(60)
	if testing.Short() {
		positions = 16
	}
	rng := rand.New(rand.NewPCG(17, 19))
	tiedChecked, parsed := 0, 0
	defer func() { t.Logf("%d texts parsed, %d tied splits checked cell by cell", parsed, tiedChecked) }()
	for i := 0; i < positions; i++ {
		adv := i%2 == 1
		seats := 2 + 2*(i/2%2)
		var s *State
		if i%3 == 0 {
			s = movementPosition(t, variantName(adv), seats, rng)
			for k := rng.IntN(30); k > 0 && s.Result().Status == engine.Playing; k-- {
				moves := s.Moves(nil)
				s.Play(moves[rng.IntN(len(moves))])
			}
		} else {
			s = mustNew(t, variantName(adv), seats, randomStart(rng, seats, i%3 == 1))
		}
		if s.Result().Status != engine.Playing {
			continue
		}
		legal := map[string]bool{}
		for _, m := range sortedMoves(s) {
			legal[m] = true
		}
		ref := refFrom(s.Position(), adv, seats)
		minQ, maxQ, minR, maxR := 1<<30, -1<<30, 1<<30, -1<<30
		var own []rc
		for c, col := range ref.pieces {
			minQ, maxQ, minR, maxR = min(minQ, c.q), max(maxQ, c.q), min(minR, c.r), max(maxR, c.r)
			if col == ref.toMove%2 {
				own = append(own, c)
			}
		}
		var area []rc
		for q := minQ - 2; q <= maxQ+2; q++ {
			for r := minR - 2; r <= maxR+2; r++ {
				area = append(area, rc{q, r})
			}
		}
		check := func(text string, want bool, canon string) {
			parsed++
			m, err := s.ParseMove(text)
			switch {
			case want && err != nil:
				t.Fatalf("position %d (%s): %s is legal but %v", i, ref, text, err)
			case want && engine.MoveString(s, m) != canon:
				t.Fatalf("position %d: %s parses as %s, want %s", i, text, engine.MoveString(s, m), canon)
			case !want && err == nil:
				t.Fatalf("position %d (%s): %s is illegal but parses", i, ref, text)
			case !want && !errors.Is(err, engine.ErrIllegal):
				t.Fatalf("position %d: %s: %v does not wrap ErrIllegal", i, text, err)
			}
		}
		check("pass", legal["pass"], "pass")
		for _, c := range area {
			check(c.String(), legal[c.String()], c.String())
			for _, f := range own {
				text := f.String() + ">" + c.String()
				tied := ""
				for m := range legal {
					if strings.HasPrefix(m, text+"/") {
						tied = m
					}
				}
				if tied == "" {
					check(text, legal[text], text)
					if rng.IntN(20) == 0 {
						check(text+"/"+own[0].String(), false, "")
					}
					continue
				}
				check(text, false, "")
				tiedChecked++
				// Every cell: legal exactly for the cells of the kept
				// groups that c touches.
				others := map[rc]bool{}
				for o := range ref.pieces {
					if o != f {
						others[o] = true
					}
				}
				for _, g := range refGroups(others) {
					small := g[0].String()
					for _, x := range g {
						small = min(small, x.String())
					}
					canon := text + "/" + small
					for _, x := range g {
						check(text+"/"+x.String(), legal[canon], canon)
					}
				}
				check(text+"/"+f.String(), false, "")
			}
		}
	}
}
