package companion

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// Clocks (engine/clock). A game whose header has a time control ("clock")
// has a clock per seat. The referee knows nothing of them: the session
// keeps them beside it, on the referee's board time.
//
//   - The clocks of a new game start at its first move (the press that
//     ends the first turn: the first mover's turn is free, as when a
//     chess player starts the opponent's clock), or earlier when the
//     arbiter starts them (StartClocks; a club evening's round, the
//     hub's pairing carrying its start): never while the pieces are set
//     up. A game resumed with moves made starts the seat to move's clock
//     at the first board event after the restart.
//   - The press is the referee's acceptance of a move or roll that passes
//     the turn, stamped with the instant the reading it accepted settled
//     (the move's last placement plus the settle window: the referee reads
//     the board at the tick after it), or the command's time. A DAHA or RAY roll is part of its
//     player's turn: the press is the move after it, or the roll itself
//     when it eliminates its player. A GYGES placement after which the
//     same player places again is no press: their clock runs on.
//   - The line that ends a turn carries its time, "ms" (whole
//     milliseconds, pauses left out), so that a resumed game rebuilds
//     both clocks exactly from its journal (record.Game.Clock). The time
//     between the last journalled move and a restart is not known to the
//     journal and is charged to no one: the seat to move's clock starts
//     again, where it stood at that move, at the first board event after
//     the restart.
//   - A confirm question or correction mode pauses the running clock only
//     when Options.ClockPause says so (kept in the journal's meta).
//   - A takeback (the players', or the referee's revision of a move it
//     recorded) gives the undone turns' time back: the clocks are those
//     the kept turns make, and the seat to move's turn runs from where it
//     began (the last kept press), so a move the referee records again
//     keeps its whole turn's time.
//   - When the running seat's time is used up its flag falls at that
//     instant (board time; Run wakes for it, drivers on virtual time see
//     it at their next Tick or event): the journal gets
//     {"end":"time","flag":SEAT,"at":MS,"t":"…"}, synced, the game ends
//     with result time and nothing more is journalled; a new game starts
//     with the new game command or button.
//   - Low time (clock.Control.Low: a tenth of the base, 10 s to 60 s) is
//     shown on the board for the seat to move, subtly: the cells the
//     referee lights to say whose turn it is blink slowly instead of
//     shining steady, and a roll's slow blink turns fast. Nothing else
//     changes, and a pairing request or guidance is never covered.

// ClockStatus is the clocks as the pages show them. The running seat's
// time counts down from LeftMs by the time since the document was made
// (after its delay: TurnMs is the turn's time so far).
type ClockStatus struct {
	Control string           `json:"control"`           // the time control, e.g. "10m+5s"
	LeftMs  map[string]int64 `json:"left_ms"`           // each seat's time left
	Running string           `json:"running,omitempty"` // the seat whose clock runs
	TurnMs  int64            `json:"turn_ms"`           // the running turn's time so far
	Paused  bool             `json:"paused,omitempty"`  // by a question or correction (ClockPause)
	DelayMs map[string]int64 `json:"delay_ms,omitempty"`
	LowMs   map[string]int64 `json:"low_ms"`         // shown as low at or under this
	Flag    string           `json:"flag,omitempty"` // the seat whose time ran out: the game is over
}

// clockState is a session's clocks (nil without a time control).
type clockState struct {
	clk     *clock.Clock
	ctl     clock.Controls
	seats   []string
	shadow  engine.State // the game as the clock has seen it
	turns   []turnTime   // per applied move and roll, for takebacks
	started bool
	startAt time.Duration // when the clocks started in this session
	low     bool          // the low-time overlay was shown in the last frame
	ended   bool          // the flag fell: the game is over
	buf     []int         // cell indices (reused)
}

type turnTime struct {
	ms    int64
	timed bool
	at    time.Duration // the press (board time of this session; 0: from the journal)
}

func newClockState(h *record.Header, st engine.State) *clockState {
	if len(h.Clock) == 0 {
		return nil
	}
	cs := &clockState{ctl: h.Clock, seats: st.Info().Seats}
	cs.reset(st)
	return cs
}

// reset sets the clocks up for a game at its start.
func (cs *clockState) reset(st engine.State) {
	cs.clk, cs.shadow, cs.turns, cs.started, cs.ended = cs.ctl.New(cs.seats), st.Clone(), nil, false, false
}

