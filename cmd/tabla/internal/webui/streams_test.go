package webui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/conntest"
)

// hangGuard bounds every wait of these tests, so that a server that never
// answers fails them instead of hanging; nothing is timed against it.
const hangGuard = time.Minute

// streamServer serves a page (GET /) and an event stream (GET
// /api/events) under lim on 127.0.0.1, and counts the streams being
// served: the server's side of what is open.
type streamServer struct {
	addr    string
	changes chan struct{} // a state change, to one stream
	state   any

	mu      sync.Mutex
	open    int
	changed chan struct{} // open changed
}

func newStreamServer(t *testing.T, lim Limits, state any) *streamServer {
	t.Helper()
	s := &streamServer{changes: make(chan struct{}), changed: make(chan struct{}, 1), state: state}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the page") })
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		s.count(+1)
		defer s.count(-1)
		ServeEvents(w, r, func() any { return s.state }, func(context.Context) <-chan struct{} { return s.changes })
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(context.Background(), mux, lim)
	go srv.Serve(lim.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	s.addr = ln.Addr().String()
	return s
}

func (s *streamServer) count(d int) {
	s.mu.Lock()
	s.open += d
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// waitOpen waits until the server serves want streams.
func (s *streamServer) waitOpen(t *testing.T, want int) {
	t.Helper()
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	for {
		s.mu.Lock()
		got := s.open
		s.mu.Unlock()
		if got == want {
			return
		}
		select {
		case <-s.changed:
		case <-guard.C:
			t.Fatalf("the server serves %d event streams, want %d", got, want)
		}
	}
}

// openStream opens an event stream from the loopback address from and
// reads its first event; ok is false when the server does not answer.
func openStream(t *testing.T, from, addr string) (c net.Conn, ok bool) {
	t.Helper()
	c = dialFrom(t, from, addr)
	c.SetReadDeadline(time.Now().Add(hangGuard))
	defer c.SetReadDeadline(time.Time{})
	io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Logf("event stream from %s: %v %v", from, resp, err)
		return c, false
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Logf("event stream from %s: %v", from, err)
			return c, false
		}
		if strings.HasPrefix(line, "data: ") {
			return c, true
		}
	}
}

// The flood: 288 event streams from 9 addresses (a browser's
// worth of connections from each), then four from each of 60 more
// addresses, opened one after another. A phone from a new address then
// gets the page and an event stream: no address holds more than
// MaxStreamsPerHost streams, and all together hold DefaultLimits.MaxStreams,
// so the other slots are free. Before, the streams took all 256 slots and
// the phone got no answer.
func TestStreamBudgetFlood(t *testing.T) {
	lim := DefaultLimits
	s := newStreamServer(t, lim, map[string]int{"ply": 1})
	type stream struct {
		from string
		c    net.Conn
	}
	var flood []stream
	open := func(from string) {
		c, ok := openStream(t, from, s.addr)
		if !ok {
			t.Fatalf("event stream %d (from %s) got no answer", len(flood)+1, from)
		}
		flood = append(flood, stream{from, c})
	}
	for i := range 9 * lim.MaxPerHost {
		open(fmt.Sprintf("127.0.0.%d", 2+i%9))
	}
	for i := range 60 * 4 {
		open(fmt.Sprintf("127.0.1.%d", 1+i%60))
	}
	s.waitOpen(t, lim.MaxStreams)
	// The clients' side: what the server still holds open.
	byHost := map[string]int{}
	held := 0
	for _, f := range flood {
		if conntest.Drain(t, f.c) {
			byHost[f.from]++
			held++
		}
	}
	for from, n := range byHost {
		if n > MaxStreamsPerHost {
			t.Errorf("%s holds %d event streams, want at most %d", from, n, MaxStreamsPerHost)
		}
	}
	if held != lim.MaxStreams {
		t.Errorf("the clients hold %d of %d event streams open, the server %d", held, len(flood), lim.MaxStreams)
	}

	phone := "127.0.2.1"
	if got, _ := getFrom(t, phone, s.addr); got != "the page" {
		t.Fatalf("the phone's page: %q", got)
	}
	c, ok := openStream(t, phone, s.addr)
	if !ok {
		t.Fatal("the phone's event stream got no answer")
	}
	s.waitOpen(t, lim.MaxStreams)
	if !conntest.Drain(t, c) {
		t.Fatal("the phone's event stream was closed")
	}
	t.Logf("%d event streams opened from %d addresses; %d held; the phone got its page and stream", len(flood), 69, held)
}

