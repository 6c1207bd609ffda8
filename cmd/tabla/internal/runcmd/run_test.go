package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	_ "github.com/tabla-board/tabla/engine/games"
)

type state struct {
	State struct {
		Ply    int      `json:"ply"`
		InSync bool     `json:"in_sync"`
		Mode   string   `json:"mode"`
		Moves  []string `json:"moves"`
		// Candidates in confirm mode
		Candidates []string `json:"candidates"`
		Conn       string   `json:"conn"` // "waiting" until the board's first snapshot was read
	} `json:"state"`
	Journal string `json:"journal"`
}

// proc is a `tabla run --board sim` subprocess.
type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	log  *bytes.Buffer
}

func start(t *testing.T, bin, journal, addr string) *proc {
	t.Helper()
	cmd := exec.Command(bin, "run", "--game", "star", "--board", "sim", "--journal", journal, "--listen", addr,
		"--token", "sesame", "--seed", "1", "--log-format", "json")
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &proc{t: t, cmd: cmd, base: "http://" + addr, log: &log}
	d.wait(func(s state) bool { return true })
	return d
}

func (d *proc) get() (state, error) {
	var s state
	resp, err := http.Get(d.base + "/api/state")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// wait polls the state until ok holds (no timing assertion: a generous
// deadline only against hanging).
func (d *proc) wait(ok func(state) bool) state {
	d.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s, err := d.get()
		if err == nil && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("gave up waiting: last state %+v err %v\nlog:\n%s", s, err, d.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (d *proc) act(js string) {
	d.t.Helper()
	req, _ := http.NewRequest("POST", d.base+"/api/action", strings.NewReader(js))
	req.Header.Set("Authorization", "Bearer sesame")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		d.t.Fatalf("%s: %s", js, resp.Status)
	}
	time.Sleep(250 * time.Millisecond) // let the piece rest longer than the settle window
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestKillAndRestart builds tabla, runs it on the virtual board, plays a
// move, kills it with SIGKILL, starts it again on the same journal and
// checks that the game is resumed and goes on; then stops it with SIGTERM.
func TestKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildTabla(t)
	journal := filepath.Join(t.TempDir(), "journal")
	addr := freeAddr(t)

	d := start(t, bin, journal, addr)
	d.act(`{"lift":"b1"}`)
	d.act(`{"place":"f3"}`)
	s := d.wait(func(s state) bool { return s.State.Ply == 1 })
	path := s.Journal
	d.cmd.Process.Signal(syscall.SIGKILL)
	d.cmd.Wait()

	d = start(t, bin, journal, addr)
	// the first state served may come before the board's first snapshot
	// was read (conn "waiting"): wait for the board
	s = d.wait(func(s state) bool { return s.State.Conn == "connected" })
	if s.Journal != path || !slices.Equal(s.State.Moves, []string{"b1-f3"}) {
		t.Fatalf("after restart: journal %s (want %s), moves %v\nlog:\n%s", s.Journal, path, s.State.Moves, d.log.String())
	}
	// the fresh virtual board shows the start layout, the position before
	// the journalled move: the takeback is proposed (never taken unasked),
	// and putting the move back on the board goes on
	if s.State.InSync || s.State.Mode != "confirm" || !slices.Equal(s.State.Candidates, []string{"takeback:1"}) {
		t.Errorf("after restart: in_sync %v mode %s candidates %v", s.State.InSync, s.State.Mode, s.State.Candidates)
	}
	d.act(`{"lift":"b1"}`)
	d.act(`{"place":"f3"}`)
	d.wait(func(s state) bool { return s.State.InSync })
	d.act(`{"lift":"d13"}`)
	d.act(`{"place":"h11"}`)
	d.wait(func(s state) bool { return s.State.Ply == 2 })
	d.cmd.Process.Signal(syscall.SIGTERM)
	if err := d.cmd.Wait(); err != nil {
		t.Errorf("SIGTERM: %v\n%s", err, d.log.String())
	}
	if !strings.Contains(d.log.String(), `"resumed"`) {
		t.Errorf("no resume in the log:\n%s", d.log.String())
	}
	res, err := companion.ReplayFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Match() {
		t.Errorf("replay:\n%s", res.Diff())
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), `{"move":`); n != 2 {
		t.Errorf("%d moves in the journal, want 2:\n%s", n, data)
	}
}

func TestConfigFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tabla.conf")
	os.WriteFile(p, []byte("# test\ngame = ray\nboard = sim\nsettle = 150ms\nlisten = off\nai = yellow=2, blue\n"), 0o644)
	o := &Options{Game: "star"}
	if err := o.load(p, func(k string) bool { return k == "game" }); err != nil {
		t.Fatal(err)
	}
	if o.Game != "star" || o.Board != "sim" || o.Settle != 150*time.Millisecond || o.Listen != "off" || !slices.Equal(o.AI, []string{"yellow=2", "blue"}) {
		t.Errorf("%+v", o)
	}
	os.WriteFile(p, []byte("colour = red\n"), 0o644)
	if err := o.load(p, func(string) bool { return false }); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("bad key: %v", err)
	}
	// a key set twice names both lines (issue 36: the last one won
	// silently), even when a flag overrides it; player lines repeat
	os.WriteFile(p, []byte("game = ray\nplayer = red=Ayşe\nplayer = yellow=Bora\n# the other table\ngame = star\n"), 0o644)
	for _, changed := range []func(string) bool{func(string) bool { return false }, func(k string) bool { return k == "game" }} {
		err := (&Options{}).load(p, changed)
		if err == nil || !strings.Contains(err.Error(), "tabla.conf:5: game is set twice (line 1 and line 5)") {
			t.Errorf("duplicate key: %v", err)
		}
	}
}