// resume rebuilds the clocks from a replayed journal (not started).
func (cs *clockState) resume(g *record.Game) {
	cs.clk = g.Clock()
	cs.shadow = g.State.Clone()
	cs.turns = cs.turns[:0]
	for _, a := range g.Applied {
		cs.turns = append(cs.turns, turnTime{ms: a.MS, timed: a.Timed})
	}
}

// rebuild sets the clocks up again after a takeback: the game replayed
// from its start through the kept moves and rolls (hist, the referee's
// history, of which the kept turns are the first: the actions after the
// takeback in the same batch are not yet the clocks'), their turn times
// charged, and the seat to move's clock started at at.
func (cs *clockState) rebuild(st engine.State, hist []referee.Applied, at time.Duration) error {
	cs.clk = cs.ctl.New(cs.seats)
	if len(hist) < len(cs.turns) {
		return fmt.Errorf("%d turns kept, %d moves and rolls in the game", len(cs.turns), len(hist))
	}
	for i, h := range hist[:len(cs.turns)] {
		if h.Roll {
			if err := st.Roll(h.Face); err != nil {
				return err
			}
		} else {
			st.Play(h.Move)
		}
		if cs.turns[i].timed {
			cs.clk.Charge(h.Seat, time.Duration(cs.turns[i].ms)*time.Millisecond)
		}
	}
	// the seat to move's turn runs from where it began: the last kept
	// press of this session, or the clocks' start (a referee's revision,
	// a takeback and the move recorded again, keeps the turn's time)
	from := cs.startAt
	for _, t := range cs.turns {
		if t.timed && t.at > 0 {
			from = t.at
		}
	}
	cs.shadow, cs.started = st, true
	cs.clk.Start(st.ToMove(), min(from, at))
	return nil
}

// startClockLocked starts a resumed game's clocks at the first board
// event (a game with no move waits for its first move or the arbiter).
func (s *Session) startClockLocked(at time.Duration) {
	cs := s.clocks
	if cs == nil || cs.started || cs.ended || len(cs.turns) == 0 {
		return
	}
	cs.started, cs.startAt = true, at
	cs.clk.Start(cs.shadow.ToMove(), at)
}

// ErrClocksRunning: the clocks were started already (or the game has no
// clock, or is over on time).
var ErrClocksRunning = errors.New("companion: the clocks run already (or the game has none)")

// StartClocks starts the first mover's clock now, before the first move:
// the arbiter starting the round. A game under way, or without a clock,
// is left alone (ErrClocksRunning).
func (s *Session) StartClocks() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.clocks
	if cs == nil || cs.started || cs.ended || len(s.ref.History()) > 0 {
		return ErrClocksRunning
	}
	at := s.nowLocked()
	s.clkNow = at
	cs.started, cs.startAt = true, at
	cs.clk.Start(cs.shadow.ToMove(), at)
	s.notifyLocked()
	return nil
}

// checkFlagLocked lets the running seat's flag fall if its time is used
// up at at. It reports whether the game has ended on time.
func (s *Session) checkFlagLocked(at time.Duration) bool {
	cs := s.clocks
	if cs == nil || !cs.started {
		return false
	}
	if cs.ended {
		return true
	}
	seat, fell := cs.clk.Fell(at)
	if !fell {
		return false
	}
	when := at
	if fa, ok := cs.clk.FellAt(); ok {
		when = fa
	}
	cs.ended = true
	name := cs.seats[seat]
	s.log.Info("game over", "status", "time", "flag", name, "at", when)
	if s.journal != nil {
		line := struct {
			End  string `json:"end"`
			Flag string `json:"flag"`
			At   int64  `json:"at"`
			T    string `json:"t"`
		}{"time", name, ms(when), s.clock().UTC().Format(time.RFC3339Nano)}
		if err := s.journal.w.WriteObject(line); err != nil {
			s.log.Error("journal", "err", err)
		}
		s.publish()
	}
	s.lastLED = s.lastLED[:0] // the low-time overlay goes
	s.notifyLocked()
	return true
}

