package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/sim"
)

// tabla is the tabla binary the tests that start daemons as processes run:
// built once per test binary (the first test that asks), removed by
// TestMain.
var tabla struct {
	once     sync.Once
	dir, bin string
	err      error
}

// TestMain runs the tests with their temporary folders in memory
// (testfs.MemoryTemp: the journals' fsync at every move waits for no disk),
// runParallel of them at once, and removes the tabla binary the tests
// built.
func TestMain(m *testing.M) {
	testfs.Parallel(runParallel)
	restore := testfs.MemoryTemp()
	code := m.Run()
	if tabla.dir != "" {
		os.RemoveAll(tabla.dir)
	}
	restore()
	os.Exit(code)
}

// runParallel is how many of the tests that call t.Parallel run at once
// unless go test's -parallel says otherwise (testfs.Parallel). The
// package's tests mostly wait on daemons, their pages in Chromium and
// ptys: one after the other they took 87 s of wall clock for about 30 s of
// CPU (BENCHMARKS.md, "Issue 41"). TestKillClocks and TestKillAndRestart
// stay sequential: they restart daemons on a port freeAddr chose, which
// another test's listener could take meanwhile.
const runParallel = 4

// buildTabla builds the tabla binary into a temporary directory, once per
// test binary: TestKillAndRestart, TestKillCycles, TestKillClocks and
// TestOneDaemonPerJournalFolder run the same build (each ran its own
// `go build` before issue 41).
func buildTabla(t *testing.T) string {
	t.Helper()
	tabla.once.Do(func() {
		root, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			tabla.err = fmt.Errorf("go env GOMOD: %v", err)
			return
		}
		if tabla.dir, err = os.MkdirTemp("", "tabla-runcmd-test-"); err != nil {
			tabla.err = err
			return
		}
		bin := filepath.Join(tabla.dir, "tabla")
		build := exec.Command("go", "build", "-o", bin, "./cmd/tabla")
		build.Dir = filepath.Dir(strings.TrimSpace(string(root)))
		if out, err := build.CombinedOutput(); err != nil {
			tabla.err = fmt.Errorf("build: %v\n%s", err, out)
			return
		}
		tabla.bin = bin
	})
	if tabla.err != nil {
		t.Fatal(tabla.err)
	}
	return tabla.bin
}

// ptyBoard is a virtual STAR board on a pseudo-terminal that outlives the
// daemons killed on it, as a physical board does: pieces stay where they
// were put.
type ptyBoard struct {
	name string
	vb   *sim.Board
	path string
}

func newPTYBoard(t *testing.T, name string) *ptyBoard {
	t.Helper()
	return newPTYBoardOf(t, name, boards.Default("star"))
}

// newPTYBoardOf is newPTYBoard for the board def.
func newPTYBoardOf(t *testing.T, name string, def *boards.Board) *ptyBoard {
	t.Helper()
	vb, err := sim.New(sim.Options{Board: def, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); vb.Close() })
	p, err := sim.NewPTY(ctx, vb)
	if err != nil {
		t.Fatal(err)
	}
	go func() { // the board's clock follows the host's
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tk.C:
				vb.Advance(now.Sub(last))
				last = now
			}
		}
	}()
	return &ptyBoard{name: name, vb: vb, path: p.Path()}
}

func (b *ptyBoard) move(t *testing.T, from, to string) {
	t.Helper()
	if err := b.vb.Lift(from); err != nil {
		t.Fatalf("board %s: lift %s: %v", b.name, from, err)
	}
	if err := b.vb.Place(to, ""); err != nil {
		t.Fatalf("board %s: place %s: %v", b.name, to, err)
	}
}

// lockedBuffer collects a daemon's log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tablaProc is one `tabla run` process on a pty board.
type tablaProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	log   *lockedBuffer
	board *ptyBoard
	base  string
	exit  chan error
}

type killState struct {
	State struct {
		Ply      int               `json:"ply"`
		Status   string            `json:"status"`
		InSync   bool              `json:"in_sync"`
		Mode     string            `json:"mode"`
		Conn     string            `json:"conn"`
		Moves    []string          `json:"moves"`
		Sensed   map[string]string `json:"sensed"`
		Expected map[string]string `json:"expected"`
	} `json:"state"`
	Journal string `json:"journal"`
}

