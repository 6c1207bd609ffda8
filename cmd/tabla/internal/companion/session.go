package companion

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/watchers"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// Options set up a session.
type Options struct {
	// Header describes the game to play when no unfinished game is resumed
	// (game, variant, first, n, players, board).
	Header record.Header
	// Board is the board definition (nil: Header.Board or the game's default).
	Board *boards.Board
	// HW is the sensor board, real or virtual.
	HW hardware.Board
	// JournalDir holds the journals; "" keeps no journal (and resumes nothing).
	JournalDir string
	// SpareJournalDir is where the command "spare" writes a journal that
	// cannot be written in JournalDir (spare.go); "" has none.
	SpareJournalDir string
	// NoResume starts a new game even if the journal holds an unfinished one.
	NoResume bool
	// Source is the record source of physical actions: "board" or "sim".
	Source string
	// Settle is the referee's settle window (0: its default).
	Settle time.Duration
	// Seed seeds tabla's own die; 0 seeds from the clock.
	Seed uint64
	// Rand overrides tabla's die (replay).
	Rand func(n int) int
	// Hint suggests a move (canonical notation) for the hint button; nil
	// uses the first legal move in canonical order.
	Hint func(engine.State) (string, error)
	// Engines are the seats the engine plays (AutoPlay), shown in the
	// status and changed with SetEngine; nil: none, and none can be set.
	Engines *Engines
	// Clock is the wall clock for record times (default time.Now).
	Clock func() time.Time
	// Logger logs structured events (default: discard).
	Logger *slog.Logger
	// Publisher, when set, is told of every journalled decision and every
	// journal started or resumed (a club hub's link; publisher.go).
	Publisher Publisher
	// ClockPause pauses the running clock while the referee asks to
	// confirm a move or guides a correction (clock.go; the time control
	// itself is Header.Clock). Default: the clock runs on.
	ClockPause bool
	// JournalBacklog bounds the bytes kept in memory while the journal
	// cannot be written (0: MaxBacklog; backlog.go).
	JournalBacklog int
}

// Session is one companion session: a board, the referee, the journal. Its
// methods are safe for concurrent use. The simulator page and the status
// API read State and Subscribe, and act through Command (or, on a virtual
// board, through the board itself).
type Session struct {
	opts  Options
	board *boards.Board
	hw    hardware.Board
	log   *slog.Logger
	clock func() time.Time

	mu      sync.Mutex
	ref     *referee.Referee
	header  record.Header
	meta    Meta
	journal *Journal
	resumed string // the journal resumed, if any
	lastLED []hardware.LED
	frame   []hardware.LED // the referee's lights translated (reused)
	ledErr  error
	version uint64
	watch   watchers.Set
	boardAt time.Duration // latest board time seen
	hostAt  time.Time     // host time when boardAt was seen
	closed  bool
	// hintBusy: a hint search is under way (WaitHints polls it)
	hintBusy bool
	frames   int
	pair     *pairRequest  // a phone's standing request to control (pairing.go)
	mlog     moveLog       // the move list's cache (movelog.go)
	clocks   *clockState   // the game's clocks, nil without a time control (clock.go)
	clkNow   time.Duration // the board time of the input being handled
	// settledAt is, during a tick, the board time the reading settled at
	// (the last change plus the settle window): the clocks' press
	settledAt time.Duration
	// wrongBoard is the board the driver refuses while no board is
	// accepted (boardcheck.go): nothing is played, the page says why
	wrongBoard *BoardMismatch
	// retired are journals of games left for a new one while they could
	// not be written: written before the current one (paused.go)
	retired []*Journal
	// spareLock holds the spare folder once a journal went there
	spareLock *DirLock
	jpaused   bool // the pause was said (paused.go)
	halted    bool // the backlog is full: the board is not followed

	beatOnce sync.Once
	beat     chan chan struct{} // heartbeat requests Run's loop answers (heartbeat.go)
}

