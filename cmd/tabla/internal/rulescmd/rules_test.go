package rulescmd

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	_ "github.com/tabla-board/tabla/engine/games"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden runs `moves` and `check` on every record in testdata and
// compares stdout, stderr and the exit code with testdata/NAME.golden.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) < 10 {
		t.Fatalf("only %d records in testdata", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			for _, sub := range []string{"check", "moves"} {
				var out, errb bytes.Buffer
				opts := &Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, File: f}
				var err error
				if sub == "check" {
					err = CheckRun(opts)
				} else {
					err = MovesRun(opts)
				}
				code := cmdutil.CodeOf(err)
				if err != nil {
					errb.WriteString(err.Error() + "\n")
				}
				got.WriteString("$ tabla rules " + sub + "\n" + out.String())
				if errb.Len() > 0 {
					got.WriteString("stderr: " + errb.String())
				}
				got.WriteString("exit " + string(rune('0'+code)) + "\n")
			}
			golden := "testdata/" + name + ".golden"
			if *update {
				os.WriteFile(golden, got.Bytes(), 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader("{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"E\"}\n")
	if err := MovesRun(&Options{IO: &cmdutil.IO{In: in, Out: &out}, File: "-"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "b29\n" {
		t.Errorf("got %q", out.String())
	}
	in = strings.NewReader("{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"X\"}\n")
	err := CheckRun(&Options{IO: &cmdutil.IO{In: in, Out: &out}, File: "-"})
	if err == nil || !strings.HasPrefix(err.Error(), "<stdin>:2: line 2: ") {
		t.Errorf("got %v", err)
	}
}

// A record read after the command's context ended (Ctrl-C, SIGTERM) stops
// the command, which says so instead of printing a state.
func TestStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	in := strings.NewReader(`{"tabla":1,"game":"star","first":"red"}` + "\n")
	err := CheckRun(&Options{IO: &cmdutil.IO{In: in, Out: &out, Err: &errb}, File: "-", Context: ctx})
	if err == nil || !strings.Contains(err.Error(), "rules: stopped") || out.Len() != 0 {
		t.Fatalf("got %v and %q, want the command stopped", err, out.String())
	}
}
