package six

import (
	"fmt"
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
