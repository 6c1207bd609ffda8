// Package analysis reviews finished (or unfinished) game records with the
// search: for every move the win probability of the mover's side before and
// after it, the engine's preferred move, the loss and its tier
// (inaccuracy from 5 points of win probability, mistake from 10, blunder
// from a threshold, 20 by default: TierOf), an accuracy per seat as lichess
// computes a player's (each move's accuracy from its loss on lichess's
// curve, MoveAccuracy; over the moves with a choice, the mean of their
// volatility-weighted mean, Volatility, and their harmonic mean: Accuracy)
// and missed wins (the mover had a forced win and the position
// after the move no longer has one for them); a summary per player; and the
// win-probability curve as a self-contained SVG.
//
// Positions are independent searches, so Analyze spreads them over
// Options.Workers goroutines, each search single-threaded: the result does
// not depend on the number of workers. Without dice the position after a move
// is the position before the next one and is searched once. RAY positions are
// not searched: their probabilities come from rayodds (exact under
// independent walkers) and every move is forced, so no RAY move loses.
package analysis
