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
