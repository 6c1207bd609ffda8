package runcmd

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/rulescmd"
)

// clockDoc is the status document's clocks and who.
type clockDoc struct {
	State struct {
		Ply  int    `json:"ply"`
		Conn string `json:"conn"`
	} `json:"state"`
	Journal string                 `json:"journal"`
	Clock   *companion.ClockStatus `json:"clock"`
	Who     struct {
		Names map[string]string `json:"names"`
		Event string            `json:"event"`
	} `json:"who"`
}

func getClock(t *testing.T, d *proc) clockDoc {
	t.Helper()
	var c clockDoc
	resp, err := http.Get(d.base + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// startWith is start with further flags.
func startWith(t *testing.T, bin, journal, addr string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--game", "star", "--board", "sim", "--journal", journal, "--listen", addr,
		"--token", "sesame", "--seed", "1", "--log-format", "json"}, args...)...)
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &proc{t: t, cmd: cmd, base: "http://" + addr, log: &log}
	d.wait(func(s state) bool { return s.State.Conn == "connected" })
	return d
}

// TestKillClocks: tabla run --clock with players' names; after two moves
// the daemon is killed (SIGKILL) while white thinks, started again on the
// same journal: the names are back, red's clock is to the millisecond
// what it was, white's is where it stood at red's press and runs again,
// and the journal's turn times make the same clocks (tabla rules check).
func TestKillClocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildTabla(t)
	journal := filepath.Join(t.TempDir(), "journal")
	addr := freeAddr(t)

	d := startWith(t, bin, journal, addr, "--clock", "10m+5s", "--player", "red=Ayşe", "--player", "white=Bora", "--event", "club night")
	boardAct(t, d, `{"lift":"b1"}`)
	boardAct(t, d, `{"place":"f3"}`)
	d.wait(func(s state) bool { return s.State.Ply == 1 })
	boardAct(t, d, `{"lift":"d13"}`)
	boardAct(t, d, `{"place":"h11"}`)
	d.wait(func(s state) bool { return s.State.Ply == 2 })
	before := getClock(t, d)
	if before.Clock == nil || before.Clock.Running != "red" || before.Who.Names["red"] != "Ayşe" {
		t.Fatalf("before the kill: %+v", before)
	}
	d.cmd.Process.Signal(syscall.SIGKILL)
	d.cmd.Wait()

	d = startWith(t, bin, journal, addr, "--clock", "1m") // the resumed game keeps its own control
	after := getClock(t, d)
	if after.Journal != before.Journal || after.Clock == nil || after.Clock.Control != "10m+5s" || after.Who.Event != "club night" {
		t.Fatalf("after the restart: %+v (before %+v)\nlog:\n%s", after, before, d.log.String())
	}
	if after.Clock.LeftMs["white"] != before.Clock.LeftMs["white"] {
		t.Errorf("white: %d ms before the kill, %d after", before.Clock.LeftMs["white"], after.Clock.LeftMs["white"])
	}
	// red, to move: the journal's clock for red, counting down again
	var out, errb bytes.Buffer
	if err := rulescmd.CheckRun(&rulescmd.Options{IO: &cmdutil.IO{Out: &out, Err: &errb}, File: before.Journal}); err != nil {
		t.Fatal(err, errb.String())
	}
	var check struct {
		Left map[string]int64 `json:"clock_left_ms"`
	}
	json.Unmarshal(out.Bytes(), &check)
	if check.Left["white"] != after.Clock.LeftMs["white"] || check.Left["red"] != 600000-mustTurn(t, before.Journal, 0)+5000 {
		t.Errorf("rules check %s, session %+v", out.String(), after.Clock)
	}
	if got := after.Clock.LeftMs["red"] + after.Clock.TurnMs; after.Clock.Running != "red" || got < check.Left["red"]-1 || got > check.Left["red"] {
		t.Errorf("red after the restart: %+v, want %d ms less the turn since", after.Clock, check.Left["red"])
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	d.cmd.Wait()
}

// boardAct performs an action on the daemon's virtual board (the board's
// settle window decides when the referee reads it: no sleep here).
func boardAct(t *testing.T, d *proc, js string) {
	t.Helper()
	req, _ := http.NewRequest("POST", d.base+"/api/action", strings.NewReader(js))
	req.Header.Set("Authorization", "Bearer sesame")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %s", js, resp.Status)
	}
}

// mustTurn is the turn time of the journal's nth move.
func mustTurn(t *testing.T, path string, n int) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var i int
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, `{"move":`) {
			continue
		}
		if i == n {
			var m struct {
				MS int64 `json:"ms"`
			}
			json.Unmarshal([]byte(l), &m)
			return m.MS
		}
		i++
	}
	t.Fatalf("no move %d in %s", n, data)
	return 0
}
