package aicmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// Bounds of the search flags: each worker holds a copy of the game and
// its tables, and a budget beyond these would not end in reasonable time.
const (
	maxThink   = time.Hour
	maxNodes   = 1e12
	maxWorkers = 256
)

// Strength is the search budget flags every command shares.
type Strength struct {
	Level   int
	Time    time.Duration
	Nodes   int64
	Workers int
	Seed    uint64
	Algo    string
}

func (st *Strength) flags(cmd *cobra.Command, workersDefault int) {
	cmd.Flags().IntVar(&st.Level, "level", search.DefaultLevel, "strength 1–5")
	cmd.Flags().DurationVar(&st.Time, "time", 0, "think for this long instead of the level's node budget (not deterministic)")
	cmd.Flags().Int64Var(&st.Nodes, "nodes", 0, "node (alpha-beta) or iteration (MCTS) budget; overrides the level's")
	cmd.Flags().IntVar(&st.Workers, "workers", workersDefault, "parallel search workers (0: all cores)")
	cmd.Flags().Uint64Var(&st.Seed, "seed", 1, "random seed of MCTS")
	cmd.Flags().StringVar(&st.Algo, "algo", "auto", "auto, alphabeta, mcts or exact")
}

func (st *Strength) options() (search.Options, error) {
	o := search.Options{Level: st.Level, Time: st.Time, Nodes: st.Nodes, Workers: st.Workers, Seed: st.Seed}
	if st.Level < 1 || st.Level > 5 {
		return o, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--level %d: want 1–5", st.Level))
	}
	if st.Time < 0 || st.Time > maxThink {
		return o, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--time %v: want 0 (the level's budget) to %v", st.Time, maxThink))
	}
	if st.Nodes < 0 || st.Nodes > maxNodes {
		return o, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--nodes %d: want 0 (the level's budget) to %d", st.Nodes, int64(maxNodes)))
	}
	if st.Workers < 0 || st.Workers > maxWorkers {
		return o, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--workers %d: want 0 (all cores) to %d", st.Workers, maxWorkers))
	}
	switch st.Algo {
	case "", "auto":
	case "alphabeta":
		o.Algo = search.AlphaBeta
	case "mcts":
		o.Algo = search.MCTS
	case "exact":
		o.Algo = search.Exact
	default:
		return o, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--algo %q: want auto, alphabeta, mcts or exact", st.Algo))
	}
	return o, nil
}

// checkAlgo refuses an --algo that cannot search the game.
func checkAlgo(so search.Options, info *engine.Info) error {
	if search.Supports(info, so.Algo) {
		return nil
	}
	why := "it has dice or more than two sides"
	if so.Algo == search.Exact {
		why = "exact odds are RAY's alone"
	}
	return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--algo %s cannot search %s: %s (want auto or mcts)", so.Algo, info.Game, why))
}

// replay reads a record until ctx (which may be nil) ends. With keep it
// keeps every move, at most max (analyze: analysis.MaxMoves); without,
// it streams them (hint: the position is all it needs).
func replay(ctx context.Context, cmd string, streams *cmdutil.IO, file string, keep bool, max int) (*record.Game, error) {
	f, name, err := cmdutil.OpenInput(streams, file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := record.NewReader(cmdutil.ContextReader(ctx, f), name)
	var g *record.Game
	if keep {
		g, err = record.ReplayLimit(rd, nil, max, cmd+" reads")
	} else {
		g, err = record.Stream(rd, nil, nil)
	}
	if stop := cmdutil.Stopped(cmd, ctx); stop != nil {
		return nil, stop
	}
	return g, err
}

// noMove says why no move is due, "" when one is.
func noMove(s engine.State) string {
	info := s.Info()
	switch s.Awaiting() {
	case engine.AwaitNone:
		r := s.Result()
		if r.Status == engine.Won {
			return "the game is over: " + info.Sides[r.Winner] + " won"
		}
		return "the game is over: " + r.Status.String()
	case engine.AwaitRoll:
		return info.Seats[s.ToMove()] + " must roll the die first"
	}
	return ""
}

func pct(p float64) string { return fmt.Sprintf("%.1f%%", 100*p) }

// done is ctx's Done channel (nil, never closed, for a nil ctx).
func done(ctx context.Context) <-chan struct{} {
	if ctx == nil {
		return nil
	}
	return ctx.Done()
}

// stoppedBy reports whether ctx (which may be nil) has ended.
func stoppedBy(ctx context.Context) bool { return ctx != nil && ctx.Err() != nil }

// interrupted is the error of a command stopped by a signal (its context).
func interrupted(cmd string, ctx context.Context) error {
	return fmt.Errorf("%s: stopped (%v)", cmd, context.Cause(ctx))
}
