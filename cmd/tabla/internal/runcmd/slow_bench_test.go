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
)

// BenchmarkSlowClients: issue 25 item 3's budget on `tabla run`'s page
// server with its real limits (webui.DefaultLimits: 10 s for a header,
// 30 s for a request, 256 connections at once). 1,000 connections are
// opened that send nothing, half a header, or a body that never ends (a
// third each); then a normal GET /api/state is made. Reported:
//   - answer-s: how long that request waited for its answer;
//   - closed-s: how long until the server had closed the last slow
//     connection (before the timeouts: never, 4,009 descriptors after 120 s);
//   - fds-held: the descriptors the process held once all were closed,
//     beyond those it held before and the benchmark's own 1,000 (the
//     normal request's kept-alive connection, both ends, is 2).
//
// The request waits while the slow connections fill the cap: the listener
// accepts in arrival order, and 744 connections wait for a slot ahead of it.
func BenchmarkSlowClients(b *testing.B) {
	for b.Loop() {
		slowClients(b)
	}
}

func openFDs() int {
	d, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(d)
}

func slowClients(b *testing.B) {
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
		c, err := net.Dial("tcp", r.addr)
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
	resp, err := http.Get("http://" + r.addr + "/api/state")
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	answer := time.Since(start)
	if resp.StatusCode != 200 {
		b.Fatalf("a normal request among %d slow ones: %s", n, resp.Status)
	}
	closed.Wait()
	held := openFDs() - before // our own client side is still open
	for _, c := range conns {
		c.Close()
	}
	b.ReportMetric(answer.Seconds(), "answer-s")
	b.ReportMetric(last.Seconds(), "closed-s")
	b.ReportMetric(float64(held-n), "fds-held")
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
