package link

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ConsumeOpts make a consumer notice a lost server within seconds (a
// heartbeat every 2 s; the default is 15), so that it resumes on another
// node of a cluster or after a restart.
func ConsumeOpts() []jetstream.PullConsumeOpt {
	return []jetstream.PullConsumeOpt{jetstream.PullExpiry(6 * time.Second), jetstream.PullHeartbeat(2 * time.Second)}
}

// StallGuard notices a consumer that stopped delivering while its stream
// has more (its server died and it was not recreated): the caller starts
// a new one. Its zero value watches a consumer from the stream's start.
// The hub's consumers and remote play's use it.
type StallGuard struct {
	now func() time.Time // the clock (nil: time.Now)

	mu  sync.Mutex
	seq uint64    // the last stream sequence delivered
	at  time.Time // when
}

// NewStallGuard watches a consumer that starts after stream sequence seq.
func NewStallGuard(seq uint64) *StallGuard { return &StallGuard{seq: seq} }

func (g *StallGuard) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}

// Delivered notes the stream sequence of a delivered message.
func (g *StallGuard) Delivered(seq uint64) {
	now := g.clock()
	g.mu.Lock()
	g.seq, g.at = seq, now
	g.mu.Unlock()
}

// Watch returns when ctx ends (nil), the consume context closes, or the
// consumer has delivered nothing for stallAfter while the stream's last
// sequence (as last reports it) was ahead of what it delivered, probed
// every stallAfter/2.
func (g *StallGuard) Watch(ctx context.Context, cc jetstream.ConsumeContext, last func(context.Context) (uint64, error)) error {
	tick := time.NewTicker(stallAfter / 2)
	defer tick.Stop()
	return g.watchTicks(ctx, cc.Closed(), tick.C, last)
}

// watchTicks is watch, probing at each tick. A probe that fails (no
// answer within stallAfter: a cluster electing a leader, a starved
// server) changes nothing: only an answer that the consumer has all the
// stream has clears a stall, and a delivery starts its time again.
func (g *StallGuard) watchTicks(ctx context.Context, closed <-chan struct{}, tick <-chan time.Time, last func(context.Context) (uint64, error)) error {
	var behind time.Time // since when the stream was seen ahead (zero: it was not)
	var stream uint64    // its last sequence, as last answered
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-closed:
			return errors.New("the consumer stopped")
		case <-tick:
		}
		lctx, cancel := context.WithTimeout(ctx, stallAfter)
		seq, err := last(lctx)
		cancel()
		now := g.clock()
		g.mu.Lock()
		delivered, at := g.seq, g.at
		g.mu.Unlock()
		if err == nil {
			stream = seq
		}
		switch {
		case err != nil:
		case seq <= delivered:
			behind = time.Time{}
		case behind.IsZero():
			behind = now
		}
		since := behind
		if at.After(since) {
			since = at
		}
		if !behind.IsZero() && now.Sub(since) >= stallAfter {
			return fmt.Errorf("the consumer stalled at sequence %d, the stream has %d", delivered, stream)
		}
	}
}

// stallAfter is how long a consumer may lag its stream without delivering
// before it is replaced.
const stallAfter = 3 * time.Second
