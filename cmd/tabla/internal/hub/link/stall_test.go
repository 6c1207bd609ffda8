package link

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStallGuard drives the guard of the hub's (and a table's) consumers
// with a fake clock, one probe a tick (stallAfter/2 apart): a consumer
// that stopped while its stream grew is replaced within stallAfter of
// being seen behind, even when probes now and then get no answer (a
// starved cluster electing a leader: before, each failed probe started
// the wait again, and a hub whose consumer died with a node stayed behind
// for as long as every other probe failed); a consumer delivering a
// backlog is not a stalled one.
func TestStallGuard(t *testing.T) {
	errProbe := errors.New("context deadline exceeded")
	type step struct {
		deliver uint64 // a delivery before the tick (0 none)
		stream  uint64 // what the probe answers (0: it fails)
	}
	for _, c := range []struct {
		name  string
		start uint64 // delivered before the first tick
		steps []step
		fire  int // the step whose probe finds the stall (-1 never)
	}{
		{"stopped while the stream grew", 10, []step{{0, 11}, {0, 12}, {0, 12}, {0, 13}, {0, 13}}, 2},
		{"probes fail every other tick", 10, []step{{0, 11}, {0, 0}, {0, 12}, {0, 0}, {0, 13}, {0, 0}, {0, 13}, {0, 0}}, 2},
		{"probes fail after the stall was seen", 10, []step{{0, 11}, {0, 0}, {0, 0}, {0, 0}}, 2},
		{"no probe answers", 10, []step{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}, -1},
		{"delivering a backlog", 0, []step{{100, 5000}, {900, 5000}, {1700, 5000}, {2500, 5000}, {3300, 5000}, {4100, 5000}, {4900, 5000}, {5000, 5000}}, -1},
		{"the last delivery then silence", 0, []step{{100, 5000}, {900, 5000}, {0, 5000}, {0, 5000}, {0, 5000}}, 3},
		{"nothing new", 20, []step{{0, 20}, {0, 20}, {0, 20}, {0, 20}, {0, 20}}, -1},
		{"caught up again", 10, []step{{0, 11}, {11, 11}, {0, 11}, {0, 12}, {0, 12}, {0, 12}}, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
			g := &StallGuard{now: func() time.Time { return now }}
			g.Delivered(c.start)
			probe := make(chan uint64)
			last := func(context.Context) (uint64, error) {
				if s := <-probe; s > 0 {
					return s, nil
				}
				return 0, errProbe
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tick := make(chan time.Time)
			done := make(chan error, 1)
			go func() { done <- g.watchTicks(ctx, nil, tick, last) }()
			fired := -1
			// each step: the guard takes the tick unless the step before
			// found the stall; while it waits for the probe's answer, the
			// clock moves on and the consumer delivers
			for i := 0; i <= len(c.steps) && fired < 0; i++ {
				select {
				case tick <- now:
				case err := <-done:
					fired = i - 1
					t.Logf("step %d: %v", fired, err)
					continue
				}
				if i == len(c.steps) {
					break
				}
				now = now.Add(stallAfter / 2)
				if d := c.steps[i].deliver; d > 0 {
					g.Delivered(d)
				}
				probe <- c.steps[i].stream
			}
			if fired != c.fire {
				t.Fatalf("the guard found the stall at step %d, want %d (-1 never)", fired, c.fire)
			}
		})
	}
}
