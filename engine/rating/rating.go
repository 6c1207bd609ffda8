// Package rating rates players with Glicko-2 (Mark E. Glickman, "Example
// of the Glicko-2 system", 2022 revision of the 2001 paper): a rating r,
// its deviation RD (how sure the rating is) and a volatility σ per player,
// updated once per rating period from every game the player played in it.
// A club evening is one rating period.
//
// The package is pure arithmetic: it knows nothing of games, events or
// tables. Results are scores in [0, 1] for the player (1 a win, 0.5 a
// draw, 0 a loss); a game of four players enters as three results, one
// against each of the others (see the club package).
package rating

import (
	"errors"
	"math"
)

// Scale is Glicko-2's factor between the Glicko scale (r, RD) and its own
// (μ, φ): 173.7178.
const Scale = 173.7178

// Defaults of a new player (the paper's): r 1500, RD 350, σ 0.06.
const (
	DefaultRating     = 1500.0
	DefaultDeviation  = 350.0
	DefaultVolatility = 0.06
	// DefaultTau constrains the volatility's change (the paper: 0.3 to
	// 1.2; smaller for games whose results hold few surprises).
	DefaultTau = 0.5
)

// epsilon is the convergence tolerance of the volatility's iteration (the
// paper's 0.000001).
const epsilon = 0.000001

// Rating is a player's Glicko-2 rating on the Glicko scale.
type Rating struct {
	R     float64 `json:"r"`     // the rating
	RD    float64 `json:"rd"`    // its deviation
	Sigma float64 `json:"sigma"` // the volatility
}

// New is a new player's rating.
func New() Rating {
	return Rating{R: DefaultRating, RD: DefaultDeviation, Sigma: DefaultVolatility}
}

// Result is one game's outcome against one opponent, as the opponent's
// rating stood at the start of the period.
type Result struct {
	Opponent Rating
	Score    float64 // 1 win, 0.5 draw, 0 loss
}

// ErrScore: a result's score is outside [0, 1] (or not a number).
var ErrScore = errors.New("rating: a score is outside 0 to 1")

// Update is the player's rating after a rating period with these results
// (none: only the deviation grows, step 6 of the paper), with the system
// constant tau (0: DefaultTau).
func Update(p Rating, results []Result, tau float64) (Rating, error) {
	if tau == 0 {
		tau = DefaultTau
	}
	// Step 2: to the Glicko-2 scale.
	mu := (p.R - 1500) / Scale
	phi := p.RD / Scale
	if len(results) == 0 {
		return Rating{R: p.R, RD: math.Sqrt(phi*phi+p.Sigma*p.Sigma) * Scale, Sigma: p.Sigma}, nil
	}
	// Steps 3 and 4: the estimated variance v and the improvement Δ.
	var vinv, sum float64
	for _, res := range results {
		if !(res.Score >= 0 && res.Score <= 1) {
			return Rating{}, ErrScore
		}
		muj := (res.Opponent.R - 1500) / Scale
		phij := res.Opponent.RD / Scale
		g := gOf(phij)
		e := 1 / (1 + math.Exp(-g*(mu-muj)))
		vinv += g * g * e * (1 - e)
		sum += g * (res.Score - e)
	}
	v := 1 / vinv
	delta := v * sum
	// Step 5: the new volatility σ' (the Illinois algorithm).
	sigma := volatility(delta, phi, v, p.Sigma, tau)
	// Step 6: the pre-period deviation φ*.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	// Step 7: the new deviation and rating.
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	// Step 8: back to the Glicko scale.
	return Rating{R: Scale*muNew + 1500, RD: Scale * phiNew, Sigma: sigma}, nil
}

// gOf is the paper's g(φ).
func gOf(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// volatility is step 5 of the paper.
func volatility(delta, phi, v, sigma, tau float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}
