package aicmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/engine/analysis"
)

// AnalyzeOptions are the inputs of `tabla analyze`.
type AnalyzeOptions struct {
	IO *cmdutil.IO
	// Context, when it ends (Ctrl-C, SIGTERM), stops the analysis; nil:
	// none.
	Context  context.Context
	File     string
	JSON     bool
	SVG      string // write the plot here
	Blunder  float64
	Strength Strength
}

// NewAnalyzeCmd returns `tabla analyze`.
func NewAnalyzeCmd(streams *cmdutil.IO) *cobra.Command {
	opts := &AnalyzeOptions{IO: streams}
	cmd := &cobra.Command{
		Use:   "analyze RECORD|-",
		Short: "Review every move of a game: win chances, the engine's move, inaccuracies, mistakes, blunders, accuracy",
		Long: "For every move: the win probability of the mover's side before and after it,\n" +
			"the engine's preferred move and the loss; inaccuracies (?!, a loss of 5 points\n" +
			"or more), mistakes (?, 10 or more), blunders (??, loss ≥ --blunder) and missed\n" +
			"wins (a forced win existed and was let go) are flagged; then a summary per\n" +
			"player with its accuracy (computed as lichess does, over the moves that had\n" +
			"a choice) and its moves of each tier. --svg draws the win-probability curve. --workers positions are\n" +
			"searched in parallel (the result does not depend on it). When standard error\n" +
			"is a terminal a progress bar shows the positions searched.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Context = c.Context()
			return AnalyzeRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&opts.SVG, "svg", "", "write the win-probability plot to this SVG file")
	cmd.Flags().Float64Var(&opts.Blunder, "blunder", analysis.DefaultBlunder, "loss of win probability that makes a blunder")
	opts.Strength.flags(cmd, 0)
	return cmd
}

// AnalyzeRun analyses the record.
func AnalyzeRun(opts *AnalyzeOptions) error {
	so, err := opts.Strength.options()
	if err != nil {
		return err
	}
	if !(opts.Blunder >= 0 && opts.Blunder <= 1) {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--blunder %v: want a loss of win probability from 0 (the default, %v) to 1", opts.Blunder, analysis.DefaultBlunder))
	}
	g, err := replay(opts.Context, "analyze", opts.IO, opts.File, true, analysis.MaxMoves)
	if err != nil {
		return err
	}
	if err := checkAlgo(so, g.State.Info()); err != nil {
		return err
	}
	progress, finish := termProgress(opts.IO.Err, "analyze: positions")
	so.Stop = done(opts.Context)
	rep, err := analysis.Analyze(g.Header, g.Applied, analysis.Options{Search: so, Workers: opts.Strength.Workers, Blunder: opts.Blunder,
		Progress: progress})
	finish()
	if errors.Is(err, analysis.ErrStopped) {
		return interrupted("analyze", opts.Context)
	}
	if err != nil {
		return err
	}
	if opts.SVG != "" {
		f, err := os.Create(opts.SVG)
		if err != nil {
			return err
		}
		if err := analysis.WriteSVG(f, rep); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if opts.JSON {
		rep.TimeMS = 0 // keep the output reproducible; timing goes to stderr
		return writeJSON(opts.IO, rep)
	}
	return writeReport(opts.IO, rep)
}

// tierMarks are the tiers' signs, as the analysis board shows them.
var tierMarks = map[string]string{"inaccuracy": "?!", "mistake": "?", "blunder": "??"}

func writeReport(streams *cmdutil.IO, rep *analysis.Report) error {
	w := tabwriter.NewWriter(streams.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "%s, %s; level %d (%s)\n", rep.Game, rep.Result, rep.Level, rep.Algo)
	fmt.Fprintln(w, "#\tseat\tmove\tbefore\tafter\tbest\tloss\t")
	for _, m := range rep.Moves {
		best, flag := m.Best, ""
		if m.Forced {
			best = "(forced)"
		}
		if m.Tier != "" {
			flag = tierMarks[m.Tier] + " " + m.Tier
		}
		if m.MissedWin {
			flag = strings.TrimSpace(flag + " missed win")
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n", m.N, m.Seat, m.Move, pct(m.Before), pct(m.After), best, 100*m.Loss, flag)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "seat\tmoves\taccuracy\tmean loss\tinaccuracies\tmistakes\tblunders\tmissed wins\tagreement\t")
	for _, p := range rep.Players {
		agree, acc := "-", "-"
		if p.Unforced > 0 {
			agree = pct(p.Agreement)
		}
		if p.Accuracy >= 0 {
			acc = fmt.Sprintf("%.0f%%", p.Accuracy)
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%.1f\t%d\t%d\t%d\t%d\t%s\t\n", p.Seat, p.Moves, acc, 100*p.MeanLoss, p.Inaccuracies, p.Mistakes, p.Blunders, p.MissedWins, agree)
	}
	return w.Flush()
}
