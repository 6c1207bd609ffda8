package librarycmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cli"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// TestUsage: tabla library refuses what it cannot serve, saying what and
// where, with exit status 2.
func TestUsage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "game.jsonl")
	os.WriteFile(file, []byte(`{"tabla":1,"game":"gyges"}`+"\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"library"}, "give DIR, or --hub URL"},
		{[]string{"library", "a", "b"}, "accepts between 0 and 1 arg(s)"},
		{[]string{"library", file}, "is not a directory"},
		{[]string{"library", filepath.Join(dir, "nope")}, "no such file or directory"},
		{[]string{"library", "--level", "9", dir}, "--level 9: want 1–5"},
		{[]string{"library", "--workers", "-1", dir}, "--workers -1"},
		{[]string{"library", "--allow-host", "http://x", dir}, "--allow-host"},
		{[]string{"library", "--log-format", "xml", dir}, "--log-format"},
	} {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), &cmdutil.IO{In: strings.NewReader(""), Out: &out, Err: &errb}, tc.args)
		if code != cmdutil.ExitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("tabla %s: exit %d, stderr %q, want 2 and %q", strings.Join(tc.args, " "), code, errb.String(), tc.want)
		}
	}
}
