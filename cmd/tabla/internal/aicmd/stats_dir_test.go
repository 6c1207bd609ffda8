package aicmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatsNotAJournal: tabla stats on what is not a journal directory
// exits non-zero saying why, instead of "0 records".
func TestStatsNotAJournal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("hello\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	broken := filepath.Join(dir, "broken")
	os.Mkdir(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "x.jsonl"), []byte("not a record\n"), 0o644)
	for _, tc := range []struct{ path, want string }{
		{file, "stats: " + file + " is not a directory (want a journal directory of *.jsonl game records)\nexit 2\n"},
		{empty, "stats: no game records (*.jsonl) under " + empty + ": is it a journal directory?\nexit 1\n"},
		{broken, "stats: none of the 1 *.jsonl files under " + broken + " is a readable game record\nexit 1\n"},
		{filepath.Join(dir, "missing"), "no such file or directory\nexit 1\n"},
	} {
		got := run(t, "", "stats", tc.path)
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("stats %s:\n%s\nwant the end:\n%s", tc.path, got, tc.want)
		}
	}
}

// TestSearchFlagBounds: the search budget flags have ranges.
func TestSearchFlagBounds(t *testing.T) {
	rec := "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"N\"}\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hint", "--workers", "1000000", "-"}, "--workers 1000000: want 0 (all cores) to 256\nexit 2\n"},
		{[]string{"hint", "--workers", "-1", "-"}, "--workers -1: want 0 (all cores) to 256\nexit 2\n"},
		{[]string{"hint", "--time", "-1s", "-"}, "--time -1s: want 0 (the level's budget) to 1h0m0s\nexit 2\n"},
		{[]string{"hint", "--time", "1000000h", "-"}, "--time 1000000h0m0s: want 0 (the level's budget) to 1h0m0s\nexit 2\n"},
		{[]string{"hint", "--nodes", "-5", "-"}, "--nodes -5: want 0 (the level's budget) to 1000000000000\nexit 2\n"},
		{[]string{"analyze", "--blunder", "2", "-"}, "--blunder 2: want a loss of win probability from 0 (the default, 0.2) to 1\nexit 2\n"},
		{[]string{"analyze", "--blunder", "NaN", "-"}, "--blunder NaN: want a loss of win probability"},
	} {
		got := run(t, rec, tc.args...)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%v:\n%s\nwant %q", tc.args, got, tc.want)
		}
	}
}
