package webui

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// The listener serves at most MaxConns connections at once; the others
// wait their turn and are served (here: timed out) as places free up.
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
	if cl.most > lim.MaxConns || cl.accepted != n {
		t.Errorf("%d connections served, at most %d at once; want %d, at most %d", cl.accepted, cl.most, n, lim.MaxConns)
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
