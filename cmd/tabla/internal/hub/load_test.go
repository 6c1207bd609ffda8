package hub

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// TestMain runs a hub in this process instead of the tests when
// TABLA_HUB_CHILD names its data directory, pages' and NATS addresses
// (DIR,LISTEN,NATSLISTEN,EVALTIME): the load test measures the hub as a
// process of its own.
func TestMain(m *testing.M) {
	if spec := os.Getenv("TABLA_HUB_CHILD"); spec != "" {
		p := strings.Split(spec, ",")
		eval, _ := time.ParseDuration(p[3])
		err := Serve(context.Background(), ServeOptions{Dir: p[0], Listen: p[1], NATSListen: p[2], EvalTime: eval})
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	natsrv.BcryptCost = bcrypt.MinCost
	testfs.Parallel(hubParallel)
	restore := testfs.MemoryTemp() // journals' fsync in memory (issue 41)
	code := m.Run()
	restore()
	os.Exit(code)
}

// hubParallel is how many of the tests that call t.Parallel run at once
// when go test's -parallel is not given (testfs.Parallel). Most of the
// hub's tests wait (on NATS's elections and reconnections, the tables'
// pace, frozen or killed hub processes, the pages) more than they
// compute: TestClusterREADME waits out NATS leader elections for most of
// its 48 s, TestRemoteGames' tables play at a person's pace. One after the
// other they took 243 s of wall clock for 88 s of CPU (BENCHMARKS.md,
// "Issue 41"). The tests that set a package variable (mirrorPatience,
// keepEnded, stuckAfter, webPublishing) stay sequential: parallel tests
// start only once every sequential one has ended.
const hubParallel = 4

// TestLoad (TABLA_HUB_LOAD=1; BENCHMARKS.md "Hub"): 100 tables publish
// their games to one embedded hub, a move (or roll) a second each, while
// 500 spectators follow them (five event streams a table). It reports the
// move→spectator latency (the line's time in the journal to its arrival
// in a spectator's event stream) and the hub process's CPU and memory.
// TABLA_HUB_LOAD_TABLES, _SPECTATORS, _SECONDS and _EVAL (the evaluation
// bar's search time, e.g. -1ns for none) change the load.
func TestLoad(t *testing.T) {
	if os.Getenv("TABLA_HUB_LOAD") == "" {
		t.Skip("TABLA_HUB_LOAD=1 runs the hub's load test (a minute)")
	}
	env := func(k string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return v
		}
		return def
	}
	tables, spectators, seconds := env("TABLA_HUB_LOAD_TABLES", 100), env("TABLA_HUB_LOAD_SPECTATORS", 500), env("TABLA_HUB_LOAD_SECONDS", 30)
	evalTime := os.Getenv("TABLA_HUB_LOAD_EVAL")
	if evalTime == "" {
		evalTime = "0s"
	}
	dir := t.TempDir()
	creds, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, tables)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
		creds.AddTable(names[i])
	}
	creds.Save(dir)
	natsAddr, httpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t))
	child := exec.Command(os.Args[0], "-test.run", "^$")
	child.Env = append(os.Environ(), "TABLA_HUB_CHILD="+strings.Join([]string{dir, httpAddr, natsAddr, evalTime}, ","))
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	waitFor(t, "the hub", 60*time.Second, func() bool {
		r, err := http.Get("http://" + httpAddr + "/api/tables")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	})

	// the tables: links publishing journals written here, a line a second
	games := []record.Header{{Game: "gyges"}, {Game: "star", First: "red"}, {Game: "six"}, {Game: "ray"}, {Game: "daha"}}
	type tbl struct {
		link *link.Table
		dir  string
		path string
		f    *os.File
		st   engine.State
		rng  *rand.Rand
		h    record.Header
	}
	ts := make([]*tbl, tables)
	newGame := func(x *tbl) {
		if x.f != nil {
			x.f.Close()
		}
		x.st, _ = record.NewState(&x.h)
		x.path = filepath.Join(x.dir, journalName(x.h.Game))
		x.f, err = os.Create(x.path)
		if err != nil {
			t.Fatal(err)
		}
		hh := x.h
		hh.Tabla = record.Version
		w := record.NewWriter(x.f)
		w.WriteHeader(&hh)
		x.link.Journalled(x.path, 0)
	}
	for i := range ts {
		x := &tbl{dir: t.TempDir(), rng: rand.New(rand.NewPCG(uint64(i), 1)), h: games[i%len(games)]}
		x.link, err = link.Connect(link.TableOptions{URL: UserURL("nats://"+natsAddr, names[i], creds.Tables[names[i]]), Name: names[i], JournalDir: x.dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.link.Close(0) })
		newGame(x)
		x.link.Start(nil)
		ts[i] = x
	}
	waitFor(t, "every table on the hub", 120*time.Second, func() bool {
		r, err := http.Get("http://" + httpAddr + "/api/tables")
		if err != nil {
			return false
		}
		defer r.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		return strings.Count(b.String(), `"table":`) >= tables
	})

	// the spectators
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	measuring := false
	var swg sync.WaitGroup
	for i := 0; i < spectators; i++ {
		name := names[i%tables]
		swg.Add(1)
		go func() {
			defer swg.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+httpAddr+"/api/tables/"+name+"/events", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			lastEvents := -1
			for sc.Scan() {
				line := sc.Bytes()
				if !bytes.HasPrefix(line, []byte("data: ")) {
					continue
				}
				now := time.Now()
				ev, at := scanInt(line, `"events":`), scanTime(line, `"last":"`)
				if ev > lastEvents && lastEvents >= 0 && !at.IsZero() {
					mu.Lock()
					if measuring {
						lat = append(lat, now.Sub(at))
					}
					mu.Unlock()
				}
				if ev > lastEvents {
					lastEvents = ev
				}
			}
		}()
	}
	time.Sleep(2 * time.Second) // the streams open
	cpu0, wall0 := procCPU(t, child.Process.Pid), time.Now()
	mu.Lock()
	measuring = true
	mu.Unlock()
	var twg sync.WaitGroup
	stop := time.Now().Add(time.Duration(seconds) * time.Second)
	for _, x := range ts {
		twg.Add(1)
		go func() {
			defer twg.Done()
			time.Sleep(time.Duration(x.rng.IntN(1000)) * time.Millisecond)
			for time.Now().Before(stop) {
				if x.st.Awaiting() == engine.AwaitNone || x.st.Plies() > 300 {
					newGame(x)
				}
				line := nextLine(x.st, x.rng)
				x.f.Write(line)
				x.link.Journalled(x.path, x.st.Plies())
				time.Sleep(time.Duration(800+x.rng.IntN(400)) * time.Millisecond)
			}
		}()
	}
	twg.Wait()
	time.Sleep(2 * time.Second) // the last moves arrive
	cpu1, wall1 := procCPU(t, child.Process.Pid), time.Now()
	mu.Lock()
	measuring = false
	samples := slices.Clone(lat)
	mu.Unlock()
	rss, hwm := procMem(t, child.Process.Pid)
	cancel()
	if len(samples) == 0 {
		t.Fatal("no spectator saw a move")
	}
	slices.Sort(samples)
	q := func(p float64) time.Duration { return samples[min(len(samples)-1, int(p*float64(len(samples))))] }
	cpu := (cpu1 - cpu0).Seconds() / wall1.Sub(wall0).Seconds()
	t.Logf("hub load: %d tables, %d spectators, %d s, eval %s: %d move→spectator samples: p50 %v p90 %v p99 %v max %v; hub CPU %.0f%% of a core, RSS %d MB (peak %d MB)",
		tables, spectators, seconds, evalTime, len(samples), q(.5).Round(100*time.Microsecond), q(.9).Round(100*time.Microsecond),
		q(.99).Round(100*time.Microsecond), samples[len(samples)-1].Round(time.Millisecond), 100*cpu, rss>>20, hwm>>20)
	if q(.99) > 50*time.Millisecond {
		t.Errorf("p99 move→spectator latency %v: the goal is under 50 ms", q(.99))
	}
}