func startDaemon(t *testing.T, bin, journal string, b *ptyBoard, newGame bool) *tablaProc {
	t.Helper()
	args := []string{"run", "--game", "star", "--board", "serial:" + b.path, "--journal", journal, "--listen", "127.0.0.1:0",
		"--settle", "40ms", "--seed", "1", "--log-format", "json"}
	if newGame {
		args = append(args, "--new")
	}
	cmd := exec.Command(bin, args...)
	d := &tablaProc{t: t, cmd: cmd, log: &lockedBuffer{}, board: b, exit: make(chan error, 1)}
	cmd.Stderr = d.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.exit <- cmd.Wait() }()
	return d
}

var apiAddr = regexp.MustCompile(`"msg":"status API","addr":"http://([^/"]+)/"`)

// kill sends SIGKILL; the daemon must not have ended by itself before.
func (d *tablaProc) kill() {
	d.t.Helper()
	d.cmd.Process.Signal(syscall.SIGKILL)
	err := <-d.exit
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
		d.t.Fatalf("the daemon ended by itself before the kill: %v\nlog:\n%s", err, d.log.String())
	}
}

// stop sends SIGTERM and wants a clean exit.
func (d *tablaProc) stop() {
	d.t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-d.exit; err != nil {
		d.t.Fatalf("SIGTERM: %v\nlog:\n%s", err, d.log.String())
	}
}

