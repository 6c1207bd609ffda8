// Package rayodds computes RAY's win probabilities and expected remaining
// turns without search (RULES.md §4).
//
// # Independent walkers, exactly
//
// Alone on the board a walker is a lazy random walk: each own turn it moves
// one cell N, S, E or W with probability 1/4 each and stays when that step
// leaves the board (reflecting edges). Let S_t(x) be the probability that a
// walker starting on x has not reached the target after t own turns. One
// backward dynamic-programming sweep over the grid,
//
//	S_0(x) = [x ≠ target],  S_{t+1}(x) = ¼ Σ_faces S_t(step(x, face)),  S_t(target) = 0,
//
// gives the whole survival function for every start cell at once, up to a
// horizon H (2,500 turns on the 29×29 board). Beyond H the survival of each
// cell is extended geometrically with the walk's principal eigenvalue λ,
// measured from the last two sweeps; the error of that extension is of order
// (λ₂/λ)^H ≈ 10⁻⁶ and is reported as part of Tail.
//
// Seats move in turn order from the seat to move (a pending roll is played
// first: its move is forced). With A_p(t) the survival of the p-th walker in
// that order, the p-th wins in round t exactly when it hits in its t-th turn
// while the walkers before it survived t turns and those after it t−1:
//
//	P(p wins) = Σ_t (A_p(t−1) − A_p(t)) · Π_{q<p} A_q(t) · Π_{q>p} A_q(t−1).
//
// The sum runs until the chance that nobody has won is below 10⁻¹⁴ (Tail
// keeps the remainder), so the probabilities sum to 1 within 10⁻¹². The same
// sum gives the expected number of turns every seat still takes.
//
// # Interaction
//
// Real walkers are not independent: a step into an occupied cell is a pass.
// Couple the real game with the independent model by using the same die
// rolls; they agree until the first such block. Interact computes, under the
// independent model, the expected number of blocks before the game ends
// (walker p at x, rolling towards y where another walker stands) and the
// bound Σ E[TV(T|x, T|y)] — after a block the real walker stands on x where
// the independent one stands on y, so each block moves any win probability
// by at most the total-variation distance between the hitting-time laws from
// x and from y. That is a first-order bound on |P_real − P_independent| (it
// ignores the second-order difference of block rates between the two models)
// and it is small because blocks are rare and a neighbour's hitting time
// differs little; Monte Carlo of the real rules (Simulate) agrees with it in
// the tests.
package rayodds
