// Package simcmd implements `tabla sim`: the simulator. Headless, it plays
// a physical-action script (SCRIPTS.md, read and played by sim/script) on
// the virtual board through the companion (companion.Player) and writes
// the game record; the browser page runs companion.Session (State,
// Subscribe, Command) with companion.LivePlayer (Act) on the same virtual
// board.
package simcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hwcmd"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/sim/script"
)

// Options are `tabla sim`'s inputs.
type Options struct {
	IO      *cmdutil.IO
	Game    string
	Script  string
	Record  string // the game record to write ("" none)
	Journal string // keep the full journal here ("" none)
	// Page is the interactive simulator's setup (no --script).
	Page PageOptions
	// LogFormat is text or json.
	LogFormat string
	// AISeats are --ai values: SEAT or SEAT=LEVEL.
	AISeats []string
	// PTY serves the virtual board on a pseudo-terminal instead.
	PTY bool
}

// NewCmd returns `tabla sim`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	o := &Options{IO: streams}
	cmd := &cobra.Command{
		Use:   "sim --game G | --script FILE [--record OUT]",
		Short: "The simulator: play on a virtual board in the browser, or play a script",
		Long: "Without --script, run the companion on a virtual board and serve a page\n" +
			"(default http://127.0.0.1:7421/) where you lift and place pieces, roll the\n" +
			"die and press the board's buttons exactly as at the table.\n\n" +
			"With --script, play a physical-action script (SCRIPTS.md) on the virtual\n" +
			"board through the companion, headless, and write the game record. Exit 0\n" +
			"when the script ends with the board in sync, 1 when it does not, 2 on a\n" +
			"malformed script or a failed expectation (the message names the line).",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.PTY {
				seed := o.Page.Seed
				if seed == 0 {
					seed = 1
				}
				return hwcmd.SimPTYRun(c.Context(), &hwcmd.SimPTYOptions{IO: o.IO, Game: o.Game,
					BoardFile: o.Page.BoardDef, Sensors: o.Page.Sensors, Seed: seed})
			}
			if err := cmdutil.CheckLogFormat(o.LogFormat); err != nil {
				return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: --log-format %v", err))
			}
			if o.Script != "" && (o.Page.Hub != "" || o.Page.Remote != "") {
				return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("sim: --hub and --remote are for the interactive simulator (no --script)"))
			}
			if o.Script == "" {
				if o.Game == "" {
					return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("sim: give --game (daha, star, gyges, ray or six) or --script FILE"))
				}
				o.Page.Game, o.Page.Journal = o.Game, o.Journal
				o.Page.AI = o.AISeats
				if o.Page.Ready == nil {
					o.Page.Ready = func(addr string, _ *PageSession) {
						fmt.Fprintf(o.IO.Out, "tabla sim: %s on a virtual board — open http://%s/ in a browser (Ctrl-C stops)\n", o.Game, addr)
					}
				}
				return ServePage(c.Context(), &o.Page, cmdutil.Logger(o.IO.Err, o.LogFormat))
			}
			return Run(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Game, "game", "", "the game: daha, star, gyges, ray or six (with --script: must agree with its header)")
	f.StringVar(&o.Page.Variant, "variant", "", "basic or advanced (gyges, six)")
	f.StringVar(&o.Page.First, "first", "", "who starts: star red|white (default: random), gyges south|north")
	f.IntVar(&o.Page.Players, "players", 0, "six: 2 or 4 players")
	f.StringVar(&o.Page.BoardDef, "board-file", "", "a board name or board file other than the game's default")
	f.StringVar(&o.Page.Sensors, "sensors", "identifying", "the virtual sensors: identifying (each cell tells the piece kind) or presence")
	f.Uint64Var(&o.Page.Seed, "seed", 0, "seed for tabla's dice and faults (0: random)")
	f.StringVar(&o.Page.Listen, "listen", "127.0.0.1:7421", "address of the page (keep it on localhost unless you mean it)")
	f.StringVar(&o.Page.Token, "token", "", "token for the control API (takeback, new, …) for other tools")
	f.StringSliceVar(&o.Page.AllowHosts, "allow-host", nil, "further host names the page answers to, e.g. tabla.local (besides the listen address)")
	f.StringVar(&o.LogFormat, "log-format", "text", "log format: text or json")
	f.BoolVar(&o.PTY, "pty", false, "serve the virtual board on a pseudo-terminal speaking the wire protocol: prints its path\n"+
		"(use it as tabla run --board serial:PATH); action lines on standard input act on the board")
	f.StringSliceVar(&o.AISeats, "ai", nil, "seats the engine plays, SEAT or SEAT=LEVEL (1–5), e.g. --ai north=4")
	f.StringVar(&o.Page.Hub, "hub", "", "publish the virtual board's games to a club hub (tabla hub): nats://TABLE:PASSWORD@HOST:4222")
	f.StringVar(&o.Page.Table, "table", "", "this table's name on the hub (default: the hub URL's user)")
	f.StringVar(&o.Page.HubCA, "hub-ca", "", "PEM file of the authority of the hub's TLS certificate")
	f.StringVar(&o.Page.Remote, "remote", "", "play a game hosted by another board through the hub: HOST[/GAME][:SEAT]")
	o.Page.Who.AddFlags(f)
	o.Page.Clock.AddFlags(f)
	f.StringVar(&o.Script, "script", "", "the script to play")
	f.StringVar(&o.Record, "record", "", "write the game record here")
	f.StringVar(&o.Journal, "journal", "", "also keep the full journal (board events included) here")
	return cmd
}

