package companion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
	"github.com/tabla-board/tabla/sim/script"
)

// Player plays physical-action scripts (sim/script) on a virtual board
// feeding a session, on virtual time: each action takes sim.ActionTime (a
// wait its own), then the session reads the settled board. It is the
// session's side of script.Run: a script.Handler whose expectations are
// the referee's state, and a script.Syncer and script.Ticker that keep the
// session in step with the board's clock. It reads the board's events in a
// goroutine of its own until the board or the player is closed.
type Player struct {
	Sim  *sim.Board
	Sess *Session

	reqs    chan func()
	stop    chan struct{}
	done    chan struct{}
	handled int // events handled since the last Sync; the loop's own
}

var (
	_ script.Syncer = (*Player)(nil)
	_ script.Ticker = (*Player)(nil)
)

// NewPlayer starts a player; the board's first events (snapshot, status)
// are fed at once.
func NewPlayer(b *sim.Board, s *Session) *Player {
	p := &Player{Sim: b, Sess: s, reqs: make(chan func()), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop(b.Events())
	p.Sync(context.Background())
	return p
}

// loop feeds the board's events to the session and runs requests between
// them.
func (p *Player) loop(events <-chan hardware.Event) {
	defer close(p.done)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return
			}
			p.Sess.Handle(ev)
			p.handled++
		case f := <-p.reqs:
			f()
		case <-p.stop:
			return
		}
	}
}

// errStopped: the player's loop has ended (board or player closed).
var errStopped = errors.New("companion: the player is closed")

// do runs f in the loop, after every event it has received so far.
func (p *Player) do(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	select {
	case p.reqs <- func() { f(); close(ran) }:
	case <-p.done:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
	<-ran
	return nil
}

// Sync returns once the session has handled every event the board has
// emitted, those it asks for while handling them included (a snapshot on
// reconnection).
func (p *Player) Sync(ctx context.Context) error {
	for {
		if err := p.Sim.Flush(ctx); err != nil {
			return err
		}
		n := 0
		if err := p.do(ctx, func() { n, p.handled = p.handled, 0 }); err != nil {
			return err
		}
		if n == 0 {
			// a hint asked for by the script is answered before it goes on
			p.Sess.WaitHints()
			if err := p.do(ctx, func() { n, p.handled = p.handled, 0 }); err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
		}
	}
}

// Tick reads the settled board at board time now.
func (p *Player) Tick(ctx context.Context, now time.Duration) error {
	p.Sess.Tick(now)
	return nil
}

// Expect checks assertions against the referee's state.
func (p *Player) Expect(ctx context.Context, a script.Action, as map[string]json.RawMessage) error {
	return expectState(p.Sess, as)
}

func expectState(s *Session, as map[string]json.RawMessage) error {
	st := s.State()
	if err := st.Expect(as); err != nil {
		return fmt.Errorf("%w: %v", script.ErrExpect, err)
	}
	return nil
}

// Run plays every action of s, then waits for the session to have handled
// every event. Errors are *script.Error naming the line.
func (p *Player) Run(ctx context.Context, s *script.Script) error {
	if err := script.Run(ctx, s, p.Sim, p); err != nil {
		return err
	}
	return p.Sync(ctx)
}

// Act performs one action given as a JSON object ({"lift":"c1"}, …), on
// virtual time as in a script.
func (p *Player) Act(raw json.RawMessage) error {
	a, err := script.ParseAction(p.Sim.Def(), raw)
	if err != nil {
		return err
	}
	return script.Step(context.Background(), p.Sim, p, a)
}

// Close stops reading the board's events (closing the board does too).
func (p *Player) Close() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}

// LivePlayer performs actions on a virtual board whose events a running
// session (Session.Run) reads itself, on the board's own clock: the
// simulator page's way in, and `tabla run --board sim`'s /api/action.
type LivePlayer struct {
	b    *sim.Board
	sess *Session
}

// NewLivePlayer returns a live player.
func NewLivePlayer(b *sim.Board, s *Session) *LivePlayer { return &LivePlayer{b: b, sess: s} }

// liveExpectTimeout bounds how long an expect waits for the session to
// have received the board's events.
const liveExpectTimeout = 5 * time.Second

// Act performs one SCRIPTS.md action, taking no board time of its own
// (wait advances the board clock, expect checks the state now).
func (p *LivePlayer) Act(raw json.RawMessage) error {
	a, err := script.ParseAction(p.b.Def(), raw)
	if err != nil {
		return err
	}
	if a.Kind != "expect" {
		return script.Perform(p.b, a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveExpectTimeout)
	defer cancel()
	return script.Step(ctx, p.b, p, a)
}

// Expect checks assertions against the referee's state.
func (p *LivePlayer) Expect(ctx context.Context, a script.Action, as map[string]json.RawMessage) error {
	return expectState(p.sess, as)
}
