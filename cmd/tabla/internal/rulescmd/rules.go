// Package rulescmd implements `tabla rules moves|check`: the contract other
// tools check the engines against (RULES.md §7).
package rulescmd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// Options are the inputs of both subcommands.
type Options struct {
	IO   *cmdutil.IO
	File string // path, or "-" for stdin
	// Context, when it ends (Ctrl-C, SIGTERM), stops the reading; nil:
	// none.
	Context context.Context
}

// NewCmd returns `tabla rules`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Check game records against the rules",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "moves FILE|-",
		Short: "Print the legal moves after a record, one a line, sorted by bytes",
		Long: "Print the legal moves after the record in canonical notation, one a line,\n" +
			"sorted by bytes; nothing when the game is over or a roll is due.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return MovesRun(&Options{IO: streams, File: args[0], Context: c.Context()})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE|-",
		Short: "Print the state after a record as one JSON object",
		Long: "Print {\"game\",\"ply\",\"to_move\",\"awaiting\",\"status\",\"winner\",\"eliminated\"}\n" +
			"for the position after the record, followed by the header's names, event,\n" +
			"round, site and date, its time control with each seat's time left after the\n" +
			"record's timed turns, and a flag fall ({\"end\":\"time\"}) when it has them.\n" +
			"A malformed or illegal record exits 1\n" +
			"and names its line (and the header field) on stderr.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return CheckRun(&Options{IO: streams, File: args[0], Context: c.Context()})
		},
	})
	return cmd
}

func replay(opts *Options) (*record.Game, error) {
	g, _, err := replayEnd(opts)
	return g, err
}

// ending is a journal's {"end":"time","flag":SEAT} line, if any.
type ending struct {
	End  string `json:"end"`
	Flag string `json:"flag"`
}

func replayEnd(opts *Options) (*record.Game, ending, error) {
	var end ending
	f, name, err := cmdutil.OpenInput(opts.IO, opts.File)
	if err != nil {
		return nil, end, err
	}
	defer f.Close()
	// streamed: a record of a million moves takes the memory of one position
	g, err := record.Stream(record.NewReader(cmdutil.ContextReader(opts.Context, f), name), func(ev *record.Event) error {
		if ev.Kind == "end" {
			end = ending{}
			json.Unmarshal(ev.Raw, &end)
		}
		return nil
	}, nil)
	if stop := cmdutil.Stopped("rules", opts.Context); stop != nil {
		return nil, end, stop
	}
	return g, end, err
}

// MovesRun prints the legal moves.
func MovesRun(opts *Options) error {
	g, err := replay(opts)
	if err != nil {
		return err
	}
	var lines []string
	for _, m := range g.State.Moves(make([]engine.Move, 0, 1024)) {
		lines = append(lines, engine.MoveString(g.State, m))
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Fprintln(opts.IO.Out, l)
	}
	return nil
}

// CheckRun prints the summary object.
func CheckRun(opts *Options) error {
	g, end, err := replayEnd(opts)
	if err != nil {
		return err
	}
	sum := record.Summary(g.State)
	sum.Who = g.Header.Who()
	if c := g.Clock(); c != nil {
		sum.Clock, sum.ClockLeft = g.Header.Clock, map[string]int64{}
		for i, seat := range g.State.Info().Seats {
			sum.ClockLeft[seat] = c.Left(i, 0).Milliseconds()
		}
	}
	if end.End == "time" {
		sum.End, sum.Flag = end.End, end.Flag
		if _, ok := sum.ClockLeft[end.Flag]; ok {
			sum.ClockLeft[end.Flag] = 0
		}
	}
	b, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "%s\n", b)
	return nil
}
