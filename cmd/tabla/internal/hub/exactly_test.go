package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// hubProc is a hub's NATS server as a process of its own (nats-server
// with the hub's configuration), so that a test can freeze it (SIGSTOP)
// and kill it as an operating system would.
type hubProc struct {
	t     testing.TB
	dir   string
	node  *clusterNode
	bin   string
	creds *Credentials
}

func startHubProc(t testing.TB, tables ...string) *hubProc {
	t.Helper()
	p := &hubProc{t: t, dir: t.TempDir(), bin: natsServer(t)}
	creds, err := LoadCredentials(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range tables {
		if _, err := creds.AddTable(n); err != nil {
			t.Fatal(err)
		}
	}
	p.creds = creds
	p.node = &clusterNode{name: "hub", port: freePort(t), conf: filepath.Join(p.dir, "nats.conf")}
	conf := fmt.Sprintf("server_name: hub\nhost: 127.0.0.1\nport: %d\njetstream { store_dir: %q }\n%s",
		p.node.port, filepath.Join(p.dir, "nats"), creds.NATSConfig())
	if err := os.WriteFile(p.node.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	p.start()
	return p
}

func (p *hubProc) url(user string) string {
	pw := p.creds.Tables[user]
	if user == "admin" {
		pw = p.creds.Admin
	}
	return UserURL(fmt.Sprintf("nats://127.0.0.1:%d", p.node.port), user, pw)
}

// start starts the server and sets the hub's streams up.
func (p *hubProc) start() {
	p.t.Helper()
	p.node.start(p.t, p.bin)
	waitFor(p.t, "the hub's server", 30*time.Second, func() bool {
		nc, err := nats.Connect(p.url("admin"), nats.Timeout(time.Second))
		if err != nil {
			return false
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return Setup(ctx, js, 1) == nil
	})
}

func (p *hubProc) kill() {
	if p.node.cmd != nil && p.node.cmd.Process != nil {
		p.node.cmd.Process.Signal(syscall.SIGCONT)
	}
	p.node.kill()
}

// freeze stops the server for stop of every period until ctx ends, and
// lets it run again then.
func (p *hubProc) freeze(ctx context.Context, stop, period time.Duration) <-chan int {
	out := make(chan int, 1)
	go func() {
		n := 0
		defer func() { p.node.cmd.Process.Signal(syscall.SIGCONT); out <- n }()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(period - stop):
			}
			p.node.cmd.Process.Signal(syscall.SIGSTOP)
			n++
			select {
			case <-ctx.Done():
				return
			case <-time.After(stop):
			}
			p.node.cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	return out
}

// journalTable is a table as its link sees it: journals written line by
// line as a session writes them (header, board events, decisions, the end
// marker, the next game's journal), each write reported to the link.
type journalTable struct {
	name string
	dir  string
	url  string
	link *link.Table
	rng  *rand.Rand
	at   time.Time // the journals' clock (their names)
	// until, when closed, makes play end with the game under way (nil:
	// play plays every game asked for)
	until <-chan struct{}
}

// stopped reports whether until is closed.
func (jt *journalTable) stopped() bool {
	select {
	case <-jt.until:
		return true
	default:
		return false
	}
}

func newJournalTable(t testing.TB, url, name string, seed uint64) *journalTable {
	jt := &journalTable{name: name, dir: t.TempDir(), url: url, rng: rand.New(rand.NewPCG(seed, 99)),
		at: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC).Add(time.Duration(seed) * time.Hour)}
	jt.open(t)
	t.Cleanup(func() { jt.link.Close(0) })
	return jt
}

func (jt *journalTable) open(t testing.TB) {
	ln, err := link.Connect(link.TableOptions{URL: jt.url, Name: jt.name, JournalDir: jt.dir, Logger: testLog(t).With("table", jt.name),
		ReconnectWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	jt.link = ln
	ln.Start(nil)
}

// play writes games journals, pausing pace between lines (the pace of
// people at a board); each game is played to its end (or 60 plies) and
// then a new one started, as the session does — fewer once until is
// closed.
func (jt *journalTable) play(t testing.TB, games int, pace time.Duration) error {
	for g := range games {
		jt.at = jt.at.Add(time.Minute)
		path := filepath.Join(jt.dir, companion.JournalName("gyges", jt.at))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		w := record.NewWriter(f)
		h := record.Header{Game: "gyges"}
		if err := w.WriteHeader(&h); err != nil {
			return err
		}
		jt.link.Journalled(path, 0)
		st, err := record.NewState(&h)
		if err != nil {
			return err
		}
		for ply := 0; ply < 60 && st.Result().Status == engine.Playing; ply++ {
			time.Sleep(pace/2 + time.Duration(jt.rng.Int64N(int64(pace))))
			fmt.Fprintf(f, `{"sensor":"c%d","code":%d,"at":%d}`+"\n", ply%6+1, ply%3, ply*700)
			m := pick(st, jt.rng)
			by := st.Info().Seats[st.ToMove()]
			text := engine.MoveString(st, m)
			st.Play(m)
			if err := w.Write(record.Line{Move: text, By: by, T: jt.at.Add(time.Duration(ply) * time.Second)}); err != nil {
				return err
			}
			jt.link.Journalled(path, ply+1)
		}
		last := g == games-1 || jt.stopped()
		if !last {
			fmt.Fprintf(f, "{\"end\":\"new\"}\n")
			jt.link.Journalled(path, st.Plies())
		}
		if err := f.Close(); err != nil {
			return err
		}
		if last {
			break
		}
	}
	return nil
}

// pick is a winning move if there is one, else a random one.
func pick(st engine.State, rng *rand.Rand) engine.Move {
	ms := st.Moves(nil)
	for _, m := range ms {
		c := st.Clone()
		c.Play(m)
		if c.Result().Status == engine.Won {
			return m
		}
	}
	return ms[rng.IntN(len(ms))]
}

// journals are the table's journal files, oldest first.
func (jt *journalTable) journals(t testing.TB) []string {
	names, err := filepath.Glob(filepath.Join(jt.dir, "game-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// sent waits until the link has published everything and marked every
// journal but the last as sent — woken by the link's own reports. (A pass
// that read the journals before play's last lines gives Backlog 0 too:
// Pending says a pass is yet to read them.)
func (jt *journalTable) sent(t testing.TB, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	changes := jt.link.Subscribe(ctx)
	want := len(jt.journals(t)) - 1
	for {
		done := jt.link.Sent()
		if s := jt.link.Stats(); s.Backlog == 0 && !s.Pending && s.Connected && s.Checked && done >= want {
			return
		}
		jt.link.Wake()
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("%s: not all sent within %v: link %+v, %d of %d journals marked sent", jt.name, d, jt.link.Stats(), done, want)
		}
	}
}

// hubCopy reads every message of the hub's games stream: subject → data,
// in stream order.
func hubCopy(t testing.TB, url string) map[string][][]byte {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cons, err := js.CreateConsumer(ctx, StreamGames, jetstream.ConsumerConfig{AckPolicy: jetstream.AckNonePolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: 30 * time.Second, MemoryStorage: true})
	if err != nil {
		t.Fatal(err)
	}
	pending := int(cons.CachedInfo().NumPending)
	out := map[string][][]byte{}
	for got := 0; got < pending; {
		batch, err := cons.Fetch(min(pending-got, 500), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			out[m.Subject()] = append(out[m.Subject()], m.Data())
			got++
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d messages", got, pending)
		}
	}
	return out
}

// sameAsJournals checks that the hub holds every event of every journal
// of the tables exactly once, in order, and nothing else of theirs; it
// returns the number of journals and of events compared.
func sameAsJournals(t testing.TB, hub map[string][][]byte, tables ...*journalTable) (journals, events int) {
	t.Helper()
	var bad []string
	for _, jt := range tables {
		seen := map[string]bool{}
		for _, p := range jt.journals(t) {
			tl, err := link.ReadJournal(p, jt.name)
			if err != nil {
				t.Fatal(err)
			}
			subj := RecSubject(jt.name, tl.Game)
			seen[subj] = true
			got := hub[subj]
			journals++
			events += len(tl.Events)
			switch {
			case len(got) < len(tl.Events):
				bad = append(bad, fmt.Sprintf("%s: the hub lacks %d of %d events (its last: %.80s)", subj, len(tl.Events)-len(got), len(tl.Events), last(got)))
			case len(got) > len(tl.Events):
				bad = append(bad, fmt.Sprintf("%s: the hub holds %d events, the journal %d", subj, len(got), len(tl.Events)))
			default:
				for n := range got {
					if string(got[n]) != string(tl.Events[n]) {
						bad = append(bad, fmt.Sprintf("%s: event %d differs:\nhub     %s\njournal %s", subj, n, got[n], tl.Events[n]))
						break
					}
				}
			}
		}
		for subj := range hub {
			if strings.HasPrefix(subj, recPrefix+jt.name+".") && !seen[subj] {
				bad = append(bad, subj+": on the hub, not in a journal")
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Errorf("%d of %d games differ between the journals and the hub:\n%s", len(bad), journals, strings.Join(bad, "\n"))
	}
	return journals, events
}

func last(b [][]byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b[len(b)-1]
}

// faultTables starts n tables on the hub process and plays games each,
// while fault strikes the hub; then every journal is compared with the
// hub's copy, also after the tables start again.
func faultTables(t *testing.T, p *hubProc, tables []*journalTable, games int, pace time.Duration, fault func(stop <-chan struct{})) {
	stop := make(chan struct{})
	faulted := make(chan struct{})
	go func() { defer close(faulted); fault(stop) }()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(tables))
	for _, jt := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := jt.play(t, games, pace); err != nil {
				errs <- fmt.Errorf("%s: %w", jt.name, err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-faulted
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	played := time.Since(start)
	for _, jt := range tables {
		jt.sent(t, 60*time.Second)
	}
	t.Logf("%d tables played %d games each in %v; all sent %v later", len(tables), games, played.Round(time.Millisecond), (time.Since(start) - played).Round(time.Millisecond))
	j, e := sameAsJournals(t, hubCopy(t, p.url("admin")), tables...)
	t.Logf("%d journals, %d events: the hub's copy compared", j, e)
	// the tables start again on their journal directories: nothing is
	// published twice
	for _, jt := range tables {
		jt.link.Close(0)
		jt.open(t)
	}
	for _, jt := range tables {
		jt.sent(t, 30*time.Second)
	}
	sameAsJournals(t, hubCopy(t, p.url("admin")), tables...)
}

func tableNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%02d", i)
	}
	return names
}

// TestHubFrozen freezes the hub's server (SIGSTOP) 3 s of every 5 while
// 12 tables end games and start new ones: every journal reaches the hub
// whole, once — the winning move and the end of a game played while the
// hub was frozen included — and is marked sent only then.
func TestHubFrozen(t *testing.T) {
	t.Parallel()
	names := tableNames(12)
	p := startHubProc(t, names...)
	var tables []*journalTable
	for i, n := range names {
		tables = append(tables, newJournalTable(t, p.url(n), n, uint64(i+1)))
	}
	faultTables(t, p, tables, 6, 120*time.Millisecond, func(stop <-chan struct{}) {
		ctx, cancel := context.WithCancel(context.Background())
		frozen := p.freeze(ctx, 3*time.Second, 5*time.Second)
		<-stop
		cancel()
		n := <-frozen
		t.Logf("the hub was frozen %d times", n)
		if n == 0 {
			t.Error("the games ended before the hub was frozen")
		}
	})
}

// TestHubKilledWhileGamesEnd freezes the hub's server, kills it (SIGKILL)
// while 12 tables end games, keeps it down, and starts it again, twice:
// nothing lost, nothing doubled.
func TestHubKilledWhileGamesEnd(t *testing.T) {
	t.Parallel()
	names := tableNames(12)
	p := startHubProc(t, names...)
	var tables []*journalTable
	for i, n := range names {
		tables = append(tables, newJournalTable(t, p.url(n), n, uint64(i+100)))
	}
	faultTables(t, p, tables, 5, 100*time.Millisecond, func(stop <-chan struct{}) {
		for range 2 {
			select {
			case <-stop:
				return
			case <-time.After(1500 * time.Millisecond):
			}
			// frozen first (publishes under way wait for their
			// acknowledgement), then killed, down a while, started again
			p.node.cmd.Process.Signal(syscall.SIGSTOP)
			time.Sleep(3 * time.Second)
			p.node.kill()
			time.Sleep(time.Second)
			p.start()
		}
	})
}

// TestHubLostWhatItAcknowledged starts the hub again on an empty disk (a
// server restored from an older backup): the tables find, when they
// reconnect, that it lacks journals they had marked sent, and publish
// them again.
func TestHubLostWhatItAcknowledged(t *testing.T) {
	names := tableNames(2)
	p := startHubProc(t, names...)
	var tables []*journalTable
	for i, n := range names {
		tables = append(tables, newJournalTable(t, p.url(n), n, uint64(i+200)))
	}
	for _, jt := range tables {
		if err := jt.play(t, 3, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	for _, jt := range tables {
		jt.sent(t, 30*time.Second)
	}
	p.node.kill()
	// Each link has seen the hub go: until then it still holds the old
	// connection as connected and checked, and the wait below would end
	// before the new hub was compared with (CI rehearsal: 3 of 6 games
	// missing from the hub).
	for _, jt := range tables {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		changes := jt.link.Subscribe(ctx)
		for jt.link.Stats().Connected {
			select {
			case <-changes:
			case <-ctx.Done():
				t.Fatalf("%s did not see the hub go", jt.name)
			}
		}
		cancel()
	}
	if err := os.RemoveAll(filepath.Join(p.dir, "nats")); err != nil {
		t.Fatal(err)
	}
	p.start()
	for _, jt := range tables {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		changes := jt.link.Subscribe(ctx)
		for !jt.link.Stats().Connected {
			select {
			case <-changes:
			case <-ctx.Done():
				t.Fatalf("%s did not reconnect", jt.name)
			}
		}
		cancel()
	}
	for _, jt := range tables {
		jt.sent(t, 30*time.Second)
	}
	sameAsJournals(t, hubCopy(t, p.url("admin")), tables...)
}

// TestStartRepublishesWhatTheHubLacks: a journal marked sent (by an
// earlier version, which marked journals sent before their last events
// were acknowledged) whose last events the hub lacks is found at start
// and completed.
func TestStartRepublishesWhatTheHubLacks(t *testing.T) {
	th := startHub(t)
	jt := newJournalTable(t, th.tableURL("solo"), "solo", 300)
	if err := jt.play(t, 2, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	jt.sent(t, 30*time.Second)
	jt.link.Close(0)
	// what that version did: the game's last lines written after the
	// journal was read, the journal marked sent without them
	first := jt.journals(t)[0]
	f, err := os.OpenFile(first, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "{\"end\":\"new\"}\n")
	f.Close()
	// that version kept no counts: the state file without "events"
	stateFile := filepath.Join(jt.dir, ".tabla-hub.json")
	data, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(data, &state); err != nil {
		t.Fatal(err)
	}
	if state["events"] == nil {
		t.Fatalf("%s keeps no counts: %s", stateFile, data)
	}
	delete(state, "events")
	data, _ = json.Marshal(state)
	if err := os.WriteFile(stateFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	jt.open(t)
	jt.sent(t, 30*time.Second)
	sameAsJournals(t, hubCopy(t, th.srv.URL("admin", th.srv.Credentials().Admin)), jt)
}
