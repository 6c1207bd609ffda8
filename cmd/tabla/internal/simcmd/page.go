package simcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/remote"
	"github.com/tabla-board/tabla/cmd/tabla/internal/sameorigin"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/sim"
)

// PageOptions are the inputs of the interactive simulator.
type PageOptions struct {
	Game, Variant, First string
	Players, N           int
	BoardDef             string // board name or file ("" the game's default)
	Sensors              string // presence or identifying
	Seed                 uint64
	Listen               string // address for the page
	Journal              string // journal directory ("" none)
	Token                string // for the control API (takeback, new, …) besides the page's own actions
	// AllowHosts are further names the page may be reached by (Host
	// header), besides the listen address (sameorigin.Config.Hosts).
	AllowHosts []string
	// AI are the seats the engine plays, SEAT or SEAT=LEVEL (1–5). The
	// engine's moves are lit as hints for the person at the table to carry
	// out, and tabla rolls for them.
	AI []string
	// Who names the players per seat and the event, round, site and date
	// (the header of each game started).
	Who companion.WhoOptions
	// Clock is the time control of each game started.
	Clock companion.ClockOptions
	// Ready, when set, is called with the page's address once it serves.
	Ready func(addr string, s *PageSession)
	// Hub, Table, HubCA and Remote link the virtual board to a club hub
	// as tabla run's flags do (cmd/tabla/internal/hub).
	Hub, Table, HubCA, Remote string
}

// PageSession is a companion session on the virtual board as the page sees it.
type PageSession struct {
	Sess   *companion.Session
	VB     *sim.Board
	player *companion.LivePlayer
	ai     *companion.Engines
}

// PageState is what the page draws: the referee's state plus the virtual
// board's physical truth (which the sensors may not fully tell).
type PageState struct {
	referee.State
	// Pieces is what physically stands on each cell.
	Pieces map[string]string `json:"pieces"`
	// Lifted are the pieces in the player's hand, most recent last.
	Lifted []Held `json:"lifted"`
	// Plugged is false while the cable is pulled.
	Plugged bool `json:"plugged"`
	// AI are the seats the engine plays.
	AI []string `json:"ai"`
	// Log is the move list (seats, rolls, cells, captures); HintMove the
	// standing hint's cells (companion.Session.Glance).
	Log      []companion.MoveEntry `json:"log"`
	HintMove *companion.MoveEntry  `json:"hint_move,omitempty"`
	// Who is who plays which seat, and the event, round, site and date.
	Who record.Who `json:"who"`
	// Clock is the clocks, when the game has a time control.
	Clock *companion.ClockStatus `json:"clock,omitempty"`
	// JournalProblem and Unrecorded: the game is paused, its journal
	// cannot be written (companion.Status has the same fields).
	JournalProblem string `json:"journal_problem,omitempty"`
	Unrecorded     int    `json:"unrecorded,omitempty"`
}

// Held is a lifted piece.
type Held struct {
	Piece string `json:"piece"`
}

var _ webui.Backend = (*PageSession)(nil)

func (p *PageSession) Board() *boards.Board { return p.Sess.Board() }
func (p *PageSession) Seats() []string      { return p.Sess.Seats() }
func (p *PageSession) Die() []string        { return p.Sess.Die() }

// State returns the page state.
func (p *PageSession) State() any {
	rs, log, hint := p.Sess.Glance()
	st := PageState{State: rs, Log: log, HintMove: hint, Pieces: map[string]string{}, Plugged: p.VB.Plugged(), Who: p.Sess.Who(),
		Clock: p.Sess.Clock()}
	def := p.Sess.Board()
	for i, code := range p.VB.Pieces() {
		if code != 0 {
			st.Pieces[def.Cells[i].Name] = pieceName(def, code)
		}
	}
	for _, code := range p.VB.HandPieces() {
		st.Lifted = append(st.Lifted, Held{Piece: pieceName(def, code)})
	}
	if st.Lifted == nil {
		st.Lifted = []Held{}
	}
	st.AI = p.ai.Seats()
	if jp := p.Sess.JournalProblem(); jp != nil {
		st.JournalProblem, st.Unrecorded = jp.People(), jp.Held
	}
	if st.ToMove != nil && st.Hint != "" && st.Status == "playing" && p.ai.Plays(*st.ToMove) {
		st.Message = fmt.Sprintf("%s (engine) plays %s: carry it out on the board as lit", *st.ToMove, st.Hint)
	}
	return st
}

func pieceName(def *boards.Board, code byte) string {
	if p, ok := def.Codes[code]; ok {
		return p
	}
	return "?"
}

// Subscribe pokes on every change of the referee or the virtual board.
func (p *PageSession) Subscribe(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	in := p.Sess.Subscribe(ctx)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-in:
				if !ok {
					return
				}
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out
}

