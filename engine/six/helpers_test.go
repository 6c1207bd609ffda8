package six

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

func variantName(adv bool) string {
	if adv {
		return "advanced"
	}
	return "basic"
}

func mustNew(t testing.TB, variant string, players int, start *engine.Position) *State {
	t.Helper()
	s, err := New(engine.Config{Variant: variant, Players: players, Start: start})
	if err != nil {
		t.Fatalf("New(%s, %d): %v", variant, players, err)
	}
	return s.(*State)
}

// pos builds a start position: black and red are space-separated cells.
func pos(toMove, black, red string, hands map[string]any) *engine.Position {
	p := &engine.Position{ToMove: toMove, Pieces: map[string]string{}, Hands: hands}
	for _, c := range strings.Fields(black) {
		p.Pieces[c] = "black"
	}
	for _, c := range strings.Fields(red) {
		p.Pieces[c] = "red"
	}
	return p
}

func sortedMoves(s engine.State) []string {
	var out []string
	for _, m := range s.Moves(make([]engine.Move, 0, 2048)) {
		out = append(out, engine.MoveString(s, m))
	}
	slices.Sort(out)
	return out
}

func playText(t testing.TB, s engine.State, moves ...string) {
	t.Helper()
	for _, text := range moves {
		m, err := s.ParseMove(text)
		if err != nil {
			t.Fatalf("ParseMove(%q): %v", text, err)
		}
		s.Play(m)
	}
}

// checkInvariants verifies the internal views agree: tiles and cells, the
// counts, the hash, connectedness and the window margins.
func checkInvariants(t testing.TB, s *State) {
	t.Helper()
	seen := 0
	var cnt [2]int8
	for i := 0; i < s.n; i++ {
		idx := int(s.tiles[i])
		c := s.cells[idx]
		if c == 0 || int(c>>2) != i {
			t.Fatalf("slot %d: cell %s holds %#x", i, s.cellName(idx), c)
		}
		q, r := idx&wMask, idx>>wBits
		if q < margin-1 || r < margin-1 || q > wSide-margin || r > wSide-margin {
			t.Fatalf("tile %s outside the window margins (local %d,%d)", s.cellName(idx), q, r)
		}
		cnt[c&3-1]++
	}
	for i := range s.cells {
		if s.cells[i] != 0 {
			seen++
		}
	}
	if seen != s.n {
		t.Fatalf("%d occupied cells, %d tiles", seen, s.n)
	}
	if cnt != s.onTable {
		t.Fatalf("onTable %v, counted %v", s.onTable, cnt)
	}
	if h := s.computeHash(); h != s.hash {
		t.Fatalf("incremental hash %#x, recomputed %#x", s.hash, h)
	}
	if s.n > 0 {
		if got := s.reach(-1, int(s.tiles[0]), nil); got != s.n {
			t.Fatalf("table not connected: %d of %d", got, s.n)
		}
	}
}

// randomStart grows a random connected table of n tiles around a random
// centre, colours it and deals hands (0 hands: movement phase).
func randomStart(rng *rand.Rand, seats int, placing bool) *engine.Position {
	n := 2 + rng.IntN(41)
	cq, cr := rng.IntN(2001)-1000, rng.IntN(2001)-1000
	if rng.IntN(3) == 0 {
		cq, cr = 0, 0
	}
	cells := []rc{{cq, cr}}
	in := map[rc]bool{{cq, cr}: true}
	sparse := rng.IntN(2) == 0 // tree-like tables have many articulation tiles
	for len(cells) < n {
		c := cells[rng.IntN(len(cells))]
		nb := c.nb()[rng.IntN(6)]
		if in[nb] {
			continue
		}
		if sparse {
			k := 0
			for _, x := range nb.nb() {
				if in[x] {
					k++
				}
			}
			if k > 1 && rng.IntN(4) != 0 {
				continue
			}
		}
		in[nb] = true
		cells = append(cells, nb)
	}
	names := []string{"black", "red"}
	if seats == 4 {
		names = []string{"black1", "red1", "black2", "red2"}
	}
	p := &engine.Position{ToMove: names[rng.IntN(seats)], Pieces: map[string]string{}, Hands: map[string]any{}}
	var cnt [2]int
	for _, c := range cells {
		col := rng.IntN(2)
		if cnt[col] == perColour {
			col = 1 - col
		}
		cnt[col]++
		p.Pieces[c.String()] = []string{"black", "red"}[col]
	}
	for i, name := range names {
		h := 0
		if placing {
			left := perColour - cnt[i%2]
			if seats == 4 {
				left = min(left/2, perColour/2)
			}
			h = rng.IntN(left + 1)
			if rng.IntN(4) == 0 {
				h = 0
			}
		}
		p.Hands[name] = h
	}
	return p
}

// movementPosition plays random placements from the start until all
// hexagons are on the table with the game still on.
func movementPosition(t testing.TB, variant string, players int, rng *rand.Rand) *State {
	t.Helper()
	for {
		s := mustNew(t, variant, players, nil)
		for s.Placing() && s.Result().Status == engine.Playing {
			moves := s.Moves(nil)
			s.Play(moves[rng.IntN(len(moves))])
		}
		if s.Result().Status == engine.Playing {
			return s
		}
	}
}
