package daha

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

var fitEstimate = flag.Bool("fit-estimate", false, "TestFitEstimate: fit the estimate's weights on random playouts and rewrite estimate_weights.go")

// Fitting data: estSamples positions of random games on the default board,
// each a roll due with two colours or more live, labelled by estPlayouts
// random playouts from it.
const (
	estSamples  = 40_000
	estPlayouts = 16
	estSteps    = 3_000 // full-batch Adam steps
)

// estSample is one position's features per colour, the live colours and
// the share of its playouts each colour won.
type estSample struct {
	live uint8
	f    [numColours][estFeatures]float32
	y    [numColours]float32
}

// samplePositions plays random games from the start (wyrand seeded from
// seed) and keeps each position with a roll due and two colours or more
// live with probability 1/8, until n are kept.
func samplePositions(n int, seed uint64) []*State {
	x := seed
	var out []*State
	for len(out) < n {
		s, err := newState(engine.Config{})
		if err != nil {
			panic(err)
		}
		for s.winner < 0 && s.plies < 400 && len(out) < n {
			if draw(&x, 8) == 0 {
				c := *s
				c.hist = nil
				c.hash = c.computeHash()
				out = append(out, &c)
			}
			s.turn(&x)
		}
	}
	return out
}

// playoutWins plays n random playouts from s (to the end or ply 400) and
// returns each colour's share of the rewards (a draw scores 1/4 each).
func playoutWins(s *State, n int, x *uint64) (y [numColours]float32) {
	for range n {
		c := *s
		for c.winner < 0 && c.plies < 400 {
			c.turn(x)
		}
		if c.winner >= 0 {
			y[c.winner]++
		} else {
			for p := range y {
				y[p] += 0.25
			}
		}
	}
	for p := range y {
		y[p] /= float32(n)
	}
	return y
}

func estData(states []*State, seed uint64) []estSample {
	x := seed
	out := make([]estSample, len(states))
	for i, s := range states {
		d := &out[i]
		d.live = s.live
		for p := 0; p < numColours; p++ {
			if s.live>>uint(p)&1 != 0 {
				s.features(p, &d.f[p])
			}
		}
		d.y = playoutWins(s, estPlayouts, &x)
	}
	return out
}

// predict is estimate's softmax with weights w, on a sample.
func predict(w *[3][estFeatures]float64, d *estSample) (q [numColours]float64) {
	ws := &w[bits.OnesCount8(d.live)-2]
	sum := 0.0
	for p := 0; p < numColours; p++ {
		if d.live>>uint(p)&1 == 0 {
			continue
		}
		z := 0.0
		for j, v := range d.f[p] {
			z += ws[j] * float64(v)
		}
		q[p] = math.Exp(z)
		sum += q[p]
	}
	for p := range q {
		q[p] /= sum
	}
	return q
}

// estLoss is the mean cross-entropy of the predictions against the
// playouts' shares (normalised over the live colours) and the root mean
// square of the difference.
func estLoss(w *[3][estFeatures]float64, data []estSample) (ce, rmse float64) {
	n := 0
	for i := range data {
		d := &data[i]
		q := predict(w, d)
		ysum := 0.0
		for p := 0; p < numColours; p++ {
			if d.live>>uint(p)&1 != 0 {
				ysum += float64(d.y[p])
			}
		}
		for p := 0; p < numColours; p++ {
			if d.live>>uint(p)&1 == 0 {
				continue
			}
			y := float64(d.y[p]) / ysum
			ce -= y * math.Log(max(q[p], 1e-12))
			rmse += (q[p] - y) * (q[p] - y)
			n++
		}
	}
	return ce / float64(len(data)), math.Sqrt(rmse / float64(n))
}

// fitWeights minimises estLoss's cross-entropy by full-batch Adam from zero
// weights (deterministic: the same data give the same weights).
func fitWeights(data []estSample) [3][estFeatures]float64 {
	var w, m, v [3][estFeatures]float64
	const lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
	for step := 1; step <= estSteps; step++ {
		var g [3][estFeatures]float64
		for i := range data {
			d := &data[i]
			q := predict(&w, d)
			nl := bits.OnesCount8(d.live) - 2
			ysum := 0.0
			for p := 0; p < numColours; p++ {
				if d.live>>uint(p)&1 != 0 {
					ysum += float64(d.y[p])
				}
			}
			for p := 0; p < numColours; p++ {
				if d.live>>uint(p)&1 == 0 {
					continue
				}
				r := q[p] - float64(d.y[p])/ysum
				for j, f := range d.f[p] {
					g[nl][j] += r * float64(f)
				}
			}
		}
		for a := range w {
			for j := range w[a] {
				gj := g[a][j] / float64(len(data))
				m[a][j] = b1*m[a][j] + (1-b1)*gj
				v[a][j] = b2*v[a][j] + (1-b2)*gj*gj
				mh := m[a][j] / (1 - math.Pow(b1, float64(step)))
				vh := v[a][j] / (1 - math.Pow(b2, float64(step)))
				w[a][j] -= lr * mh / (math.Sqrt(vh) + eps)
			}
		}
	}
	return w
}

