// Package eval holds the per-game evaluation functions the search uses at its
// leaves, for the two-sided games where they clearly beat random playouts:
//
//   - STAR: the size of each colour's largest 8-connected group (squared, as
//     the win needs N−2) plus a connectivity potential that rewards pairs of
//     own pieces at Chebyshev distance 1, 2 and 3 (pieces that can still join).
//   - GYGES: for each player the distance of their nearest row (the row they
//     must move from) to the goal they attack, the heights there (a piece of
//     height h on a row d steps from the goal threatens it when h ≥ d), the
//     mover's mobility, and a decisive bonus when the mover has a move onto
//     the goal (a threat the opponent failed to stop).
//   - six: every line, triangle and ring window of six cells that holds no
//     opponent hexagon scores by how many own hexagons it holds (the
//     "longest partial shapes"), own minus the opponent's.
//
// Scores are from the point of view of the side to move, in units where 300
// is roughly a 73 % winning chance (WinProb). An Evaluator may follow the
// moves the search plays (Reset, Played, Undone) to keep its own view of the
// board when the engine does not export one cheaply; each search worker has
// its own Evaluator from New. STAR and six keep their terms up to date that
// way (the pair potential and touching pieces of the colour that moved; the
// windows through the cells a move changed, 36 a cell, unrolled in
// six_unrolled.go, and Undone restores the score the move was played
// from), so Eval itself is two flood fills, or a subtraction; GYGES counts the mover's moves without listing
// them (gyges.Game.MoveCount).
package eval
