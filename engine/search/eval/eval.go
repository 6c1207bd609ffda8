package eval

import (
	"math"

	"github.com/tabla-board/tabla/engine"
)

// Evaluator scores positions of a two-sided game.
type Evaluator interface {
	// Reset is called on the search root before any Played.
	Reset(s engine.State)
	// Played is called right after s.Play(m), seat being who moved.
	Played(s engine.State, m engine.Move, seat int)
	// Undone is called right after s.Undo() of a move.
	Undone(s engine.State)
	// Eval scores s (not over) for the side to move: positive favours it.
	Eval(s engine.State) int32
}

// Scale is the score that means a winning chance of 1/(1+e^-1) ≈ 73 %.
const Scale = 300

// WinProb maps a score to the winning chance of the side it favours.
func WinProb(score int32) float64 {
	return 1 / (1 + math.Exp(-float64(score)/Scale))
}

// New returns a fresh evaluator for game, or nil when the game has none
// (DAHA and RAY are searched with playouts or computed exactly).
func New(game string) Evaluator {
	switch game {
	case "star":
		return &Star{}
	case "gyges":
		return &Gyges{}
	case "six":
		return &Six{}
	}
	return nil
}

// Has reports whether game has an evaluator.
func Has(game string) bool { return New(game) != nil }
