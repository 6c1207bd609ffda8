package aicmd

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	_ "github.com/tabla-board/tabla/engine/star"
)

// TestAnalyzeProgress: `tabla analyze` draws a progress bar on standard
// error when it is a terminal, and writes nothing there when it is not.
func TestAnalyzeProgress(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var seen bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&seen, ptmx); close(read) }()
	var out bytes.Buffer
	opts := &AnalyzeOptions{IO: &cmdutil.IO{Out: &out, Err: tty}, File: "testdata/star-selfplay.jsonl", Blunder: 0.2,
		Strength: Strength{Level: 1, Workers: 1, Seed: 1}}
	if err := AnalyzeRun(opts); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	select {
	case <-read:
	case <-time.After(5 * time.Second):
		ptmx.Close()
		<-read
	}
	got := seen.String()
	if !strings.Contains(got, "analyze: positions [") || !strings.Contains(got, "#]") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("terminal: no progress bar ending cleared: %q", clipStr(got))
	}
	if strings.Contains(out.String(), "analyze: positions") {
		t.Error("the bar went to standard output")
	}

	// a pipe or a buffer: no bar
	var errb bytes.Buffer
	opts.IO = &cmdutil.IO{Out: io.Discard, Err: &errb}
	if err := AnalyzeRun(opts); err != nil {
		t.Fatal(err)
	}
	r, w, _ := os.Pipe()
	opts.IO = &cmdutil.IO{Out: io.Discard, Err: w}
	err = AnalyzeRun(opts)
	w.Close()
	piped, _ := io.ReadAll(r)
	if err != nil || errb.Len() > 0 || len(piped) > 0 {
		t.Errorf("not a terminal: stderr %q / %q (%v)", errb.String(), piped, err)
	}
}

func clipStr(s string) string {
	if len(s) > 300 {
		return s[:150] + " … " + s[len(s)-150:]
	}
	return s
}
