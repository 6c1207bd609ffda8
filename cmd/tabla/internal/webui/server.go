package webui

import (
	"container/list"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what clients can hold of a page server: how long a request
// may take to arrive, a response to leave and a kept-alive connection to
// sit idle, how many connections are open at once and how many of them
// one client address may hold. Every page server (tabla run, sim, library,
// hub) is built from them with NewServer and Listener, so that a thousand
// slow or idle connections cannot starve the phones at the table.
//
// When the cap is full, a new connection takes the place of the oldest one
// whose request has not fully arrived (nothing sent yet, a header or body
// still coming, or idle between requests); only when every connection is
// being answered does it wait for one to close. When its address holds
// MaxPerHost connections, it takes the place of that address's oldest such
// connection, or is closed at once. So a stranger holding hundreds of slow
// connections holds at most MaxPerHost of them, and a phone is answered at
// once all the same.
//
// Event streams (ServeEvents) are answered for as long as the client
// stays, so they are a budget of their own: one address holds at most
// StreamsPerHost of them, and its oldest yields (is closed) to a new one;
// all addresses together hold at most MaxStreams, fewer than MaxConns, so
// that the other slots stay for plain requests and a phone from a new
// address is answered however many streams a few addresses open. When
// MaxStreams are open, a new stream takes the place of the oldest stream
// of the address holding the most (its own oldest when no address holds
// more than it). Each write to a stream must leave within StreamWrite, or
// the stream is cut: a client that stops reading does not hold its slot.
type Limits struct {
	ReadHeader time.Duration // the request line and headers
	Read       time.Duration // the whole request, body included
	Write      time.Duration // the response; event streams lift it (ServeEvents)
	Idle       time.Duration // a kept-alive connection between requests
	MaxConns   int           // connections served at once (0: no cap)
	MaxPerHost int           // connections from one client IP address, loopback included (0: no cap)

	MaxStreams     int           // event streams open at once, all addresses (0: no cap); keep it below MaxConns
	StreamsPerHost int           // event streams from one client IP address (0: no cap)
	StreamWrite    time.Duration // each write to an event stream (0: Write; both 0: none)
}

// MaxStreamsPerHost is a table's cap on the event streams of one client
// address (DefaultLimits.StreamsPerHost): a phone's page needs one, a
// second tab or a reload another.
const MaxStreamsPerHost = 4

// DefaultLimits suit a board's page on a LAN: a few phones, each with an
// event stream and a few requests (a browser opens up to six connections
// to a host), and a library download of up to library.MaxRecordBytes over
// slow Wi-Fi.
var DefaultLimits = Limits{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      5 * time.Minute,
	Idle:       2 * time.Minute,
	MaxConns:   256,
	MaxPerHost: 32,
	// Three quarters of the slots: 64 stay for pages, API requests and
	// new phones whatever the streams do.
	MaxStreams:     192,
	StreamsPerHost: MaxStreamsPerHost,
	StreamWrite:    30 * time.Second,
}

// NewServer returns a server of h with l's timeouts; its requests'
// contexts derive from ctx, so that cancelling ctx ends event streams
// (which http.Server.Shutdown does not wait for). It tells the connections
// of Listener which of them are being answered, and so may not be
// evicted: serve it from l.Listener (or from a plain listener).
func NewServer(ctx context.Context, h http.Handler, l Limits) *http.Server {
	streamWrite := l.StreamWrite
	if streamWrite == 0 {
		streamWrite = l.Write
	}
	return &http.Server{
		Handler:           tracked(h),
		BaseContext:       func(net.Listener) context.Context { return context.WithValue(ctx, streamWriteKey{}, streamWrite) },
		ConnContext:       connContext,
		ConnState:         connState,
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
	}
}

// Listener caps ln at l.MaxConns connections open at once and
// l.MaxPerHost from one address, as Limits says. (Its wait is
// golang.org/x/net/netutil.LimitListener's; the eviction is this
// package's own.)
func (l Limits) Listener(ln net.Listener) net.Listener {
	if l.MaxConns <= 0 && l.MaxPerHost <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, max: l.MaxConns, perHost: l.MaxPerHost,
		conns: list.New(), hosts: map[string]int{}, freed: make(chan struct{}, 1), done: make(chan struct{}),
		maxStreams: l.MaxStreams, streamsPerHost: l.StreamsPerHost, streams: list.New(), hostStreams: map[string]int{}}
}

type limitListener struct {
	net.Listener
	max, perHost int
	freed        chan struct{} // a connection closed
	done         chan struct{}
	closeOnce    sync.Once

	mu    sync.Mutex
	conns *list.List     // of *limitConn, oldest first
	hosts map[string]int // open connections by address

	maxStreams, streamsPerHost int
	streams                    *list.List     // of *limitConn serving an event stream, oldest first (guarded by mu)
	hostStreams                map[string]int // open event streams by address; no entry at 0 (guarded by mu)
}

type limitConn struct {
	net.Conn
	l    *limitListener
	host string

	// guarded by l.mu
	elem     *list.Element // nil once released
	stream   *list.Element // in l.streams while it serves an event stream
	busy     int           // handlers running on it
	reading  int           // of which reading a body that has not ended
	hijacked bool
}

// evictable: its request has not fully arrived, or it has none.
func (c *limitConn) evictable() bool {
	return !c.hijacked && (c.busy == 0 || c.reading > 0)
}

func hostOf(a net.Addr) string {
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return a.String()
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &limitConn{Conn: nc, l: l, host: hostOf(nc.RemoteAddr())}
		if l.admit(c) {
			return c, nil
		}
		nc.Close()
		select {
		case <-l.done:
			return nil, net.ErrClosed
		default:
		}
	}
}

