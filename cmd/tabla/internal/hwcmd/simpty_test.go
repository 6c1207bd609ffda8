package hwcmd

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// writes sends every write to a channel (one message a write).
type writes chan string

func (w writes) Write(p []byte) (int, error) { w <- string(p); return len(p), nil }

// sim --pty's action lines on standard input are numbered from 1, and a
// line over MaxActionLine is reported and skipped, the lines after it read
// as before (it stopped reading them, silently).
func TestSimPTYStdinLines(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, feed := io.Pipe()
	out, errs := make(writes, 4), make(writes, 4)
	done := make(chan error, 1)
	go func() {
		done <- SimPTYRun(ctx, &SimPTYOptions{IO: &cmdutil.IO{In: in, Out: out, Err: errs}, Game: "star", Sensors: "presence", Seed: 1})
	}()
	next := func(c writes, what string) string {
		select {
		case s := <-c:
			return s
		case err := <-done:
			t.Fatalf("sim --pty ended (%v) before %s", err, what)
		case <-time.After(time.Minute): // a guard against a hang, not a measure
			t.Fatalf("no %s", what)
		}
		return ""
	}
	next(out, "pty path")
	go func() {
		io.WriteString(feed, "{\"bogus\":1}\n")
		io.WriteString(feed, "{\"wait\":\""+strings.Repeat("x", MaxActionLine+10)+"\"}\n")
		io.WriteString(feed, "\n{\"bogus\":2}\n")
	}()
	for _, want := range []string{"<stdin>:1:", "<stdin>:2: line longer than 65536 bytes: skipped", "<stdin>:4:"} {
		if got := next(errs, want); !strings.HasPrefix(got, want) {
			t.Errorf("got %q, want %q…", got, want)
		}
	}
	feed.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
