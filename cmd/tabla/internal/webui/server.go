package webui

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what clients can hold of a page server: how long a request
// may take to arrive, a response to leave and a kept-alive connection to
// sit idle, and how many connections are open at once (more wait in the
// kernel's queue until one closes). Every page server (tabla run, sim,
// library, hub) is built from them with NewServer and Listener, so that a
// thousand slow or idle connections cannot starve the phones at the table.
type Limits struct {
	ReadHeader time.Duration // the request line and headers
	Read       time.Duration // the whole request, body included
	Write      time.Duration // the response; event streams lift it (ServeEvents)
	Idle       time.Duration // a kept-alive connection between requests
	MaxConns   int           // connections served at once (0: no cap)
}

// DefaultLimits suit a board's page on a LAN: a few phones, each with an
// event stream and a few requests, and a library download of up to
// library.MaxRecordBytes over slow Wi-Fi.
var DefaultLimits = Limits{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      5 * time.Minute,
	Idle:       2 * time.Minute,
	MaxConns:   256,
}

// NewServer returns a server of h with l's timeouts; its requests'
// contexts derive from ctx, so that cancelling ctx ends event streams
// (which http.Server.Shutdown does not wait for).
func NewServer(ctx context.Context, h http.Handler, l Limits) *http.Server {
	return &http.Server{
		Handler:           h,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
	}
}

// Listener caps ln at l.MaxConns connections open at once: Accept waits
// for one to close. (golang.org/x/net/netutil.LimitListener, in a few
// lines rather than a module.)
func (l Limits) Listener(ln net.Listener) net.Listener {
	if l.MaxConns <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, l.MaxConns), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, sem: l.sem}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	sem  chan struct{}
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.sem })
	return err
}

// longLived lifts the server's read and write deadlines for a response
// that streams for as long as the client stays (an event stream): the
// write timeout would cut it, and the read deadline would end its request
// context when it passes.
func longLived(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	rc.SetReadDeadline(time.Time{})
}