// admit makes room for c and registers it, waiting while every connection
// is being answered; false when c's address is full of such connections
// or the listener is closed.
func (l *limitListener) admit(c *limitConn) bool {
	l.mu.Lock()
	if l.perHost > 0 && l.hosts[c.host] >= l.perHost && !l.evictLocked(c.host) {
		l.mu.Unlock()
		return false
	}
	for l.max > 0 && l.conns.Len() >= l.max && !l.evictLocked("") {
		l.mu.Unlock()
		select {
		case <-l.freed:
		case <-l.done:
			return false
		}
		l.mu.Lock()
	}
	c.elem = l.conns.PushBack(c)
	l.hosts[c.host]++
	l.mu.Unlock()
	return true
}

// evictLocked closes the oldest evictable connection (of host, unless
// empty); false when there is none.
func (l *limitListener) evictLocked(host string) bool {
	for e := l.conns.Front(); e != nil; e = e.Next() {
		v := e.Value.(*limitConn)
		if (host == "" || v.host == host) && v.evictable() {
			l.releaseLocked(v)
			v.Conn.Close()
			return true
		}
	}
	return false
}

func (l *limitListener) releaseLocked(c *limitConn) {
	l.endStreamLocked(c)
	if c.elem == nil {
		return
	}
	l.conns.Remove(c.elem)
	c.elem = nil
	if l.hosts[c.host]--; l.hosts[c.host] == 0 {
		delete(l.hosts, c.host)
	}
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.releaseLocked(c)
	c.l.mu.Unlock()
	return err
}

// startStream counts c's event stream, first closing the stream that
// yields to it (Limits says which); false when c is no longer open.
func (l *limitListener) startStream(c *limitConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.elem == nil {
		return false
	}
	own := func(v *limitConn) bool { return v.host == c.host }
	if l.streamsPerHost > 0 && l.hostStreams[c.host] >= l.streamsPerHost {
		l.yieldLocked(own)
	}
	if l.maxStreams > 0 && l.streams.Len() >= l.maxStreams {
		most := 0
		for _, n := range l.hostStreams {
			most = max(most, n)
		}
		if most > l.hostStreams[c.host] {
			l.yieldLocked(func(v *limitConn) bool { return l.hostStreams[v.host] == most })
		} else {
			l.yieldLocked(own)
		}
	}
	c.stream = l.streams.PushBack(c)
	l.hostStreams[c.host]++
	return true
}

// yieldLocked closes the oldest event stream that matches.
func (l *limitListener) yieldLocked(match func(*limitConn) bool) {
	for e := l.streams.Front(); e != nil; e = e.Next() {
		v := e.Value.(*limitConn)
		if match(v) {
			l.releaseLocked(v)
			v.Conn.Close()
			return
		}
	}
}

// endStreamLocked uncounts c's event stream, if it serves one.
func (l *limitListener) endStreamLocked(c *limitConn) {
	if c.stream == nil {
		return
	}
	l.streams.Remove(c.stream)
	c.stream = nil
	if l.hostStreams[c.host]--; l.hostStreams[c.host] == 0 {
		delete(l.hostStreams, c.host)
	}
}

// openStreams is the number of event streams open.
func (l *limitListener) openStreams() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.streams.Len()
}

// streamSlot counts r's event stream against its listener's budget (when
// served through Limits.Listener and NewServer); release uncounts it. ok
// is false when the stream has already yielded its place.
func streamSlot(r *http.Request) (release func(), ok bool) {
	c, isLimited := r.Context().Value(connKey{}).(*limitConn)
	if !isLimited {
		return func() {}, true
	}
	if !c.l.startStream(c) {
		return func() {}, false
	}
	return func() {
		c.l.mu.Lock()
		c.l.endStreamLocked(c)
		c.l.mu.Unlock()
	}, true
}

type streamWriteKey struct{}

// streamWriteTimeout is the time each write to an event stream has
// (NewServer's Limits.StreamWrite; DefaultLimits' elsewhere).
func streamWriteTimeout(r *http.Request) time.Duration {
	if d, ok := r.Context().Value(streamWriteKey{}).(time.Duration); ok {
		return d
	}
	return DefaultLimits.StreamWrite
}

type connKey struct{}

func connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

func connState(c net.Conn, s http.ConnState) {
	if lc, ok := c.(*limitConn); ok && s == http.StateHijacked {
		lc.l.mu.Lock()
		lc.hijacked = true
		lc.l.mu.Unlock()
	}
}

// tracked marks a connection as being answered while h runs, except while
// h waits for the rest of the request's body.
func tracked(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(connKey{}).(*limitConn)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		c.l.mu.Lock()
		c.busy++
		c.l.mu.Unlock()
		defer func() {
			c.l.mu.Lock()
			c.busy--
			c.l.mu.Unlock()
		}()
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &bodyReader{ReadCloser: r.Body, c: c}
		}
		h.ServeHTTP(w, r)
	})
}

// bodyReader marks its connection as evictable while a Read waits for the
// client.
type bodyReader struct {
	io.ReadCloser
	c *limitConn
}

func (b *bodyReader) Read(p []byte) (int, error) {
	b.c.l.mu.Lock()
	b.c.reading++
	b.c.l.mu.Unlock()
	n, err := b.ReadCloser.Read(p)
	b.c.l.mu.Lock()
	b.c.reading--
	b.c.l.mu.Unlock()
	return n, err
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