// Open sets up a session: it resumes the latest unfinished game of the
// journal directory, or starts a new one, and shows the first LED frame.
func Open(opts Options) (*Session, error) {
	if opts.HW == nil {
		return nil, errors.New("companion: no board")
	}
	if opts.Source == "" {
		opts.Source = "board"
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := opts.Header
	h.Tabla = record.Version
	if h.Game == "" {
		return nil, errors.New("companion: no game")
	}
	if h.Game == "star" && h.First == "" {
		h.First = "red"
	}
	b := opts.Board
	if b == nil {
		name := h.Board
		if name == "" {
			name = h.Game
		}
		var err error
		if b, err = boards.Open(name); err != nil {
			return nil, err
		}
	}
	if b.Game != h.Game {
		return nil, fmt.Errorf("companion: board %s is for %s, not %s", b.Name, b.Game, h.Game)
	}
	s := &Session{opts: opts, board: b, hw: opts.HW, log: opts.Logger, clock: opts.Clock, header: h}
	s.meta = Meta{Board: b.Name, Identifying: opts.HW.Info().Identifying, SettleMs: int(opts.Settle / time.Millisecond),
		Source: opts.Source, ClockPause: opts.ClockPause}
	if s.meta.SettleMs == 0 {
		s.meta.SettleMs = int(referee.DefaultSettle / time.Millisecond)
	}
	rnd := opts.Rand
	if rnd == nil {
		seed := opts.Seed
		if seed == 0 {
			seed = uint64(time.Now().UnixNano())
		}
		rnd = rand.New(rand.NewPCG(seed, 0xd1ce)).IntN
	}
	cfg := referee.Config{Board: b, Settle: time.Duration(s.meta.SettleMs) * time.Millisecond, Rand: rnd,
		NewGame: s.newState, Source: opts.Source}

	var resume *Unfinished
	if opts.JournalDir != "" && !opts.NoResume {
		u, err := FindUnfinished(opts.JournalDir, h.Game, opts.Logger)
		switch {
		case err == nil:
			resume = u
		case errors.Is(err, ErrNoGame):
		default:
			return nil, err
		}
	}
	if resume != nil {
		s.header = *resume.Game.Header
		s.meta = *resume.Meta
		s.meta.Identifying = opts.HW.Info().Identifying
		cfg.Settle = time.Duration(s.meta.SettleMs) * time.Millisecond
		if s.meta.Takeback > 0 {
			cfg.TakebackDepth = s.meta.Takeback
		}
		st, err := s.newState()
		if err != nil {
			return nil, err
		}
		ref, err := referee.New(st, cfg)
		if err != nil {
			return nil, err
		}
		ref.Resume(resume.Game.State, applied(resume.Game))
		s.ref = ref
		if s.clocks = newClockState(&s.header, st); s.clocks != nil {
			s.clocks.resume(resume.Game)
		}
		j, err := openJournal(resume.Path, b, s.clock)
		if err != nil {
			return nil, err
		}
		j.Backlog = opts.JournalBacklog
		s.journal = j
		s.resumed = resume.Path
		if err := j.Marker("resume", s.clock().UTC().Format(time.RFC3339Nano)); err != nil {
			return nil, err
		}
		s.publish()
		s.log.Info("resumed", "journal", resume.Path, "ply", resume.Game.State.Plies(), "torn_bytes", len(resume.Cut))
	} else {
		st, err := s.newState()
		if err != nil {
			return nil, err
		}
		ref, err := referee.New(st, cfg)
		if err != nil {
			return nil, err
		}
		s.ref = ref
		s.clocks = newClockState(&s.header, st)
		if err := s.startJournal(); err != nil {
			return nil, err
		}
	}
	s.meta.Takeback = len(s.ref.Game().Info().Seats)
	s.mu.Lock()
	s.afterLocked()
	s.mu.Unlock()
	return s, nil
}

// newState sets up the session's game from its header.
func (s *Session) newState() (engine.State, error) {
	h := s.header
	return record.NewState(&h)
}

func (s *Session) startJournal() error {
	if s.opts.JournalDir == "" {
		return nil
	}
	m := s.meta
	m.Takeback = len(s.ref.Game().Info().Seats)
	j, err := CreateJournal(s.opts.JournalDir, &s.header, &m, s.board, s.clock)
	if err != nil {
		return err
	}
	j.Backlog = s.opts.JournalBacklog
	s.journal = j
	s.log.Info("journal", "path", j.Path())
	s.publish()
	return nil
}

// Board is the board definition.
func (s *Session) Board() *boards.Board { return s.board }

// HW is the sensor board.
func (s *Session) HW() hardware.Board { return s.hw }

// JournalPath is the current journal file ("" without a journal).
func (s *Session) JournalPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal == nil {
		return ""
	}
	return s.journal.Path()
}

// Resumed is the journal a resumed game came from ("" for a new game).
func (s *Session) Resumed() string { return s.resumed }

