package search

import (
	"fmt"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/analysis/rayodds"
	"github.com/tabla-board/tabla/engine/search/eval"
)

// Algorithm picks the search method.
type Algorithm int8

const (
	// Auto: alpha-beta for two-sided games without dice that have an
	// evaluation, Exact for RAY, MCTS otherwise.
	Auto Algorithm = iota
	AlphaBeta
	MCTS
	// Exact computes RAY's win probabilities without search.
	Exact
)

func (a Algorithm) String() string {
	switch a {
	case Auto:
		return "auto"
	case AlphaBeta:
		return "alphabeta"
	case MCTS:
		return "mcts"
	case Exact:
		return "exact"
	}
	return fmt.Sprintf("Algorithm(%d)", int8(a))
}

// DefaultMaxPlies is the ply cap of analysis and self-play (RULES.md §2).
const DefaultMaxPlies = 400

// MinHorizon is how many plies beyond the root the cap is at least.
const MinHorizon = 100

// Options say how hard to search. Zero values mean the level's defaults.
type Options struct {
	Level int           // 1–5; 0 means DefaultLevel
	Nodes int64         // alpha-beta nodes or MCTS iterations; 0: the level's
	Time  time.Duration // wall-clock limit; 0: none
	// Stop, when closed, ends the search as Time would, with the best found
	// so far (a caller's cancellation: Ctrl-C, a closed page).
	Stop     <-chan struct{}
	Depth    int       // alpha-beta depth limit; 0: the level's (or MaxDepth)
	Workers  int       // parallel workers, each on its own Clone; ≤1: one
	Seed     uint64    // MCTS random seed
	Algo     Algorithm // one the game Supports; others resolve as Auto
	MaxPlies int       // ply cap scored as a draw; 0: DefaultMaxPlies
	// NewEval makes an evaluator per worker; nil: eval.New(game).
	NewEval func() eval.Evaluator
	// loopPlayouts (tests): MCTS plays its playouts through engine.State
	// even when the game is a RandomPlayer, drawing as e086792's DAHA
	// playouts did, to match the two.
	loopPlayouts bool
	// CutPlayouts: MCTS cuts its playouts short with the game's estimate
	// where it has one (PlayoutEstimator: DAHA on its default board) and
	// runs Level.MCTSCutIter iterations. Game analysis sets it (a 100-ply
	// DAHA game in under 2 CPU s, verdicts as whole playouts' within
	// their seed-to-seed spread); hints and play leave it off, since the
	// whole playouts won a 200-game level-3 match against the cut ones
	// (56.5%, BENCHMARKS.md, issue 39's third pass).
	CutPlayouts bool
}

// Result is what a search found.
type Result struct {
	Move engine.Move // NoMove when no move is due (game over, roll due)
	// Value is the win probability of the side of the seat to move (a draw
	// counts 1/len(Sides)); 0 for a finished game (see Values).
	Value float64
	// Values holds the win probability of every side (Info.Sides).
	Values []float64
	Score  int32 // alpha-beta score for the mover (eval units; ±Win for mates)
	// Proven is +1 when the mover has a forced win, -1 when it is lost by
	// force, 0 when not known.
	Proven int8
	PV     []engine.Move
	Nodes  int64
	Depth  int // completed alpha-beta depth
	Time   time.Duration
	Algo   Algorithm
}

// Best is the hint API: the engine's move for s, the win probability of the
// mover's side, and the expected line of play. It returns engine.NoMove when
// no move is due (the game is over or a roll is due). s is not changed.
func Best(s engine.State, opts Options) (engine.Move, float64, []engine.Move) {
	r := Search(s, opts)
	return r.Move, r.Value, r.PV
}

// Supports reports whether algorithm a can search positions of a game:
// alpha-beta only two-sided games without dice, Exact only RAY.
func Supports(info *engine.Info, a Algorithm) bool {
	switch a {
	case AlphaBeta:
		return info.Die == nil && len(info.Sides) == 2
	case Exact:
		return info.Game == "ray"
	}
	return true
}

// Pick resolves Auto to the algorithm Search would use for s. An algorithm
// that cannot search s (Supports) resolves as Auto does.
func Pick(s engine.State, a Algorithm) Algorithm {
	info := s.Info()
	if a != Auto && Supports(info, a) {
		return a
	}
	switch {
	case info.Game == "ray":
		return Exact
	case info.Die == nil && len(info.Sides) == 2 && eval.Has(info.Game):
		return AlphaBeta
	}
	return MCTS
}

// Search searches s (which it leaves unchanged) and reports everything.
func Search(s engine.State, opts Options) Result {
	start := time.Now()
	info := s.Info()
	opts.Algo = Pick(s, opts.Algo)
	if opts.Level == 0 {
		opts.Level = DefaultLevel
	}
	opts.Level = max(1, min(opts.Level, len(levels)))
	if opts.MaxPlies == 0 {
		opts.MaxPlies = DefaultMaxPlies
	}
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	var r Result
	switch {
	case s.Awaiting() == engine.AwaitNone:
		r.Values = terminalValues(s)
		r.Value = 0
	case opts.Algo == Exact:
		r = exact(s)
	case opts.Algo == AlphaBeta:
		r = alphaBeta(s, opts)
	default:
		r = mcts(s, opts)
	}
	if r.Values == nil {
		r.Values = make([]float64, len(info.Sides))
	}
	r.Algo = opts.Algo
	r.Time = time.Since(start)
	return r
}

// stopped reports whether stop is closed (never for nil).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// terminalValues: 1 for the winner, 1/k each on a draw.
func terminalValues(s engine.State) []float64 {
	k := len(s.Info().Sides)
	v := make([]float64, k)
	res := s.Result()
	if res.Status == engine.Won {
		v[res.Winner] = 1
	} else {
		for i := range v {
			v[i] = 1 / float64(k)
		}
	}
	return v
}

// exact answers RAY from the hitting-time computation.
func exact(s engine.State) Result {
	var r Result
	o, err := rayodds.Compute(s)
	if err != nil {
		panic(err)
	}
	r.Values = o.Win
	r.Value = o.Win[s.Info().SideOf[s.ToMove()]]
	if s.Awaiting() == engine.AwaitMove {
		moves := s.Moves(nil)
		r.Move = moves[0]
		r.PV = []engine.Move{r.Move}
	}
	for i, p := range o.Win {
		if p == 1 && i == s.Info().SideOf[s.ToMove()] {
			r.Proven = 1
		}
	}
	return r
}

// capFor is the ply at which a search from s scores a draw.
func capFor(s engine.State, maxPlies int) int {
	return max(maxPlies, s.Plies()+MinHorizon)
}
