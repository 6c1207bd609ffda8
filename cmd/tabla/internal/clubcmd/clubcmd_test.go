package clubcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// four is a TRF of four players before round 1, and after it (1-3 won
// by 1, 4-2 drawn).
const four = "012 four\nXXR 3\nXXC white1\n" +
	"001    1 m    A                                 2100                             0.0    1\n" +
	"001    2 m    B                                 2000                             0.0    2\n" +
	"001    3 m    C                                 1900                             0.0    3\n" +
	"001    4 m    D                                 1800                             0.0    4\n"

const fourAfter = "012 four\nXXR 3\nXXC white1\n" +
	"001    1 m    A                                 2100                             1.0    1     3 w 1\n" +
	"001    2 m    B                                 2000                             0.5    2     4 b =\n" +
	"001    3 m    C                                 1900                             0.0    3     1 b 0\n" +
	"001    4 m    D                                 1800                             0.5    4     2 w =\n"

func run(t *testing.T, system, input string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := PairRun(&PairOptions{IO: &cmdutil.IO{In: strings.NewReader(input), Out: &out}, File: "-", System: system})
	return out.String(), err
}

func TestPair(t *testing.T) {
	for _, c := range []struct {
		name, system, input, want, err string
		code                           cmdutil.ExitCode
	}{
		// Dutch round 1: 1 v n/2+1, the seats alternating down the boards
		{"dutch round 1", "dutch", four, "2\n1 3\n4 2\n", "", 0},
		// round 2: 1 (1 point) floats down to 2 and 4 (½) and meets the
		// higher ranked, 2; 4 floats down to 3. Seats: 1 had the first, 2
		// the second: 2-1; 4 had the first, 3 the second: 3-4.
		{"dutch round 2", "dutch", fourAfter, "2\n2 1\n3 4\n", "", 0},
		{"berger round 1", "berger", four, "2\n1 4\n2 3\n", "", 0},
		{"berger off the table", "berger", fourAfter, "", "round 1 is not round 1 of Berger's table", cmdutil.ExitError},
		{"bad system", "monrad", four, "", `--system "monrad"`, cmdutil.ExitUsage},
		{"bad rating", "dutch", strings.Replace(four, "2000", "20x0", 1), "", "line 5, column 49", cmdutil.ExitError},
		{"one-sided game", "dutch", strings.Replace(fourAfter, "     2 w =", "     1 w =", 1), "", "line 5, column 92", cmdutil.ExitError},
		{"unpairable", "dutch", "XXR 2\n" +
			"001    1      A                                 2100                             1.0    1     2 w 1\n" +
			"001    2      B                                 2000                             0.0    2     1 b 0\n", "", "round 2: no pairing without a rematch", cmdutil.ExitError},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := run(t, c.system, c.input)
			if cmdutil.CodeOf(err) != c.code && err != nil || (err == nil) != (c.err == "") {
				t.Fatalf("error %v (exit %d), want %q (exit %d)", err, cmdutil.CodeOf(err), c.err, c.code)
			}
			if err != nil && !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %q, want it to say %q", err, c.err)
			}
			if got != c.want {
				t.Errorf("printed %q, want %q", got, c.want)
			}
		})
	}
}

// TestPairOracle: the command prints bbpPairings' own .pairs file, byte
// for byte, for the oracle's first tournament's rounds (when the oracle
// is beside the module; club's TestDutchOracle checks all of it).
func TestPairOracle(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "..", "shared", "pairings", "dutch")
	files, _ := filepath.Glob(filepath.Join(dir, "T001-r*.pairs"))
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("no pairing oracle at %s in CI", dir)
		}
		t.Skip("no pairing oracle")
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		var out bytes.Buffer
		err := PairRun(&PairOptions{IO: &cmdutil.IO{Out: &out}, File: strings.TrimSuffix(f, ".pairs") + ".trf", System: "dutch"})
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Errorf("%s: printed\n%s\nbbpPairings\n%s", filepath.Base(f), out.String(), want)
		}
	}
}