// Seats are the players in turn order.
func (s *Session) Seats() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ref.Game().Info().Seats
}

// Die returns the die's faces (nil: the game has no die).
func (s *Session) Die() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.ref.Game().Info().Die; d != nil {
		return d.Faces
	}
	return nil
}

// State is the referee's state, with the LEDs as the board shows them: while
// a phone asks to control the board one corner pulses (pairing.go).
func (s *Session) State() referee.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.ref.State()
	s.pairingStateLocked(&st)
	s.pausedStateLocked(&st)
	s.timeStateLocked(&st)
	return st
}

// Frames counts the LED frames sent.
func (s *Session) Frames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames
}

// Subscribe returns a channel that receives a value whenever the state may
// have changed (coalesced); it is closed when ctx ends.
func (s *Session) Subscribe(ctx context.Context) <-chan struct{} {
	return s.watch.Watch(ctx)
}

// Handle feeds one board event: journal it, referee it, act on it.
func (s *Session) Handle(ev hardware.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handleLocked(ev)
}

func (s *Session) handleLocked(ev hardware.Event) {
	if ev.At > s.boardAt || ev.Kind == hardware.Snapshot {
		s.boardAt = ev.At
	}
	s.hostAt = time.Now()
	s.clkNow = ev.At
	s.journalRetryLocked(false)
	if s.halted {
		return // the backlog is full: the board is read afresh once written
	}
	s.startClockLocked(ev.At)
	if !s.checkFlagLocked(ev.At) { // after a flag fell nothing more is journalled
		if err := s.journal.Event(ev); err != nil {
			s.haltLocked()
			return
		}
	}
	switch ev.Kind {
	case hardware.Status:
		s.log.Info("board", "conn", ev.Conn.String(), "err", ev.Err)
		if ev.Conn == hardware.Connected {
			if s.wrongBoard != nil {
				s.log.Info("the right board is plugged in: the game goes on", "board", s.hw.Info().Name, "board_file", boardFile(s.board))
				s.wrongBoard = nil
				s.notifyLocked()
			}
			s.hw.RequestSnapshot()
		}
	case hardware.Fault:
		var wrong *BoardMismatch
		if errors.As(ev.Err, &wrong) {
			// the driver refuses the board and dials on: said once a
			// board, here and on the page, not the referee's fault
			s.wrongBoard = wrong
			s.log.Error("wrong board: nothing is played until the right board is plugged in", "board_file", boardFile(s.board),
				"announced", announced(wrong.Announced), "want", fmt.Sprintf("%d sensors, %d LEDs", len(s.board.Sensors), s.board.LEDCount),
				"do", "plug in the "+s.board.Name+" board (the game goes on where it stopped), or start tabla with --board-file for the board plugged in, or flash the firmware built for "+s.board.Name,
				"err", ev.Err)
			s.notifyLocked()
			return
		}
		s.log.Warn("board fault", "err", ev.Err)
	}
	s.pairPressLocked(ev)
	s.ref.Handle(refInput(ev))
	s.afterLocked()
}

// Tick reads the board if its sensors have been quiet long enough by board
// time now. Drivers on virtual time call it; Run calls it from a timer.
func (s *Session) Tick(now time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tickLocked(now)
}

func (s *Session) tickLocked(now time.Duration) {
	s.clkNow = now
	s.journalRetryLocked(false)
	if s.halted {
		return
	}
	ended := s.clocks != nil && s.clocks.ended
	if s.checkFlagLocked(now) && !ended {
		ended = true
		s.sendFrameLocked() // the low time is over
	}
	if pending, at := s.ref.Pending(); !pending || now < at {
		if cs := s.clocks; cs != nil && !cs.ended && cs.started {
			if run, paused := cs.clk.Running(); run >= 0 && !paused && cs.clk.Low(run, now) != cs.low {
				s.sendFrameLocked() // the seat to move's time became low
			}
		}
		return
	}
	if !ended {
		if err := s.journal.Tick(now); err != nil {
			s.haltLocked()
			return
		}
	}
	// a move this reading completes is pressed on the clocks at the
	// instant the board settled, not at the tick's lateness (clock.go)
	_, s.settledAt = s.ref.Pending()
	s.ref.Tick(now)
	s.afterLocked()
	s.settledAt = 0
}

