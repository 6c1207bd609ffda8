package hub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
)

// plyClock is a table's publisher as the session sees it: it notes when
// each ply was journalled (after the referee's settle window, the
// journal's write and fsync) and passes the report on to the link.
type plyClock struct {
	link *link.Table
	mu   sync.Mutex
	at   map[int]time.Time
}

func (p *plyClock) Journalled(path string, ply int) {
	now := time.Now()
	p.mu.Lock()
	if _, ok := p.at[ply]; !ok {
		p.at[ply] = now
	}
	p.mu.Unlock()
	p.link.Journalled(path, ply)
}

func (p *plyClock) when(ply int) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.at[ply]
	return t, ok
}

// TestMoveToSpectator (TABLA_HUB_E2E=1) measures the latency from a move
// on a board to a spectator's page with 100 tables: each table is a
// companion session on a virtual board whose clock follows the host's
// (`tabla run --board sim`), with the real referee and its settle window
// and the journal written with fsync, linked to the hub; a person makes a
// move every second or so (the pieces lifted and put down); one spectator
// a table follows its server-sent events (GET /api/tables/T/events). A
// move's latency runs from its last piece put down to the spectator's
// event showing it, split at the session's report that the move is
// journalled. An fsync probe measures the disk's fsync alongside.
func TestMoveToSpectator(t *testing.T) {
	if os.Getenv("TABLA_HUB_E2E") == "" {
		t.Skip("TABLA_HUB_E2E=1 measures move→spectator latency with 100 tables (about a minute)")
	}
	env := func(k string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return v
		}
		return def
	}
	tables, seconds := env("TABLA_HUB_E2E_TABLES", 100), env("TABLA_HUB_E2E_SECONDS", 30)
	th := startHub(t)
	base := "http://" + th.httpAddr
	def, err := boards.Open("gyges")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	type table struct {
		name   string
		sess   *companion.Session
		lp     *companion.LivePlayer
		clock  *plyClock
		seen   chan int // plies as the spectator sees them
		rng    *rand.Rand
		placed map[int]time.Time
	}
	ts := make([]*table, tables)
	var wg sync.WaitGroup
	for i := range ts {
		name := fmt.Sprintf("t%03d", i)
		dir := t.TempDir()
		ln, err := link.Connect(link.TableOptions{URL: th.tableURL(name), Name: name, JournalDir: dir, Logger: testLog(t)})
		if err != nil {
			t.Fatal(err)
		}
		hw, err := companion.OpenBoard(ctx, "sim", companion.BoardOptions{Def: def, Sensors: "identifying", Seed: uint64(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		clock := &plyClock{link: ln, at: map[int]time.Time{}}
		sess, err := companion.Open(companion.Options{Header: record.Header{Game: "gyges"}, Board: def, HW: hw, JournalDir: dir,
			Source: "sim", Seed: uint64(i + 1), Publisher: clock, Logger: testLog(t)})
		if err != nil {
			t.Fatal(err)
		}
		x := &table{name: name, sess: sess, lp: companion.NewLivePlayer(companion.Sim(hw), sess), clock: clock,
			seen: make(chan int, 64), rng: rand.New(rand.NewPCG(uint64(i), 5)), placed: map[int]time.Time{}}
		ts[i] = x
		wg.Add(1)
		go func() { defer wg.Done(); sess.Run(ctx) }()
		ln.Start(sess)
		t.Cleanup(func() {
			cancel()
			wg.Wait()
			ln.Close(0)
			sess.Close()
			hw.Close()
		})
	}
	waitFor(t, "every table on the hub", 120*time.Second, func() bool {
		for _, x := range ts {
			if th.hub.TableJSON(x.name) == nil {
				return false
			}
		}
		return true
	})
	// the spectators: one event stream a table
	opened := make(chan struct{}, tables)
	for _, x := range ts {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/tables/"+x.name+"/events", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			opened <- struct{}{}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			last := -1
			for sc.Scan() {
				line := sc.Bytes()
				if !bytes.HasPrefix(line, []byte("data: ")) {
					continue
				}
				if p := scanInt(line, `"plies":`); p > last {
					last = p
					select {
					case x.seen <- p:
					default:
					}
				}
			}
		}()
	}
	for range tables {
		select {
		case <-opened:
		case <-time.After(30 * time.Second):
			t.Fatal("the spectators' streams did not open within 30 s")
		}
	}
	// an fsync probe on the journals' file system
	var probe []time.Duration
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		f, err := os.Create(filepath.Join(t.TempDir(), "probe.jsonl"))
		if err != nil {
			return
		}
		defer f.Close()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		line := []byte(`{"move":"c1-c2","by":"north","t":"2026-11-26T00:00:00Z"}` + "\n")
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			f.Write(line)
			t0 := time.Now()
			f.Sync()
			probe = append(probe, time.Since(t0))
		}
	}()

	type sample struct{ total, journalled, spectator time.Duration }
	var mu sync.Mutex
	var samples []sample
	lost, confirmed := 0, 0
	stop := time.Now().Add(time.Duration(seconds) * time.Second)
	var pw sync.WaitGroup
	for _, x := range ts {
		pw.Add(1)
		go func() {
			defer pw.Done()
			st, _ := record.NewState(&record.Header{Game: "gyges"})
			for time.Now().Before(stop) && st.Result().Status == engine.Playing {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Duration(800+x.rng.IntN(400)) * time.Millisecond): // the pace of people at a board
				}
				m := calmMove(st, x.rng)
				text := engine.MoveString(st, m)
				for _, a := range physical(st, m, text) {
					if err := x.lp.Act(json.RawMessage(a)); err != nil {
						t.Errorf("%s: %s: %v", x.name, a, err)
						return
					}
				}
				placed := time.Now()
				st.Play(m)
				ply := st.Plies()
				deadline := time.After(10 * time.Second)
				sctx, scancel := context.WithCancel(ctx)
				changes := x.sess.Subscribe(sctx)
				pressed := false
			wait:
				for {
					select {
					case p := <-x.seen:
						if p >= ply {
							break wait
						}
					case <-changes:
						// a GYGES move the referee reads two ways waits for
						// the confirm button: the person presses it, and the
						// move is measured from the press
						if !pressed && x.sess.State().Mode == "confirm" {
							pressed = true
							if err := x.lp.Act(json.RawMessage(`{"press":"confirm"}`)); err != nil {
								t.Errorf("%s: confirm: %v", x.name, err)
							}
							placed = time.Now()
							mu.Lock()
							confirmed++
							mu.Unlock()
						}
					case <-deadline:
						scancel()
						mu.Lock()
						lost++
						mu.Unlock()
						t.Errorf("%s: ply %d (%s) not on the spectator's page within 10 s; the referee has %d plies", x.name, ply, text, len(x.sess.History()))
						return
					}
				}
				scancel()
				arrived := time.Now()
				j, ok := x.clock.when(ply)
				if !ok {
					t.Errorf("%s: ply %d seen before it was journalled", x.name, ply)
					return
				}
				mu.Lock()
				samples = append(samples, sample{arrived.Sub(placed), j.Sub(placed), arrived.Sub(j)})
				mu.Unlock()
			}
		}()
	}
	pw.Wait()
	cancel()
	<-probeDone
	if len(samples) == 0 {
		t.Fatal("no move reached a spectator")
	}
	q := func(get func(sample) time.Duration, p float64) time.Duration {
		d := make([]time.Duration, len(samples))
		for i, s := range samples {
			d[i] = get(s)
		}
		slices.Sort(d)
		return d[min(len(d)-1, int(p*float64(len(d))))].Round(100 * time.Microsecond)
	}
	for _, c := range []struct {
		what string
		get  func(sample) time.Duration
	}{
		{"put down → spectator", func(s sample) time.Duration { return s.total }},
		{"put down → journalled (settle window, referee, journal write and fsync)", func(s sample) time.Duration { return s.journalled }},
		{"journalled → spectator (link, JetStream, hub, event stream)", func(s sample) time.Duration { return s.spectator }},
	} {
		t.Logf("%s: p50 %v p90 %v p99 %v max %v", c.what, q(c.get, .5), q(c.get, .9), q(c.get, .99), q(c.get, 1))
	}
	slices.Sort(probe)
	if len(probe) > 0 {
		t.Logf("fsync probe: %d samples, p50 %v p99 %v max %v", len(probe), probe[len(probe)/2].Round(10*time.Microsecond),
			probe[min(len(probe)-1, len(probe)*99/100)].Round(10*time.Microsecond), probe[len(probe)-1].Round(10*time.Microsecond))
	}
	t.Logf("%d tables, %d s: %d moves measured (%d confirmed with the button), %d lost; settle window %v", tables, seconds, len(samples), confirmed, lost, referee.DefaultSettle)
}

// calmMove is a random move that does not end the game, if there is one.
func calmMove(st engine.State, rng *rand.Rand) engine.Move {
	ms := st.Moves(nil)
	rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	for _, m := range ms {
		c := st.Clone()
		c.Play(m)
		if c.Result().Status == engine.Playing {
			return m
		}
	}
	return ms[0]
}
