// Package clubcmd implements `tabla club pair`: the next round of a
// tournament in FIDE's TRF, paired by the club's systems, for an arbiter
// who runs other programs too.
package clubcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// PairOptions are `tabla club pair`'s inputs.
type PairOptions struct {
	IO     *cmdutil.IO
	File   string // path, or "-" for stdin
	System string // club.SystemDutch or club.SystemBerger
}

// NewCmd returns `tabla club`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "club",
		Short: "Club tournaments: pair a round from a FIDE TRF",
	}
	opts := &PairOptions{IO: streams}
	pair := &cobra.Command{
		Use:   "pair [--system dutch|berger] FILE.trf|-",
		Short: "Print the next round of a tournament in FIDE's TRF",
		Long: "Read a tournament in FIDE's TRF-2016 (player lines with one cell per round,\n" +
			"XXR the planned rounds, XXC white1|black1 the first seat of round 1) and print\n" +
			"its next round as bbpPairings' .pairs files: the number of lines that follow,\n" +
			"then the first and the second seat's start numbers per board, board 1 first,\n" +
			"and \"ID 0\" for the bye.\n\n" +
			"  dutch   FIDE's Dutch Swiss (C.04.3), the first seat as white\n" +
			"  berger  FIDE's Berger round robin (C.05); the earlier rounds must be the table's\n\n" +
			"A malformed TRF names its line and column; a round that cannot be paired\n" +
			"without a rematch or a second bye exits 1 with a message.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			return PairRun(opts)
		},
	}
	pair.Flags().StringVar(&opts.System, "system", club.SystemDutch, "pairing system: dutch or berger")
	cmd.AddCommand(pair)
	return cmd
}

// PairRun reads the TRF and prints the next round.
func PairRun(opts *PairOptions) error {
	if opts.System != club.SystemDutch && opts.System != club.SystemBerger {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--system %q: dutch or berger", opts.System))
	}
	f, name, err := cmdutil.OpenInput(opts.IO, opts.File)
	if err != nil {
		return err
	}
	defer f.Close()
	t, err := trf.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	p, err := club.PairTRF(t, opts.System)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return p.WritePairs(opts.IO.Out)
}
