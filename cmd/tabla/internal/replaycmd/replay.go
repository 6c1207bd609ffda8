// Package replaycmd implements `tabla replay`: re-run the referee over the
// raw board events of a journal and check that it takes the same decisions
// (the way a user reports a misrecognised move).
package replaycmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
)

// Options are `tabla replay`'s inputs.
type Options struct {
	IO *cmdutil.IO
	// Context, when it ends (Ctrl-C, SIGTERM), stops the replay; nil: none.
	Context     context.Context
	File        string
	BoardEvents bool
}

// NewCmd returns `tabla replay`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	o := &Options{IO: streams}
	cmd := &cobra.Command{
		Use:   "replay FILE [--board-events]",
		Short: "Re-run the referee over a journal's board events",
		Long: "Re-run the referee over the raw board events of a journal (from `tabla run`\n" +
			"or `tabla sim --journal`) and compare its moves, rolls and takebacks with the\n" +
			"journal's. Exit 0 when they agree, 1 with a diff when they do not.\n" +
			"--board-events also prints the decisions.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			o.Context = c.Context()
			return Run(o)
		},
	}
	cmd.Flags().BoolVar(&o.BoardEvents, "board-events", false, "print the decisions replayed from the board events")
	return cmd
}

// Run replays the journal.
func Run(o *Options) error {
	in, name, err := cmdutil.OpenInput(o.IO, o.File)
	if err != nil {
		return err
	}
	defer in.Close()
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := companion.ReplayContext(ctx, in, name)
	if err != nil {
		return err
	}
	if o.BoardEvents {
		for _, d := range res.Got {
			fmt.Fprintln(o.IO.Out, d)
		}
	}
	if !res.Match() {
		fmt.Fprintf(o.IO.Err, "%s: the referee decides differently from the journal\n%s", name, res.Diff())
		return cmdutil.Silent(cmdutil.ExitError)
	}
	fmt.Fprintf(o.IO.Out, "%s: %d board events, %d decisions reproduced\n", name, res.Events, len(res.Got))
	return nil
}
