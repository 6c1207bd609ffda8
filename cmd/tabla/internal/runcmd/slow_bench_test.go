package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/conntest"
)

// BenchmarkSlowClients: issue 25 item 3's budget on `tabla run`'s page
// server with its real limits (webui.DefaultLimits: 10 s for a header,
// 30 s for a request, 256 connections at once, 32 from one address). A
// stranger (127.0.0.1; see the sub-benchmarks) opens 1,000 connections
// that send nothing, half a header, or a body that never ends (a third
// each); then a phone
// (127.0.0.100) makes a normal GET /api/state, and so does the stranger.
// Reported:
//   - answer-s: how long the phone's request waited for its answer;
//   - same-addr-answer-s: the same for the stranger's own request;
//   - held: the slow connections still open when the phone's answer came;
//   - closed-s: how long until the server had closed the last slow
//     connection (before the timeouts: never, 4,009 descriptors after 120 s);
//   - fds-held: the descriptors the process held once all were closed,
//     beyond those it held before and the benchmark's own 1,000 (the
//     normal requests' kept-alive connections, both ends, are 2 each).
//
// Sub-benchmarks: the stranger on one address, or on 20 (127.0.0.1-20,
// 50 connections each: 32 held each would be 640, so the cap of 256 is
// full and new connections take the places of the oldest slow ones).
func BenchmarkSlowClients(b *testing.B) {
	for _, hosts := range []int{1, 20} {
		b.Run(fmt.Sprintf("addresses=%d", hosts), func(b *testing.B) {
			for b.Loop() {
				slowClients(b, hosts)
			}
		})
	}
}

func openFDs() int {
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(d)
}

func slowClients(b *testing.B, hosts int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ready struct {
		s    *companion.Session
		addr string
	}
	rc := make(chan ready, 1)
	var errb bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &errb, Err: &errb}, Game: "star", First: "red", Board: "sim", Journal: b.TempDir(),
		Listen: "127.0.0.1:0", Token: "sesame", Seed: 1,
		Ready: func(s *companion.Session, addr string) { rc <- ready{s, addr} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var r ready
	select {
	case r = <-rc:
	case err := <-done:
		b.Fatalf("run: %v\n%s", err, errb.String())
	}
	before := openFDs()
	const n = 1000
	conns := make([]net.Conn, 0, n)
	for i := range n {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i%hosts))}}
		c, err := d.Dial("tcp", r.addr)
		if err != nil {
			b.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		switch i % 3 {
		case 0: // idle: sends nothing
		case 1: // the header never ends
			io.WriteString(c, "GET /api/state HTTP/1.1\r\nHost: ")
		case 2: // the body never ends
			fmt.Fprintf(c, "POST /api/action HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
				"Authorization: Bearer sesame\r\nContent-Length: 100000\r\n\r\n{\"wait\":", r.addr)
		}
	}
	start := time.Now()
	get := func(from string) time.Duration {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		t0 := time.Now()
		resp, err := c.Get("http://" + r.addr + "/api/state")
		if err != nil {
			b.Fatalf("a normal request from %s among %d slow ones: %v", from, n, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("a normal request from %s among %d slow ones: %s", from, n, resp.Status)
		}
		return time.Since(t0)
	}
	answer := get("127.0.0.100")
	held := 0
	for _, c := range conns {
		if conntest.StillOpen(b, c) {
			held++
		}
	}
	sameAnswer := get("127.0.0.1")
	var closed sync.WaitGroup
	var mu sync.Mutex
	var last time.Duration
	for _, c := range conns {
		closed.Add(1)
		go func() {
			defer closed.Done()
			c.SetReadDeadline(time.Now().Add(5 * time.Minute))
			io.Copy(io.Discard, c) // until the server closes it
			mu.Lock()
			last = max(last, time.Since(start))
			mu.Unlock()
		}()
	}
	closed.Wait()
	fds := openFDs() - before // our own client side is still open
	for _, c := range conns {
		c.Close()
	}
	b.ReportMetric(answer.Seconds(), "answer-s")
	b.ReportMetric(sameAnswer.Seconds(), "same-addr-answer-s")
	b.ReportMetric(float64(held), "held")
	b.ReportMetric(last.Seconds(), "closed-s")
	b.ReportMetric(float64(fds-n), "fds-held")
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
