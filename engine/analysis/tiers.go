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
// probability (0–1): lichess's curve
//
//	accuracy = 103.1668 · exp(−4.354 · loss) − 3.1669, clamped to 0…100
//
// (lichess writes it with the loss in percentage points and 0.04354). A move
// that loses nothing scores 100, a loss of 5 points 80, of 10 points 64, of
// 20 points 40, of 50 points 8.5.
func MoveAccuracy(loss float64) float64 {
	a := 103.1668*math.Exp(-4.354*max(0, loss)) - 3.1669
	return max(0, min(100, a))
}

// Accuracy is a seat's accuracy (0–100) over the losses of its moves that had
// a choice (forced moves say nothing of the player): the mean of
// MoveAccuracy. It is -1 when the seat made no such move.
func Accuracy(losses []float64) float64 {
	if len(losses) == 0 {
		return -1
	}
	sum := 0.0
	for _, l := range losses {
		sum += MoveAccuracy(l)
	}
	return sum / float64(len(losses))
}
