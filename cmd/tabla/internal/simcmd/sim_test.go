package simcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
)

// The scenario scripts: exit codes, records that the rules accept, and
// journals whose board events replay to the same decisions.
func TestScenarios(t *testing.T) {
	for _, tc := range []struct {
		file string
		code cmdutil.ExitCode
		msg  string
	}{
		{"star-noise.jsonl", 0, ""},
		{"ray-unplug.jsonl", 0, ""},
		{"daha-path.jsonl", 0, ""},
		{"gyges-setup.jsonl", 0, ""},
		{"six-placement.jsonl", 0, ""},
		{"out-of-sync.jsonl", 1, "out of sync at the end: b1 b2"},
		{"bad-line.jsonl", 2, "bad-line.jsonl:3: unknown action"},
		{"bad-expect.jsonl", 2, "bad-expect.jsonl:4: expect: to_move"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			var out, errb bytes.Buffer
			o := &Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, Script: filepath.Join("testdata", tc.file),
				Record: filepath.Join(dir, "game.jsonl"), Journal: dir}
			err := Run(o)
			if got := cmdutil.CodeOf(err); got != tc.code {
				t.Fatalf("exit %d, want %d (%v; %s)", got, tc.code, err, errb.String())
			}
			msg := errb.String()
			if err != nil {
				msg += err.Error()
			}
			if tc.msg != "" && !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q lacks %q", msg, tc.msg)
			}
			if tc.code == 2 {
				return
			}
			rec, err := os.ReadFile(o.Record)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := record.Replay(bytes.NewReader(rec), "game.jsonl"); err != nil {
				t.Errorf("the record does not replay: %v\n%s", err, rec)
			}
			journals, _ := filepath.Glob(filepath.Join(dir, "game-*.jsonl"))
			if len(journals) != 1 {
				t.Fatalf("journals %v", journals)
			}
			res, err := companion.ReplayFile(journals[0])
			if err != nil {
				t.Fatal(err)
			}
			if !res.Match() {
				t.Errorf("replay differs:\n%s", res.Diff())
			}
			if len(res.Want) == 0 && tc.code == 0 {
				t.Error("no decisions")
			}
		})
	}
}
