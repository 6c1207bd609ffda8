package six

import (
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// legalCandidates are moves to ask Legal about in s: every listed move,
// the moves of the positions before (prev), and moves made up from the
// table: each hexagon to every empty cell within two of a hexagon, with
// no keep and with two hexagons drawn by rng as keep, and a placement on
// each such cell (most of them not legal here).
func legalCandidates(s *State, rng *rand.Rand, listed, prev []engine.Move) []engine.Move {
	out := append(append([]engine.Move{Pass, engine.NoMove, Pass | 4}, listed...), prev...)
	var tiles, empty []Cell
	seen := map[Cell]bool{}
	for i := 0; i < s.n; i++ {
		q, r := s.coord(int(s.tiles[i]))
		tiles = append(tiles, Cell{int(q), int(r)})
	}
	for _, t := range tiles {
		for d := range 6 {
			for d2 := range 7 {
				c := Cell{t.Q + int(dirQ[d]), t.R + int(dirR[d])}
				if d2 < 6 {
					c.Q, c.R = c.Q+int(dirQ[d2]), c.R+int(dirR[d2])
				}
				if _, on := s.At(c.Q, c.R); !on && !seen[c] {
					seen[c] = true
					empty = append(empty, c)
				}
			}
		}
	}
	for _, to := range empty {
		out = append(out, PlaceMove(to))
		for _, from := range tiles {
			out = append(out, StepMove(from, to, nil))
			for range 2 {
				out = append(out, StepMove(from, to, &tiles[rng.IntN(len(tiles))]))
			}
		}
	}
	// a movement onto an occupied cell, and from an empty one
	if len(tiles) > 1 {
		out = append(out, StepMove(tiles[0], tiles[1], nil), StepMove(empty[0], empty[1], nil))
	}
	return out
}

// TestLegal: Legal calls a move legal exactly when Moves lists it, for the
// listed moves, moves of earlier positions and moves made up round the
// table, in random games of both variants with two and four players and
// on random tables (many cut tiles, ties between the groups a split
// leaves), and it leaves the position as it was.
func TestLegal(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 1))
	asked, legal := 0, 0
	check := func(t *testing.T, s *State, prev []engine.Move) {
		t.Helper()
		listed := s.Moves(nil)
		in := map[engine.Move]bool{}
		for _, m := range listed {
			in[m] = true
		}
		h := s.Hash()
		for _, m := range legalCandidates(s, rng, listed, prev) {
			if got := s.Legal(m); got != in[m] {
				t.Fatalf("%s: Legal(%s) = %v, listed %v", s.Position().Pieces, moveText(s, m), got, in[m])
			}
			asked++
			if in[m] {
				legal++
			}
		}
		if s.Hash() != h {
			t.Fatal("Legal changed the position")
		}
		checkInvariants(t, s)
	}
	games := enginetest.Scale(8)
	for _, adv := range []bool{false, true} {
		for _, players := range []int{2, 4} {
			t.Run(variantName(adv)+"/"+map[int]string{2: "two", 4: "four"}[players], func(t *testing.T) {
				for g := 0; g < games; g++ {
					s := mustNew(t, variantName(adv), players, nil)
					var prev []engine.Move
					for ply := 0; ply < 80 && s.Result().Status == engine.Playing; ply++ {
						listed := s.Moves(nil)
						if ply%3 == g%3 {
							check(t, s, prev)
						}
						prev = listed
						s.Play(listed[rng.IntN(len(listed))])
					}
					if s.Result().Status != engine.Playing {
						if s.Legal(Pass) || len(prev) > 0 && s.Legal(prev[0]) {
							t.Fatal("a move is legal after the end")
						}
					}
				}
				for g := 0; g < 4*games; g++ {
					s := mustNew(t, variantName(adv), players, randomStart(rng, players, g%2 == 0))
					if s.Result().Status == engine.Playing {
						check(t, s, nil)
					}
				}
			})
		}
	}
	if legal == 0 || legal == asked {
		t.Fatalf("%d of %d candidates legal", legal, asked)
	}
	t.Logf("%d candidates, %d legal", asked, legal)
}

// moveText names m for a message (MoveString may not know a made-up move).
func moveText(s *State, m engine.Move) string {
	if m == engine.NoMove {
		return "NoMove"
	}
	k, from, to, keep, hasKeep := DecodeMove(m)
	text := string(k) + " " + from.String() + ">" + to.String()
	if hasKeep {
		text += "/" + keep.String()
	}
	return text
}

// TestJoinedRound: where joinedRound says a tile's neighbours hang
// together without it, lifting it leaves one group (groups), on random
// tables (many cut tiles) and tables of random games; and it says so for
// most tiles that are not cut tiles.
func TestJoinedRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 2))
	joined, notCut := 0, 0
	check := func(s *State) {
		s.buildAdj()
		for slot := 0; slot < s.n; slot++ {
			one := s.groups(slot) <= 1
			j := s.joinedRound(int(s.tiles[slot]))
			if j && !one {
				t.Fatalf("%v: the neighbours of %s hang together, but lifting it splits the table", s.Position().Pieces, s.cellName(int(s.tiles[slot])))
			}
			if one {
				notCut++
				if j {
					joined++
				}
			}
		}
	}
	for g := 0; g < 200; g++ {
		check(mustNew(t, "advanced", 2, randomStart(rng, 2, false)))
		s := mustNew(t, "advanced", 2, nil)
		for s.Result().Status == engine.Playing && s.Plies() < 60+g%40 {
			moves := s.Moves(nil)
			s.Play(moves[rng.IntN(len(moves))])
		}
		if s.Result().Status == engine.Playing {
			check(s)
		}
	}
	if joined*2 < notCut {
		t.Fatalf("joinedRound found %d of %d tiles that are not cut tiles", joined, notCut)
	}
	t.Logf("joinedRound: %d of %d tiles that are not cut tiles", joined, notCut)
}

// TestGroupsOnTable: groupsOnTable labels the groups left by lifting each
// tile as buildAdj and groups do (labels, sizes, number), on random
// tables and tables of random games.
func TestGroupsOnTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 3))
	split := 0
	check := func(s *State) {
		s.buildAdj()
		for slot := 0; slot < s.n; slot++ {
			nc := s.groups(slot)
			comp, size := s.sc.comp, s.sc.size
			if got := s.groupsOnTable(slot); got != nc || s.sc.comp != comp || s.sc.size != size {
				t.Fatalf("%v, lifting %s: %d groups %v sizes %v, groups gives %d %v %v", s.Position().Pieces, s.cellName(int(s.tiles[slot])), got, s.sc.comp[:s.n], s.sc.size[:got], nc, comp[:s.n], size[:nc])
			}
			if nc > 1 {
				split++
			}
		}
	}
	for g := 0; g < 200; g++ {
		check(mustNew(t, "advanced", 2, randomStart(rng, 2, false)))
		s := mustNew(t, "advanced", 2, nil)
		for s.Result().Status == engine.Playing && s.Plies() < 60+g%40 {
			moves := s.Moves(nil)
			s.Play(moves[rng.IntN(len(moves))])
		}
		if s.Result().Status == engine.Playing {
			check(s)
		}
	}
	if split == 0 {
		t.Fatal("no tile splits the table")
	}
}
