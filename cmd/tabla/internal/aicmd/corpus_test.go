package aicmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cli"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
)

// The corpus tests run hint and analyze at a low, node-limited strength:
// deep enough that the alpha-beta search plays and undoes several plies at
// every position (the six crash needed three), cheap enough under -race.
var corpusStrength = []string{"--level", "2", "--nodes", "600", "--workers", "2"}

// strengthFor is corpusStrength, with fewer iterations for DAHA's MCTS
// (each one a playout to the end of the game).
func strengthFor(game string) []string {
	if game == "daha" {
		return []string{"--level", "2", "--nodes", "20", "--workers", "2"}
	}
	return corpusStrength
}

// tabla runs the command line in-process and returns the exit code, stdout
// and stderr.
func tabla(args ...string) (cmdutil.ExitCode, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), &cmdutil.IO{In: strings.NewReader(""), Out: &out, Err: &errb}, args)
	return code, out.String(), errb.String()
}

// testdataRecords lists the *.jsonl files under every testdata directory
// of the repository, relative to root.
func testdataRecords(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if !d.IsDir() && strings.HasSuffix(path, ".jsonl") && slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "testdata") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTestdataCorpus: `tabla hint` and `tabla analyze` on every *.jsonl
// under the repository's testdata directories. Simulator scripts (header
// "tabla-script") are not records and are skipped. A record that replays
// exits 0 from both; a record the rules reject (the fixtures of bad
// records) exits 1 from both with the file and line named, like
// `tabla rules check` — never a crash or another code.
func TestTestdataCorpus(t *testing.T) {
	root := testfs.Root(t)
	files := testdataRecords(t, root)
	if len(files) < 20 {
		t.Fatalf("only %d testdata records found under %s", len(files), root)
	}
	var scripts, bad []string
	games := map[string]bool{}
	good := 0
	for _, rel := range files {
		path := filepath.Join(root, rel)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		var head map[string]json.RawMessage
		if json.Unmarshal(first, &head) == nil && head["tabla-script"] != nil {
			scripts = append(scripts, rel)
			continue
		}
		g, rerr := record.Replay(bytes.NewReader(data), rel)
		var game struct{ Game string }
		json.Unmarshal(first, &game)
		for _, cmd := range []string{"analyze", "hint"} {
			code, out, stderr := tabla(append(append([]string{cmd}, strengthFor(game.Game)...), path)...)
			switch {
			case rerr == nil && code != cmdutil.ExitOK:
				t.Errorf("tabla %s %s: exit %d\n%s%s", cmd, rel, code, out, stderr)
			case rerr != nil && (code != cmdutil.ExitError || !strings.Contains(stderr, path+":")):
				t.Errorf("tabla %s %s (a bad record: %v): exit %d, stderr %q; want exit 1 naming the line", cmd, rel, rerr, code, stderr)
			}
		}
		if rerr != nil {
			bad = append(bad, rel)
			continue
		}
		good++
		h := g.Header
		games[h.Game+"/"+h.Variant+"/"+strconv.Itoa(h.Players)] = true
	}
	t.Logf("%d records analysed (%d setups: %v)", good, len(games), keys(games))
	t.Logf("%d bad-record fixtures, exit 1: %s", len(bad), strings.Join(bad, " "))
	t.Logf("%d simulator scripts skipped: %s", len(scripts), strings.Join(scripts, " "))
	if good < 15 {
		t.Errorf("only %d testdata records replay", good)
	}
}

func keys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

// corpusSetups are every game, variant and player count.
var corpusSetups = []record.Header{
	{Game: "daha"},
	{Game: "star", First: "red"},
	{Game: "star", First: "white"},
	{Game: "gyges"},
	{Game: "gyges", Variant: "advanced", First: "north"},
	{Game: "ray"},
	{Game: "six"},
	{Game: "six", Variant: "advanced"},
	{Game: "six", Players: 4},
	{Game: "six", Variant: "advanced", Players: 4},
}

// randomRecord plays a seeded random game of h, at most maxPlies plies, and
// returns it as a record.
func randomRecord(t *testing.T, h record.Header, seed uint64, maxPlies int) (string, int) {
	t.Helper()
	st, err := record.NewState(&h)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := record.NewWriter(&b)
	if err := w.WriteHeader(&h); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(len(h.Game))))
	moves := 0
	for st.Plies() < maxPlies && st.Awaiting() != engine.AwaitNone {
		var l record.Line
		if st.Awaiting() == engine.AwaitRoll {
			die := st.Info().Die
			face := rng.IntN(len(die.Faces))
			if err := st.Roll(face); err != nil {
				t.Fatal(err)
			}
			l = record.Line{Roll: die.Faces[face], Numeric: die.Numeric}
		} else {
			// A random move, but not one that ends the game while others
			// do not: the games reach their later phases (six's movements).
			ms := st.Moves(nil)
			m := ms[rng.IntN(len(ms))]
			for try := 0; try < 20 && ends(st, m); try++ {
				m = ms[rng.IntN(len(ms))]
			}
			l = record.Line{Move: engine.MoveString(st, m)}
			st.Play(m)
			moves++
		}
		if err := w.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	return b.String(), moves
}