// get reads the status API; the deadline only guards against a hang.
func (d *tablaProc) get() killState {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-d.exit:
			d.t.Fatalf("the daemon did not start: %v\nlog:\n%s", err, d.log.String())
		default:
		}
		if d.base == "" {
			if m := apiAddr.FindStringSubmatch(d.log.String()); m != nil {
				d.base = "http://" + m[1]
			}
		}
		if d.base != "" {
			var s killState
			resp, err := http.Get(d.base + "/api/state")
			if err == nil {
				err = json.NewDecoder(resp.Body).Decode(&s)
				resp.Body.Close()
				if err == nil {
					return s
				}
			}
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("no status API\nlog:\n%s", d.log.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// settled waits until the daemon has read the board and is in line with it
// or asks for a correction.
func (d *tablaProc) settled() killState {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := d.get()
		st := s.State
		// confirm: the board shows another reading the referee only
		// proposes (a takeback, the start position as a new game)
		if st.Conn == "connected" && (st.InSync || st.Mode == "correct" || st.Mode == "setup" || st.Mode == "confirm") {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("not settled: %+v\nlog:\n%s", st, d.log.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitMoves waits until the daemon has accepted n moves.
func (d *tablaProc) waitMoves(n int) killState {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := d.get()
		if len(s.State.Moves) >= n {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("no move %d: %+v\nlog:\n%s", n, s.State, d.log.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// fix follows the correction: surplus pieces to missing cells, one at a
// time, each after the daemon has read the board.
func (d *tablaProc) fix() killState {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := d.settled()
		if s.State.InSync {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("the board does not come back in line: %+v\nlog:\n%s", s.State, d.log.String())
		}
		var surplus, missing []string
		for c := range s.State.Sensed {
			if s.State.Expected[c] == "" {
				surplus = append(surplus, c)
			}
		}
		for c := range s.State.Expected {
			if s.State.Sensed[c] == "" {
				missing = append(missing, c)
			}
		}
		if len(surplus) == 0 || len(missing) == 0 {
			time.Sleep(2 * time.Millisecond) // the daemon has not read the board yet
			continue
		}
		sort.Strings(surplus)
		sort.Strings(missing)
		d.board.move(d.t, surplus[0], missing[0])
		for d.get().State.Sensed[missing[0]] == "" {
			if time.Now().After(deadline) {
				d.t.Fatalf("the daemon does not see %s", missing[0])
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// randomMove picks a legal STAR move after moves.
func randomMove(t *testing.T, moves []string, rng *rand.Rand) (string, string, string) {
	t.Helper()
	st, err := record.NewState(&record.Header{Game: "star", First: "red"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		mv, err := st.ParseMove(m)
		if err != nil {
			t.Fatalf("%s after %v: %v", m, moves, err)
		}
		st.Play(mv)
	}
	legal := st.Moves(nil)
	text := engine.MoveString(st, legal[rng.IntN(len(legal))])
	from, to, _ := strings.Cut(text, "-")
	return from, to, text
}

// fileMoves returns the moves of a journal's move lines.
func fileMoves(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("a journal with accepted moves: %v", err)
	}
	var out []string
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.HasPrefix(l, []byte(`{"move":`)) && bytes.HasSuffix(l, []byte("\n")) {
			var ev struct{ Move string }
			json.Unmarshal(l, &ev)
			out = append(out, ev.Move)
		}
	}
	return out
}

func hasPrefix(s, prefix []string) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

// TestKillCycles kills `tabla run` with SIGKILL 120 times at random moments
// — in its first milliseconds (resuming, or starting a new game with --new,
// the header being written), while a move is being read and journalled,
// and after — on a virtual board on a pty that keeps its pieces across the
// kills as a real board does. After every kill the daemon starts again (it
// never refuses to), resumes the newest journal it can read, and every
// move the status API had shown as accepted is still in its journal, in
// order; only torn headers are ever moved aside; the board is in line or
// brought back, and the game goes on.
func TestKillCycles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs it 200 times")
	}
	bin := buildTabla(t)
	journal := filepath.Join(t.TempDir(), "journal")
	rng := rand.New(rand.NewPCG(12, 34))

	nboards := 0
	newBoard := func() *ptyBoard { nboards++; return newPTYBoard(t, fmt.Sprint(nboards)) }
	cur := newBoard()                 // the board of the game being played
	var pending *ptyBoard             // a fresh board for a game a killed --new run may have started
	boardOf := map[string]*ptyBoard{} // journal → its board
	accepted := map[string][]string{} // journal → the moves the API showed
	counts := map[string]int{}
	torn := map[string][]byte{} // journal name → its bytes after a kill in its header

	// check starts a daemon on the board its game needs and checks what
	// every kill so far left behind.
	check := func() *tablaProc {
		b := cur
		if pending != nil {
			b = pending
		}
		d := startDaemon(t, bin, journal, b, false)
		s := d.settled()
		if want, ok := boardOf[s.Journal]; ok && want != b {
			// the game resumed is on another board (a new game's header was
			// torn): stop cleanly and start on that board
			counts["board swapped"]++
			d.stop()
			b = want
			d = startDaemon(t, bin, journal, b, false)
			s = d.settled()
		} else if !ok {
			if b != pending && b.journalOf(boardOf) != "" {
				t.Fatalf("on %s, a new game, with board %s of %s\nlog:\n%s", s.Journal, b.name, b.journalOf(boardOf), d.log.String())
			}
			boardOf[s.Journal] = b
		}
		pending, cur = nil, b
		names, _ := filepath.Glob(filepath.Join(journal, "game-*-star.jsonl"))
		slices.Sort(names)
		if len(names) == 0 || s.Journal != names[len(names)-1] {
			t.Fatalf("the daemon is on %s, not on the newest journal of %v\nlog:\n%s", s.Journal, names, d.log.String())
		}
		for path, moves := range accepted {
			if got := fileMoves(t, path); !hasPrefix(got, moves) {
				t.Fatalf("%s: moves %v, but %v were accepted\nlog:\n%s", path, got, moves, d.log.String())
			}
		}
		if !hasPrefix(s.State.Moves, accepted[s.Journal]) {
			t.Fatalf("resumed %s with moves %v, but %v were accepted", s.Journal, s.State.Moves, accepted[s.Journal])
		}
		aside, _ := filepath.Glob(filepath.Join(journal, companion.UnreadableDir, "*"))
		for _, a := range aside {
			data, _ := os.ReadFile(a)
			if want, ok := torn[filepath.Base(a)]; ok && !bytes.Equal(data, want) {
				t.Fatalf("moved aside: %s: %q, want the bytes left by the kill %q", a, data, want)
			}
			if bytes.IndexByte(data, '\n') >= 0 || (len(data) > 0 && !bytes.HasPrefix([]byte(`{"tabla":`), data[:min(len(data), 9)])) {
				t.Fatalf("moved aside, but not a torn header: %s: %q", a, data)
			}
		}
		counts["moved aside"] = len(aside)
		if strings.Contains(d.log.String(), `"msg":"resumed"`) {
			counts["resumed"]++
		}
		return d
	}

	const kills = 120
	for i := 0; i < kills; i++ {
		switch r := rng.IntN(100); {
		case r < 10 && len(accepted[cur.journalOf(boardOf)]) >= 4:
			// a new game on a fresh board, killed the moment its journal
			// appears; every other time the header is then cut at a random
			// byte, as a kill in the microseconds of its write leaves it
			counts["kill as --new creates its journal"]++
			pending = newBoard()
			before, _ := filepath.Glob(filepath.Join(journal, "game-*-star.jsonl"))
			d := startDaemon(t, bin, journal, pending, true)
			created := ""
			for deadline := time.Now().Add(60 * time.Second); created == ""; {
				now, _ := filepath.Glob(filepath.Join(journal, "game-*-star.jsonl"))
				for _, n := range now {
					if !slices.Contains(before, n) {
						created = n
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("--new made no journal\nlog:\n%s", d.log.String())
				}
			}
			d.kill()
			data, err := os.ReadFile(created)
			if err != nil {
				t.Fatal(err)
			}
			if nl := bytes.IndexByte(data, '\n'); nl < 0 {
				counts["header torn by the kill"]++
				torn[filepath.Base(created)] = data
			} else if i%2 == 0 {
				counts["header cut"]++
				cut := rng.IntN(nl + 1)
				if err := os.Truncate(created, int64(cut)); err != nil {
					t.Fatal(err)
				}
				torn[filepath.Base(created)] = data[:cut]
			}
		case r < 18 && len(accepted[cur.journalOf(boardOf)]) >= 4:
			// a new game on a fresh board, killed as it starts
			counts["kill after --new"]++
			pending = newBoard()
			d := startDaemon(t, bin, journal, pending, true)
			time.Sleep(time.Duration(rng.IntN(30_000)) * time.Microsecond)
			d.kill()
		case r < 40:
			// killed as it starts, resuming
			counts["kill at start"]++
			b := cur
			if pending != nil {
				b = pending
			}
			d := startDaemon(t, bin, journal, b, false)
			time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
			d.kill()
		default:
			// killed while a move is read and journalled
			counts["kill around a move"]++
			d := check()
			s := d.fix()
			accepted[s.Journal] = s.State.Moves
			from, to, text := randomMove(t, s.State.Moves, rng)
			d.board.move(t, from, to)
			s = d.waitMoves(len(s.State.Moves) + 1)
			if !slices.Equal(s.State.Moves, append(slices.Clone(accepted[s.Journal]), text)) {
				t.Fatalf("played %s: moves %v", text, s.State.Moves)
			}
			accepted[s.Journal] = s.State.Moves
			from, to, _ = randomMove(t, s.State.Moves, rng)
			d.board.move(t, from, to)
			until := time.Now().Add(time.Duration(rng.IntN(120_000)) * time.Microsecond)
			for time.Now().Before(until) {
				if s := d.get(); len(s.State.Moves) > len(accepted[s.Journal]) {
					accepted[s.Journal] = s.State.Moves
				}
				time.Sleep(time.Millisecond)
			}
			d.kill()
		}
	}
	// the last start: stopped cleanly, its journal replays
	d := check()
	s := d.fix()
	d.stop()
	res, err := companion.ReplayFile(s.Journal)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Match() {
		t.Errorf("replay of %s:\n%s", s.Journal, res.Diff())
	}
	t.Logf("%d kills on %d boards: %v; %d journals", kills, nboards, counts, len(boardOf))
}

// journalOf is the journal whose game is on b.
func (b *ptyBoard) journalOf(boardOf map[string]*ptyBoard) string {
	for j, jb := range boardOf {
		if jb == b {
			return j
		}
	}
	return ""
}
