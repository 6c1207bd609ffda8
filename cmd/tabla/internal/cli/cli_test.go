package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

func run(stdin string, args ...string) (string, string, cmdutil.ExitCode) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), &cmdutil.IO{In: strings.NewReader(stdin), Out: &out, Err: &errb}, args)
	return out.String(), errb.String(), code
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		code   cmdutil.ExitCode
		stdout string
		stderr string
	}{
		{"moves", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"E\"}\n", []string{"rules", "moves", "-"}, 0, "b29\n", ""},
		{"bad record", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"Q\"}\n", []string{"rules", "check", "-"}, 1, "", "<stdin>:2: line 2: roll Q: want one of N, S, E, W\n"},
		{"missing file", "", []string{"rules", "check", "/nonexistent.jsonl"}, 1, "", "tabla: open /nonexistent.jsonl: no such file or directory\n"},
		{"unknown command", "", []string{"frobnicate"}, 2, "", "tabla: unknown command \"frobnicate\" for \"tabla\"\n"},
		{"missing argument", "", []string{"rules", "moves"}, 2, "", "tabla: accepts 1 arg(s), received 0\n"},
		{"unknown flag", "", []string{"boards", "list", "--colour"}, 2, "", "tabla: unknown flag: --colour\n"},
		{"boards list", "", []string{"boards", "list"}, 0, "", ""},
		{"unknown subcommand", "", []string{"rules", "frob", "x"}, 2, "", "tabla: unknown subcommand \"frob\" for \"tabla rules\" (want check, moves)\n"},
		{"misspelt subcommand", "", []string{"rules", "chek", "-"}, 2, "", "tabla: unknown subcommand \"chek\" for \"tabla rules\" (want check, moves); did you mean check?\n"},
		{"unknown boards subcommand", "", []string{"boards", "burn"}, 2, "", "tabla: unknown subcommand \"burn\" for \"tabla boards\" (want list, print, show, validate)\n"},
		{"unknown hw subcommand", "", []string{"hw", "frob"}, 2, "", "tabla: unknown subcommand \"frob\" for \"tabla hw\" (want test)\n"},
		{"rules alone", "", []string{"rules"}, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(tc.stdin, tc.args...)
			if code != tc.code || (tc.stdout != "" && out != tc.stdout) || errs != tc.stderr {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errs, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

func TestBoardsShowAndValidate(t *testing.T) {
	out, _, code := run("", "boards", "show", "gyges")
	if code != 0 || !strings.Contains(out, "  6 . . . . . . ") || !strings.Contains(out, "CELL  SENSOR  LED") {
		t.Errorf("show gyges: exit %d\n%s", code, out)
	}
	_, errs, code := run("", "boards", "validate", "testdata/asymmetric.board")
	if code != 1 || errs != "boards: testdata/asymmetric.board:5: asymmetric edge: A lists B, but B does not list A\n" {
		t.Errorf("validate: exit %d, %q", code, errs)
	}
}