// clockDecisionLocked follows a decision on the clocks: it returns the
// turn's time to journal with it when the decision ends its mover's turn.
func (s *Session) clockDecisionLocked(a referee.Action) (int64, bool) {
	cs := s.clocks
	if cs != nil && a.Kind == referee.NewGame {
		cs.reset(s.ref.Game()) // the clocks wait for the first move (or StartClocks)
		return 0, false
	}
	if cs == nil || cs.ended {
		return 0, false
	}
	switch a.Kind {
	case referee.TookBack:
		cs.turns = cs.turns[:max(len(cs.turns)-a.Ops, 0)]
		st, err := s.newState()
		if err == nil {
			err = cs.rebuild(st, s.ref.History(), a.At)
		}
		if err != nil {
			s.log.Error("clock: the game after a takeback cannot be replayed", "err", err)
		}
		return 0, false
	case referee.Moved, referee.Rolled:
	default:
		return 0, false
	}
	st := cs.shadow
	info := st.Info()
	seat := slices.Index(info.Seats, a.Seat)
	if err := applyTo(st, a); err != nil || seat < 0 {
		// the clock's copy of the game disagrees with the referee: take
		// the referee's (never seen; the turn is not timed)
		s.log.Error("clock: the game went out of step", "err", err, "seat", a.Seat)
		cs.shadow = s.ref.Game().Clone()
		cs.turns = append(cs.turns, turnTime{})
		return 0, false
	}
	next := st.ToMove()
	// the press: the instant the board settled with the move on it (the
	// referee accepts it at its next reading, a tick at most a little
	// later), never before the turn began
	at := a.At
	if run, _ := cs.clk.Running(); s.settledAt > 0 && s.settledAt < at && (run < 0 || at-cs.clk.Turn(at) <= s.settledAt) {
		at = s.settledAt
	}
	if !cs.started {
		cs.started, cs.startAt = true, at
		cs.clk.Start(seat, at)
	}
	if next == seat {
		cs.turns = append(cs.turns, turnTime{})
		return 0, false // the same player goes on (a roll, a placement)
	}
	if run, _ := cs.clk.Running(); run != seat {
		cs.clk.Start(seat, at)
	}
	turn, ok := cs.clk.Press(next, at)
	if !ok {
		cs.turns = append(cs.turns, turnTime{})
		return 0, false
	}
	msT := turn.Milliseconds()
	cs.turns = append(cs.turns, turnTime{msT, true, at})
	return msT, true
}

// applyTo applies a referee's decision to a copy of the game.
func applyTo(st engine.State, a referee.Action) error {
	if a.Kind == referee.Rolled {
		d := st.Info().Die
		if d == nil {
			return fmt.Errorf("a roll in a game without a die")
		}
		face := slices.Index(d.Faces, a.Face)
		if face < 0 {
			return fmt.Errorf("roll %q is no face", a.Face)
		}
		return st.Roll(face)
	}
	m, err := st.ParseMove(a.Move)
	if err != nil {
		return err
	}
	st.Play(m)
	return nil
}

// pauseClockLocked pauses or resumes the running clock at at: while the
// game is paused because its journal cannot be written (paused.go), and
// as the referee asks or corrects when the options say so.
func (s *Session) pauseClockLocked(at time.Duration) {
	cs := s.clocks
	if cs == nil || !cs.started || cs.ended {
		return
	}
	pause := s.journalPausedLocked()
	if s.meta.ClockPause {
		mode := s.ref.State().Mode
		pause = pause || mode == referee.ModeConfirm.String() || mode == referee.ModeCorrect.String()
	} else if !pause && !s.jpaused {
		return // never paused: nothing to resume
	}
	if pause {
		cs.clk.Pause(at)
	} else {
		cs.clk.Resume(at)
	}
}

// clockWakeLocked is the next board time the clocks need the session to
// look again (a flag falling, the low time starting), ok false if none.
func (s *Session) clockWakeLocked(now time.Duration) (time.Duration, bool) {
	cs := s.clocks
	if cs == nil || !cs.started || cs.ended {
		return 0, false
	}
	at, ok := cs.clk.FlagAt()
	if low, lok := cs.clk.LowAt(now); lok {
		at = low
	}
	return at, ok
}

