package rating

import (
	"math"
	"testing"
)

// TestGlickmanExample is the worked example of Glickman's "Example of the
// Glicko-2 system": a player rated 1500 (RD 200, σ 0.06, τ 0.5) beats a
// 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300). The
// paper's intermediate values: v = 1.7785, Δ = −0.4834, σ' = 0.05999,
// φ* = 1.1527, φ' = 0.8722, μ' = −0.2069; so r' = 1464.06, RD' = 151.52.
func TestGlickmanExample(t *testing.T) {
	p := Rating{R: 1500, RD: 200, Sigma: 0.06}
	got, err := Update(p, []Result{
		{Opponent: Rating{R: 1400, RD: 30, Sigma: 0.06}, Score: 1},
		{Opponent: Rating{R: 1550, RD: 100, Sigma: 0.06}, Score: 0},
		{Opponent: Rating{R: 1700, RD: 300, Sigma: 0.06}, Score: 0},
	}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"r'", got.R, 1464.06, 0.01},
		{"RD'", got.RD, 151.52, 0.01},
		{"σ'", got.Sigma, 0.05999, 0.00001},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.6f, want %.5f ± %g", c.name, c.got, c.want, c.tol)
		}
	}
}

// TestNoGames: a period without games only widens the deviation (step 6):
// RD' = 173.7178·√((200/173.7178)² + 0.06²) = 200.2714.
func TestNoGames(t *testing.T) {
	got, err := Update(Rating{R: 1600, RD: 200, Sigma: 0.06}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.R != 1600 || math.Abs(got.RD-200.2714) > 0.0001 || got.Sigma != 0.06 {
		t.Fatalf("%+v", got)
	}
}

// TestSymmetric: two new players, one win each way, end where they began
// (equal and opposite changes cancel); one win moves them apart by equal
// amounts.
func TestSymmetric(t *testing.T) {
	a, b := New(), New()
	wa, _ := Update(a, []Result{{b, 1}}, 0)
	lb, _ := Update(b, []Result{{a, 0}}, 0)
	if math.Abs((wa.R-1500)-(1500-lb.R)) > 1e-9 || wa.R <= 1500 || wa.RD != lb.RD {
		t.Fatalf("win %+v loss %+v", wa, lb)
	}
	both, _ := Update(a, []Result{{b, 1}, {b, 0}}, 0)
	if math.Abs(both.R-1500) > 1e-9 || both.RD >= 350 {
		t.Fatalf("a win and a loss: %+v", both)
	}
}

func TestBadScore(t *testing.T) {
	for _, s := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := Update(New(), []Result{{New(), s}}, 0); err != ErrScore {
			t.Errorf("score %v: %v", s, err)
		}
	}
}
