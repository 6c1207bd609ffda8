// Package ray implements RAY (RAstgele Yürüyüş, "random walk"), RULES.md §4:
// four walkers on a square grid move one cell per turn in the direction a
// four-sided N/S/E/W die shows, staying put when that cell is off the board or
// occupied; the first to reach the target cell wins.
//
// The grid, the target (the cell marked "target") and the start corners come
// from the board definition. A position is four cell indices (-1 for a colour
// not in the game) plus whose turn it is and the pending roll.
//
// Move layout: a destination cell index plus one in the low 32 bits, or
// Pass (1<<32) when the forced step is blocked. Die faces 0..3 are N, S, E, W.
package ray
