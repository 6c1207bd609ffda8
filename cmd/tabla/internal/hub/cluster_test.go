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
