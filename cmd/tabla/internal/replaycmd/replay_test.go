package replaycmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/simcmd"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/sim/script"
)

func journal(t *testing.T, name string) []byte {
	t.Helper()
	s, err := script.ParseFile(filepath.Join("..", "simcmd", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := simcmd.Play(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return res.Journal
}

func TestReplay(t *testing.T) {
	dir := t.TempDir()
	good := journal(t, "star-noise.jsonl")
	// a misrecognised move, as a user would report it: the journal says
	// b1-f3 but the board events no longer show the piece arriving on f3
	var bad bytes.Buffer
	for _, l := range strings.SplitAfter(string(good), "\n") {
		if !strings.HasPrefix(l, `{"sensor":"f3"`) {
			bad.WriteString(l)
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
		code cmdutil.ExitCode
		out  string
	}{
		{"good", good, 0, "decisions reproduced"},
		{"bad", bad.Bytes(), 1, "decides differently"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".jsonl")
			os.WriteFile(p, tc.data, 0o644)
			var out, errb bytes.Buffer
			err := Run(&Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, File: p, BoardEvents: true})
			if got := cmdutil.CodeOf(err); got != tc.code {
				t.Fatalf("exit %d want %d: %v %s", got, tc.code, err, errb.String())
			}
			if !strings.Contains(out.String()+errb.String(), tc.out) {
				t.Errorf("output lacks %q:\n%s%s", tc.out, out.String(), errb.String())
			}
			if tc.code == 1 && !strings.Contains(errb.String(), "journal: move red b1-f3") {
				t.Errorf("no diff:\n%s", errb.String())
			}
		})
	}
}

// A journal on standard input, which replay reads twice, is spooled to a
// temporary file and reproduced as from a file.
func TestReplayStdin(t *testing.T) {
	var out, errb bytes.Buffer
	in := strings.NewReader(string(journal(t, "star-noise.jsonl")))
	err := Run(&Options{IO: &cmdutil.IO{In: in, Out: &out, Err: &errb}, File: "-"})
	if err != nil || !strings.Contains(out.String(), "<stdin>: ") || !strings.Contains(out.String(), "decisions reproduced") {
		t.Fatalf("got %v:\n%s%s", err, out.String(), errb.String())
	}
}

// A replay whose context has ended (Ctrl-C, SIGTERM) stops and says so.
func TestReplayStopped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j.jsonl")
	os.WriteFile(p, journal(t, "star-noise.jsonl"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	err := Run(&Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, File: p, Context: ctx})
	if cmdutil.CodeOf(err) != cmdutil.ExitError || !strings.Contains(fmt.Sprint(err), "replay stopped") {
		t.Fatalf("got %v, want exit 1 saying the replay stopped", err)
	}
}

// A file that is not a replayable journal is refused naming the file and
// line and saying what to do.
func TestReplayNotAJournal(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, header string
		want         []string
	}{
		{"no board", `{"tabla":1,"game":"star","first":"red","meta":{"companion":{"settle_ms":100}}}`,
			[]string{"nob.jsonl:1: line 1:", "does not say which board", `add "board":"NAME"`, `"star"`}},
		{"unknown board", `{"tabla":1,"game":"star","first":"red","meta":{"companion":{"board":"nope"}}}`,
			[]string{"nob.jsonl:1: line 1:", `no builtin board "nope"`}},
		{"a game record", `{"tabla":1,"game":"star","first":"red"}`,
			[]string{"nob.jsonl:1: line 1:", "not a journal", "tabla rules check"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "nob.jsonl")
			os.WriteFile(p, []byte(tc.header+"\n"+`{"move":"b1-f3"}`+"\n"), 0o644)
			var out, errb bytes.Buffer
			err := Run(&Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, File: p})
			for _, w := range tc.want {
				if !strings.Contains(fmt.Sprint(err), w) {
					t.Errorf("got %v, want it to say %q", err, w)
				}
			}
		})
	}
}
