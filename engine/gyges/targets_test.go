package gyges

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// TestTargets: at every position of random games of both variants (the
// setup and the end included), and at a pass and after two, the undecoded
// list names the moves Moves lists, in its order: Append writes them, All
// yields them, At names each, Len counts them; the bit sets per start
// piece expand to them; and All stops when its loop does.
func TestTargets(t *testing.T) {
	for _, variant := range []string{"basic", "advanced"} {
		rng := rand.New(rand.NewPCG(39, 2))
		positions, replaces := 0, 0
		for game := 0; game < 30; game++ {
			st, err := New(engine.Config{Variant: variant})
			if err != nil {
				t.Fatal(err)
			}
			g := st.(*Game)
			for ply := 0; ply < 250; ply++ {
				want := checkTargets(t, g, rng, &replaces)
				if len(want) == 0 {
					break
				}
				positions++
				g.Play(want[rng.IntN(len(want))])
			}
		}
		if positions < 1000 || variant == "advanced" && replaces == 0 {
			t.Errorf("%s: %d positions, %d replaces: too few to tell", variant, positions, replaces)
		}
		// No piece on the board: a pass, then another, then a draw.
		g := mustGame(t, variant, pos("south", ""))
		for i := 0; i < 3; i++ {
			want := checkTargets(t, g, rng, &replaces)
			if n := len(want); n != 1-i/2 {
				t.Fatalf("%s, no piece, after %d passes: %d moves", variant, i, n)
			}
			if i < 2 {
				g.Play(Pass)
			}
		}
	}
}

// checkTargets checks g's Targets against its Moves and returns the moves.
func checkTargets(t *testing.T, g *Game, rng *rand.Rand, replaces *int) []engine.Move {
	t.Helper()
	var tg Targets
	want := g.Moves(nil)
	g.Targets(&tg)
	where := func() string { return fmt.Sprintf("advanced %v, %s", g.advanced, positionLine(g)) }
	if got := tg.Append(nil); !slices.Equal(got, want) {
		t.Fatalf("%s: Append %v, Moves %v", where(), got, want)
	}
	if tg.Len() != len(want) {
		t.Fatalf("%s: Len %d, Moves lists %d", where(), tg.Len(), len(want))
	}
	var yielded []engine.Move
	for m := range tg.All() {
		yielded = append(yielded, m)
	}
	if !slices.Equal(yielded, want) {
		t.Fatalf("%s: All yields %v, Moves %v", where(), yielded, want)
	}
	for i, m := range want {
		if got := tg.At(i); got != m {
			t.Fatalf("%s: At(%d) %v, Moves has %v", where(), i, got, m)
		}
	}
	// The bit sets per start piece expand to the movement list.
	if !g.Setup() && len(want) > 0 && want[0] != Pass {
		var exp []engine.Move
		for k := 0; k < tg.Starts(); k++ {
			s := tg.From(k)
			for e := tg.Ends(k); e != 0; e &= e - 1 {
				exp = append(exp, Step(s, Cell(bits.TrailingZeros64(e))))
			}
			for l := tg.Lands(k); l != 0; l &= l - 1 {
				for d := tg.Disp(k); d != 0; d &= d - 1 {
					exp = append(exp, Replace(s, Cell(bits.TrailingZeros64(l)), Cell(bits.TrailingZeros64(d))))
					*replaces++
				}
			}
		}
		if !slices.Equal(exp, want) {
			t.Fatalf("%s: the bit sets expand to %v, Moves %v", where(), exp, want)
		}
	} else if tg.Starts() != 0 {
		t.Fatalf("%s: %d start pieces with %v", where(), tg.Starts(), want)
	}
	if len(want) > 1 {
		stop := 1 + rng.IntN(len(want)-1)
		n := 0
		for range tg.All() {
			n++
			if n == stop {
				break
			}
		}
		if n != stop {
			t.Fatalf("%s: All went on to %d moves after its loop stopped at %d", where(), n, stop)
		}
	}
	return want
}

// TestTargetsAllocs: filling and reading an undecoded list allocates
// nothing.
func TestTargetsAllocs(t *testing.T) {
	games := midgameGames(t, "advanced")
	var tg Targets
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		for _, g := range games {
			g.Targets(&tg)
			for range tg.All() {
				n++
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a run of Targets and All over the mid-game positions", allocs)
	}
}

// TestTargetsShared: one search state used for the lists of many positions
// in turn (BenchmarkMidgameTargetsShared: the 64 mid-game positions, here in
// shuffled orders, and the positions of random games of both variants)
// gives each position the moves its Moves lists, and leaves the state as a
// fresh one would after that position alone: the same pieces searched, with
// the same open paths, so no search of an earlier position was reused
// (the state is not read in the setup and when the game is over).
func TestTargetsShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 12))
	x := new(chain)
	var tg Targets
	check := func(g *Game) []engine.Move {
		t.Helper()
		want := g.Moves(nil)
		g.targets(x, &tg)
		if got := tg.Append(nil); !slices.Equal(got, want) {
			t.Fatalf("advanced %v, %s: shared state gives %v, Moves %v", g.advanced, positionLine(g), got, want)
		}
		if g.status != engine.Playing || g.Setup() {
			return want // no search: the state is not read
		}
		var fresh chain
		var ft Targets
		g.targets(&fresh, &ft)
		if x.known != fresh.known {
			t.Fatalf("advanced %v, %s: shared state knows %#x, a fresh one %#x", g.advanced, positionLine(g), x.known, fresh.known)
		}
		for k := x.known; k != 0; k &= k - 1 {
			c := bits.TrailingZeros64(k)
			if x.open[c] != fresh.open[c] {
				t.Fatalf("advanced %v, %s: open paths of %v %#x, fresh %#x", g.advanced, positionLine(g), Cell(c), x.open[c], fresh.open[c])
			}
		}
		return want
	}
	games := midgameGames(t, "advanced")
	for round := 0; round < 4; round++ {
		for _, i := range rng.Perm(len(games)) {
			check(games[i])
		}
	}
	positions := 0
	for _, variant := range []string{"basic", "advanced"} {
		for game := 0; game < 20; game++ {
			g := mustGame(t, variant, rowsPosition("321123", "321123", "south"))
			for ply := 0; ply < 200; ply++ {
				want := check(g)
				if len(want) == 0 {
					break
				}
				positions++
				g.Play(want[rng.IntN(len(want))])
			}
		}
	}
	if positions < 1000 {
		t.Errorf("%d positions of random games: too few to tell", positions)
	}
}