// Run plays the script.
func Run(o *Options) error {
	if o.Script == "" {
		return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("sim: --script is required"))
	}
	in, name, err := cmdutil.OpenInput(o.IO, o.Script)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	s, err := script.Parse(name, in)
	in.Close()
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	if o.Game != "" && o.Game != s.Header.Game {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("%s:1: the script is for %s, not %s", name, s.Header.Game, o.Game))
	}
	// --player, --event, … and --clock set the script's game too
	extra := PlayOptions{ClockPause: o.Page.Clock.Pause, Header: func(h *record.Header, seats []string) error {
		who, err := companion.ParseWho(o.Page.Who, seats)
		if err != nil {
			return err
		}
		h.SetWho(who)
		h.Clock, err = o.Page.Clock.Controls(seats)
		return err
	}}
	res, err := PlayWith(s, o.Journal, extra)
	if err != nil {
		var se *script.Error
		if errors.As(err, &se) {
			return cmdutil.WithCode(cmdutil.ExitUsage, err)
		}
		return err
	}
	if o.Record != "" {
		if err := os.WriteFile(o.Record, GameRecord(res.Journal), 0o644); err != nil {
			return err
		}
	}
	st := res.State
	fmt.Fprintf(o.IO.Out, "%s: ply %d, %s to %s, %s, %s\n", s.Header.Game, st.Ply, deref(st.ToMove), st.Awaiting, st.Status,
		map[bool]string{true: "in sync", false: "out of sync"}[st.InSync])
	if !st.InSync {
		fmt.Fprintf(o.IO.Err, "sim: the board is out of sync at the end: %s\n", strings.Join(st.Pending, " "))
		return cmdutil.Silent(cmdutil.ExitError)
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return "nobody"
	}
	return *s
}

// Result is a played script's outcome.
type Result struct {
	State   companionState
	Journal []byte // the whole journal
}

type companionState = referee.State

// Play runs a parsed script on a fresh virtual board and session; the
// journal goes to journalDir (a temporary directory when ""). A malformed
// or failed script is a *script.Error naming the line.
func Play(s *script.Script, journalDir string) (*Result, error) {
	return PlayWith(s, journalDir, PlayOptions{})
}

// PlayOptions set a script's game further than its header does.
type PlayOptions struct {
	// Header, when set, completes the record header (who and where, the
	// time control) for the game's seats; its error is the script's line 1.
	Header func(h *record.Header, seats []string) error
	// ClockPause: companion.Options.ClockPause.
	ClockPause bool
}

// PlayWith is Play with further options.
func PlayWith(s *script.Script, journalDir string, po PlayOptions) (*Result, error) {
	h := recordHeader(&s.Header)
	setupErr := func(err error) error { return &script.Error{File: s.File, Line: 1, Err: err} }
	b, err := script.NewBoard(s)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	st, err := record.NewState(&h)
	if err != nil {
		return nil, setupErr(err)
	}
	if po.Header != nil {
		if err := po.Header(&h, st.Info().Seats); err != nil {
			return nil, setupErr(err)
		}
	}
	var faces []string
	if d := st.Info().Die; d != nil {
		faces = d.Faces
	}
	rnd := func(n int) int {
		f := b.TablaRoll(h.Game == "ray")
		for i, x := range faces {
			if x == f {
				return i
			}
		}
		return 0
	}
	if journalDir == "" {
		dir, err := os.MkdirTemp("", "tabla-sim-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		journalDir = dir
	} else { // one process per journal folder (companion.LockJournalDir)
		lock, err := companion.LockJournalDir(journalDir, "tabla sim --script", time.Now())
		if err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		defer lock.Unlock()
	}
	sess, err := companion.Open(companion.Options{Header: h, Board: s.Board, HW: b, JournalDir: journalDir, NoResume: true,
		Source: "sim", Rand: rnd, ClockPause: po.ClockPause})
	if err != nil {
		return nil, setupErr(err)
	}
	defer sess.Close()
	p := companion.NewPlayer(b, sess)
	defer p.Close()
	if err := p.Run(context.Background(), s); err != nil {
		return nil, err
	}
	journal, err := os.ReadFile(sess.JournalPath())
	if err != nil {
		return nil, err
	}
	return &Result{State: sess.State(), Journal: journal}, nil
}

// recordHeader is the game record header a script's header describes.
func recordHeader(h *script.Header) record.Header {
	return record.Header{Tabla: record.Version, Game: h.Game, Variant: h.Variant, First: h.First, N: h.N,
		Players: h.Players, Board: h.Board}
}

// GameRecord returns the game record of a journal: its header and its
// move and roll lines, without the board events.
func GameRecord(journal []byte) []byte {
	var b bytes.Buffer
	for i, l := range bytes.SplitAfter(journal, []byte("\n")) {
		if i == 0 || bytes.HasPrefix(l, []byte(`{"move":`)) || bytes.HasPrefix(l, []byte(`{"roll":`)) {
			b.Write(l)
		}
	}
	return b.Bytes()
}
