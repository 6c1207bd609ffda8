package aicmd_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cli"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	_ "github.com/tabla-board/tabla/engine/daha"
	_ "github.com/tabla-board/tabla/engine/gyges"
	_ "github.com/tabla-board/tabla/engine/six"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var timeMS = regexp.MustCompile(`"time_ms":[0-9]+`)

// run runs tabla with args and returns the transcript: stdout, stderr, exit.
func run(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), &cmdutil.IO{In: strings.NewReader(stdin), Out: &out, Err: &errb}, args)
	var b strings.Builder
	b.WriteString("$ tabla " + strings.Join(args, " ") + "\n")
	b.WriteString(timeMS.ReplaceAllString(out.String(), `"time_ms":0`))
	if errb.Len() > 0 {
		b.WriteString("stderr: " + errb.String())
	}
	b.WriteString("exit " + string(rune('0'+code)) + "\n")
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestGolden: hint, analyze and stats on fixed records at node-limited
// levels, so the output is deterministic.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"hint-star-in1", []string{"hint", "testdata/star-in1.jsonl"}},
		{"hint-star-in1-json", []string{"hint", "--json", "testdata/star-in1.jsonl"}},
		{"hint-star-selfplay-json", []string{"hint", "--json", "--level", "1", "testdata/star-selfplay.jsonl"}},
		{"hint-gyges-bad", []string{"hint", "testdata/gyges-bad.jsonl"}},
		{"hint-daha-roll", []string{"hint", "testdata/daha-roll.jsonl"}},
		{"hint-daha-roll-json", []string{"hint", "--json", "testdata/daha-roll.jsonl"}},
		{"hint-daha-move", []string{"hint", "--level", "2", "--workers", "1", "testdata/daha-move.jsonl"}},
		{"hint-ray-move", []string{"hint", "--json", "testdata/ray-move.jsonl"}},
		{"hint-bad-level", []string{"hint", "--level", "9", "testdata/ray-move.jsonl"}},
		{"analyze-star", []string{"analyze", "--level", "2", "testdata/star-selfplay.jsonl"}},
		{"analyze-star-json", []string{"analyze", "--level", "1", "--json", "testdata/star-selfplay.jsonl"}},
		{"analyze-bad", []string{"analyze", "testdata/gyges-bad.jsonl"}},
		{"stats", []string{"stats", "testdata/logs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, run(t, "", tc.args...))
		})
	}
}

func TestHintStdin(t *testing.T) {
	got := run(t, "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"N\"}\n", "hint", "-")
	if !strings.HasPrefix(got, "$ tabla hint -\npass ") {
		t.Errorf("got %q", got)
	}
}

func TestAnalyzeSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.svg")
	run(t, "", "analyze", "--level", "1", "--svg", path, "testdata/star-selfplay.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"<svg xmlns=", "<polyline", "win probability", "move", ">red<", ">white<", "</svg>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if strings.Contains(svg, "href") || strings.Contains(svg, "http://www.w3.org/1999/xlink") {
		t.Error("svg refers to external resources")
	}
}

func TestPlay(t *testing.T) {
	// The human (red) plays the winning jump at once; then quits nothing.
	dir := t.TempDir()
	rec := filepath.Join(dir, "g.jsonl")
	got := run(t, "moves\nzz\nhint\nquit\n", "play", "--game", "gyges", "--level", "1", "--record", rec, "--no-board")
	for _, want := range []string{"gyges: you play south", "south to move: ", "1@a1", "hint: ", "exit 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	// Engine self-play to the end writes a valid record.
	got = run(t, "", "play", "--game", "daha", "--seat", "none", "--level", "1", "--record", rec, "--no-board")
	if !strings.Contains(got, "won after") {
		t.Errorf("self-play did not finish:\n%s", got)
	}
	check := run(t, "", "rules", "check", rec)
	if !strings.Contains(check, `"status":"won"`) {
		t.Errorf("record after self-play: %s", check)
	}
}
