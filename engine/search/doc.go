// Package search finds moves for any engine.State: the hint API the referee
// calls (Best), the engine behind `tabla hint`, `analyze` and `play`, and the
// AI players of self-play.
//
// # Hint API
//
// The referee calls
//
//	move, eval, pv := search.Best(state, search.Options{Level: 3})
//
// on the live engine.State (it is cloned, never changed): move is the
// suggested move (engine.NoMove when the game is over or a roll is due),
// eval the win probability of the mover's side in [0, 1], pv the expected
// line starting with move. Search returns the same with nodes, depth, time,
// per-side values and whether the win is proven. Options.Time bounds the wall
// clock instead of the node budget; Options.Workers > 1 uses more cores.
//
// # Algorithms
//
// Two-sided games without dice that have an evaluation function (STAR, GYGES,
// six; package eval) are searched with alpha-beta (negamax with iterative
// deepening, a transposition table keyed by State.Hash, TT move, killer and
// history ordering, principal-variation search at the root). Scores are from
// the side to move's view; when a move leaves the same side to move (GYGES
// setup with the other hand empty), the child's score is not negated. A
// game that can tell one move legal without listing them all (GYGES's and
// six's Legal) has a node's table move and killers tried first, in the order the
// list would give them, and its moves listed only when none cuts off; the
// history the list is then ordered by is the node's on entry (the updates
// made under the moves tried are logged and taken back for the scoring),
// so the search is the same node for node, only without the lists it
// never used.
//
// Every other game (DAHA, four seats and a die) is searched with Monte Carlo
// tree search (UCT) with chance nodes: at a position where a roll is due the
// tree has one child per die face and selection samples a face uniformly.
// Several players are handled max-n style: every node backs up a vector of
// rewards, one per side (1 for the winner, 0 for the others, 1/k each on a
// draw or at the ply cap), and at a decision node UCT maximises the reward of
// the side of the seat to move. At expansion a move that wins at once is kept
// as the node's only child (the mover will take it), which also marks proven
// wins at the root.
//
// RAY has no choices at all; its win probabilities come from the exact
// computation in engine/analysis/rayodds (Algorithm Exact).
//
// # Budgets, determinism, parallelism
//
// A search stops at Options.Nodes (alpha-beta nodes or MCTS iterations), at
// Options.Time, or at Options.Depth, whichever comes first; Level picks
// budgets (see Levels). With a node limit and no time limit a search is
// deterministic for a given Seed and Workers count. Workers > 1 searches in
// parallel, each worker on its own Clone: MCTS uses root parallelism (one tree
// per worker with its own seed and its share of the iterations, root
// statistics summed); alpha-beta splits the root moves: the first move
// (previous best) is searched with a full window, the others are spread over
// the workers in a fixed assignment and searched with a null window around
// its value, re-searched when they fail high. Each worker has its own table,
// node budget (Nodes / Workers) and order of work, so the result does not
// depend on scheduling; an iteration in which any worker ran out is dropped.
// Moves are ordered canonically (ties by move value, MCTS children sorted), so
// alpha-beta does not depend on the order an engine lists moves in. MCTS
// playouts use the engine's RandomMove, which for STAR and six positions
// loaded from a record's start (a Go map) may follow a different internal
// piece order in another process: MCTS is reproducible within a process and
// across processes for games from the standard start.
//
// # Hot loop
//
// Nothing is allocated per node: alpha-beta has one move and score buffer per
// depth (a node's moves are picked best-first; after three picks without a
// cutoff the rest are sorted at once, into the same order), a fixed table and a fixed PV triangle; MCTS keeps its nodes in one
// slice preallocated from the budget (children of a node are contiguous), a
// path stack and one move buffer, and draws playout moves with
// engine.RandomMover when the game has it. A game that is a RandomPlayer
// (DAHA) plays the whole playout itself: the same distribution of games,
// drawn its own way.
//
// # Cut playouts
//
// With Options.CutPlayouts (game analysis sets it; hints and play do not:
// whole playouts play stronger), a game that is a PlayoutEstimator and
// Estimates (DAHA on its default board) has its playouts cut short: a few
// random turns, then an estimate,
// fitted on the game's own random playouts, of each side's chance to win
// a random playout from there. The reward of an iteration is then that
// expected value rather than one game's 0 or 1, so MCTS runs
// Level.MCTSCutIter iterations (half of MCTSIter) for values as steady as
// whole playouts give, each a fraction of the cost. Their values are
// those of random playouts up to the estimate's error; they lack the
// upward bias whole playouts' noise gives the most visited move's value
// (see BENCHMARKS.md, issue 39's third pass).
//
// # Ply cap
//
// Games that can run forever are scored as draws at a ply cap (RULES.md §2):
// Options.MaxPlies (default 400) counted on State.Plies, but never closer than
// MinHorizon plies beyond the root, so a long real game can still be searched.
package search
