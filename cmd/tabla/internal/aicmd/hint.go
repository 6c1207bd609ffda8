package aicmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/search"
)

// HintOptions are the inputs of `tabla hint`.
type HintOptions struct {
	IO *cmdutil.IO
	// Context, when it ends (Ctrl-C, SIGTERM), stops the search; nil: none.
	Context  context.Context
	File     string
	JSON     bool
	Strength Strength
}

// HintJSON is the --json output. Move is null when no move is due.
type HintJSON struct {
	Move   *string  `json:"move"`
	Eval   float64  `json:"eval"` // win probability of the mover's side
	PV     []string `json:"pv"`
	Nodes  int64    `json:"nodes"`
	TimeMS int64    `json:"time_ms"`
	Depth  int      `json:"depth,omitempty"`
	Proven int8     `json:"proven,omitempty"`
	Reason string   `json:"reason,omitempty"` // why no move is due
}

// NewHintCmd returns `tabla hint`.
func NewHintCmd(streams *cmdutil.IO) *cobra.Command {
	opts := &HintOptions{IO: streams}
	cmd := &cobra.Command{
		Use:   "hint RECORD|-",
		Short: "Print the engine's move for the position after a record",
		Long: "Print the engine's move for the position after the record: the move in\n" +
			"canonical notation is the first word of the first line, then the win\n" +
			"probability of the mover's side and the expected line. When no move is\n" +
			"due (the game is over, or a roll is due) the first word is \"none\".\n" +
			"A bad record exits 1 and names its line.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Context = c.Context()
			return HintRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"move","eval","pv":[...],"nodes","time_ms"}`)
	opts.Strength.flags(cmd, 0)
	return cmd
}

// HintRun prints the hint.
func HintRun(opts *HintOptions) error {
	so, err := opts.Strength.options()
	if err != nil {
		return err
	}
	g, err := replay(opts.Context, "hint", opts.IO, opts.File, false, 0)
	if err != nil {
		return err
	}
	s := g.State
	if err := checkAlgo(so, s.Info()); err != nil {
		return err
	}
	if why := noMove(s); why != "" {
		if opts.JSON {
			return writeJSON(opts.IO, HintJSON{PV: []string{}, Reason: why})
		}
		fmt.Fprintf(opts.IO.Out, "none (%s)\n", why)
		return nil
	}
	so.Stop = done(opts.Context)
	r := search.Search(s, so)
	if stoppedBy(opts.Context) {
		return interrupted("hint", opts.Context)
	}
	pv := pvStrings(s, r.PV)
	mv := engine.MoveString(s, r.Move)
	if opts.JSON {
		return writeJSON(opts.IO, HintJSON{Move: &mv, Eval: round(r.Value), PV: pv, Nodes: r.Nodes,
			TimeMS: r.Time.Milliseconds(), Depth: r.Depth, Proven: r.Proven})
	}
	note := ""
	switch r.Proven {
	case 1:
		note = ", forced win"
	case -1:
		note = ", lost against best play"
	}
	fmt.Fprintf(opts.IO.Out, "%s  (%s wins %s%s; %s, %d nodes)\n", mv, s.Info().Sides[s.Info().SideOf[s.ToMove()]], pct(r.Value), note, r.Algo, r.Nodes)
	if len(pv) > 1 {
		fmt.Fprintf(opts.IO.Out, "line: %s\n", strings.Join(pv, " "))
	}
	return nil
}

// pvStrings writes a line of play in notation (on a clone).
func pvStrings(s engine.State, pv []engine.Move) []string {
	out := []string{}
	c := s.Clone()
	for _, m := range pv {
		if c.Awaiting() != engine.AwaitMove || !engine.Legal(c, m) {
			break
		}
		out = append(out, engine.MoveString(c, m))
		c.Play(m)
	}
	return out
}

func round(p float64) float64 { return float64(int64(p*10000+0.5)) / 10000 }

func writeJSON(streams *cmdutil.IO, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(streams.Out, "%s\n", b)
	return err
}
