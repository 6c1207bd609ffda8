package daha

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// playoutStates returns positions with a roll due on the default board
// (random games of every phase) and on random boards, some of them with
// a graph whose reach table is the "within k steps" superset.
func playoutStates(t *testing.T) []*State {
	t.Helper()
	var out []*State
	for _, ph := range phases {
		out = append(out, phaseStates(16, ph.lo, ph.hi)...)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 40; i++ {
		b := randomBoard(t, rng, 6+rng.IntN(40), rng.IntN(60))
		s, err := newState(engine.Config{Board: b, Start: ptr(randomStart(b, rng))})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			// The same board with the superset reach table.
			g, err := buildGraph(b, 10)
			if err != nil {
				t.Fatal(err)
			}
			if g.exact {
				t.Fatal("a budget of 10 paths left the reach table exact")
			}
			s.g = g
		}
		if s.Awaiting() == engine.AwaitRoll {
			out = append(out, s)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// TestReaches: the search for one end, and the path index where the board
// has one, agree with the destination set on
// every colour, roll and free cell of every position, the reach table
// exact or not.
func TestReaches(t *testing.T) {
	n, indexed := 0, 0
	for _, s := range playoutStates(t) {
		for p := 0; p < numColours; p++ {
			if s.pos[p] < 0 {
				continue
			}
			c, blocked := int(s.pos[p]), s.blocked(p)
			for k := 1; k <= maxRoll; k++ {
				d := s.g.dests(c, k, blocked)
				for t2 := 0; t2 < s.g.n; t2++ {
					if blocked>>uint(t2)&1 != 0 {
						continue
					}
					if got, want := s.g.reaches(c, ^blocked, k, t2), d>>uint(t2)&1 != 0; got != want {
						t.Fatalf("board %s, %s from %s, roll %d: reaches %s %v, destinations %v",
							s.g.board.Name, Colour(p), s.g.names[c], k, s.g.names[t2], got, maskNames(s, d))
					}
					if px := s.g.paths; px != nil {
						if got, want := px.reaches(c, k, t2, blocked), d>>uint(t2)&1 != 0; got != want {
							t.Fatalf("board %s, %s from %s, roll %d: the path index reaches %s %v, destinations %v",
								s.g.board.Name, Colour(p), s.g.names[c], k, s.g.names[t2], got, maskNames(s, d))
						}
						indexed++
					}
					n++
				}
			}
		}
	}
	if n < 10000 || indexed < 5000 {
		t.Fatalf("only %d queries, %d of the path index", n, indexed)
	}
}

// TestPlayoutTurns: every turn a playout plays is a legal roll and move of
// the game (an elimination exactly when the roll leaves no destination),
// checked against a copy that plays them through Roll and Play; and
// RandomPlayout ends on a position with its hash and restores the one it
// started from.
func TestPlayoutTurns(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	turns, elims := 0, 0
	for _, s0 := range playoutStates(t) {
		for range 4 {
			s := s0.Clone().(*State)
			shadow := s0.Clone().(*State)
			if rng.IntN(2) == 0 {
				// Start some with a move due.
				f := rng.IntN(maxRoll)
				if err := s.Roll(f); err != nil {
					t.Fatal(err)
				}
				shadow.Roll(f)
			}
			x := rng.Uint64()
			for s.winner < 0 && s.plies < 300 {
				p, due := s.toMove, s.roll
				k, to := s.turn(&x)
				if due != 0 {
					if k != 0 {
						t.Fatalf("a move was due, turn rolled %d", k)
					}
				} else {
					if k < 1 || k > maxRoll {
						t.Fatalf("roll %d", k)
					}
					if err := shadow.Roll(k - 1); err != nil {
						t.Fatal(err)
					}
					if out := shadow.pos[p] < 0; out != (to < 0) {
						t.Fatalf("%s rolled %d: eliminated %v, turn's destination %d", Colour(p), k, out, to)
					}
					if to < 0 {
						elims++
					}
				}
				if to >= 0 {
					if shadow.Destinations()>>uint(to)&1 == 0 {
						t.Fatalf("%s moved to %s, not among %v", Colour(p), s.g.names[to], maskNames(shadow, shadow.Destinations()))
					}
					shadow.Play(shadow.moveTo(to))
				}
				turns++
				if s.pos != shadow.pos || s.paint != shadow.paint || s.last != shadow.last || s.out != shadow.out ||
					s.nOut != shadow.nOut || s.toMove != shadow.toMove || s.winner != shadow.winner || s.plies != shadow.plies ||
					s.occ != shadow.occ || s.painted != shadow.painted || s.live != shadow.live || s.roll != shadow.roll {
					t.Fatalf("after turn %d the playout's position differs from Roll and Play's", turns)
				}
			}
			if s.computeHash() != shadow.Hash() {
				t.Fatal("the playout's position hashes differently")
			}
		}
		s := s0.Clone().(*State)
		before := *s
		ended := false
		s.RandomPlayout(rng, s.plies+50, func() {
			ended = true
			if s.hash != s.computeHash() || s.winner < 0 && s.plies != before.plies+50 {
				t.Fatalf("playout ended at %d plies (cap %d), hash %x, fresh %x", s.plies, before.plies+50, s.hash, s.computeHash())
			}
		})
		if !ended || s.pos != before.pos || s.paint != before.paint || s.last != before.last || s.out != before.out ||
			s.nOut != before.nOut || s.toMove != before.toMove || s.winner != before.winner || s.plies != before.plies ||
			s.occ != before.occ || s.painted != before.painted || s.live != before.live || s.roll != before.roll ||
			s.dests != before.dests || s.hash != before.hash || len(s.hist) != len(before.hist) {
			t.Fatal("RandomPlayout did not end, or did not restore the position")
		}
	}
	if turns < 10000 || elims < 100 {
		t.Fatalf("only %d turns, %d eliminations", turns, elims)
	}
}

// TestSampleUniform: sample draws every destination equally often (a
// chi-square test at five standard deviations, so it fails on a
// bias, not on chance), also where candidates are refused and where more
// than sampleTries are (the set is then computed from the rest).
func TestSampleUniform(t *testing.T) {
	const draws = 20000
	x := uint64(77)
	tested, refused, beyond := 0, 0, 0
	for _, s := range playoutStates(t) {
		p := int(s.toMove)
		c := int(s.pos[p])
		for k := 3; k <= maxRoll; k++ {
			d := s.gen(p, k)
			cand := s.g.reach[c][k] &^ s.blocked(p)
			nd := bits.OnesCount64(d)
			if nd < 2 || tested > 150 && d == cand {
				continue
			}
			tested++
			if nr := bits.OnesCount64(cand &^ d); nr > 0 {
				refused++
				if nr > sampleTries {
					beyond++
				}
			}
			count := map[int]int{}
			for range draws {
				to := s.sample(p, k, &x)
				if to < 0 || d>>uint(to)&1 == 0 {
					t.Fatalf("%s from %s, roll %d: drew %d, destinations %v", Colour(p), s.g.names[c], k, to, maskNames(s, d))
				}
				count[to]++
			}
			e := float64(draws) / float64(nd)
			var chi float64
			for m := d; m != 0; m &= m - 1 {
				o := float64(count[bits.TrailingZeros64(m)])
				chi += (o - e) * (o - e) / e
			}
			// Wilson–Hilferty's chi-square quantile, five standard deviations.
			df := float64(nd - 1)
			if chi > df*math.Pow(1-2/(9*df)+5*math.Sqrt(2/(9*df)), 3) {
				t.Errorf("%s from %s, roll %d: chi-square %.1f with %d destinations (%v), candidates %v",
					Colour(p), s.g.names[c], k, chi, nd, count, maskNames(s, cand))
			}
		}
		for k := 1; k <= maxRoll; k++ {
			if s.gen(p, k) == 0 && s.sample(p, k, &x) != -1 {
				t.Fatalf("roll %d: a destination drawn where there is none", k)
			}
		}
	}
	if refused < 20 || beyond < 5 {
		t.Fatalf("%d sets tested, only %d with refused candidates, %d with more than %d", tested, refused, beyond, sampleTries)
	}
}

// TestNthBit: nthBit against clearing bits one by one.
func TestNthBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for range 20000 {
		m := rng.Uint64() & rng.Uint64()
		if rng.IntN(2) == 0 {
			m >>= uint(rng.IntN(64))
		}
		if m == 0 {
			continue
		}
		i := rng.Uint64N(uint64(bits.OnesCount64(m)))
		want := m
		for j := i; j > 0; j-- {
			want &= want - 1
		}
		if got := nthBit(m, i); got != bits.TrailingZeros64(want) {
			t.Fatalf("nthBit(%#x, %d) = %d, want %d", m, i, got, bits.TrailingZeros64(want))
		}
	}
}