// One address holds at most MaxStreamsPerHost event streams: its oldest
// yields to a new one, the others stay.
func TestStreamOldestYields(t *testing.T) {
	s := newStreamServer(t, DefaultLimits, map[string]int{"ply": 1})
	var conns []net.Conn
	for i := range MaxStreamsPerHost + 1 {
		c, ok := openStream(t, "127.0.0.2", s.addr)
		if !ok {
			t.Fatalf("event stream %d got no answer", i+1)
		}
		conns = append(conns, c)
	}
	if !closedByServer(t, conns[0]) {
		t.Fatal("the oldest event stream was not closed")
	}
	s.waitOpen(t, MaxStreamsPerHost)
	for i, c := range conns[1:] {
		if !conntest.Drain(t, c) {
			t.Errorf("event stream %d was closed", i+2)
		}
	}
	// Another address is not counted with it.
	if _, ok := openStream(t, "127.0.0.3", s.addr); !ok {
		t.Fatal("another address's event stream got no answer")
	}
	s.waitOpen(t, MaxStreamsPerHost+1)
}

// An event stream whose client does not read is cut once a write cannot
// leave within StreamWrite: the server no longer serves it and the client
// finds its connection closed. (The client's receive buffer is small and
// each state 64 KB, so that the buffers fill after a few changes.)
func TestStreamCutWhenNotRead(t *testing.T) {
	lim := Limits{ReadHeader: time.Minute, Read: time.Minute, Write: time.Minute, Idle: time.Minute,
		MaxConns: 16, MaxPerHost: 8, MaxStreams: 8, StreamsPerHost: 4, StreamWrite: 100 * time.Millisecond}
	s := newStreamServer(t, lim, map[string]string{"big": strings.Repeat("x", 64<<10)})
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		rc.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return err
	}}
	c, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
	s.waitOpen(t, 1)
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	// Changes until the stream ends (1,000 states are 64 MB, more than
	// any socket buffers).
	cut, sent := false, 0
	for range 1000 {
		select {
		case s.changes <- struct{}{}:
			sent++
			continue
		case <-s.changed:
		case <-guard.C:
			t.Fatal("the stream of a client that does not read is still served")
		}
		s.mu.Lock()
		cut = s.open == 0
		s.mu.Unlock()
		if cut {
			break
		}
	}
	if !cut {
		t.Fatal("the stream of a client that does not read is still served after 1,000 changes")
	}
	t.Logf("cut after %d changes of 64 KB taken by the stream", sent)
	s.waitOpen(t, 0)
	if !closedByServer(t, c) {
		t.Fatal("the server stopped the stream but the client's connection is still open")
	}
	// The address's slot is free again: a new stream is served.
	if _, ok := openStream(t, "127.0.0.2", s.addr); !ok {
		t.Fatal("a new event stream got no answer")
	}
	s.waitOpen(t, 1)
}

// When MaxStreams are open, a new stream takes the place of the oldest
// stream of the address holding the most, and its own oldest when no
// address holds more than it.
func TestStreamFullTakesFromTheMost(t *testing.T) {
	lim := Limits{MaxConns: 16, MaxPerHost: 8, MaxStreams: 4, StreamsPerHost: 4}
	s := newStreamServer(t, lim, map[string]int{"ply": 1})
	open := func(from string) net.Conn {
		c, ok := openStream(t, from, s.addr)
		if !ok {
			t.Fatalf("event stream from %s got no answer", from)
		}
		return c
	}
	b1 := open("127.0.0.2")
	c1 := open("127.0.0.3")
	a1, a2 := open("127.0.0.4"), open("127.0.0.4")
	d1 := open("127.0.0.5") // full: 127.0.0.4 holds the most
	if !closedByServer(t, a1) {
		t.Fatal("the oldest stream of the address holding the most was not closed")
	}
	s.waitOpen(t, 4)
	b2 := open("127.0.0.2") // everyone holds one: its own oldest yields
	if !closedByServer(t, b1) {
		t.Fatal("with no address holding more, the address's own oldest stream was not closed")
	}
	s.waitOpen(t, 4)
	for name, c := range map[string]net.Conn{"127.0.0.3": c1, "127.0.0.4's newer": a2, "127.0.0.5": d1, "127.0.0.2's newer": b2} {
		if !conntest.Drain(t, c) {
			t.Errorf("the stream of %s was closed", name)
		}
	}
}
