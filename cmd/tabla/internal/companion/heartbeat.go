package companion

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoHeartbeat: the session loop (Run) did not answer a heartbeat in
// time — it is stuck (or not running).
var ErrNoHeartbeat = errors.New("companion: the session loop did not answer the heartbeat")

func (s *Session) beats() chan chan struct{} {
	s.beatOnce.Do(func() { s.beat = make(chan chan struct{}) })
	return s.beat
}

// Heartbeat returns nil once Run's loop has taken a heartbeat request and
// answered it, proving the loop turns: it is not blocked handling an
// event, waiting for the session's lock or for the board. It returns
// ErrNoHeartbeat when ctx ends first (the watchdog then withholds its
// ping, so systemd restarts a stuck daemon).
func (s *Session) Heartbeat(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case s.beats() <- ack:
	case <-ctx.Done():
		return fmt.Errorf("%w (%v)", ErrNoHeartbeat, context.Cause(ctx))
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w (%v)", ErrNoHeartbeat, context.Cause(ctx))
	}
}