// Act performs one physical action.
func (p *PageSession) Act(raw json.RawMessage) error { return p.player.Act(raw) }

// ServePage runs the simulator with its page until ctx ends.
func ServePage(ctx context.Context, o *PageOptions, log *slog.Logger) error {
	if _, ok := boards.Games[o.Game]; !ok {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: unknown game %q (want daha, star, gyges, ray or six)", o.Game))
	}
	if o.Journal != "" { // one process per journal folder (companion.LockJournalDir)
		lock, err := companion.LockJournalDir(o.Journal, "tabla sim", time.Now())
		if err != nil {
			return fmt.Errorf("sim: %w", err)
		}
		defer lock.Unlock()
	}
	defName := o.BoardDef
	if defName == "" {
		defName = o.Game
	}
	def, err := boards.Open(defName)
	if err != nil {
		return err
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	first := o.First
	if o.Game == "star" && first == "" {
		first = []string{"red", "white"}[o.Seed%2] // who starts is chosen at random
	}
	hw, err := companion.OpenBoard(ctx, "sim", companion.BoardOptions{Def: def, Sensors: o.Sensors, Seed: o.Seed})
	if err != nil {
		return err
	}
	defer hw.Close()
	vb := companion.Sim(hw)
	h := record.Header{Game: o.Game, Variant: o.Variant, First: first, Players: o.Players, N: o.N, Board: o.BoardDef}
	var seats []string
	if st, err := record.NewState(&h); err == nil {
		seats = st.Info().Seats
	} else {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: %v", err))
	}
	who, err := companion.ParseWho(o.Who, seats)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: %v", err))
	}
	h.SetWho(who)
	if h.Clock, err = o.Clock.Controls(seats); err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: %v", err))
	}
	seatsAI, err := companion.ParseEngineSeats(o.AI, seats)
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: %v", err))
	}
	ai := companion.NewEngines(seatsAI, seats)
	copts := companion.Options{Header: h, Board: def, HW: hw, JournalDir: o.Journal, NoResume: o.Journal == "",
		Source: "sim", Seed: o.Seed, Logger: log, Hint: companion.SearchHint(ai.Level), Engines: ai,
		ClockPause: o.Clock.Pause}
	var link *remote.Linked
	if o.Hub != "" || o.Remote != "" {
		if link, err = linkHub(ctx, o, &copts, log); err != nil {
			return err
		}
		defer link.Close()
	}
	sess, err := companion.Open(copts)
	if err != nil {
		return err
	}
	defer sess.Close()
	if link != nil {
		link.Start(ctx, sess)
	}
	ps := &PageSession{Sess: sess, VB: vb, player: companion.NewLivePlayer(vb, sess), ai: ai}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	guard, err := sameorigin.New(sameorigin.Config{Addr: ln.Addr().String(), Hosts: o.AllowHosts})
	if err != nil {
		ln.Close()
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: --allow-host: %v", err))
	}
	page := webui.Handler(ps, webui.Options{Mode: webui.ModeSim, Act: ps.Act, Command: sess.Command, Commands: companion.Commands,
		SetEngine: sess.SetEngine, SetWho: sess.SetWho, Token: o.Token})
	srv := webui.NewServer(ctx, guard.Wrap(page), webui.DefaultLimits)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(webui.DefaultLimits.Listener(ln)) }()
	runErr := make(chan error, 1)
	go func() { runErr <- sess.Run(ctx) }()
	go companion.AutoPlay(ctx, sess, ai, log)
	addr := ln.Addr().String()
	log.Info("tabla sim", "game", o.Game, "page", "http://"+addr+"/", "journal", sess.JournalPath())
	if o.Ready != nil {
		o.Ready(addr, ps)
	}
	select {
	case <-ctx.Done():
	case err = <-runErr:
	case err = <-serveErr:
	}
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	srv.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// linkHub links the virtual board to a club hub (--hub) and, with
// --remote, sets the session up to play the hosted game. Without
// --journal the journal (which the hub is fed from) goes to a temporary
// folder.
func linkHub(ctx context.Context, o *PageOptions, copts *companion.Options, log *slog.Logger) (*remote.Linked, error) {
	if o.Hub == "" {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, errors.New("sim: --remote plays through a hub: give --hub"))
	}
	if copts.JournalDir == "" {
		dir, err := os.MkdirTemp("", "tabla-sim-hub-")
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { os.RemoveAll(dir) })
		copts.JournalDir, copts.NoResume = dir, true
	}
	link, err := remote.Link(ctx, remote.LinkOptions{URL: o.Hub, Table: o.Table, CA: o.HubCA, Remote: o.Remote, JournalDir: copts.JournalDir, Logger: log})
	if err != nil {
		return nil, cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("sim: %v", err))
	}
	if err := link.Apply(ctx, copts); err != nil {
		link.Close()
		return nil, fmt.Errorf("sim: %v", err)
	}
	return link, nil
}
