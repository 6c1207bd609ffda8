// Package runcmd implements `tabla run`: the companion daemon. It follows a
// game on a sensor board, journals it, serves the status API, talks to
// systemd (READY, WATCHDOG) and resumes an unfinished game on start.
package runcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/remote"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/sameorigin"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// Options are `tabla run`'s inputs (flags override the config file).
type Options struct {
	IO       *cmdutil.IO
	Config   string
	Game     string
	Variant  string
	First    string
	Players  int
	N        int
	BoardDef string // a board definition other than the game's default
	Board    string // serial:/dev/ttyUSB0, serial:auto, gpio, sim
	Journal  string
	// SpareJournal is where the page's "spare" writes a journal the card
	// cannot take (companion.Options.SpareJournalDir).
	SpareJournal string
	Listen       string
	Token        string
	Sensors      string // sim only
	Seed         uint64
	Settle       time.Duration
	NoResume     bool
	LogFormat    string
	// AI are seats the engine plays (SEAT or SEAT=LEVEL): tabla rolls for
	// them and lights their moves for the person at the table.
	AI []string
	// AllowHosts are further names the API may be reached by (Host
	// header), besides the listen address (sameorigin.Config.Hosts).
	AllowHosts []string
	// AnalysisLevel is the level of the library's analyses (1–5; 0: 3).
	AnalysisLevel int
	// Hub links the table to a club hub (cmd/tabla/internal/hub):
	// nats://TABLE:PASSWORD@HOST:4222; Table names it there (default: the
	// URL's user), HubCA verifies its TLS certificate, Remote joins a game
	// hosted by another table (HOST[/GAME][:SEAT]).
	Hub, Table, HubCA, Remote string
	// Who names the players per seat (SEAT=NAME) and the event, round,
	// site and date: the header of each game started (not of a resumed one).
	Who companion.WhoOptions
	// Clock is the time control (--clock, --clock-pause) of each game
	// started (a resumed game keeps its own).
	Clock companion.ClockOptions
	// Ready, when set, is called once the session runs (tests).
	Ready func(s *companion.Session, addr string)
	// Limits, when set, replace the page server's webui.DefaultLimits
	// (tests).
	Limits *webui.Limits
}

// tablePages are what tabla run serves: the live board page (read-only;
// a paired phone or the token controls), the status API, and the library
// of the journal directory under /library/.
func tablePages(sess *companion.Session, hw hardware.Board, lib *library.Library, token string, pairing *webui.Pairing, log *slog.Logger) http.Handler {
	po := webui.Options{Mode: webui.ModeTable, Command: sess.Command, Commands: companion.Commands, SetEngine: sess.SetEngine,
		SetWho: sess.SetWho, Pairing: pairing, Token: token, Library: "library/", Logger: log}
	if vb := companion.Sim(hw); vb != nil {
		// a virtual board takes physical actions (scripts, tests)
		po.Act = companion.NewLivePlayer(vb, sess).Act
	}
	mux := http.NewServeMux()
	mux.Handle("/", webui.Handler(statusView{sess}, po))
	mux.Handle("/library/", http.StripPrefix("/library", webui.Library(lib, webui.LibraryOptions{Live: "../"})))
	mux.Handle("GET /library", http.RedirectHandler("library/", http.StatusMovedPermanently))
	return mux
}

// newPairing is the phones' pairing of a session, its sessions kept in
// the journal directory (webui.SessionsFile) across restarts.
func newPairing(sess *companion.Session, journal string, log *slog.Logger) *webui.Pairing {
	p := &webui.Pairing{File: filepath.Join(journal, webui.SessionsFile), Logger: log,
		Request: func(window time.Duration) (<-chan bool, error) {
			ch, err := sess.RequestPairing(window)
			switch {
			case errors.Is(err, companion.ErrPairingBusy):
				err = fmt.Errorf("%w: %w", webui.ErrPairBusy, err)
			case errors.Is(err, companion.ErrNoButtons):
				err = fmt.Errorf("%w: %w", webui.ErrPairNoButton, err)
			}
			return ch, err
		}}
	if err := p.Load(); err != nil {
		log.Warn("the paired phones' sessions could not be read: phones pair again", "err", err)
	}
	return p
}

// statusView is the session as the live page and the status API see it:
// its state is the status document.
type statusView struct{ *companion.Session }

func (v statusView) State() any { return v.StatusJSON() }

