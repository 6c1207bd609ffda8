package webui

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/conntest"
)

// The listener serves at most MaxConns connections at once; a new one
// takes the place of the oldest idle one, and every one is served (here:
// timed out) in the end.
func TestLimitsCapConnections(t *testing.T) {
	lim := Limits{ReadHeader: 50 * time.Millisecond, Read: 50 * time.Millisecond, MaxConns: 3}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(context.Background(), http.NotFoundHandler(), lim)
	cl := &countingListener{Listener: ln}
	go srv.Serve(lim.Listener(cl))
	defer srv.Close()
	const n = 20
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("idle connection %d never closed", i)
		}
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	// One more than the cap is open for a moment: the new connection,
	// accepted before the one it evicts is closed.
	if cl.most > lim.MaxConns+1 || cl.accepted != n {
		t.Errorf("%d connections served, at most %d at once; want %d, at most %d", cl.accepted, cl.most, n, lim.MaxConns+1)
	}
}

// countingListener counts the connections open at once beneath the cap.
type countingListener struct {
	net.Listener
	mu                   sync.Mutex
	open, most, accepted int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.open++
	l.accepted++
	l.most = max(l.most, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// limitsServer serves h under lim (timeouts of a minute unless set, so
// that only the cap closes connections) on 127.0.0.1.
func limitsServer(t *testing.T, h http.Handler, lim Limits) string {
	t.Helper()
	for _, d := range []*time.Duration{&lim.ReadHeader, &lim.Read, &lim.Write, &lim.Idle} {
		if *d == 0 {
			*d = time.Minute
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(context.Background(), h, lim)
	go srv.Serve(lim.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// dialFrom connects to addr from the loopback address from (127.0.0.x:
// another client host).
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer waits (a minute at most) for the server to close c.
func closedByServer(t *testing.T, c net.Conn) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := io.Copy(io.Discard, c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// getFrom makes a GET / from the loopback address from and returns the
// body; the connection is kept alive.
func getFrom(t *testing.T, from, addr string) (string, net.Conn) {
	t.Helper()
	c := dialFrom(t, from, addr)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET from %s: %v", from, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET from %s: %s %q %v", from, resp.Status, b, err)
	}
	return string(b), c
}

// When the cap is full, a new connection takes the place of the oldest
// one whose request has not arrived (idle, half a header, a body that
// never ends), never of one being answered.
func TestLimitsEvictSlowForNew(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hold": // being answered until the test lets go
			entered <- struct{}{}
			<-hold
		case "/body":
			io.Copy(io.Discard, r.Body)
		}
		io.WriteString(w, "ok")
	})
	addr := limitsServer(t, h, Limits{MaxConns: 4})
	busy := dialFrom(t, "127.0.0.1", addr)
	io.WriteString(busy, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered
	idle := dialFrom(t, "127.0.0.1", addr)
	header := dialFrom(t, "127.0.0.1", addr)
	io.WriteString(header, "GET / HTTP/1.1\r\nHost: ")
	body := dialFrom(t, "127.0.0.1", addr)
	io.WriteString(body, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	// Each new request (kept alive: the cap stays full) takes the place
	// of the oldest slow one, then of the oldest idle between requests.
	var kept []net.Conn
	for i, want := range []net.Conn{idle, header, body, nil} {
		if want == nil {
			want = kept[0]
		}
		got, c := getFrom(t, "127.0.0.2", addr)
		if got != "ok" {
			t.Fatalf("request %d: %q", i, got)
		}
		kept = append(kept, c)
		if !closedByServer(t, want) {
			t.Fatalf("request %d: the oldest slow connection is still open", i)
		}
	}
	if !conntest.StillOpen(t, busy) {
		t.Fatal("the connection being answered was closed")
	}
	close(hold)
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the held request: %v %v", resp, err)
	}
}

// One address holds at most MaxPerHost connections: a new one takes the
// place of its oldest slow one, or is closed when all of them are being
// answered; other addresses are served all the same.
func TestLimitsPerHost(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	entered := make(chan struct{}, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-hold
		}
		io.WriteString(w, "ok")
	})
	addr := limitsServer(t, h, Limits{MaxConns: 100, MaxPerHost: 2})
	a := dialFrom(t, "127.0.0.1", addr)
	b := dialFrom(t, "127.0.0.1", addr)
	io.WriteString(b, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered
	c := dialFrom(t, "127.0.0.1", addr)
	io.WriteString(c, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered // c was served: it took a's place
	if !closedByServer(t, a) {
		t.Fatal("the idle connection was not evicted")
	}
	d := dialFrom(t, "127.0.0.1", addr)
	if !closedByServer(t, d) {
		t.Fatal("a third connection from an address whose two are being answered was not closed")
	}
	if got, _ := getFrom(t, "127.0.0.2", addr); got != "ok" {
		t.Fatalf("another address: %q", got)
	}
	if !conntest.StillOpen(t, b) || !conntest.StillOpen(t, c) {
		t.Fatal("a connection being answered was closed")
	}
}
