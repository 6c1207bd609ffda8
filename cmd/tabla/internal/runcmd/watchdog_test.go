package runcmd

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/hardwaretest"
)

// stuckBoard is a fake board whose RequestSnapshot blocks while armed: the
// session loop calls it when the board reports Connected, and hangs there.
type stuckBoard struct {
	*hardwaretest.Board
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (b *stuckBoard) RequestSnapshot() error {
	if b.armed.Load() {
		close(b.entered)
		<-b.release
	}
	return b.Board.RequestSnapshot()
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatchdogStopsWhenLoopStuck: the watchdog pings while the session
// loop answers heartbeats, stops while the loop is blocked (the process
// and the watchdog goroutine still running), and resumes after.
func TestWatchdogStopsWhenLoopStuck(t *testing.T) {
	def := boards.Default("star")
	hw := &stuckBoard{Board: hardwaretest.New(hardware.Info{Name: "stuck", Sensors: len(def.Sensors), LEDs: def.LEDCount}),
		entered: make(chan struct{}), release: make(chan struct{})}
	sess, err := companion.Open(companion.Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: hw, Source: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(hw.release) }) }
	defer release() // before Close, which waits for the loop's lock
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() { runDone <- sess.Run(ctx) }()

	var pings atomic.Int64
	notify := func(state string) error {
		if state != "WATCHDOG=1" {
			t.Errorf("notified %q", state)
		}
		pings.Add(1)
		return nil
	}
	var logs syncBuf
	const interval = 20 * time.Millisecond
	wdDone := make(chan struct{})
	go func() {
		watchdog(ctx, interval, sess, notify, slog.New(slog.NewTextHandler(&logs, nil)))
		close(wdDone)
	}()
	waitPings := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for pings.Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d pings, want %d", pings.Load(), n)
			}
			time.Sleep(interval / 4)
		}
	}
	waitPings(3)

	// block the loop inside an event
	hw.armed.Store(true)
	hw.Send(hardware.Event{Kind: hardware.Status, Conn: hardware.Connected})
	select {
	case <-hw.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the loop never asked for a snapshot")
	}
	time.Sleep(3 * interval) // a heartbeat answered just before may still ping
	stuck := pings.Load()
	time.Sleep(15 * interval)
	if got := pings.Load(); got != stuck {
		t.Fatalf("%d pings while the session loop was blocked", got-stuck)
	}
	if !strings.Contains(logs.String(), "session loop is stuck") {
		t.Errorf("no stuck message in the log:\n%s", logs.String())
	}

	// unblock: the pings come back
	hw.armed.Store(false)
	release()
	waitPings(stuck + 3)
	if !strings.Contains(logs.String(), "answers again") {
		t.Errorf("no recovery message in the log:\n%s", logs.String())
	}
	cancel()
	<-wdDone
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
}