// TestFitEstimate, with -fit-estimate, is the generator of
// estimate_weights.go: it samples positions of random games, labels them
// by random playouts, fits the softmax's weights and writes them. It
// reports the fit on positions of other games. Without the flag it skips.
func TestFitEstimate(t *testing.T) {
	if !*fitEstimate {
		t.Skip("-fit-estimate rewrites estimate_weights.go")
	}
	train := estData(samplePositions(estSamples, 1), 2)
	test := estData(samplePositions(estSamples/4, 3), 4)
	var zero [3][estFeatures]float64
	w := fitWeights(train)
	ce0, r0 := estLoss(&zero, test)
	ce, r := estLoss(&w, test)
	ceT, rT := estLoss(&w, train)
	t.Logf("held out: cross-entropy %.4f (uniform %.4f), rmse %.4f (uniform %.4f); training %.4f, %.4f", ce, ce0, r, r0, ceT, rT)
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by TestFitEstimate (go test ./engine/daha -run TestFitEstimate -fit-estimate); DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package daha\n\n")
	fmt.Fprintf(&b, "// estWeights are the estimate's weights for 2, 3 and 4 colours live,\n")
	fmt.Fprintf(&b, "// fitted on %d positions of random games, %d playouts each (held-out\n", estSamples, estPlayouts)
	fmt.Fprintf(&b, "// cross-entropy %.4f against %.4f for even chances, rmse %.4f).\n", ce, ce0, r)
	fmt.Fprintf(&b, "var estWeights = [3][estFeatures]float32{\n")
	for a := range w {
		fmt.Fprintf(&b, "\t{")
		for j, v := range w[a] {
			if j > 0 {
				fmt.Fprintf(&b, ", ")
			}
			fmt.Fprintf(&b, "%.5g", v)
		}
		fmt.Fprintf(&b, "},\n")
	}
	fmt.Fprintf(&b, "}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("estimate_weights.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// siblingSlope measures how well cut playouts tell a position's moves
// apart: for positions of random games with a move due and several
// destinations, each destination's value to the mover by n whole random
// playouts and by n cut ones; the slope of the cut values on the whole
// ones, both centred on the position's mean (1: the same spread), and the
// mean difference (cut − whole).
func siblingSlope(positions, n int) (slope, bias, spread, noise float64) {
	x := uint64(99)
	var sxy, sxx, sd float64
	cnt := 0
	for _, s := range samplePositions(positions*3, 7) {
		if positions == 0 {
			break
		}
		p := int(s.toMove)
		k := int(draw(&x, maxRoll)) + 1
		d := s.gen(p, k)
		if bits.OnesCount64(d) < 3 {
			continue
		}
		positions--
		var whole, cut []float64
		for m := d; m != 0; m &= m - 1 {
			c := *s
			c.roll = int8(k)
			c.step(bits.TrailingZeros64(m))
			y := playoutWins(&c, n, &x)
			whole = append(whole, float64(y[p]))
			sum := 0.0
			for range n {
				cc := c
				var out [4]float32
				for i := 0; i < cutTurns && cc.winner < 0 && cc.plies < 400; i++ {
					cc.turn(&x)
				}
				switch {
				case cc.winner >= 0:
					out[cc.winner] = 1
				case cc.plies >= 400:
					out[p] = 0.25
				default:
					cc.estimate(&out)
				}
				sum += float64(out[p])
			}
			cut = append(cut, sum/float64(n))
		}
		mw, mc := 0.0, 0.0
		for i := range whole {
			mw += whole[i]
			mc += cut[i]
		}
		mw /= float64(len(whole))
		mc /= float64(len(whole))
		for i := range whole {
			sxy += (cut[i] - mc) * (whole[i] - mw)
			sxx += (whole[i] - mw) * (whole[i] - mw)
			sd += cut[i] - whole[i]
			noise += whole[i] * (1 - whole[i]) / float64(n)
			cnt++
		}
	}
	return sxy / sxx, sd / float64(cnt), math.Sqrt(sxx / float64(cnt)), math.Sqrt(noise / float64(cnt))
}

func TestEstimateSiblings(t *testing.T) {
	if !*fitEstimate {
		t.Skip("-fit-estimate")
	}
	slope, bias, spread, noise := siblingSlope(100, 2000)
	t.Logf("cut %d: slope %.3f, bias %+.4f; spread of the whole playouts' values %.4f, their noise %.4f", cutTurns, slope, bias, spread, noise)
}

// TestEstimateFeatures: the destination counts the estimate reads (the
// log of one plus the count, and whether it is zero) are those of the
// destination sets, for every live colour and roll of positions of random
// games.
func TestEstimateFeatures(t *testing.T) {
	n := 0
	for _, s := range samplePositions(300, 21) {
		var f [estFeatures]float32
		for p := 0; p < numColours; p++ {
			if s.live>>uint(p)&1 == 0 {
				continue
			}
			s.features(p, &f)
			for k := 1; k <= maxRoll; k++ {
				d := bits.OnesCount64(s.gen(p, k))
				empty := float32(0)
				if d == 0 {
					empty = 1
				}
				if f[maxRoll+k-1] != log1p[d] || f[k-1] != empty {
					t.Fatalf("%s, roll %d: features %g, %g; the set has %d destinations", Colour(p), k, f[k-1], f[maxRoll+k-1], d)
				}
				n++
			}
		}
	}
	if n < 3000 {
		t.Fatalf("only %d counts compared", n)
	}
}

// TestEstimatePlayout: a cut playout restores the position and writes a
// distribution over the live colours (a winner's 1, or the draw's quarters
// at the cap); the estimate is used only on the default board.
func TestEstimatePlayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i, s := range samplePositions(200, 22) {
		if !s.Estimates() {
			t.Fatal("no estimate on the default board")
		}
		before := *s
		capPlies := s.plies + 400
		if i%4 == 0 {
			capPlies = s.plies + 3 // reaches the cap: a draw
		}
		var out [4]float32
		s.EstimatePlayout(rng, capPlies, &out)
		if s.pos != before.pos || s.paint != before.paint || s.last != before.last || s.live != before.live ||
			s.toMove != before.toMove || s.plies != before.plies || s.hash != before.hash || s.roll != before.roll {
			t.Fatal("EstimatePlayout did not restore the position")
		}
		sum := float32(0)
		for p, v := range out {
			if v < 0 || v > 1 {
				t.Fatalf("reward %g for %s", v, Colour(p))
			}
			sum += v
		}
		if math.Abs(float64(sum)-1) > 1e-5 {
			t.Fatalf("rewards %v sum to %g", out, sum)
		}
		if i%4 == 0 && out != [4]float32{0.25, 0.25, 0.25, 0.25} && bits.OnesCount8(s.live) > 2 {
			// Three turns rarely end a game of three or four colours.
			if out[0]+out[1]+out[2]+out[3] == 1 && slicesMax(out[:]) != 1 {
				t.Fatalf("capped after 3 plies: %v, want a draw or a win", out)
			}
		}
		var est [4]float32
		s.estimate(&est)
		for p, v := range est {
			if s.live>>uint(p)&1 == 0 && v != 0 {
				t.Fatalf("%s is out and has %g", Colour(p), v)
			}
		}
	}
	b := randomBoard(t, rand.New(rand.NewPCG(9, 9)), 20, 10)
	s, err := newState(engine.Config{Board: b, Start: ptr(randomStart(b, rand.New(rand.NewPCG(9, 9))))})
	if err != nil {
		t.Fatal(err)
	}
	if s.Estimates() {
		t.Fatal("an estimate on a board it was not fitted on")
	}
}

func slicesMax(v []float32) float32 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// TestEstimateFits: on positions of random games other than those it was
// fitted on, the estimate predicts the outcome of a random playout better
// than even chances (cross-entropy at least 0.05 nats lower) and without
// bias: for the colour to roll and for each place after it in the turn
// order, the mean estimate is within five standard errors of the share of
// playouts won (a draw at the cap shared by the live colours, as in the
// fit). Zero or mis-signed weights fail it.
func TestEstimateFits(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 800
	}
	states := samplePositions(n, 31)
	x := uint64(32)
	var w [3][estFeatures]float64
	for a := range w {
		for j := range w[a] {
			w[a][j] = float64(estWeights[a][j])
		}
	}
	data := estData(states, 33)
	var zero [3][estFeatures]float64
	ce, _ := estLoss(&w, data)
	ce0, _ := estLoss(&zero, data)
	if ce > ce0-0.05 {
		t.Errorf("cross-entropy %.4f, even chances %.4f", ce, ce0)
	}
	var sum, sumSq [numColours]float64
	var cnt [numColours]int
	for _, s := range states {
		var est [4]float32
		s.estimate(&est)
		y := playoutWins(s, 1, &x)
		ysum := float32(0) // less than 1 after a draw (the cap): the fit's shares
		for p := 0; p < numColours; p++ {
			if s.live>>uint(p)&1 != 0 {
				ysum += y[p]
			}
		}
		for p := 0; p < numColours; p++ {
			if s.live>>uint(p)&1 == 0 {
				continue
			}
			off := s.turnOffset(p)
			d := float64(est[p] - y[p]/ysum)
			sum[off] += d
			sumSq[off] += d * d
			cnt[off]++
		}
	}
	for off := range sum {
		if cnt[off] < 100 {
			continue
		}
		m := sum[off] / float64(cnt[off])
		se := math.Sqrt((sumSq[off]/float64(cnt[off]) - m*m) / float64(cnt[off]))
		t.Logf("%d after the colour to roll: %d positions, estimate − outcome %+.4f (se %.4f)", off, cnt[off], m, se)
		if math.Abs(m) > 5*se {
			t.Errorf("%d after the colour to roll: the estimate is off by %+.4f, %.1f standard errors", off, m, m/se)
		}
	}
	t.Logf("cross-entropy %.4f, even chances %.4f", ce, ce0)
}
