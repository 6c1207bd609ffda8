package hwcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/gpio"
	"github.com/tabla-board/tabla/sim"
	"github.com/tabla-board/tabla/sim/script"
)

// DefaultGPIOConfig is read by the "gpio" board spec without a file.
const DefaultGPIOConfig = "/etc/tabla/gpio.conf"

func openGPIO(ctx context.Context, arg string, o companion.BoardOptions) (hardware.Board, error) {
	if arg == "" {
		arg = DefaultGPIOConfig
	}
	cfg, err := gpio.ReadConfig(arg)
	if err != nil {
		return nil, err
	}
	return gpio.Open(cfg)
}

// NewCmd returns `tabla hw` and registers the gpio board scheme.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	companion.RegisterOpener("gpio", openGPIO)
	cmd := &cobra.Command{Use: "hw", Short: "Hardware bring-up: test a wired board, serve a virtual one"}
	cmd.AddCommand(newTestCmd(streams), newSimPTYCmd(streams))
	return cmd
}

// TestOptions are `tabla hw test`'s inputs.
type TestOptions struct {
	IO        *cmdutil.IO
	Board     string // spec
	BoardFile string
	LEDsOnly  bool
	Timeout   time.Duration // per cell
	Step      time.Duration // per LED in the walk
	// Open opens the board (tests put a virtual one here).
	Open func(ctx context.Context, spec string, def *boards.Board) (hardware.Board, error)
}

func newTestCmd(streams *cmdutil.IO) *cobra.Command {
	o := &TestOptions{IO: streams}
	cmd := &cobra.Command{
		Use:   "test --board serial:/dev/ttyUSB0|serial:auto|gpio[:CONFIG] --board-file NAME|FILE",
		Short: "Smoke-test a newly wired board: LEDs, then every sensor",
		Long: "Light every LED in turn, then ask for a piece on each cell and check that\n" +
			"the sensor wired to it fires. Reports dead sensors (nothing fired), swapped\n" +
			"cells (another sensor fired: which cell it is wired to) and stuck-on sensors.\n" +
			"Exit 0 when everything works, 1 when something does not.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return TestRun(c.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Board, "board", "", "serial:PATH, serial:auto, gpio[:CONFIG] or sim")
	f.StringVar(&o.BoardFile, "board-file", "", "board definition with the wiring (builtin name or file)")
	f.BoolVar(&o.LEDsOnly, "leds-only", false, "only walk the LEDs (no questions)")
	f.DurationVar(&o.Timeout, "timeout", 20*time.Second, "how long to wait for each sensor")
	f.DurationVar(&o.Step, "step", 300*time.Millisecond, "how long each LED stays lit in the walk")
	return cmd
}

// Report is what a test found.
type Report struct {
	OK      []string
	Dead    []string // cells whose sensor never fired
	Swapped []string // "c3: sensor 17 fired, wired to d4"
	Stuck   []string // cells whose sensor stays on
}

func (r *Report) bad() bool { return len(r.Dead)+len(r.Swapped)+len(r.Stuck) > 0 }

// TestRun opens the board and runs the test.
func TestRun(ctx context.Context, o *TestOptions) error {
	if o.Board == "" || o.BoardFile == "" {
		return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("hw test: --board and --board-file are required"))
	}
	def, err := boards.Open(o.BoardFile)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	open := o.Open
	if open == nil {
		open = func(ctx context.Context, spec string, def *boards.Board) (hardware.Board, error) {
			return companion.OpenBoard(ctx, spec, companion.BoardOptions{Def: def})
		}
	}
	hw, err := open(ctx, o.Board, def)
	if err != nil {
		return err
	}
	defer hw.Close()
	rep, err := Test(ctx, o, hw, def)
	if err != nil {
		return err
	}
	if rep.bad() {
		return cmdutil.Silent(cmdutil.ExitError)
	}
	return nil
}

type tester struct {
	ctx   context.Context
	o     *TestOptions
	out   io.Writer
	hw    hardware.Board
	def   *boards.Board
	state []byte
}

// next returns the next event, keeping the sensor state; ok is false on a
// timeout.
func (t *tester) next(timeout time.Duration) (hardware.Event, bool, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return hardware.Event{}, false, t.ctx.Err()
		case <-timer.C:
			return hardware.Event{}, false, nil
		case ev, ok := <-t.hw.Events():
			if !ok {
				return ev, false, errors.New("hw test: the board closed")
			}
			switch ev.Kind {
			case hardware.Snapshot:
				t.state = slices.Clone(ev.Codes)
			case hardware.Change:
				if ev.Sensor < len(t.state) {
					t.state[ev.Sensor] = ev.Code
				}
			case hardware.Status:
				fmt.Fprintf(t.out, "  (board %s)\n", ev)
			case hardware.Fault:
				fmt.Fprintf(t.out, "  (board fault: %v)\n", ev.Err)
			}
			return ev, true, nil
		}
	}
}