// ends reports whether m ends the game.
func ends(st engine.State, m engine.Move) bool {
	st.Play(m)
	defer st.Undo()
	return st.Awaiting() == engine.AwaitNone
}

// TestRandomGamesCorpus: seeded random games of every game, variant and
// player count (two per setup, one for RAY; up to 60 plies): `tabla analyze` exits 0
// and reports every move; `tabla hint` exits 0 after every eighth ply, at
// the end and (advanced six) round the end of the placements.
func TestRandomGamesCorpus(t *testing.T) {
	dir := t.TempDir()
	for _, h := range corpusSetups {
		t0 := time.Now()
		// RAY's exact odds cost more per position: one shorter game.
		strength, plies, games := strengthFor(h.Game), 60, uint64(2)
		if h.Game == "ray" {
			plies, games = 20, 1
		}
		for seed := range games {
			name := h.Game + "-" + h.Variant + "-" + strconv.Itoa(h.Players) + "-" + h.First + "-" + strconv.FormatUint(seed, 10)
			rec, moves := randomRecord(t, h, seed, plies)
			path := filepath.Join(dir, name+".jsonl")
			if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := tabla(append(append([]string{"analyze", "--json"}, strength...), path)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("tabla analyze %s: exit %d: %s\n%s", name, code, stderr, rec)
			}
			var rep struct{ Moves []json.RawMessage }
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Moves) != moves {
				t.Errorf("tabla analyze %s: %d moves reported (%v), %d played", name, len(rep.Moves), err, moves)
			}
			// hint on prefixes: the header and every eighth event line, and
			// the whole record; for six also every position round the end
			// of the placements at level 2's whole budget (the search must
			// cross into the movements, and their splits, and back)
			lines := strings.SplitAfter(strings.TrimSuffix(rec, "\n"), "\n")
			hint := func(n int, strength []string) {
				t.Helper()
				prefix := filepath.Join(dir, name+"-"+strconv.Itoa(n)+".jsonl")
				if err := os.WriteFile(prefix, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
					t.Fatal(err)
				}
				if code, _, stderr := tabla(append(append([]string{"hint"}, strength...), prefix)...); code != cmdutil.ExitOK {
					t.Fatalf("tabla hint %s (%d lines): exit %d: %s", name, n, code, stderr)
				}
			}
			for n := 1; n <= len(lines); n += 8 {
				hint(n, strength)
			}
			hint(len(lines), strength)
			if h.Game == "six" && h.Variant == "advanced" {
				for n := 1 + 36; n <= min(1+42, len(lines)); n++ {
					hint(n, []string{"--level", "2", "--workers", "1"})
				}
			}
		}
		t.Logf("%s %s %d players: %v", h.Game, h.Variant, h.Players, time.Since(t0))
	}
}

// An --algo the game cannot be searched with is a usage error (it used to
// panic: exact odds on STAR, alpha-beta on DAHA's chance nodes).
func TestAlgoMismatch(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"hint --algo exact testdata/star-in1.jsonl", "--algo exact cannot search star"},
		{"analyze --algo exact --level 1 testdata/star-selfplay.jsonl", "--algo exact cannot search star"},
		{"hint --algo alphabeta testdata/daha-move.jsonl", "--algo alphabeta cannot search daha"},
		{"analyze --algo alphabeta --level 1 testdata/ray-move.jsonl", "--algo alphabeta cannot search ray"},
		{"play --game daha --seat none --no-board --algo alphabeta", "--algo alphabeta cannot search daha"},
	} {
		code, _, stderr := tabla(strings.Fields(tc.args)...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("tabla %s: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	for _, args := range []string{"hint --algo exact testdata/ray-move.jsonl", "hint --algo alphabeta testdata/star-in1.jsonl", "hint --algo mcts --level 1 testdata/daha-move.jsonl"} {
		if code, out, stderr := tabla(strings.Fields(args)...); code != cmdutil.ExitOK {
			t.Errorf("tabla %s: exit %d\n%s%s", args, code, out, stderr)
		}
	}
}
