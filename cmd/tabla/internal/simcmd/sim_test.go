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

// TestScriptClub: --player, --event and --clock set a script's game too;
// on the script's virtual time each DAHA move's line carries its turn's
// time (the roll before it included) and the roll's line none.
func TestScriptClub(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, Script: filepath.Join("testdata", "daha-path.jsonl"),
		Record: filepath.Join(dir, "game.jsonl"), Journal: dir}
	o.Page.Who = companion.WhoOptions{Players: []string{"red=Ayşe", "blue=Can"}, Event: "club night"}
	o.Page.Clock = companion.ClockOptions{Clock: []string{"10m+5s"}}
	if err := Run(o); err != nil {
		t.Fatal(err, errb.String())
	}
	rec, err := os.ReadFile(o.Record)
	if err != nil {
		t.Fatal(err)
	}
	g, err := record.Replay(bytes.NewReader(rec), "game.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if g.Header.Names["red"] != "Ayşe" || g.Header.Event != "club night" || g.Header.Clock.String() != "10m+5s" {
		t.Errorf("header %s", rec[:bytes.IndexByte(rec, '\n')])
	}
	moves := 0
	for _, a := range g.Applied {
		if a.Roll && a.Timed && g.State.Info().Game != "daha" {
			t.Errorf("line %d: a roll with a time", a.Line)
		}
		if !a.Roll {
			moves++
			if !a.Timed || a.MS < 200 {
				t.Errorf("line %d: move %s without its turn's time (%d ms)", a.Line, a.Text, a.MS)
			}
		}
	}
	if moves == 0 {
		t.Fatal("no moves")
	}
	o.Page.Who = companion.WhoOptions{Players: []string{"green=Can"}}
	if err := Run(o); cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "names.green") {
		t.Errorf("a seat DAHA lacks: %v", err)
	}
}
