package daha

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math"
	"math/bits"
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