// NewCmd returns `tabla run`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	o := &Options{IO: streams}
	cmd := &cobra.Command{
		Use:   "run --game G --board serial:/dev/ttyUSB0|serial:auto|gpio|sim",
		Short: "Run the companion daemon on a sensor board",
		Long: "Follow a game on a sensor board: recognise moves, light the LEDs, journal\n" +
			"every board event and move (fsync at each move), serve the status API, and\n" +
			"resume an unfinished game from the journal directory on start.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.Config != "" {
				if err := o.load(o.Config, c.Flags().Changed); err != nil {
					return cmdutil.WithCode(cmdutil.ExitUsage, err)
				}
			}
			return Run(c.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Config, "config", "", "config file (key = value lines; flags override it)")
	f.StringSliceVar(&o.AI, "ai", nil, "seats the engine plays, SEAT or SEAT=LEVEL (1–5): its moves are lit for you to carry out")
	f.StringVar(&o.Game, "game", "", "daha, star, gyges, ray or six")
	f.StringVar(&o.Variant, "variant", "", "basic or advanced (gyges, six)")
	f.StringVar(&o.First, "first", "", "star: red/white; gyges: south/north")
	f.IntVar(&o.Players, "players", 0, "six: 2 or 4")
	f.IntVar(&o.N, "n", 0, "star: pieces per colour")
	f.StringVar(&o.BoardDef, "board-file", "", "board definition (builtin name or file) instead of the game's default")
	f.StringVar(&o.Board, "board", "", "serial:/dev/ttyUSB0, serial:auto, gpio or sim")
	f.StringVar(&o.Journal, "journal", "", "journal directory (default $STATE_DIRECTORY or ./tabla-journal)")
	f.StringVar(&o.SpareJournal, "spare-journal", "", "a folder on another disk (a USB stick) where a paired phone's \"write to the spare folder\" moves the game's journal while the card cannot be written")
	f.StringVar(&o.Listen, "listen", "127.0.0.1:7420", "address of the live board page, library and status API (\"\" or \"off\": none; 0.0.0.0:7420 for the phones on the LAN)")
	f.StringVar(&o.Token, "token", "", "token for scripts on the control endpoints (phones pair by the board's confirm button instead)")
	f.StringSliceVar(&o.AllowHosts, "allow-host", nil, "further host names the API answers to, e.g. tabla.local (besides the listen address)")
	f.StringVar(&o.Sensors, "sensors", "presence", "sim board: presence or identifying")
	f.Uint64Var(&o.Seed, "seed", 0, "seed of tabla's die and the sim's faults (0: from the clock)")
	f.DurationVar(&o.Settle, "settle", 0, "quiet time before the board is read (default 100ms)")
	f.BoolVar(&o.NoResume, "new", false, "start a new game even if the journal holds an unfinished one")
	f.StringVar(&o.LogFormat, "log-format", "text", "text or json")
	f.StringVar(&o.Hub, "hub", "", "publish to a club hub (tabla hub): nats://TABLE:PASSWORD@HOST:4222")
	f.StringVar(&o.Table, "table", "", "this table's name on the hub (default: the hub URL's user)")
	f.StringVar(&o.HubCA, "hub-ca", "", "PEM file of the authority of the hub's TLS certificate")
	f.StringVar(&o.Remote, "remote", "", "play a game hosted by another board through the hub: HOST[/GAME][:SEAT]")
	f.IntVar(&o.AnalysisLevel, "analysis-level", 0, "level (1–5) of the library's analyses (0: 3)")
	o.Who.AddFlags(f)
	o.Clock.AddFlags(f)
	return cmd
}

var configKeys = map[string]string{"game": "game", "variant": "variant", "first": "first", "players": "players",
	"n": "n", "ai": "ai", "board-file": "board-file", "board": "board", "journal": "journal", "spare-journal": "spare-journal", "listen": "listen", "token": "token",
	"allow-host": "allow-host", "sensors": "sensors", "seed": "seed", "settle": "settle", "log-format": "log-format",
	"analysis-level": "analysis-level", "hub": "hub", "table": "table", "hub-ca": "hub-ca", "remote": "remote",
	"player": "player", "event": "event", "round": "round", "site": "site", "date": "date",
	"clock": "clock", "clock-pause": "clock-pause"}