// TestEngineSeat: with --ai white, the daemon lights the engine's reply
// after the person's move, for them to carry out on the board.
func TestEngineSeat(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan *companion.Session, 1)
	var errb bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &errb, Err: &errb}, Game: "star", First: "red", Board: "sim", Sensors: "identifying",
		Journal: t.TempDir(), Listen: "off", Seed: 1, AI: []string{"white=1"},
		Ready: func(s *companion.Session, _ string) { ready <- s }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var sess *companion.Session
	select {
	case sess = <-ready:
	case err := <-done:
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	p := companion.NewLivePlayer(companion.Sim(sess.HW()), sess)
	for _, a := range []string{`{"lift":"a4"}`, `{"place":"e6"}`} {
		if err := p.Act(json.RawMessage(a)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := sess.State()
		if st.Hint != "" && st.ToMove != nil && *st.ToMove == "white" && slices.Equal(st.Moves, []string{"a4-e6"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no engine move lit: %+v\n%s", st, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), &Options{IO: o.IO, Game: "star", Board: "sim", Listen: "off", Journal: t.TempDir(), AI: []string{"green"}}); err == nil || !strings.Contains(err.Error(), `"green" is not a seat`) {
		t.Errorf("--ai green: %v", err)
	}
}

// TestConfigWho: the config's player lines (one per seat), event, round,
// site and date reach the options; flags win over them.
func TestConfigWho(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tabla.conf")
	os.WriteFile(p, []byte("game = star\nplayer = red=Ayşe Yılmaz\nplayer = white=Bora\nevent = Moda club evening\nround = 3.1\nsite = Moda\ndate = 2026-11-26\n"), 0o644)
	o := &Options{}
	if err := o.load(p, func(k string) bool { return k == "round" }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Who.Players, []string{"red=Ayşe Yılmaz", "white=Bora"}) || o.Who.Event != "Moda club evening" ||
		o.Who.Round != "" || o.Who.Site != "Moda" || o.Who.Date != "2026-11-26" {
		t.Errorf("%+v", o.Who)
	}
	o = &Options{IO: &cmdutil.IO{Out: io.Discard, Err: io.Discard}, Game: "star", Board: "sim", Listen: "off", Journal: t.TempDir(),
		Who: companion.WhoOptions{Players: []string{"green=Can"}}}
	if err := Run(t.Context(), o); cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "names.green") {
		t.Errorf("a seat the game lacks: %v", err)
	}
}
