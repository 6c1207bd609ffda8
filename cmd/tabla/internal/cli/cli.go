// Package cli builds the tabla command tree and decides exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/aicmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/boardscmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/clubcmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hubcmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hwcmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/librarycmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/replaycmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/rulescmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/runcmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/simcmd"
	_ "github.com/tabla-board/tabla/engine/games" // every game engine
	"github.com/tabla-board/tabla/engine/record"
)

// Version is set at build time with -ldflags "-X ...cli.Version=…".
var Version = "dev"

// NewRoot builds the command tree on the given streams.
func NewRoot(streams *cmdutil.IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "tabla",
		Short: "Companion for DAHA, STAR, GYGES, RAY and six on a sensor board",
		Long: "tabla follows a physical board game through a sensor board (or the\n" +
			"simulator), checks every move, lights legal destinations, journals the\n" +
			"game and analyses it afterwards.",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.AddCommand(rulescmd.NewCmd(streams), boardscmd.NewCmd(streams), aicmd.NewHintCmd(streams), aicmd.NewAnalyzeCmd(streams), aicmd.NewPlayCmd(streams), aicmd.NewStatsCmd(streams), runcmd.NewCmd(streams), simcmd.NewCmd(streams), replaycmd.NewCmd(streams), hwcmd.NewCmd(streams), librarycmd.NewCmd(streams), hubcmd.NewCmd(streams), clubcmd.NewCmd(streams))
	for _, c := range root.Commands() {
		requireSubcommand(c)
	}
	return root
}

// requireSubcommand makes a command group (tabla rules, boards, hw) refuse
// an unknown subcommand with exit status 2: cobra prints the group's help
// and exits 0 for `tabla rules frob x`. Without arguments the help is shown.
func requireSubcommand(c *cobra.Command) {
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	for _, sub := range c.Commands() {
		requireSubcommand(sub)
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var names []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				names = append(names, sub.Name())
			}
		}
		msg := fmt.Sprintf("unknown subcommand %q for %q (want %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2
		}
		if sug := c.SuggestionsFor(args[0]); len(sug) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(sug, " or "))
		}
		return cmdutil.WithCode(cmdutil.ExitUsage, errors.New(msg))
	}
}

// Main runs tabla with the process's arguments and returns the exit code.
func Main() cmdutil.ExitCode { return mainWith(cmdutil.System(), os.Args[1:]) }

// mainWith is Main on given streams and arguments: SIGINT and SIGTERM end
// the commands' context, and every long command (analyze, hint, play,
// stats, run, sim, library, hub) stops on it.
func mainWith(streams *cmdutil.IO, args []string) cmdutil.ExitCode {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, streams, args)
}

// Run runs tabla with the given arguments; tests call it directly.
func Run(ctx context.Context, streams *cmdutil.IO, args []string) cmdutil.ExitCode {
	root := NewRoot(streams)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var ce *cmdutil.CodeError
	if errors.As(err, &ce) && ce.Err == nil {
		return ce.Code
	}
	var re *record.Error
	if errors.As(err, &re) {
		// Record errors already say FILE:N: line N: what.
		fmt.Fprintln(streams.Err, err)
	} else {
		fmt.Fprintf(streams.Err, "tabla: %v\n", err)
	}
	if isUsage(err) {
		return cmdutil.ExitUsage
	}
	return cmdutil.CodeOf(err)
}

// isUsage tells cobra's flag and argument errors apart from failures.
func isUsage(err error) bool {
	var ce *cmdutil.CodeError
	if errors.As(err, &ce) {
		return ce.Code == cmdutil.ExitUsage
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "required flag"} {
		if len(msg) >= len(p) && contains(msg, p) {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
