package runcmd

import (
	"context"
	"log/slog"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// heartbeater proves that the session loop turns (companion.Session).
type heartbeater interface {
	Heartbeat(ctx context.Context) error
}

// notifier sends a state line to systemd ("WATCHDOG=1").
type notifier func(state string) error

// sdNotify is the real notifier.
func sdNotify(state string) error {
	_, err := daemon.SdNotify(false, state)
	return err
}

// watchdog pings systemd's watchdog every interval, but only after the
// session loop has answered a heartbeat within that interval: a loop stuck
// on a lock, a board call or a runaway computation stops the pings even
// though the process (and this goroutine) still runs, and systemd restarts
// tabla (WatchdogSec). It returns when ctx ends.
func watchdog(ctx context.Context, interval time.Duration, hb heartbeater, notify notifier, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	stalled := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		hctx, cancel := context.WithTimeout(ctx, interval)
		err := hb.Heartbeat(hctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if !stalled {
				log.Error("watchdog: the session loop is stuck; withholding the watchdog ping so systemd restarts tabla", "err", err)
				stalled = true
			}
			continue
		}
		if stalled {
			log.Warn("watchdog: the session loop answers again")
			stalled = false
		}
		if err := notify(daemon.SdNotifyWatchdog); err != nil {
			log.Warn("watchdog: sd_notify", "err", err)
		}
	}
}