func (t *tester) cellOf(sensor int) string {
	if sensor >= 0 && sensor < len(t.def.Sensors) && t.def.Sensors[sensor] >= 0 {
		return t.def.Cells[t.def.Sensors[sensor]].Name
	}
	return fmt.Sprintf("(no cell: sensor %d is not in the board file)", sensor)
}

func (t *tester) light(cell int) {
	frame := make([]hardware.LED, t.hw.Info().LEDs)
	if cell >= 0 {
		if l := t.def.LEDs[cell]; l >= 0 && l < len(frame) {
			frame[l] = hardware.LED{R: 255, G: 255, B: 255}
		}
	}
	t.hw.SetLEDs(frame)
}

func (t *tester) pause(d time.Duration) error {
	if d <= 0 {
		return t.ctx.Err()
	}
	select {
	case <-t.ctx.Done():
		return t.ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Test runs the smoke test on an open board.
func Test(ctx context.Context, o *TestOptions, hw hardware.Board, def *boards.Board) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	t := &tester{ctx: ctx, o: o, out: o.IO.Out, hw: hw, def: def}
	info := hw.Info()
	fmt.Fprintf(t.out, "board %s (%s): %d sensors, %d LEDs; board file %s: %d sensors, %d LEDs\n",
		info.Name, info.Protocol, info.Sensors, info.LEDs, def.Name, len(def.Sensors), def.LEDCount)
	if info.Sensors != len(def.Sensors) || info.LEDs < def.LEDCount {
		fmt.Fprintf(t.out, "warning: the board and the board file disagree on sensor or LED counts\n")
	}
	for t.state == nil {
		ev, ok, err := t.next(o.Timeout)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("hw test: no snapshot from the board")
		}
		_ = ev
	}
	// LED walk, in board order.
	fmt.Fprintln(t.out, "LED walk: each cell's LED lights white in turn")
	for c, cell := range def.Cells {
		l := def.LEDs[c]
		if l < 0 {
			continue
		}
		if l >= info.LEDs {
			fmt.Fprintf(t.out, "  %s: LED %d is beyond the board's %d LEDs\n", cell.Name, l, info.LEDs)
			continue
		}
		fmt.Fprintf(t.out, "  LED %d: %s\n", l, cell.Name)
		t.light(c)
		if err := t.pause(o.Step); err != nil {
			return nil, err
		}
	}
	t.light(-1)
	rep := &Report{}
	if o.LEDsOnly {
		fmt.Fprintln(t.out, "LEDs done (check each lit under the cell it named)")
		return rep, nil
	}
	// Let the board settle: take in what it has queued.
	for {
		_, ok, err := t.next(min(200*time.Millisecond, o.Timeout/4))
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	// Stuck-on sensors: ask for an empty board.
	stuck := map[int]bool{}
	if on := t.occupied(); len(on) > 0 {
		fmt.Fprintf(t.out, "Remove every piece from the board (sensors see pieces on %s)\n", strings.Join(t.cells(on), " "))
		deadline := time.Now().Add(o.Timeout)
		for len(t.occupied()) > 0 && time.Now().Before(deadline) {
			if _, _, err := t.next(time.Until(deadline)); err != nil {
				return nil, err
			}
		}
		for _, s := range t.occupied() {
			stuck[s] = true
			rep.Stuck = append(rep.Stuck, t.cellOf(s))
			fmt.Fprintf(t.out, "  %s: stuck on (sensor %d sees a piece on an empty board)\n", t.cellOf(s), s)
		}
	}
	wired := map[int]int{} // cell → sensor
	for s, c := range def.Sensors {
		if c >= 0 {
			wired[c] = s
		}
	}
	for c, cell := range def.Cells {
		want, ok := wired[c]
		if !ok || stuck[want] {
			continue
		}
		t.light(c)
		fmt.Fprintf(t.out, "Put a piece on %s\n", cell.Name)
		fired := -1
		for fired < 0 {
			ev, ok, err := t.next(o.Timeout)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			if ev.Kind == hardware.Change && ev.Code != 0 && !stuck[ev.Sensor] {
				fired = ev.Sensor
			}
		}
		switch {
		case fired < 0:
			rep.Dead = append(rep.Dead, cell.Name)
			fmt.Fprintf(t.out, "  %s: DEAD: sensor %d never fired\n", cell.Name, want)
			continue
		case fired == want:
			rep.OK = append(rep.OK, cell.Name)
			fmt.Fprintf(t.out, "  %s: ok\n", cell.Name)
		default:
			msg := fmt.Sprintf("%s: SWAPPED: sensor %d fired, which the board file wires to %s (want sensor %d)", cell.Name, fired, t.cellOf(fired), want)
			rep.Swapped = append(rep.Swapped, msg)
			fmt.Fprintf(t.out, "  %s\n", msg)
		}
		fmt.Fprintf(t.out, "Lift it from %s\n", cell.Name)
		for t.state[fired] != 0 {
			_, ok, err := t.next(o.Timeout)
			if err != nil {
				return nil, err
			}
			if !ok {
				stuck[fired] = true
				rep.Stuck = append(rep.Stuck, t.cellOf(fired))
				fmt.Fprintf(t.out, "  %s: STUCK: sensor %d stays on after the piece was lifted\n", t.cellOf(fired), fired)
				break
			}
		}
	}
	t.light(-1)
	fmt.Fprintf(t.out, "result: %d ok, %d dead, %d swapped, %d stuck\n", len(rep.OK), len(rep.Dead), len(rep.Swapped), len(rep.Stuck))
	if len(rep.Dead) > 0 {
		fmt.Fprintf(t.out, "dead: %s\n", strings.Join(rep.Dead, " "))
	}
	for _, s := range rep.Swapped {
		fmt.Fprintf(t.out, "swapped: %s\n", s)
	}
	if len(rep.Stuck) > 0 {
		fmt.Fprintf(t.out, "stuck: %s\n", strings.Join(rep.Stuck, " "))
	}
	return rep, nil
}

func (t *tester) occupied() []int {
	var on []int
	for s, c := range t.state {
		if c != 0 {
			on = append(on, s)
		}
	}
	return on
}

func (t *tester) cells(sensors []int) []string {
	var out []string
	for _, s := range sensors {
		out = append(out, t.cellOf(s))
	}
	return out
}

// SimPTYOptions are `tabla hw sim-pty`'s inputs.
type SimPTYOptions struct {
	IO        *cmdutil.IO
	Game      string
	BoardFile string
	Sensors   string
	Seed      uint64
}

func newSimPTYCmd(streams *cmdutil.IO) *cobra.Command {
	o := &SimPTYOptions{IO: streams}
	cmd := &cobra.Command{
		Use:    "sim-pty --game G",
		Short:  "Serve a virtual board on a pseudo-terminal (development)",
		Hidden: true,
		Long: "Serve a virtual board on a pseudo-terminal speaking the wire protocol and\n" +
			"print its path (use it as --board serial:PATH). Script action lines typed\n" +
			"on standard input ({\"lift\":\"c1\"}, {\"fault\":\"unplug\"}, …) act on the board.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return SimPTYRun(c.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Game, "game", "", "daha, star, gyges, ray or six")
	f.StringVar(&o.BoardFile, "board-file", "", "board definition instead of the game's default")
	f.StringVar(&o.Sensors, "sensors", "presence", "presence or identifying")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the faults")
	return cmd
}

// SimPTYRun serves until ctx ends (an interrupt); when standard input
// closes it stops reading actions but goes on serving.
func SimPTYRun(ctx context.Context, o *SimPTYOptions) error {
	if o.Game == "" {
		return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("hw sim-pty: --game is required"))
	}
	header := fmt.Sprintf(`{"tabla-script":1,"game":%q,"sensors":%q,"seed":%d`, o.Game, o.Sensors, o.Seed)
	if o.BoardFile != "" {
		header += fmt.Sprintf(`,"board":%q`, o.BoardFile)
	}
	header += "}"
	s, err := script.Parse("<flags>", strings.NewReader(header))
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, err)
	}
	vb, err := script.NewBoard(s)
	if err != nil {
		return err
	}
	defer vb.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	path, err := sim.ServePTY(ctx, vb)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, path)
	lines := make(chan inputLine)
	go readLines(ctx, o.IO.In, MaxActionLine, lines)
	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			if !ok {
				<-ctx.Done()
				return nil
			}
			if l.err != nil {
				fmt.Fprintf(o.IO.Err, "<stdin>:%d: %v\n", l.n, l.err)
				continue
			}
			if strings.TrimSpace(l.text) == "" {
				continue
			}
			one, err := script.Parse("<stdin>", strings.NewReader(header+"\n"+l.text))
			if err == nil {
				one.Actions[0].Line = l.n
				err = script.Run(ctx, one, vb, nil)
			}
			if err != nil {
				fmt.Fprintln(o.IO.Err, strings.Replace(err.Error(), "<stdin>:2", fmt.Sprintf("<stdin>:%d", l.n), 1))
			}
		}
	}
}

// MaxActionLine is the longest action line sim --pty reads from standard
// input; a longer one is reported and skipped.
const MaxActionLine = 64 << 10

// inputLine is line n (1-based) of standard input, or why it was skipped.
type inputLine struct {
	n    int
	text string
	err  error
}

// readLines sends r's lines to out until r ends or ctx does: a line longer
// than max is read through without keeping it and sent as an error, and
// reading goes on; a read error is sent and ends it.
func readLines(ctx context.Context, r io.Reader, max int, out chan<- inputLine) {
	defer close(out)
	br := bufio.NewReaderSize(r, 4096)
	send := func(l inputLine) bool {
		select {
		case out <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for n := 1; ; n++ {
		var line []byte
		long := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if !long {
				if len(line)+len(chunk) > max+1 {
					long, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		switch {
		case long:
			if !send(inputLine{n: n, err: fmt.Errorf("line longer than %d bytes: skipped", max)}) {
				return
			}
		case len(line) > 0:
			text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
			if !send(inputLine{n: n, text: text}) {
				return
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			send(inputLine{n: n, err: fmt.Errorf("reading standard input: %v", err)})
			return
		}
	}
}
