package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
)

// One daemon per journal folder: while a `tabla run` follows a game on a
// folder, a second one on the same folder (in this process, and a real
// second process as a second daemon started by hand beside systemd's)
// stops at once, non-zero, saying which process holds the folder (its pid,
// since when) and what to do; the first journals on as before, the
// library reads the folder meanwhile, and once the first stops the folder
// is free. Today's code starts the second, and both append to the
// journal.
func TestOneDaemonPerJournalFolder(t *testing.T) {
	journal := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan *companion.Session, 1)
	var log1 lockedBuffer
	o := &Options{IO: &cmdutil.IO{Out: &log1, Err: &log1}, Game: "star", First: "red", Board: "sim", Journal: journal,
		Listen: "off", Seed: 1, Ready: func(s *companion.Session, _ string) { ready <- s }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var sess *companion.Session
	select {
	case sess = <-ready:
	case err := <-done:
		t.Fatalf("the first daemon: %v\n%s", err, log1.String())
	}

	holder := fmt.Sprintf("is in use by another tabla process (pid %d, since ", os.Getpid())
	var log2 bytes.Buffer
	err := Run(t.Context(), &Options{IO: &cmdutil.IO{Out: &log2, Err: &log2}, Game: "star", Board: "sim", Journal: journal, Listen: "off"})
	var locked *companion.LockedError
	if !errors.As(err, &locked) || cmdutil.CodeOf(err) == cmdutil.ExitOK || !strings.Contains(err.Error(), holder) ||
		!strings.Contains(err.Error(), "tabla run)") || !strings.Contains(err.Error(), "one daemon per journal folder") {
		t.Errorf("a second daemon in this process: %v, want %q", err, holder)
	}

	if !testing.Short() { // a second process, as started by hand
		bin := buildTabla(t)
		cmd := exec.Command(bin, "run", "--game", "star", "--board", "sim", "--journal", journal, "--listen", "off")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 || !strings.Contains(string(out), holder) {
			t.Errorf("a second tabla run process: %v, said:\n%s\nwant %q", err, out, holder)
		}
	}

	// the library reads the folder without the lock
	lib, err := library.Open(journal, library.Options{Workers: 1})
	if err != nil {
		t.Fatalf("the library on a folder in use: %v", err)
	}
	games, err := lib.Games()
	lib.Close()
	if err != nil || len(games) != 1 {
		t.Errorf("the library lists %d games (%v), want the one under way", len(games), err)
	}

	// the first journals on
	changed := sess.Subscribe(ctx)
	p := companion.NewLivePlayer(companion.Sim(sess.HW()), sess)
	for _, a := range []string{`{"lift":"b1"}`, `{"place":"f3"}`} {
		if err := p.Act(json.RawMessage(a)); err != nil {
			t.Fatal(err)
		}
	}
	path := sess.JournalPath()
	for !slices.Equal(sess.State().Moves, []string{"b1-f3"}) {
		select {
		case <-changed:
		case <-time.After(60 * time.Second): // against hanging only
			t.Fatalf("the first daemon did not take the move: %+v\n%s", sess.State(), log1.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the first daemon: %v\n%s", err, log1.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `{"move":`); n != 1 || strings.Count(string(data), `{"resume":`) != 0 {
		t.Errorf("the journal, %d moves, want 1 and no second daemon's lines:\n%s", n, data)
	}
	res, err := companion.ReplayFile(path)
	if err != nil || !res.Match() {
		t.Errorf("replay: %v %v", err, res.Diff())
	}

	// the folder is free again
	l, err := companion.LockJournalDir(journal, "test", time.Now())
	if err != nil {
		t.Fatalf("after the first daemon stopped: %v", err)
	}
	l.Unlock()
}