// load reads a config file; keys set by flags are kept.
func (o *Options) load(path string, changed func(string) bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxConfigLine)
	line := 0
	first := map[string]int{} // key → the line that set it
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || configKeys[k] == "" {
			return fmt.Errorf("%s:%d: want KEY = VALUE with KEY one of game, variant, first, players, n, ai, board-file, board, journal, spare-journal, listen, token, allow-host, sensors, seed, settle, log-format, analysis-level, hub, table, hub-ca, remote, player, event, round, site, date, clock, clock-pause", path, line)
		}
		// a key set twice is a mistake to show, not a silent choice (the
		// player lines, one per seat, are the one list of lines)
		if at, twice := first[k]; twice && k != "player" {
			return fmt.Errorf("%s:%d: %s is set twice (line %d and line %d): keep one of them", path, line, k, at, line)
		}
		first[k] = line
		if changed(k) {
			continue
		}
		if k == "player" { // one line per seat
			o.Who.Players = append(o.Who.Players, v)
			continue
		}
		var err error
		switch k {
		case "game":
			o.Game = v
		case "variant":
			o.Variant = v
		case "first":
			o.First = v
		case "players":
			o.Players, err = strconv.Atoi(v)
		case "n":
			o.N, err = strconv.Atoi(v)
		case "ai":
			o.AI = splitList(v)
		case "allow-host":
			o.AllowHosts = splitList(v)
		case "board-file":
			o.BoardDef = v
		case "board":
			o.Board = v
		case "journal":
			o.Journal = v
		case "spare-journal":
			o.SpareJournal = v
		case "listen":
			o.Listen = v
		case "token":
			o.Token = v
		case "sensors":
			o.Sensors = v
		case "seed":
			o.Seed, err = strconv.ParseUint(v, 10, 64)
		case "settle":
			if o.Settle, err = time.ParseDuration(v); err == nil {
				err = checkSettle(o.Settle)
			}
		case "log-format":
			o.LogFormat = v
			err = cmdutil.CheckLogFormat(v)
		case "hub":
			o.Hub = v
		case "table":
			o.Table = v
		case "hub-ca":
			o.HubCA = v
		case "remote":
			o.Remote = v
		case "event":
			o.Who.Event = v
		case "round":
			o.Who.Round = v
		case "site":
			o.Who.Site = v
		case "date":
			o.Who.Date = v
		case "clock":
			o.Clock.Clock = splitList(v)
		case "clock-pause":
			o.Clock.Pause, err = strconv.ParseBool(v)
		case "analysis-level":
			if o.AnalysisLevel, err = strconv.Atoi(v); err == nil {
				err = checkLevel(o.AnalysisLevel)
			}
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %v", path, line, k, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d KB", path, line+1, maxConfigLine>>10)
		}
		return fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	return nil
}

// maxConfigLine bounds a config file's lines.
const maxConfigLine = 64 << 10