// afterLocked sends a changed LED frame, journals the referee's decisions
// and tells subscribers.
func (s *Session) afterLocked() {
	s.sendFrameLocked()
	pairing := s.pair != nil
	for _, a := range s.ref.Actions() {
		s.decide(a)
	}
	s.pauseClockLocked(s.clkNow)
	s.journalCheckLocked()
	if pairing && s.pair == nil { // a move cancelled the pairing request
		s.sendFrameLocked()
		s.notifyLocked()
	}
	if v := s.ref.Version(); v != s.version {
		s.version = v
		s.notifyLocked()
	}
}

// sendFrameLocked sends the referee's LED frame (with a pairing request's
// corner) if it changed.
func (s *Session) sendFrameLocked() {
	s.frame = hwFrame(s.frame, s.ref.Frame())
	if s.pair != nil {
		s.frame = s.pairingOverlayLocked(s.frame)
	}
	s.frame = s.lowTimeOverlayLocked(s.frame, s.clkNow)
	s.frame = s.pausedOverlayLocked(s.frame)
	frame := s.frame
	if !ledsEqual(frame, s.lastLED) {
		s.lastLED = append(s.lastLED[:0], frame...)
		s.frames++
		if err := s.hw.SetLEDs(frame); err != nil && !errors.Is(err, s.ledErr) {
			s.log.Warn("leds", "err", err)
			s.ledErr = err
		}
	}
}

// notifyLocked tells subscribers the state may have changed.
func (s *Session) notifyLocked() {
	s.watch.Wake()
}

func (s *Session) decide(a referee.Action) {
	st := s.ref.Game()
	switch a.Kind {
	case referee.HintWanted:
		s.hintLocked(st) // hint.go: a failing hint is shown as "no hint"
		return
	case referee.NewGame:
		s.log.Info("new game")
		ended := s.clocks != nil && s.clocks.ended
		s.clockDecisionLocked(a)
		if s.journal != nil {
			if !ended { // a game over on time has its end line
				s.journal.Marker("end", "new")
			}
			s.publish()
			if s.journal.Paused() {
				s.retired = append(s.retired, s.journal) // written before the new one
			} else if err := s.journal.Close(); err != nil {
				s.log.Error("journal", "err", err)
			}
			s.journal = nil
			if err := s.startJournal(); err != nil {
				s.log.Error("journal", "err", err)
			}
		}
		return
	}
	if a.Kind == referee.Moved {
		s.pairMovedLocked() // pairing.go: a move cancels a pairing request
	}
	if s.clocks != nil && s.clocks.ended {
		s.log.Info(a.Kind.String()+" after the game ended on time: not journalled", "seat", a.Seat, "move", a.Move, "face", a.Face)
		return
	}
	s.log.Info(a.Kind.String(), "seat", a.Seat, "move", a.Move, "face", a.Face, "ops", a.Ops, "at", a.At)
	var turnMS int64
	var timed bool
	if a.Kind != referee.TookBack {
		turnMS, timed = s.clockDecisionLocked(a)
	}
	if err := s.journal.TimedDecision(a, st.Info().Die, turnMS, timed); err != nil {
		s.log.Error("journal", "err", err)
	}
	if a.Kind == referee.TookBack {
		s.clockDecisionLocked(a)
	}
	s.publish()
	if r := st.Result(); a.Kind == referee.Moved && r.Status != engine.Playing {
		winner := ""
		if r.Status == engine.Won {
			winner = st.Info().Sides[r.Winner]
		}
		s.log.Info("game over", "status", r.Status.String(), "winner", winner)
	}
}

func ledsEqual(a, b []hardware.LED) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Commands a control endpoint or a test may run.
var Commands = []string{"takeback", "new", "roll", "hint", "confirm", "choose", "spare"}

// MaxTakeback bounds the moves one takeback command undoes.
const MaxTakeback = 8

