package hub

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
)

func TestServers(t *testing.T) {
	for _, c := range []struct {
		name, url      string
		servers        []string
		user, password string
		err            string
	}{
		{name: "one", url: "nats://alpha:pw@club.local:4222", servers: []string{"nats://club.local:4222"}, user: "alpha", password: "pw"},
		{name: "readme's cluster", url: "nats://admin:PW@n1:4222,n2:4222,n3:4222",
			servers: []string{"nats://n1:4222", "nats://n2:4222", "nats://n3:4222"}, user: "admin", password: "PW"},
		{name: "credentials on a later server", url: "nats://n1:4222,nats://admin:PW@n2:4222",
			servers: []string{"nats://n1:4222", "nats://n2:4222"}, user: "admin", password: "PW"},
		{name: "the same everywhere", url: "tls://a:p@n1:4222,tls://a:p@n2:4222", servers: []string{"tls://n1:4222", "tls://n2:4222"}, user: "a", password: "p"},
		{name: "none", url: "nats://n1:4222", servers: []string{"nats://n1:4222"}},
		{name: "two users", url: "nats://a:p@n1:4222,nats://b:q@n2:4222", err: "two different users"},
		{name: "empty", url: "", err: "no NATS server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			servers, user, pw, err := link.Servers(c.url)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got error %v, want one saying %q", err, c.err)
				}
				if strings.Contains(err.Error(), "PW") || strings.Contains(err.Error(), ":q@") {
					t.Fatalf("the error shows a password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(servers, c.servers) || user != c.user || pw != c.password {
				t.Fatalf("got %v %q %q, want %v %q %q", servers, user, pw, c.servers, c.user, c.password)
			}
		})
	}
}

// authLog counts the server's refusals of credentials.
type authLog struct {
	slog.Handler
	refused *atomic.Int64
	seen    chan struct{}
}

func (a authLog) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "authentication error") || strings.Contains(r.Message, "Authorization") {
		a.refused.Add(1)
		select {
		case a.seen <- struct{}{}:
		default:
		}
	}
	return nil
}

func (a authLog) Enabled(context.Context, slog.Level) bool { return true }
func (a authLog) WithAttrs([]slog.Attr) slog.Handler       { return a }
func (a authLog) WithGroup(string) slog.Handler            { return a }

// connected waits, on the connection's own reports, until the table's
// link is connected.
func connected(t testing.TB, ln *link.Table, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	changes := ln.Subscribe(ctx)
	for !ln.Stats().Connected {
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("%s: not connected within %v", ln.Name(), d)
		}
	}
}

// TestTableBeforeAdd starts a table before its user exists on the hub: the
// hub refuses it again and again (nats.go gives up after two refusals
// unless told not to); `table add` on the running hub reloads the users
// exactly once, and the table connects within 5 s of it.
func TestTableBeforeAdd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var refused atomic.Int64
	log := authLog{refused: &refused, seen: make(chan struct{}, 1)}
	srv, err := StartServer(ServerConfig{Dir: dir, Listen: "127.0.0.1:0", Logger: slog.New(log)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	w := natsrv.CredWatch{Server: srv, Log: testLog(t)}
	if w.Check() {
		t.Fatal("a reload with no change to the credentials")
	}
	// the password `table add` will give it, known in advance
	creds, err := LoadCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	creds.Tables["late"] = "the-late-table-password"
	ln, err := link.Connect(link.TableOptions{URL: UserURL(srv.ClientURL(), "late", "the-late-table-password"), JournalDir: t.TempDir(),
		Logger: testLog(t), ReconnectWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(0) })
	ln.Start(nil)
	deadline := time.After(30 * time.Second)
	for refused.Load() < 4 {
		select {
		case <-log.seen:
		case <-deadline:
			t.Fatalf("the hub refused the table %d times in 30 s", refused.Load())
		}
	}
	if err := creds.Save(dir); err != nil { // what `tabla hub table add late` does
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, CredentialsFile))
	if err != nil {
		t.Fatal(err)
	}
	added := time.Now()
	if !w.Check() {
		t.Fatal("no reload after table add")
	}
	for i := range 3 {
		if w.Check() {
			t.Fatalf("reload %d after one table add", i+2)
		}
	}
	if n := srv.Loads(); n != 2 {
		t.Fatalf("the server loaded its configuration %d times, want 2 (the start and one reload)", n)
	}
	// the hub never writes the credentials (an add while it reloads would
	// be lost, and its write would look like another change)
	if after, err := os.ReadFile(filepath.Join(dir, CredentialsFile)); err != nil || string(after) != string(before) {
		t.Fatalf("the hub rewrote %s on reload (%v)", CredentialsFile, err)
	}
	connected(t, ln, 5*time.Second)
	t.Logf("refused %d times; connected %v after the reload", refused.Load(), time.Since(added).Round(time.Millisecond))
}

// TestCredentialsForEveryServer gives the password in the first URL of a
// server list only, as the README writes a cluster's: when the server the
// client is on dies, it fails over to another with the same credentials.
func TestCredentialsForEveryServer(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	a, err := StartServer(ServerConfig{Dir: dirA, Listen: "127.0.0.1:0", Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dirA, CredentialsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirB, CredentialsFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := StartServer(ServerConfig{Dir: dirB, Listen: "127.0.0.1:0", Logger: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	// hostOf is a server URL's host:port, "" for none (ConnectedUrl of a
	// connection that dropped between two reads: sliced, "" panicked and
	// ended the test binary at load 15)
	hostOf := func(u string) string {
		i := max(strings.LastIndexByte(u, '@'), strings.LastIndex(u, "://")+2) + 1
		if i > len(u) {
			return ""
		}
		return u[i:]
	}
	servers := map[string]*Server{hostOf(a.ClientURL()): a, hostOf(b.ClientURL()): b}
	t.Cleanup(func() {
		for _, s := range servers {
			s.Shutdown()
		}
	})
	url := a.URL("admin", a.Credentials().Admin) + "," + strings.TrimPrefix(b.ClientURL(), "nats://")
	changes := make(chan struct{}, 16)
	nc, err := link.Dial(url, "test", "", 50*time.Millisecond, testLog(t), func(*nats.Conn) { changes <- struct{}{} }, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	until := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !ok() {
			select {
			case <-changes:
			case <-deadline:
				t.Fatalf("%s: not within 10 s (status %v, last error %v)", what, nc.Status(), nc.LastError())
			}
		}
	}
	var on string
	until("connected", func() bool {
		on = hostOf(nc.ConnectedUrl())
		return nc.IsConnected() && on != ""
	})
	first := servers[on]
	if first == nil {
		t.Fatalf("connected to %s, not one of the list", on)
	}
	first.Shutdown()
	delete(servers, on)
	until("failed over", func() bool {
		h := hostOf(nc.ConnectedUrl())
		return nc.IsConnected() && h != "" && h != on
	})
	if err := nc.Flush(); err != nil {
		t.Fatalf("after the fail-over: %v", err)
	}
}