func splitList(v string) []string {
	out := strings.Split(v, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// checkLevel accepts 0 (the default) or a level 1–5.
func checkLevel(n int) error {
	if n < 0 || n > 5 {
		return fmt.Errorf("%d: want 1–5 (0 or unset: the default 3)", n)
	}
	return nil
}

// MaxSettle bounds the settle window: longer, the board would feel dead.
const MaxSettle = 10 * time.Second

// checkSettle accepts 0 (the default) or 1ms to MaxSettle.
func checkSettle(d time.Duration) error {
	if d != 0 && (d < time.Millisecond || d > MaxSettle) {
		return fmt.Errorf("%v is out of range: want 1ms to %v (0 or unset: the default %v)", d, MaxSettle, referee.DefaultSettle)
	}
	return nil
}

// Run runs the daemon until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if o.LogFormat == "" {
		o.LogFormat = "text"
	}
	if err := cmdutil.CheckLogFormat(o.LogFormat); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: --log-format %v", err))
	}
	if err := checkSettle(o.Settle); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: --settle %v", err))
	}
	if err := checkLevel(o.AnalysisLevel); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: --analysis-level %v", err))
	}
	log := cmdutil.Logger(o.IO.Err, o.LogFormat)
	if o.Game == "" || o.Board == "" {
		return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("run: --game and --board are required"))
	}
	if _, ok := boards.Games[o.Game]; !ok {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: unknown game %q (want daha, star, gyges, ray or six)", o.Game))
	}
	if o.Journal == "" {
		o.Journal = os.Getenv("STATE_DIRECTORY")
		if o.Journal == "" {
			o.Journal = "tabla-journal"
		}
	}
	// one daemon per journal folder, for the life of this one
	lock, err := companion.LockJournalDir(o.Journal, "tabla run", time.Now())
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer lock.Unlock()
	defName := o.BoardDef
	if defName == "" {
		defName = o.Game
	}
	def, err := boards.Open(defName)
	if err != nil {
		return err
	}
	hw, err := companion.OpenBoard(ctx, o.Board, companion.BoardOptions{Def: def, Sensors: o.Sensors, Seed: o.Seed})
	if err != nil {
		return err
	}
	defer hw.Close()
	source := "board"
	if strings.HasPrefix(o.Board, "sim") {
		source = "sim"
	}
	h := record.Header{Game: o.Game, Variant: o.Variant, First: o.First, Players: o.Players, N: o.N, Board: o.BoardDef}
	st, err := record.NewState(&h)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: %v", err))
	}
	seats := st.Info().Seats
	who, err := companion.ParseWho(o.Who, seats)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: %v", err))
	}
	h.SetWho(who)
	if h.Clock, err = o.Clock.Controls(seats); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: %v", err))
	}
	seatsAI, err := companion.ParseEngineSeats(o.AI, seats)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: %v", err))
	}
	ai := companion.NewEngines(seatsAI, seats)
	copts := companion.Options{Header: h, Board: def, HW: hw, JournalDir: o.Journal, SpareJournalDir: o.SpareJournal, NoResume: o.NoResume,
		Source: source, Settle: o.Settle, Seed: o.Seed, Logger: log, Hint: companion.SearchHint(ai.Level), Engines: ai,
		ClockPause: o.Clock.Pause}
	var link *remote.Linked
	if o.Hub != "" || o.Remote != "" {
		if link, err = linkHub(ctx, o, &copts, log); err != nil {
			return err
		}
		defer link.Close()
	}
	// The page's address is taken before the session starts its journal:
	// a start that fails leaves no journal behind (an empty game the next
	// start would resume instead of the unfinished one before it).
	var ln net.Listener
	var guard *sameorigin.Guard
	if o.Listen != "" && o.Listen != "off" {
		if ln, err = net.Listen("tcp", o.Listen); err != nil {
			return fmt.Errorf("run: --listen %s: %w", o.Listen, err)
		}
		defer ln.Close()
		if guard, err = sameorigin.New(sameorigin.Config{Addr: ln.Addr().String(), Hosts: o.AllowHosts}); err != nil {
			return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: --allow-host: %v", err))
		}
	}
	sess, err := companion.Open(copts)
	if err != nil {
		return err
	}
	defer sess.Close()
	if link != nil {
		link.Start(ctx, sess)
	}
	log.Info("tabla run", "game", o.Game, "board", hw.Info().Name, "journal", sess.JournalPath(), "resumed", sess.Resumed() != "")

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	addr := ""
	var srv *http.Server
	closeLib := func() {}
	if ln != nil {
		addr = ln.Addr().String()
		lib, err := library.Open(o.Journal, library.Options{Level: o.AnalysisLevel, Workers: 1, Logger: log})
		if err != nil {
			sess.Discard()
			return err
		}
		defer lib.Close()
		closeLib = lib.Close
		lib.Warm()
		limits := webui.DefaultLimits
		if o.Limits != nil {
			limits = *o.Limits
		}
		srv = webui.NewServer(ctx, guard.Wrap(tablePages(sess, hw, lib, o.Token, newPairing(sess, o.Journal, log), log)), limits)
		go srv.Serve(limits.Listener(ln))
		log.Info("status API", "addr", "http://"+addr+"/", "page", "live board (read-only; paired phones control)", "library", "http://"+addr+"/library/",
			"token", o.Token != "", "hosts", strings.Join(guard.Allowed(), ", "))
	}
	runErr := make(chan error, 1)
	go func() { runErr <- sess.Run(ctx) }()
	go companion.AutoPlay(ctx, sess, ai, log)

	daemon.SdNotify(false, daemon.SdNotifyReady)
	if o.Ready != nil {
		o.Ready(sess, addr)
	}
	if d, err := daemon.SdWatchdogEnabled(false); err == nil && d > 0 {
		// WATCHDOG=1 every WatchdogSec/2, each after the session loop has
		// answered a heartbeat (watchdog.go)
		go watchdog(ctx, d/2, sess, sdNotify, log)
	}
	for {
		select {
		case <-ctx.Done():
			log.Info("shutting down")
			daemon.SdNotify(false, daemon.SdNotifyStopping)
			if srv != nil {
				closeLib() // a /library/ listing under way stops: Shutdown need not wait for it
				sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
				srv.Shutdown(sctx)
				scancel()
			}
			<-runErr
			return nil
		case err := <-runErr:
			if err != nil {
				log.Error("session ended", "err", err)
			}
			return err
		}
	}
}

// linkHub links the table to its club hub (--hub) and, with --remote,
// sets the session up to play the hosted game.
func linkHub(ctx context.Context, o *Options, copts *companion.Options, log *slog.Logger) (*remote.Linked, error) {
	if o.Hub == "" {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, errors.New("run: --remote plays through a hub: give --hub"))
	}
	link, err := remote.Link(ctx, remote.LinkOptions{URL: o.Hub, Table: o.Table, CA: o.HubCA, Remote: o.Remote, JournalDir: o.Journal, Logger: log})
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("run: %v", err))
	}
	if err := link.Apply(ctx, copts); err != nil {
		link.Close()
		return nil, fmt.Errorf("run: %v", err)
	}
	return link, nil
}
