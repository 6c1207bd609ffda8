package aicmd

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/boardscmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// PlayOptions are the inputs of `tabla play`.
type PlayOptions struct {
	IO *cmdutil.IO
	// Context, when it ends (Ctrl-C, SIGTERM), stops the game at once,
	// the engine's search and the wait for a move alike; nil: none.
	Context  context.Context
	Game     string
	Variant  string
	First    string
	Seats    []string // seats the human plays; empty: the first seat
	Record   string   // write the game record here
	NoBoard  bool
	Strength Strength
}

// NewPlayCmd returns `tabla play`.
func NewPlayCmd(streams *cmdutil.IO) *cobra.Command {
	opts := &PlayOptions{IO: streams}
	cmd := &cobra.Command{
		Use:   "play --game GAME [--seat NAME]...",
		Short: "Play a game in the terminal against the engine",
		Long: "Play against the engine: type moves in canonical notation when it is your\n" +
			"turn (\"moves\" lists them, \"hint\" asks the engine, \"quit\" stops). Dice\n" +
			"are rolled by tabla with a seeded generator; on your roll you may type the\n" +
			"face instead. The board is drawn after every move. --seat names the seats\n" +
			"you play (default the first seat; none with --seat none: engine self-play).",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Context = c.Context()
			return PlayRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Game, "game", "", "daha, star, gyges, ray or six")
	cmd.Flags().StringVar(&opts.Variant, "variant", "", "basic or advanced (gyges, six)")
	cmd.Flags().StringVar(&opts.First, "first", "", "who moves first (star: red/white, required by records; gyges: south/north)")
	cmd.Flags().StringSliceVar(&opts.Seats, "seat", nil, "seats you play (repeatable)")
	cmd.Flags().StringVar(&opts.Record, "record", "", "write the game record to this file")
	cmd.Flags().BoolVar(&opts.NoBoard, "no-board", false, "do not draw the board")
	opts.Strength.flags(cmd, 0)
	cmd.MarkFlagRequired("game")
	return cmd
}

// PlayRun plays one game.
func PlayRun(opts *PlayOptions) error {
	so, err := opts.Strength.options()
	if err != nil {
		return err
	}
	h := &record.Header{Tabla: record.Version, Game: opts.Game, Variant: opts.Variant, First: opts.First}
	if opts.Game == "star" && h.First == "" {
		h.First = "red"
	}
	s, err := record.NewState(h)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	info := s.Info()
	if err := checkAlgo(so, info); err != nil {
		return err
	}
	human := map[int]bool{}
	if len(opts.Seats) == 0 {
		human[0] = true
	}
	for _, name := range opts.Seats {
		if name == "none" {
			continue
		}
		i := info.SeatIndex(name)
		if i < 0 {
			return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("--seat %q: %s has %s", name, info.Game, strings.Join(info.Seats, ", ")))
		}
		human[i] = true
	}
	var rw *record.Writer
	if opts.Record != "" {
		f, err := os.Create(opts.Record)
		if err != nil {
			return err
		}
		defer f.Close()
		rw = record.NewWriter(f)
		if err := rw.WriteHeader(h); err != nil {
			return err
		}
	}
	out := opts.IO.Out
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	so.Stop = ctx.Done()
	// Lines are read in their own goroutine, so that a signal ends the
	// wait for one.
	lines := make(chan string)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(lines)
		in := bufio.NewScanner(opts.IO.In)
		for in.Scan() {
			select {
			case lines <- in.Text():
			case <-quit:
				return
			}
		}
	}()
	rng := rand.New(rand.NewPCG(so.Seed, 0x7ab1a))
	board := boards.Default(info.Game)
	draw := func() {
		if !opts.NoBoard && board != nil {
			fmt.Fprint(out, boardscmd.Draw(board, s.Position().Pieces))
		}
	}
	fmt.Fprintf(out, "%s: you play %s; level %d\n", info.Game, seatList(info, human), so.Level)
	draw()
	ask := func(prompt string) (string, bool) {
		fmt.Fprint(out, prompt)
		select {
		case l, ok := <-lines:
			return strings.TrimSpace(l), ok
		case <-ctx.Done():
			return "", false
		}
	}
	limit := 1 << 30
	if len(human) == 0 {
		limit = search.DefaultMaxPlies // self-play: the ply cap scores a draw
	}
	for s.Awaiting() != engine.AwaitNone && s.Plies() < limit {
		seat := s.ToMove()
		name := info.Seats[seat]
		if s.Awaiting() == engine.AwaitRoll {
			face := rng.IntN(len(info.Die.Faces))
			if human[seat] {
				for {
					text, ok := ask(fmt.Sprintf("%s rolls (enter: random, or a face %s): ", name, strings.Join(info.Die.Faces, "/")))
					if !ok || text == "quit" {
						return nil
					}
					if text == "" {
						break
					}
					if f := faceIndex(info.Die, text); f >= 0 {
						face = f
						break
					}
					fmt.Fprintf(out, "no face %q\n", text)
				}
			}
			if err := s.Roll(face); err != nil {
				return err
			}
			fmt.Fprintf(out, "%s rolled %s\n", name, info.Die.Faces[face])
			if rw != nil {
				rw.Write(record.Line{Roll: info.Die.Faces[face], Numeric: info.Die.Numeric, By: name, Source: "cli"})
			}
			continue
		}
		var m engine.Move
		if human[seat] {
			for m == engine.NoMove {
				text, ok := ask(fmt.Sprintf("%s to move: ", name))
				switch {
				case !ok && stoppedBy(ctx):
					fmt.Fprintln(out)
					return interrupted("play", ctx)
				case !ok || text == "quit":
					return nil
				case text == "moves":
					var list []string
					for _, x := range s.Moves(nil) {
						list = append(list, engine.MoveString(s, x))
					}
					fmt.Fprintln(out, strings.Join(list, " "))
				case text == "hint":
					r := search.Search(s, so)
					fmt.Fprintf(out, "hint: %s (%s)\n", engine.MoveString(s, r.Move), pct(r.Value))
				case text == "":
				default:
					x, err := s.ParseMove(text)
					if err != nil {
						fmt.Fprintln(out, err)
						continue
					}
					m = x
				}
			}
		} else {
			r := search.Search(s, so)
			if stoppedBy(ctx) {
				return interrupted("play", ctx)
			}
			m = r.Move
			fmt.Fprintf(out, "%s plays %s (%s wins %s)\n", name, engine.MoveString(s, m), info.Sides[info.SideOf[seat]], pct(r.Value))
		}
		text := engine.MoveString(s, m)
		s.Play(m)
		if human[seat] {
			fmt.Fprintf(out, "%s plays %s\n", name, text)
		}
		if rw != nil {
			src := "engine"
			if human[seat] {
				src = "cli"
			}
			rw.Write(record.Line{Move: text, By: name, Source: src})
		}
		draw()
	}
	r := s.Result()
	switch r.Status {
	case engine.Won:
		fmt.Fprintf(out, "%s won after %d plies\n", info.Sides[r.Winner], s.Plies())
	case engine.Draw:
		fmt.Fprintf(out, "draw after %d plies\n", s.Plies())
	default:
		fmt.Fprintf(out, "draw by the ply cap (%d plies)\n", s.Plies())
	}
	return nil
}

func seatList(info *engine.Info, human map[int]bool) string {
	var names []string
	for i, n := range info.Seats {
		if human[i] {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "no seat (engine self-play)"
	}
	return strings.Join(names, ", ")
}

func faceIndex(d *engine.Die, text string) int {
	for i, f := range d.Faces {
		if f == text {
			return i
		}
	}
	return -1
}