// Command runs a control command at the current board time: takeback (arg:
// how many moves, 1 to MaxTakeback, default 1), new, roll, hint, confirm,
// choose (arg: the candidate's index); spare writes a paused journal to
// the spare folder (spare.go: not a move of the game, not journalled).
func (s *Session) Command(name, arg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "spare" {
		_, err := s.moveJournalsLocked()
		return err
	}
	at := s.nowLocked()
	s.clkNow = at
	s.journalRetryLocked(false)
	if s.halted {
		return s.refusedLocked()
	}
	if s.checkFlagLocked(at) && name != "new" && name != "hint" {
		return ErrGameOver
	}
	var err error
	switch name {
	case "takeback":
		if arg == "" || arg == "1" {
			break
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > MaxTakeback {
			return fmt.Errorf("companion: takeback wants a number of moves from 1 to %d, got %q", MaxTakeback, arg)
		}
		if moves := len(s.ref.State().Moves); n > moves {
			return fmt.Errorf("companion: takeback of %d moves, but the game has %d", n, moves)
		}
		// as n takebacks, one after the other: replay runs them as they are
		for range n {
			if s.journal.Command(name, "", at) != nil {
				s.haltLocked()
				return s.refusedLocked()
			}
			err = runCommand(s.ref, name, "", at)
			s.afterLocked()
			if err != nil {
				break
			}
		}
		return err
	case "new", "roll", "confirm", "hint":
	case "choose":
		if _, err := strconv.Atoi(arg); err != nil {
			return fmt.Errorf("companion: choose wants a candidate index, got %q", arg)
		}
	default:
		return fmt.Errorf("companion: unknown command %q", name)
	}
	if s.journal.Command(name, arg, at) != nil {
		s.haltLocked()
		return s.refusedLocked()
	}
	err = runCommand(s.ref, name, arg, at)
	s.afterLocked()
	return err
}

// runCommand applies a command to a referee (shared with replay).
func runCommand(ref *referee.Referee, name, arg string, at time.Duration) error {
	switch name {
	case "takeback":
		return ref.Takeback(at)
	case "new":
		return ref.NewGame(at)
	case "roll":
		return ref.RollDie(at, "cli")
	case "confirm":
		return ref.Choose(ref.State().Proposal, at)
	case "choose":
		i, _ := strconv.Atoi(arg)
		return ref.Choose(i, at)
	case "hint":
		ref.Handle(referee.Input{Kind: referee.ButtonPress, Button: referee.HintButton, At: at})
		return nil
	}
	return fmt.Errorf("companion: unknown command %q", name)
}

// nowLocked estimates the board's clock: the last event's time plus the
// host time since.
func (s *Session) nowLocked() time.Duration {
	if s.hostAt.IsZero() {
		return s.boardAt
	}
	return s.boardAt + time.Since(s.hostAt)
}

// Run reads the board's events until ctx ends or the board closes, reading
// the board when its sensors have been quiet for the settle window (by the
// board clock, estimated between events from the host clock).
func (s *Session) Run(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	events := s.hw.Events()
	for {
		s.mu.Lock()
		pending, at := s.ref.Pending()
		now := s.nowLocked()
		wait := time.Hour
		if pending && !s.halted {
			wait = max(at-now, 0) + time.Millisecond
		}
		if at, ok := s.clockWakeLocked(now); ok { // a flag falling, low time
			wait = min(wait, max(at-now, 0)+time.Millisecond)
		}
		if s.journalPausedLocked() { // try to write the journal again
			wait = min(wait, RetryEvery)
		}
		s.mu.Unlock()
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return errors.New("companion: the board closed")
			}
			s.Handle(ev)
		case <-timer.C:
			s.mu.Lock()
			s.clkNow = s.nowLocked()
			s.journalRetryLocked(true)
			s.tickLocked(s.nowLocked())
			s.mu.Unlock()
		case ack := <-s.beats():
			close(ack)
		}
	}
}

// Close closes the journal (not the board), writing what waits in memory
// if it can; what it cannot is said in the error.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, j := range append(s.retired, s.journal) {
		errs = append(errs, j.Close())
	}
	s.retired = nil
	if s.spareLock != nil {
		errs = append(errs, s.spareLock.Unlock())
		s.spareLock = nil
	}
	return errors.Join(errs...)
}

// Discard closes a session whose start failed after Open (its page could
// not listen, say): the journal it started, holding its header alone, is
// removed, so that the next start does not resume an empty game instead of
// the unfinished one before it. A resumed journal, or one holding more
// than its header, is kept.
func (s *Session) Discard() error {
	s.mu.Lock()
	path := ""
	if s.journal != nil && s.resumed == "" {
		path = s.journal.Path()
	}
	s.mu.Unlock()
	if err := s.Close(); err != nil || path == "" {
		return err
	}
	return removeIfHeaderOnly(path)
}

// WrongBoard is the board the driver refuses (another board than the
// board file's), or nil while none is refused.
func (s *Session) WrongBoard() *BoardMismatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wrongBoard
}
