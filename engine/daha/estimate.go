package daha

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// estFeatures is the number of features the estimate reads per colour.
const estFeatures = 26

// cutTurns is how many turns a cut playout (EstimatePlayout) plays before
// the estimate scores it.
const cutTurns = 12

// features fills f with colour p's features (p live, a roll due), from the
// cells its piece may enter (free: not a piece, not another colour's
// paint) and the free cells it can walk to (its region): for each roll k
// whether its piece has no destination and the log of one plus their
// count (exact for one to three steps; for longer rolls the ends of
// k-step paths on the empty board that are in the region, a superset),
// the region's size, its own paint, the free cells of the whole board,
// and its place in the turn order after the colour to roll (one-hot, 1–3
// colours away).
func (s *State) features(p int, f *[estFeatures]float32) {
	g := s.g
	c := int(s.pos[p])
	free := ^s.blocked(p) & g.cells
	d1 := g.adj[c] & free
	var d2, d3 uint64
	for m := d1; m != 0; m &= m - 1 {
		a := bits.TrailingZeros64(m)
		n2 := g.adj[a] & free
		d2 |= n2
		for m2 := n2; m2 != 0; m2 &= m2 - 1 {
			d3 |= g.adj[bits.TrailingZeros64(m2)] & free &^ (1 << uint(a))
		}
	}
	// The region: free cells connected to the piece through free cells.
	region, front := d1, d1
	for front != 0 {
		var next uint64
		for m := front; m != 0; m &= m - 1 {
			next |= g.adj[bits.TrailingZeros64(m)]
		}
		front = next & free &^ region
		region |= front
	}
	n := [maxRoll]int{bits.OnesCount64(d1), bits.OnesCount64(d2), bits.OnesCount64(d3)}
	for k := 4; k <= maxRoll; k++ {
		// Every destination is in the region: the search wants only those.
		if want := g.reach[c][k] & region; want != 0 {
			var d uint64
			g.dfs(c, free, k, &d, want)
			n[k-1] = bits.OnesCount64(d)
		}
	}
	for k, v := range n {
		f[k] = 0
		if v == 0 {
			f[k] = 1
		}
		f[maxRoll+k] = log1p[v]
	}
	f[12] = float32(bits.OnesCount64(s.paint[p])) / 8
	f[13], f[14], f[15] = 0, 0, 0
	if off := s.turnOffset(p); off > 0 {
		f[12+off] = 1
	}
	f[16] = float32(bits.OnesCount64(free)) / 16
	r := bits.OnesCount64(region)
	f[17] = float32(r) / 16
	f[18] = log1p[r]
	f[19] = 0
	if r < 6 {
		f[19] = 1
	}
	f[20] = float32(bits.OnesCount64(region&s.paint[p])) / 8
	f[21] = float32(s.last[p]) / 6
	f[22] = float32(bits.OnesCount64(g.adj[c])) / 4
	f[23] = float32(bits.OnesCount64(g.reach[c][2])) / 8
	f[24] = float32(bits.OnesCount64(g.adj[c]&s.occ)) / 2
	f[25] = float32(bits.OnesCount64(g.adj[c]&s.painted&^s.paint[p])) / 2
}

// turnOffset is how many live colours roll before p (0: p rolls next).
func (s *State) turnOffset(p int) int {
	t := int(s.toMove)
	off := 0
	for q := t; q != p; q = (q + 1) % numColours {
		if s.live>>uint(q)&1 != 0 {
			off++
		}
	}
	return off
}

// log1p[n] is ln(1+n) for the counts of a 64-cell board.
var log1p = func() (t [65]float32) {
	for i := range t {
		t[i] = float32(math.Log1p(float64(i)))
	}
	return t
}()

// estimate writes each colour's chance to win a random playout from the
// position (a roll due, two colours or more live) into out: a softmax
// over the live colours of a linear score of their features, with weights
// per number of colours live (estWeights, fitted by TestFitEstimate on
// random playouts of the default board). Colours out get 0.
func (s *State) estimate(out *[4]float32) {
	w := &estWeights[bits.OnesCount8(s.live)-2]
	var f [estFeatures]float32
	var e [numColours]float64
	sum := 0.0
	for p := 0; p < numColours; p++ {
		if s.live>>uint(p)&1 == 0 {
			continue
		}
		s.features(p, &f)
		z := float32(0)
		for j, v := range f {
			z += w[j] * v
		}
		e[p] = math.Exp(float64(z))
		sum += e[p]
	}
	for p := range e {
		out[p] = float32(e[p] / sum)
	}
}

// Estimates reports whether EstimatePlayout cuts this game's playouts
// short (search.PlayoutEstimator): on the default board, the one the
// estimate was fitted on.
func (s *State) Estimates() bool { return s.g == defGraph() }

// EstimatePlayout is RandomPlayout cut short (search.PlayoutEstimator): it
// plays cutTurns random turns as RandomPlayout does (fewer if the game
// ends or reaches capPlies) and writes into out each colour's reward: 1
// for the winner and 0 for the others when the game ended, 1/4 each at the
// cap (a draw, as MCTS scores it), and otherwise the estimate of each
// colour's chance to win a random playout from where it stopped. The
// position is restored. Only for a game that Estimates.
func (s *State) EstimatePlayout(rng *rand.Rand, capPlies int, out *[4]float32) {
	save := *s
	x := rng.Uint64()
	for i := 0; i < cutTurns && s.winner < 0 && s.plies < capPlies; i++ {
		s.turn(&x)
	}
	switch {
	case s.winner >= 0:
		*out = [4]float32{}
		out[s.winner] = 1
	case s.plies >= capPlies:
		*out = [4]float32{0.25, 0.25, 0.25, 0.25}
	default:
		s.estimate(out)
	}
	*s = save
}

// defGraph is the default board's graph, the one estWeights were fitted on.
var defGraph = sync.OnceValue(func() *graph {
	g, err := graphFor(defBoard())
	if err != nil {
		panic(err)
	}
	return g
})
