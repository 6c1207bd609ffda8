package search

import "time"

// DefaultLevel is the level of hints and analysis when none is given.
const DefaultLevel = 3

// A Level maps a strength to budgets for each algorithm.
type Level struct {
	ABNodes  int64 // alpha-beta node budget
	ABDepth  int   // alpha-beta depth limit (0: none)
	MCTSIter int64 // MCTS iterations
	// MCTSCutIter: MCTS iterations when the game cuts its playouts short
	// with an estimate (PlayoutEstimator: DAHA on its default board). An
	// iteration's reward is then an expected value rather than one game's
	// result, so half as many iterations give values as steady as
	// MCTSIter's whole playouts (issue 39's third pass, BENCHMARKS.md).
	MCTSCutIter int64
}

// levels 1–5. Level 1 looks one ply ahead with the evaluation (or runs 100
// MCTS iterations); each level up spends about 5–8 times more:
//
//	level  alpha-beta nodes  MCTS iterations (cut playouts)  (STAR, 1 core)
//	1      depth 1           100 (50)                        < 1 ms
//	2      4,000             500 (250)                       ≈ 10 ms
//	3      30,000            3,000 (1,500)                   ≈ 60 ms   (default: hints, analysis)
//	4      200,000           15,000 (7,500)                  ≈ 0.4 s
//	5      1,200,000         60,000 (30,000)                 ≈ 2.5 s
var levels = []Level{
	{ABNodes: 1 << 40, ABDepth: 1, MCTSIter: 100, MCTSCutIter: 50},
	{ABNodes: 4_000, MCTSIter: 500, MCTSCutIter: 250},
	{ABNodes: 30_000, MCTSIter: 3_000, MCTSCutIter: 1_500},
	{ABNodes: 200_000, MCTSIter: 15_000, MCTSCutIter: 7_500},
	{ABNodes: 1_200_000, MCTSIter: 60_000, MCTSCutIter: 30_000},
}

// Levels returns a copy of the level table (index 0 is level 1).
func Levels() []Level { return append([]Level(nil), levels...) }

// budget resolves the node budget, depth and deadline of opts.
func budget(opts Options, ab bool) (nodes int64, depth int, deadline time.Time) {
	lv := levels[opts.Level-1]
	if ab {
		nodes, depth = lv.ABNodes, lv.ABDepth
	} else {
		nodes = lv.MCTSIter
	}
	if opts.Time > 0 {
		nodes = 1 << 50
		deadline = time.Now().Add(opts.Time)
	}
	if opts.Nodes > 0 {
		nodes = opts.Nodes
	}
	if opts.Depth > 0 {
		depth = opts.Depth
	}
	if depth == 0 || depth > MaxDepth {
		depth = MaxDepth
	}
	return nodes, depth, deadline
}