// clockStatusLocked is the clocks at board time now.
func (s *Session) clockStatusLocked(now time.Duration) *ClockStatus {
	cs := s.clocks
	if cs == nil {
		return nil
	}
	out := &ClockStatus{Control: cs.ctl.String(), LeftMs: map[string]int64{}, LowMs: map[string]int64{}}
	if !cs.started || cs.ended {
		now = 0
	}
	run, paused := cs.clk.Running()
	if cs.started && !cs.ended && run >= 0 {
		out.Running, out.Paused, out.TurnMs = cs.seats[run], paused, cs.clk.Turn(now).Milliseconds()
	}
	for i, seat := range cs.seats {
		c := cs.clk.Control(i)
		out.LeftMs[seat] = cs.clk.Left(i, now).Milliseconds()
		out.LowMs[seat] = c.Low().Milliseconds()
		if c.Delay > 0 {
			if out.DelayMs == nil {
				out.DelayMs = map[string]int64{}
			}
			out.DelayMs[seat] = c.Delay.Milliseconds()
		}
	}
	if f := cs.clk.Flag(); f >= 0 {
		out.Flag = cs.seats[f]
	}
	return out
}

// Clock is the clocks at the current board time (nil: the game has no
// time control).
func (s *Session) Clock() *ClockStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clockStatusLocked(s.nowLocked())
}

// ClockAt is the clocks at board time at (drivers on virtual time).
func (s *Session) ClockAt(at time.Duration) *ClockStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clockStatusLocked(at)
}

// lowTimeOverlayLocked shows the running seat's low time on the frame:
// its turn cells blink slowly, a roll's slow blink goes fast.
func (s *Session) lowTimeOverlayLocked(frame []hardware.LED, now time.Duration) []hardware.LED {
	cs := s.clocks
	if cs == nil {
		return frame
	}
	run, paused := cs.clk.Running()
	cs.low = cs.started && !cs.ended && run >= 0 && !paused && cs.clk.Low(run, now)
	if !cs.low {
		return frame
	}
	for name, l := range s.ref.State().LEDs {
		c, ok := s.board.Index(name)
		if !ok || c >= len(s.board.LEDs) {
			continue
		}
		led := s.board.LEDs[c]
		if led < 0 || led >= len(frame) {
			continue
		}
		switch {
		case l.Role == "turn" && frame[led].Blink == hardware.Steady:
			frame[led].Blink = hardware.Slow
		case l.Role == "roll" && frame[led].Blink == hardware.Slow:
			frame[led].Blink = hardware.Fast
		}
	}
	return frame
}

// timeStateLocked says in the state that a game whose flag fell is over:
// status "time", no one to move, the winner the other seat of a
// two-player game.
func (s *Session) timeStateLocked(st *referee.State) {
	cs := s.clocks
	if cs == nil || !cs.ended {
		return
	}
	st.Status, st.ToMove, st.Awaiting = "time", nil, "none"
	if f := cs.clk.Flag(); f >= 0 && len(cs.seats) == 2 {
		w := cs.seats[1-f]
		st.Winner = &w
	}
}

// Ended reports whether the game ended on time (a flag fell).
func (s *Session) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clocks != nil && s.clocks.ended
}

// ClockOptions are the flags and config keys of the clocks: Clock is one
// time control for every seat ("10m+5s", "10m/d5s") or SEAT=CONTROL for
// each; Pause pauses the running clock while the referee asks or guides a
// correction.
type ClockOptions struct {
	Clock []string
	Pause bool
}

// AddFlags adds --clock and --clock-pause (tabla run, tabla sim).
func (o *ClockOptions) AddFlags(f *pflag.FlagSet) {
	f.StringArrayVar(&o.Clock, "clock", nil, "time control: BASE+INCREMENT (Fischer, e.g. 10m+5s), BASE/dDELAY (simple delay, e.g. 10m/d5s)\n"+
		"or BASE; SEAT=CONTROL once per seat for different controls")
	f.BoolVar(&o.Pause, "clock-pause", false, "pause the running clock while the board asks to confirm a move or guides a correction")
}

// Controls reads the time controls for a game with these seats (nil: no
// clock).
func (o *ClockOptions) Controls(seats []string) (clock.Controls, error) {
	if len(o.Clock) == 0 {
		return nil, nil
	}
	cs, err := clock.ParseControls(o.Clock)
	if err == nil {
		err = cs.Check(seats)
	}
	if err != nil {
		return nil, fmt.Errorf("--clock: %w", err)
	}
	return cs, nil
}
