package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// signalAfterRead is standard input that sends sig to this process when
// the command has read all of it: by then Main listens for signals, and
// the command's work is starting. block keeps it open afterwards (a
// player's next move that never comes).
type signalAfterRead struct {
	r     io.Reader
	sig   syscall.Signal
	block bool
	sent  bool
}

func (s *signalAfterRead) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != io.EOF {
		return n, err
	}
	if !s.sent {
		s.sent = true
		syscall.Kill(os.Getpid(), s.sig)
	}
	if s.block {
		select {} // the goroutine reading a player's moves stays blocked
	}
	return n, err
}

// Long commands stop on SIGINT and SIGTERM: analyze at level 5 (about
// 10 s of search on this record), hint with a long time budget, and play
// waiting for a move stop on the signal and say so, exit 1.
func TestSignalsStopLongCommands(t *testing.T) {
	rec, err := os.ReadFile("../aicmd/testdata/star-selfplay.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		stdin string
		block bool
		args  []string
	}{
		{"analyze, SIGTERM", syscall.SIGTERM, string(rec), false, []string{"analyze", "--level", "5", "-"}},
		{"analyze, SIGINT", syscall.SIGINT, string(rec), false, []string{"analyze", "--level", "5", "--workers", "2", "-"}},
		{"hint, SIGINT", syscall.SIGINT, `{"tabla":1,"game":"star","first":"red"}` + "\n", false, []string{"hint", "--level", "5", "--time", "10m", "-"}},
		{"play, SIGINT", syscall.SIGINT, "b1-f3\n", true, []string{"play", "--game", "star", "--first", "red", "--seat", "red", "--no-board"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			in := &signalAfterRead{r: strings.NewReader(tc.stdin), sig: tc.sig, block: tc.block}
			done := make(chan cmdutil.ExitCode, 1)
			go func() { done <- mainWith(&cmdutil.IO{In: in, Out: &out, Err: &errb}, tc.args) }()
			var code cmdutil.ExitCode
			select {
			case code = <-done:
			case <-time.After(5 * time.Minute): // a guard against a hang, not a measure
				t.Fatal("the command did not stop on the signal")
			}
			if code != cmdutil.ExitError || !strings.Contains(errb.String(), "stopped (") {
				t.Errorf("exit %d, stderr %q; want 1 and a message that it was stopped", code, errb.String())
			}
		})
	}
}
