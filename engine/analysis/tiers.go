package analysis

import "math"

// Tier thresholds: the loss of win probability (0–1, the mover's side) from
// which a move is an inaccuracy or a mistake; from Options.Blunder
// (DefaultBlunder, 0.20) it is a blunder. They are lichess's thresholds
// (0.1, 0.2, 0.3 of winning chances on its −1…+1 scale) halved onto a 0…1
// win probability, the blunder's raised to this package's long-standing
// 20 points.
const (
	Inaccuracy = 0.05
	Mistake    = 0.10
)

// The tiers of a move, worst last.
const (
	TierNone       = ""
	TierInaccuracy = "inaccuracy"
	TierMistake    = "mistake"
	TierBlunder    = "blunder"
)

// TierOf names the tier of a move that lost loss of win probability, blunder
// being the blunder threshold (0: DefaultBlunder).
func TierOf(loss, blunder float64) string {
	if blunder == 0 {
		blunder = DefaultBlunder
	}
	switch {
	case loss >= blunder:
		return TierBlunder
	case loss >= min(Mistake, blunder):
		return TierMistake
	case loss >= min(Inaccuracy, blunder):
		return TierInaccuracy
	}
	return TierNone
}

// MoveAccuracy is the accuracy (0–100) of one move that lost loss of win
// probability (0–1), as lichess computes it (lila, AccuracyPercent
// fromWinPercents): 100 for no loss, otherwise
//
//	103.1668 · exp(−4.354 · loss) − 3.1669 + 1, clamped to 0…100
//
// (lichess writes the loss in percentage points with 0.04354; the + 1 is its
// "uncertainty bonus" for an imperfect analysis). A loss of 5 points scores
// 80.8, of 10 points 64.6, of 20 points 41.0, of 50 points 9.5.
func MoveAccuracy(loss float64) float64 {
	if loss <= 0 {
		return 100
	}
	a := 103.1668100711649*math.Exp(-4.354415386753951*loss) - 3.166924740191411 + 1
	return max(0, min(100, a))
}

// Volatility is the weight lichess gives each move in a player's accuracy
// (lila, AccuracyPercent gameAccuracy): wins are one side's win probability
// (0–1) at the start and after every move, so there is one weight for each of
// len(wins)−1 moves. A window of size positions, size being a tenth of the
// moves kept within 2…8, ends at the position after the move (the first
// size−2 moves share the game's first window); the weight is the standard
// deviation (of the population) of the window's win percentages, clamped to
// 0.5…12. Moves played while the game swung weigh more than quiet ones. For
// two sides either side's probabilities give the same weights; with more,
// Analyze weighs each move by its mover's side's.
func Volatility(wins []float64) []float64 {
	n := len(wins) - 1
	if n <= 0 {
		return nil
	}
	size := min(max(n/10, 2), 8)
	w := make([]float64, n)
	for i := range w {
		lo := max(0, i+2-size)
		w[i] = max(0.5, min(12, 100*stddev(wins[lo:lo+size])))
	}
	return w
}

// stddev is the population standard deviation of xs (not empty).
func stddev(xs []float64) float64 {
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v / float64(len(xs)))
}

// Accuracy is a seat's accuracy (0–100) as lichess computes a player's
// (lila, AccuracyPercent gameAccuracy): the mean of two means of the
// MoveAccuracy of its moves, one weighted by each move's Volatility weight
// (weights[i] for losses[i]), one harmonic (each accuracy taken as at least
// 1), so that a few bad moves pull it down more than a plain mean would. The
// moves are those that had a choice (forced moves say nothing of the
// player); weights is as long as losses. It is -1 when the seat made no such
// move.
func Accuracy(losses, weights []float64) float64 {
	if len(losses) == 0 {
		return -1
	}
	var sum, wsum, inv float64
	for i, l := range losses {
		a := MoveAccuracy(l)
		sum += a * weights[i]
		wsum += weights[i]
		inv += 1 / max(1, a)
	}
	return (sum/wsum + float64(len(losses))/inv) / 2
}
