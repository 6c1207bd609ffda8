package hubcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cli"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func run(t *testing.T, ctx context.Context, args ...string) (cmdutil.ExitCode, string, string) {
	var out, errb syncBuf
	code := cli.Run(ctx, &cmdutil.IO{In: strings.NewReader(""), Out: &out, Err: &errb}, args)
	return code, out.String(), errb.String()
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestHubCommands: tabla hub table add and config, the hub itself, a
// table publishing a finished game to it, tabla stats --hub over it.
func TestHubCommands(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	hostPort := fmt.Sprintf("127.0.0.1:%d", port)
	code, out, errs := run(t, t.Context(), "hub", "table", "add", "--data", dir, "--host", hostPort, "alpha", "delta")
	line := regexp.MustCompile(`alpha:\thub = (nats://alpha:[A-Za-z0-9_-]+@` + regexp.QuoteMeta(hostPort) + `)\n`).FindStringSubmatch(out)
	if code != 0 || line == nil {
		t.Fatalf("tabla hub table add: %d %q %q", code, out, errs)
	}
	if code, _, _ := run(t, t.Context(), "hub", "table", "add", "--data", dir, "Bad Name"); code != cmdutil.ExitUsage {
		t.Fatalf("a bad table name: exit %d", code)
	}
	creds, err := hub.LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	spectator := hub.UserURL("nats://"+hostPort, "spectator", creds.Spectator)
	code, out, _ = run(t, t.Context(), "hub", "table", "list", "--data", dir, "--host", hostPort)
	if code != 0 || !strings.Contains(out, "alpha:\t"+line[0][len("alpha:\t"):]) || !strings.Contains(out, "\t"+spectator+"\n") || !strings.Contains(out, "\t"+creds.Browser+"\n") ||
		!strings.Contains(out, "\t"+hub.UserURL("nats://"+hostPort, "admin", creds.Admin)+"\n") {
		t.Fatalf("tabla hub table list: %d %q", code, out)
	}
	code, out, _ = run(t, t.Context(), "hub", "config", "--data", dir)
	if code != 0 || !strings.Contains(out, "jetstream: enabled") || !strings.Contains(out, `user: "alpha"`) || !strings.Contains(out, "$2a$") {
		t.Fatalf("tabla hub config: %d %s", code, out)
	}
	if code, _, errs := run(t, t.Context(), "hub", "--data", dir, "--nats", "nats://x:y@127.0.0.1:1", "--nats-listen", ":1"); code != cmdutil.ExitUsage {
		t.Fatalf("--nats with --nats-listen: exit %d %s", code, errs)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var hout, herr syncBuf
	done := make(chan cmdutil.ExitCode, 1)
	go func() {
		done <- cli.Run(ctx, &cmdutil.IO{In: strings.NewReader(""), Out: &hout, Err: &herr},
			[]string{"hub", "--data", dir, "--listen", "127.0.0.1:0", "--nats-listen", hostPort, "--eval-time", "-1ns"})
	}()
	deadline := time.Now().Add(patience)
	for !strings.Contains(hout.String(), "tabla hub: pages on") {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not start: %s", herr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	// a club evening on the running hub: tabla hub event new, printing
	// the event page's whole address
	pages := regexp.MustCompile(`pages on (http://[^/]+)/`).FindStringSubmatch(hout.String())[1]
	if code, out, errs := run(t, t.Context(), "hub", "event", "new", "moda", "--data", dir, "--host", hostPort, "--url", pages, "--name", "Moda club evening",
		"--game", "gyges:swiss", "--game", "daha", "--table", "gyges=alpha", "--table", "daha=delta", "--rounds", "3", "--clock", "10m+5s"); code != 0 ||
		!strings.Contains(out, "event moda created") || !strings.Contains(out, "daha: fours, 3 rounds, clock 10m+5s, tables delta") ||
		!strings.Contains(out, "on the hub's page "+pages+"/event.html?e=moda\n") {
		t.Fatalf("tabla hub event new: %d %q %q", code, out, errs)
	}
	// the hub's mistakes, refused at once (issue 37): no hub in --data
	// (no new hub made there), a table the hub does not have, a table an
	// event not over plays
	nohub := filepath.Join(t.TempDir(), "not-the-hub")
	began := time.Now()
	if code, _, errs := run(t, t.Context(), "hub", "event", "new", "x", "--data", nohub, "--host", hostPort, "--game", "gyges", "--table", "gyges=alpha"); code != cmdutil.ExitUsage ||
		!strings.Contains(errs, "no hub's credentials in "+nohub+" (no credentials.json): give the running hub's data directory with --data") {
		t.Fatalf("tabla hub event new without the hub's --data: %d %q", code, errs)
	}
	if _, err := os.Stat(nohub); err == nil {
		t.Fatalf("tabla hub event new made a hub folder %s", nohub)
	}
	if code, _, errs := arbIn(t, nohub, pages, "enter", "moda", "Ayşe", "--game", "gyges"); code != cmdutil.ExitUsage || !strings.Contains(errs, "give the running hub's data directory with --data") {
		t.Fatalf("tabla hub event enter without the hub's --data: %d %q", code, errs)
	}
	if code, _, errs := run(t, t.Context(), "hub", "event", "new", "x", "--data", dir, "--host", hostPort, "--game", "gyges", "--table", "gyges=alpha,zz9"); code != cmdutil.ExitUsage ||
		!strings.Contains(errs, "--table gyges=alpha,zz9: the hub has no table zz9 (its tables: alpha, delta; add one with `tabla hub table add zz9`)") {
		t.Fatalf("an unknown table: %d %q", code, errs)
	}
	if code, _, errs := run(t, t.Context(), "hub", "event", "new", "x", "--data", dir, "--host", hostPort, "--game", "star", "--table", "star=alpha"); code == 0 ||
		!strings.Contains(errs, "table alpha plays gyges in event moda, which is not over") {
		t.Fatalf("a table of an event not over: %d %q", code, errs)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("the refusals took %v: they are checked before any wait", d)
	}
	if code, _, errs := run(t, t.Context(), "hub", "event", "new", "moda", "--data", dir, "--host", hostPort, "--game", "gyges", "--table", "gyges=alpha"); code == 0 ||
		!strings.Contains(errs, "exists already") {
		t.Fatalf("the same event again: %d %q", code, errs)
	}
	if code, _, errs := run(t, t.Context(), "hub", "event", "new", "x", "--data", dir, "--game", "daha:swiss", "--table", "daha=delta"); code != cmdutil.ExitUsage ||
		!strings.Contains(errs, "pair it with fours") {
		t.Fatalf("DAHA paired Swiss: %d %q", code, errs)
	}

	// the arbiter's tools on the running hub (its pages, its token read
	// from --data): registrations with ratings, refusals in words, the end
	// with the final standings
	arb := func(args ...string) (cmdutil.ExitCode, string, string) {
		return run(t, t.Context(), append(append([]string{"hub", "event"}, args...), "--data", dir, "--url", pages, "--by", "Zeynep")...)
	}
	if code, out, errs := arb("enter", "moda", "Ayşe", "--game", "gyges", "--rating", "1720", "--rd", "90"); code != 0 ||
		!strings.Contains(out, "Ayşe registered for gyges, rated 1720 ± 90 (Zeynep)") {
		t.Fatalf("tabla hub event enter: %d %q %q", code, out, errs)
	}
	if code, out, errs := arb("enter", "moda", "Bora", "--game", "gyges"); code != 0 || !strings.Contains(out, "Bora registered for gyges, rated 1500 ± 350") {
		t.Fatalf("tabla hub event enter without a rating: %d %q %q", code, out, errs)
	}
	if code, _, errs := arb("enter", "moda", "Cem"); code == 0 || !strings.Contains(errs, "the event has 2 games: say which") {
		t.Fatalf("an entry without --game: %d %q", code, errs)
	}
	if code, _, errs := arb("withdraw", "moda", "Bora", "--game", "gyges"); code == 0 || !strings.Contains(errs, "withdraw: say why") {
		t.Fatalf("a withdrawal without a reason: %d %q", code, errs)
	}
	if code, _, errs := arb("result", "moda", "1-0", "--game", "gyges", "--round", "1", "--board", "1", "--why", "x"); code == 0 || !strings.Contains(errs, "gyges has no round 1 board 1") {
		t.Fatalf("a result before the first round: %d %q", code, errs)
	}
	if code, _, errs := run(t, t.Context(), "hub", "event", "bye", "moda", "Ayşe", "--game", "gyges", "--why", "x", "--url", pages, "--token", "wrong"); code == 0 || !strings.Contains(errs, "token") {
		t.Fatalf("a wrong token: %d %q", code, errs)
	}
	if code, out, errs := arb("bye", "moda", "Ayşe", "--game", "gyges", "--round", "2", "--why", "a wedding"); code != 0 || !strings.Contains(out, "Ayşe has a half-point bye in gyges round 2: a wedding (Zeynep)") {
		t.Fatalf("tabla hub event bye: %d %q %q", code, out, errs)
	}
	// the event's TRF report, as the page links it, read back by tabla
	// club pair: Ayşe (1720) is number 1, Bora 2, round 1 board 1
	resp, err := http.Get(pages + "/api/club/moda/gyges/report.trf")
	if err != nil {
		t.Fatal(err)
	}
	trfData, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	trfFile := filepath.Join(t.TempDir(), "moda.trf")
	os.WriteFile(trfFile, trfData, 0o644)
	if code, out, errs := run(t, t.Context(), "club", "pair", trfFile); code != 0 || out != "1\n1 2\n" {
		t.Fatalf("tabla club pair on the hub's TRF: %d %q %q\n%s", code, out, errs, trfData)
	}
	if code, out, errs := arb("end", "moda", "--why", "too few players"); code != 0 || !strings.Contains(out, "gyges final standings:") ||
		!regexp.MustCompile(`1\. Ayşe +0 +Buchholz 0, Sonneborn-Berger 0 +rated 1720 ± 91`).MatchString(out) { // a rating period without games widens the RD
		t.Fatalf("tabla hub event end: %d %q %q", code, out, errs)
	}
	if code, out, errs := run(t, t.Context(), "hub", "event", "new", "x", "--data", dir, "--host", hostPort, "--game", "star", "--table", "star=alpha"); code != 0 {
		t.Fatalf("a table of an event that is over: %d %q %q", code, out, errs)
	}

	// a table publishes a finished game
	jdir := t.TempDir()
	path := writeGame(t, jdir)
	link, err := link.Connect(link.TableOptions{URL: line[1], JournalDir: jdir})
	if err != nil {
		t.Fatal(err)
	}
	link.Journalled(path, 0)
	link.Start(nil)
	for link.Stats().Backlog > 0 || link.Stats().Published == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the table did not publish: %+v", link.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	link.Close(time.Second)

	code, out, errs = run(t, t.Context(), "stats", "--hub", spectator, "--json")
	var st struct {
		Files int `json:"files"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Files != 1 {
		t.Fatalf("tabla stats --hub: %d %s %s", code, out, errs)
	}

	// tabla library --hub: the club's games on the library page
	lctx, lcancel := context.WithCancel(t.Context())
	libAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	var lout syncBuf
	ldone := make(chan cmdutil.ExitCode, 1)
	go func() {
		ldone <- cli.Run(lctx, &cmdutil.IO{In: strings.NewReader(""), Out: &lout, Err: &lout},
			[]string{"library", "--hub", spectator, "--listen", libAddr, t.TempDir()})
	}()
	waitState(t, "http://"+libAddr+"/api/games", `"game":"gyges"`)
	lcancel()
	if code := <-ldone; code != 0 {
		t.Fatalf("tabla library --hub exited %d: %s", code, lout.String())
	}
	if code, _, errs := run(t, t.Context(), "stats", "--hub", spectator, t.TempDir()); code != cmdutil.ExitUsage {
		t.Fatalf("stats with DIR and --hub: exit %d %s", code, errs)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("tabla hub exited %d: %s", code, herr.String())
	}
}

// writeGame writes a journal of a whole random GYGES game.
func writeGame(t *testing.T, dir string) string {
	h := record.Header{Game: "gyges"}
	st, err := record.NewState(&h)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "game-20260101T000000.000000000Z-gyges.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := record.NewWriter(f)
	w.WriteHeader(&h)
	rng := rand.New(rand.NewPCG(1, 2))
	for st.Awaiting() != engine.AwaitNone {
		ms := st.Moves(nil)
		m := ms[rng.IntN(len(ms))]
		for _, x := range ms { // take a win when there is one
			c := st.Clone()
			c.Play(x)
			if c.Result().Status == engine.Won {
				m = x
			}
		}
		w.Write(record.Line{Move: engine.MoveString(st, m), By: st.Info().Seats[st.ToMove()]})
		st.Play(m)
	}
	return path
}

// TestRunWithHub: two `tabla run --board sim` tables on a `tabla hub`, the
// second with --remote: a move made on the first board is lit on the
// second for its person to carry out, and the hub shows it.
func TestRunWithHub(t *testing.T) {
	dir := t.TempDir()
	hostPort := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	code, out, _ := run(t, t.Context(), "hub", "table", "add", "--data", dir, "--host", hostPort, "alpha", "beta")
	urls := regexp.MustCompile(`hub = (\S+)`).FindAllStringSubmatch(out, -1)
	if code != 0 || len(urls) != 2 {
		t.Fatalf("table add: %s", out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	start := func(args ...string) *syncBuf {
		var o syncBuf
		wg.Add(1)
		go func() {
			defer wg.Done()
			cli.Run(ctx, &cmdutil.IO{In: strings.NewReader(""), Out: &o, Err: &o}, args)
		}()
		return &o
	}
	httpHub := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	hlog := start("hub", "--data", dir, "--listen", httpHub, "--nats-listen", hostPort, "--eval-time", "-1ns")
	waitLog(t, hlog, "tabla hub: pages on")
	a, b := fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t))
	alog := start("run", "--game", "gyges", "--board", "sim", "--sensors", "identifying", "--journal", t.TempDir(), "--listen", a, "--token", "T", "--hub", urls[0][1])
	waitLog(t, alog, "status API")
	blog := start("run", "--game", "gyges", "--board", "sim", "--sensors", "identifying", "--journal", t.TempDir(), "--listen", b, "--token", "T", "--hub", urls[1][1], "--remote", "alpha")
	waitLog(t, blog, "seat claimed")
	postJSON(t, "http://"+a+"/api/action", `{"place":"b1","piece":"3"}`)
	waitState(t, "http://"+a+"/api/state", `"moves":["3@b1"]`)
	waitState(t, "http://"+b+"/api/state", `"hint":"3@b1"`)
	waitState(t, "http://"+httpHub+"/api/tables/alpha", `"moves":["3@b1"]`)
}

// patience bounds the waits for the real commands: the embedded server
// hashes every password with bcrypt at its default cost, and checks one at
// every connect — seconds each under the race detector on a busy 2-core
// machine (the waits end as soon as what they wait for is there).
const patience = 2 * time.Minute

func waitLog(t *testing.T, b *syncBuf, s string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", s, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func postJSON(t *testing.T, url, body string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer T")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return string(data)
}

func waitState(t *testing.T, url, want string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	last := ""
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = string(data)
			if strings.Contains(last, want) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never showed %s: %.600s", url, want, last)
}

// arbIn runs an arbiter's command with --data dir.
func arbIn(t *testing.T, dir, pages string, args ...string) (cmdutil.ExitCode, string, string) {
	return run(t, t.Context(), append(append([]string{"hub", "event"}, args...), "--data", dir, "--url", pages, "--by", "Zeynep")...)
}