// journalName is a journal's file name for a game started now.
func journalName(game string) string {
	return "game-" + time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + game + ".jsonl"
}

// nextLine plays a random legal step and returns its journal line.
func nextLine(st engine.State, rng *rand.Rand) []byte {
	info := st.Info()
	seat := info.Seats[st.ToMove()]
	t := time.Now().UTC().Format(time.RFC3339Nano)
	if st.Awaiting() == engine.AwaitRoll {
		f := rng.IntN(len(info.Die.Faces))
		st.Roll(f)
		face := info.Die.Faces[f]
		if !info.Die.Numeric {
			face = strconv.Quote(face)
		}
		return fmt.Appendf(nil, `{"roll":%s,"by":%q,"t":%q,"source":"sim"}`+"\n", face, seat, t)
	}
	ms := st.Moves(nil)
	m := ms[rng.IntN(len(ms))]
	text := engine.MoveString(st, m)
	st.Play(m)
	return fmt.Appendf(nil, `{"move":%q,"by":%q,"t":%q,"source":"sim"}`+"\n", text, seat, t)
}

func scanInt(b []byte, key string) int {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return -1
	}
	b = b[i+len(key):]
	n := 0
	for len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
		n = n*10 + int(b[0]-'0')
		b = b[1:]
	}
	return n
}

func scanTime(b []byte, key string) time.Time {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return time.Time{}
	}
	b = b[i+len(key):]
	j := bytes.IndexByte(b, '"')
	if j < 0 {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, string(b[:j]))
	return t
}

// procCPU is a process's CPU time (user and system).
func procCPU(t testing.TB, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ 100
}

// procMem is a process's resident memory and its peak.
func procMem(t testing.TB, pid int) (rss, peak int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				rss = v << 10
			case "VmHWM:":
				peak = v << 10
			}
		}
	}
	return rss, peak
}
