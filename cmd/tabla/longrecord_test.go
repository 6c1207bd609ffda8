package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// maxPeak is issue 36's bound on a reader of a record of a million moves:
// its process's peak resident memory (it was 342 MB for rules check and
// 2.2 GB for the library's /api/game).
const maxPeak = 100 << 20

// TestMillionMoves reads a legal STAR record of a million moves (18 MB:
// the four moves there and back, again and again) with every reader of
// records, each in its own process (tabla built without the race
// detector, whose overhead is not the reader's), and holds each to
// maxPeak: rules check, rules moves and hint stream the record; analyze
// and replay refuse it naming the limit and the line; the library lists
// it and serves its first and last pages of steps, a variation at its
// last step, and refuses its analysis. The journal of a daemon that holds
// such a game is set aside, not resumed. -short skips it (a build and a
// few seconds a reader).
func TestMillionMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds tabla and reads 18 MB records in several processes")
	}
	const moves = 1_000_000
	dir := t.TempDir()
	bin := filepath.Join(dir, "tabla")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	lib := filepath.Join(dir, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(lib, "long.jsonl")
	write := func(path, header string) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := recordtest.BackAndForth(f, header, moves); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(long, "")
	journal := filepath.Join(dir, "journal.jsonl")
	write(journal, `{"tabla":1,"game":"star","first":"red","meta":{"companion":{"board":"star","identifying":false,"settle_ms":100,"takeback":2,"source":"sim"}}}`)

	run := func(t *testing.T, wantCode int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		peak := peakOf(cmd.ProcessState)
		t.Logf("tabla %s: exit %d, peak %.1f MB, %.2f s", strings.Join(args, " "), code, float64(peak)/(1<<20), time.Since(start).Seconds())
		if code != wantCode {
			t.Fatalf("tabla %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, wantCode, clip(out.String()), errb.String())
		}
		if peak > maxPeak {
			t.Errorf("tabla %s: peak memory %d MB, want under %d MB", strings.Join(args, " "), peak>>20, maxPeak>>20)
		}
		return out.String() + errb.String()
	}

	t.Run("rules check", func(t *testing.T) {
		out := run(t, 0, "rules", "check", long)
		if !strings.Contains(out, `"ply":1000000,"to_move":"red","awaiting":"move","status":"playing"`) {
			t.Errorf("rules check: %s", out)
		}
	})
	t.Run("rules moves", func(t *testing.T) {
		if out := run(t, 0, "rules", "moves", long); !strings.Contains(out, "b1-f3\n") {
			t.Errorf("rules moves: %s", clip(out))
		}
	})
	t.Run("hint", func(t *testing.T) {
		if out := run(t, 0, "hint", "--level", "1", long); !strings.Contains(out, "-") {
			t.Errorf("hint: %s", out)
		}
	})
	// the limits: the line of the first move beyond, and the limit
	t.Run("analyze", func(t *testing.T) {
		out := run(t, 1, "analyze", long)
		if !strings.Contains(out, "long.jsonl:10002: line 10002:") || !strings.Contains(out, "10000 analyze reads") {
			t.Errorf("analyze: %s", out)
		}
	})
	t.Run("replay", func(t *testing.T) {
		out := run(t, 1, "replay", journal)
		if !strings.Contains(out, "journal.jsonl:100002: line 100002:") || !strings.Contains(out, "more than 100000 decisions") {
			t.Errorf("replay: %s", out)
		}
	})
	t.Run("library", func(t *testing.T) { libraryMillion(t, bin, lib) })
}

// libraryMillion serves lib (one game of a million moves) with `tabla
// library`, asks for what the analysis board asks, and stops it.
func libraryMillion(t *testing.T, bin, lib string) {
	cmd := exec.Command(bin, "library", lib, "--listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("library: %v (%s)", err, errb.String())
	}
	_, rest, _ := strings.Cut(line, "http://")
	base := "http://" + strings.TrimSuffix(strings.Fields(rest)[0], "/")
	go io.Copy(io.Discard, stdout)
	get := func(method, path string, want int) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, nil)
		if method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: %d, %d bytes, %.2f s", method, path, resp.StatusCode, len(body), time.Since(start).Seconds())
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, clip(string(body)))
		}
		return body
	}
	var games []struct {
		ID    string `json:"id"`
		Plies int    `json:"plies"`
	}
	if err := json.Unmarshal(get("GET", "/api/games", 200), &games); err != nil || len(games) != 1 || games[0].Plies != 1_000_000 {
		t.Fatalf("api/games: %v %+v", err, games)
	}
	type page struct {
		From  int `json:"from"`
		Total int `json:"total"`
		Steps []struct {
			Ply  int    `json:"ply"`
			Move string `json:"move"`
			Line int    `json:"line"`
		} `json:"steps"`
	}
	var first, last page
	if err := json.Unmarshal(get("GET", "/api/game?id=long.jsonl", 200), &first); err != nil {
		t.Fatal(err)
	}
	if first.From != 0 || first.Total != 1_000_001 || len(first.Steps) != 1000 || first.Steps[1].Move != "b1-f3" {
		t.Errorf("the first page: from %d, total %d, %d steps", first.From, first.Total, len(first.Steps))
	}
	if err := json.Unmarshal(get("GET", "/api/game?id=long.jsonl&from=999500&count=1000", 200), &last); err != nil {
		t.Fatal(err)
	}
	if n := len(last.Steps); last.From != 999_500 || last.Total != 1_000_001 || n != 501 || last.Steps[n-1].Ply != 1_000_000 ||
		last.Steps[n-1].Move != "h11-d13" || last.Steps[n-1].Line != 1_000_001 {
		t.Errorf("the last page: from %d, total %d, %d steps, last %+v", last.From, last.Total, n, last.Steps[n-1])
	}
	if body := get("GET", "/api/game?id=long.jsonl&from=1000001", 400); !strings.Contains(string(body), "steps 0 to 1000000") {
		t.Errorf("a page beyond the end: %s", body)
	}
	if body := get("GET", "/api/explore?id=long.jsonl&ply=999999", 200); !strings.Contains(string(body), `"legal"`) {
		t.Errorf("explore: %s", clip(string(body)))
	}
	if body := get("POST", "/api/analysis?id=long.jsonl", 422); !strings.Contains(string(body), "line 10002") || !strings.Contains(string(body), "10000") {
		t.Errorf("analysis: %s", body)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("library: %v\n%s", err, errb.String())
	}
	peak := peakOf(cmd.ProcessState)
	t.Logf("tabla library: peak %.1f MB", float64(peak)/(1<<20))
	if peak > maxPeak {
		t.Errorf("tabla library: peak memory %d MB, want under %d MB", peak>>20, maxPeak>>20)
	}
}

// peakOf is a finished process's peak resident memory in bytes.
func peakOf(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return int64(ru.Maxrss) * 1024 // Linux: KiB
}

func clip(s string) string {
	if len(s) > 400 {
		return fmt.Sprintf("%s… (%d bytes)", s[:400], len(s))
	}
	return s
}
