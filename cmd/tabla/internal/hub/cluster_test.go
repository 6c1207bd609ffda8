package hub

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine/record"
)

// natsServer builds nats-server from the module cache (the version
// go.mod pins) once per test binary.
func natsServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(os.TempDir(), "tabla-hub-test-nats-server-v2.15.2")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	tmp := bin + fmt.Sprintf(".%d", os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, "github.com/nats-io/nats-server/v2")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot build nats-server from the module cache: %v\n%s", err, out)
		}
		t.Skipf("cannot build nats-server from the module cache: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// clusterNode is one nats-server process of a test cluster.
type clusterNode struct {
	name   string
	port   int
	conf   string
	cmd    *exec.Cmd
	exited chan struct{}
}

func (n *clusterNode) start(t testing.TB, bin string) {
	n.cmd = exec.Command(bin, "-c", n.conf)
	n.cmd.Stdout, n.cmd.Stderr = nil, nil
	// the node dies with the test binary, even when that is killed
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if os.Getenv("TABLA_HUB_LOG") != "" {
		n.cmd.Stderr = os.Stderr
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.exited = make(chan struct{})
	go func() { n.cmd.Wait(); close(n.exited) }()
}

func (n *clusterNode) kill() {
	if n.cmd != nil && n.cmd.Process != nil {
		n.cmd.Process.Signal(syscall.SIGKILL)
		<-n.exited
	}
}

// TestCluster plays a remote game through a real three-node NATS cluster
// (nats-server processes on loopback ports, JetStream with three
// replicas), and kills the node the host table is connected to mid-game:
// the tables reconnect to the others, the game ends with the same journals
// and the hub holds every event once.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nats-server and starts a three-node cluster")
	}
	bin := natsServer(t)
	dir := t.TempDir()
	creds, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"h", "g"} {
		creds.AddTable(n)
	}
	accounts := creds.NATSConfig()
	creds.Save(dir)
	nodes := make([]*clusterNode, 3)
	routes := make([]string, 3)
	cports := make([]int, 3)
	for i := range nodes {
		cports[i] = freePort(t)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", cports[i])
	}
	for i := range nodes {
		n := &clusterNode{name: fmt.Sprintf("n%d", i+1), port: freePort(t)}
		n.conf = filepath.Join(dir, n.name+".conf")
		conf := fmt.Sprintf("server_name: %s\nhost: 127.0.0.1\nport: %d\njetstream { store_dir: %q }\n"+
			"cluster { name: tabla, host: 127.0.0.1, port: %d, routes: [%s] }\n%s",
			n.name, n.port, filepath.Join(dir, n.name), cports[i], strings.Join(routes, ", "), accounts)
		if err := os.WriteFile(n.conf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		n.start(t, bin)
		nodes[i] = n
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.kill()
		}
	})
	urls := func(user, pw string) string {
		var us []string
		for _, n := range nodes {
			us = append(us, UserURL(fmt.Sprintf("nats://127.0.0.1:%d", n.port), user, pw))
		}
		return strings.Join(us, ",")
	}
	// the cluster is up when JetStream answers with three peers
	waitFor(t, "the cluster", 60*time.Second, func() bool {
		nc, err := nats.Connect(urls("admin", creds.Admin), nats.Timeout(time.Second))
		if err != nil {
			return false
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = js.AccountInfo(ctx)
		return err == nil
	})
	h, err := Open(Options{URL: urls("admin", creds.Admin), Dir: dir, Replicas: 3, Logger: testLog(t), EvalTime: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	waitFor(t, "the hub to set the streams up", 60*time.Second, h.Ready)
	th := &testHub{t: t, dir: dir, hub: h}

	host := openVTable(t, urls("h", creds.Tables["h"]), "h", t.TempDir(), record.Header{Game: "gyges"}, "", 31)
	waitFor(t, "the host's game", 20*time.Second, func() bool { return h.Game("h", GameID(host.sess.JournalPath())) != nil })
	guest := openVTable(t, urls("g", creds.Tables["g"]), "g", t.TempDir(), record.Header{}, "h", 32)
	joined(t, host, guest)
	steps(t, 8, host, guest)
	midGame(t, host, guest)
	// kill the node the host is connected to
	u, _ := url.Parse(host.link.Conn().ConnectedUrl())
	port, _ := strconv.Atoi(u.Port())
	for _, n := range nodes {
		if n.port == port {
			t.Logf("killing %s (the host's node) at ply %d", n.name, host.sess.State().Ply)
			n.kill()
		}
	}
	defer func(d time.Duration) { stuckAfter = d }(stuckAfter)
	stuckAfter = 90 * time.Second // consumers come back with a backoff of up to 10 s once the cluster has a leader again
	killed := time.Now()
	play(t, 20000, host, guest)
	t.Logf("the game ended %v after the kill", time.Since(killed).Round(time.Millisecond))
	sameGame(t, host, guest)
	hubMoves(t, th, "h", host)
	once(t, th, "h", host)
	once(t, th, "g", guest)
}

// resumeBound is how soon after the kill of the node a table talks to
// (not a stream's leader) it publishes again: reconnecting to another
// node and publishing what was journalled meanwhile (issue 37's spec;
// 67–109 ms measured here). leaderBound is the same after the kill of the
// games stream's leader: NATS elects another first, and when the node
// was the cluster's metadata leader too, that one before (a raft
// election timeout of 4 to 9 s each, not configurable); 6.7–15.5 s
// measured here.
const (
	resumeBound = 3 * time.Second
	leaderBound = 20 * time.Second
)

// TestClusterREADME runs the README's club set-up on a real three-node
// cluster: the hub with `--nats nats://admin:PW@n1:P1,n2:P2,n3:P3
// --replicas 3` (the credentials in the first URL only) and tables whose
// `hub =` lines are of the same form. The hub and the tables connect
// while only n1 is up, so all are on n1. While two tables play, n1 is
// killed (not the games stream's leader: publishing resumes within
// resumeBound), started again, and then the games stream's JetStream
// leader is killed (within leaderBound): the hub and the tables reconnect
// by themselves, and every journal is on the hub once, whole — in the
// stream and in the hub's own state. The failure messages give the
// figures measured.
func TestClusterREADME(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds nats-server and starts a three-node cluster")
	}
	began := time.Now()
	bin := natsServer(t)
	dir := t.TempDir()
	creds, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"alpha", "beta"}
	for _, n := range names {
		if _, err := creds.AddTable(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := creds.Save(dir); err != nil {
		t.Fatal(err)
	}
	nodes := make([]*clusterNode, 3)
	routes := make([]string, 3)
	cports := make([]int, 3)
	for i := range nodes {
		cports[i] = freePort(t)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", cports[i])
	}
	byName := map[string]*clusterNode{}
	for i := range nodes {
		n := &clusterNode{name: fmt.Sprintf("n%d", i+1), port: freePort(t)}
		n.conf = filepath.Join(dir, n.name+".conf")
		conf := fmt.Sprintf("server_name: %s\nhost: 127.0.0.1\nport: %d\njetstream { store_dir: %q }\n"+
			"cluster { name: tabla, host: 127.0.0.1, port: %d, routes: [%s] }\n%s",
			n.name, n.port, filepath.Join(dir, n.name), cports[i], strings.Join(routes, ", "), creds.NATSConfig())
		if err := os.WriteFile(n.conf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		nodes[i] = n
		byName[n.name] = n
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.kill()
		}
	})
	n1 := nodes[0]
	// the README's form: nats://USER:PW@n1:P1,n2:P2,n3:P3
	readme := func(user, pw string) string {
		return fmt.Sprintf("%s,127.0.0.1:%d,127.0.0.1:%d", UserURL(fmt.Sprintf("nats://127.0.0.1:%d", n1.port), user, pw), nodes[1].port, nodes[2].port)
	}
	portOf := func(nc *nats.Conn) int {
		u, err := url.Parse(nc.ConnectedUrl())
		if err != nil {
			return 0
		}
		p, _ := strconv.Atoi(u.Port())
		return p
	}
	nodeOf := func(nc *nats.Conn) string {
		if !nc.IsConnected() {
			return "none"
		}
		for _, n := range nodes {
			if n.port == portOf(nc) {
				return n.name
			}
		}
		return "?"
	}

	n1.start(t, bin)
	waitFor(t, "n1 to take clients", 30*time.Second, func() bool {
		nc, err := nats.Connect(UserURL(fmt.Sprintf("nats://127.0.0.1:%d", n1.port), "admin", creds.Admin), nats.Timeout(2*time.Second))
		if err == nil {
			nc.Close()
		}
		return err == nil
	})
	h, err := Open(Options{URL: readme("admin", creds.Admin), Dir: dir, Replicas: 3, Logger: testLog(t), EvalTime: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	// hubOn waits, on the hub's connection reports, until ok holds of its
	// connection
	hubOn := func(what string, d time.Duration, ok func(nc *nats.Conn) bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		changes := h.Subscribe(ctx, "")
		for !ok(h.Conn()) {
			select {
			case <-changes:
			case <-ctx.Done():
				t.Fatalf("the hub: %s: not within %v (on %s, last error %v)", what, d, nodeOf(h.Conn()), h.Conn().LastError())
			}
		}
	}
	// tableOn is hubOn for a table's link
	tableOn := func(jt *journalTable, what string, d time.Duration, ok func(nc *nats.Conn, s link.TableStats) bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		changes := jt.link.Subscribe(ctx)
		for !ok(jt.link.Conn(), jt.link.Stats()) {
			select {
			case <-changes:
			case <-ctx.Done():
				t.Fatalf("%s: %s: not within %v (on %s, link %+v)", jt.name, what, d, nodeOf(jt.link.Conn()), jt.link.Stats())
			}
		}
	}
	hubOn("connected to n1", 30*time.Second, func(nc *nats.Conn) bool { return nc.IsConnected() && portOf(nc) == n1.port })
	stop := make(chan struct{})
	var tables []*journalTable
	for i, n := range names {
		jt := newJournalTable(t, readme(n, creds.Tables[n]), n, uint64(i+500))
		jt.until = stop
		tables = append(tables, jt)
		tableOn(jt, "connected to n1", 30*time.Second, func(nc *nats.Conn, _ link.TableStats) bool { return nc.IsConnected() && portOf(nc) == n1.port })
	}
	nodes[1].start(t, bin)
	nodes[2].start(t, bin)
	// (two nats-server processes to start and elect leaders, 4–9 s an
	// election: within a minute on a quiet machine, but at go test -p 4 on
	// two cores, beside the browser tests, 60 s ran out once — BENCHMARKS,
	// "Issue 41 ... session 13")
	waitFor(t, "the hub to set the streams up on three nodes", 3*time.Minute, h.Ready)
	t.Logf("cluster up, hub and tables on n1 after %v", time.Since(began).Round(time.Millisecond))

	// an observer of the games stream's cluster state
	obs, err := link.Dial(readme("admin", creds.Admin), "test observer", "", 50*time.Millisecond, testLog(t), func(*nats.Conn) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ojs, err := jetstream.New(obs)
	if err != nil {
		t.Fatal(err)
	}
	streamCluster := func() *jetstream.ClusterInfo {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		st, err := ojs.Stream(ctx, StreamGames)
		if err != nil {
			return nil
		}
		info, err := st.Info(ctx)
		if err != nil {
			return nil
		}
		return info.Cluster
	}

	played := make(chan error, len(tables))
	for _, jt := range tables {
		go func() { played <- jt.play(t, 1000, 80*time.Millisecond) }()
	}
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}()
	// progress waits until every table has had n more events acknowledged
	progress := func(what string, n int) {
		t.Helper()
		for _, jt := range tables {
			base := jt.link.Stats().Published
			tableOn(jt, what, 90*time.Second, func(nc *nats.Conn, s link.TableStats) bool { return s.Published >= base+n })
		}
	}
	progress("events published before the kill", 10)
	// resumed waits until every table has had an event acknowledged after
	// the kill, and returns the longest wait
	published := func() []int {
		var n []int
		for _, jt := range tables {
			n = append(n, jt.link.Stats().Published)
		}
		return n
	}
	resumed := func(what string, killed time.Time, base []int, d time.Duration) time.Duration {
		t.Helper()
		var worst time.Duration
		for i, jt := range tables {
			tableOn(jt, what, d, func(nc *nats.Conn, s link.TableStats) bool { return s.Published > base[i] })
			worst = max(worst, time.Since(killed))
		}
		return worst
	}
	// n1 is to be the node the clients talk to, not the games stream's
	// leader (that kill is the next one)
	waitFor(t, "the games stream's leader on another node than n1", 60*time.Second, func() bool {
		c := streamCluster()
		if c == nil || c.Leader == "" {
			return false
		}
		if c.Leader != n1.name {
			return true
		}
		obs.Request("$JS.API.STREAM.LEADER.STEPDOWN."+StreamGames, nil, 2*time.Second)
		return false
	})
	progress("events published with the leader elsewhere", 3)

	// kill n1, the node the hub and the tables are on
	base := published()
	n1.kill()
	killed := time.Now()
	t.Logf("killed n1 at %v", killed.Sub(began).Round(time.Millisecond))
	// publishing resumes within 3 s (issue 37; it took 10–20 s: the link
	// compared its journals with the hub's copy first, and that waited 20 s
	// for the journals' stream, whose leader n1 was)
	if d := resumed("publishing again after n1's kill", killed, base, 60*time.Second); d > resumeBound {
		t.Errorf("publishing resumed %v after the kill of the tables' node, beyond the %v bound", d.Round(time.Millisecond), resumeBound)
	} else {
		t.Logf("publishing resumed %v after the kill of the tables' node (bound %v)", d.Round(time.Millisecond), resumeBound)
	}
	hubOn("reconnected to another node", 60*time.Second, func(nc *nats.Conn) bool { return nc.IsConnected() && portOf(nc) != n1.port })
	for _, jt := range tables {
		tableOn(jt, "reconnected to another node", 60*time.Second, func(nc *nats.Conn, _ link.TableStats) bool {
			return nc.IsConnected() && portOf(nc) != n1.port
		})
	}
	progress("events published after n1's kill", 10)
	t.Logf("play went on %v after n1's kill (hub on %s, tables on %s and %s)", time.Since(killed).Round(time.Millisecond),
		nodeOf(h.Conn()), nodeOf(tables[0].link.Conn()), nodeOf(tables[1].link.Conn()))

	// n1 again, caught up: then the stream's leader is killed
	n1.start(t, bin)
	var leader string
	waitFor(t, "n1 back as a current replica of the games stream", 60*time.Second, func() bool {
		c := streamCluster()
		if c == nil || c.Leader == "" || len(c.Replicas) != 2 {
			return false
		}
		for _, r := range c.Replicas {
			if !r.Current || r.Offline {
				return false
			}
		}
		leader = c.Leader
		return true
	})
	victim := byName[leader]
	if victim == nil {
		t.Fatalf("the games stream's leader %q is not a node of the cluster", leader)
	}
	progress("events published with n1 back", 5)
	hubWas, tablesWere := nodeOf(h.Conn()), []string{nodeOf(tables[0].link.Conn()), nodeOf(tables[1].link.Conn())}
	base = published()
	victim.kill()
	killed = time.Now()
	t.Logf("killed %s, the games stream's leader, at %v (hub on %s, tables on %v)", leader, killed.Sub(began).Round(time.Millisecond), hubWas, tablesWere)
	// the stream's replicas elect a leader first: NATS's election timeout
	// is 4 to 9 s, not configurable
	if d := resumed("publishing again after the leader's kill", killed, base, 60*time.Second); d > leaderBound {
		t.Errorf("publishing resumed %v after the kill of the games stream's leader, beyond the %v bound", d.Round(time.Millisecond), leaderBound)
	} else {
		t.Logf("publishing resumed %v after the kill of the games stream's leader (bound %v)", d.Round(time.Millisecond), leaderBound)
	}
	waitFor(t, "a new leader of the games stream", 60*time.Second, func() bool {
		c := streamCluster()
		return c != nil && c.Leader != "" && c.Leader != leader
	})
	hubOn("connected to a live node", 60*time.Second, func(nc *nats.Conn) bool { return nc.IsConnected() && portOf(nc) != victim.port })
	for _, jt := range tables {
		tableOn(jt, "connected to a live node", 60*time.Second, func(nc *nats.Conn, _ link.TableStats) bool {
			return nc.IsConnected() && portOf(nc) != victim.port
		})
	}
	progress("events published after the leader's kill", 10)
	t.Logf("play went on %v after the leader's kill", time.Since(killed).Round(time.Millisecond))

	close(stop)
	for range tables {
		select {
		case err := <-played:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the tables did not end their games within 60 s")
		}
	}
	for _, jt := range tables {
		jt.sent(t, 90*time.Second)
	}
	// the stream's copy
	var all []string
	for _, n := range nodes {
		all = append(all, UserURL(fmt.Sprintf("nats://127.0.0.1:%d", n.port), "admin", creds.Admin))
	}
	j, e := sameAsJournals(t, hubCopy(t, strings.Join(all, ",")), tables...)
	// the hub's own copy: every game with all of its events
	for _, jt := range tables {
		for _, p := range jt.journals(t) {
			tl, err := link.ReadJournal(p, jt.name)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			changes := h.Subscribe(ctx, jt.name)
			for {
				g := h.Game(jt.name, tl.Game)
				if g != nil && g.Events == len(tl.Events)-1 { // numbered from 0, the header
					if g.Err != nil {
						t.Fatalf("the hub: %s/%s: %v", jt.name, tl.Game, g.Err)
					}
					break
				}
				select {
				case <-changes:
					continue
				case <-ctx.Done():
				}
				held := 0
				if g != nil {
					held = g.Events + 1
				}
				h.mu.Lock()
				seq := h.lastSeq
				h.mu.Unlock()
				t.Fatalf("the hub holds %d of %s/%s's %d events within 60 s (it followed the stream to %d)", held, jt.name, tl.Game, len(tl.Events), seq)
			}
			cancel()
		}
	}
	// nobody but the nodes' deaths made them reconnect
	if r := h.Conn().Stats().Reconnects; r < 1 {
		t.Errorf("the hub reconnected %d times", r)
	}
	for _, jt := range tables {
		if r := jt.link.Conn().Stats().Reconnects; r < 1 {
			t.Errorf("%s reconnected %d times", jt.name, r)
		}
	}
	t.Logf("%d journals, %d events: the stream's and the hub's copies match the journals; %v in all", j, e, time.Since(began).Round(time.Millisecond))
}
