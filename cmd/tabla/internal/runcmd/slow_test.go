package runcmd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
)

// nextEvent reads one server-sent event's data.
func nextEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var data string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream ended: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "data: "):
			data = line[len("data: "):]
		case line == "" && data != "":
			return data
		}
	}
}

// TestSlowClients: a thousand connections to the daemon's page server that
// send nothing, half a header, or a body that never ends hold it only
// until its timeouts close them; a normal request is answered all the
// same, and the live page's event stream, open all along, outlives the
// timeouts. (The timeouts are shortened for the test.)
func TestSlowClients(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ready struct {
		s    *companion.Session
		addr string
	}
	rc := make(chan ready, 1)
	var errb bytes.Buffer
	lim := webui.Limits{ReadHeader: 300 * time.Millisecond, Read: 300 * time.Millisecond, Write: 300 * time.Millisecond,
		Idle: 300 * time.Millisecond, MaxConns: 100}
	o := &Options{IO: &cmdutil.IO{Out: &errb, Err: &errb}, Game: "star", First: "red", Board: "sim", Journal: t.TempDir(),
		Listen: "127.0.0.1:0", Token: "sesame", Seed: 1, Limits: &lim,
		Ready: func(s *companion.Session, addr string) { rc <- ready{s, addr} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var r ready
	select {
	case r = <-rc:
	case err := <-done:
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	base := "http://" + r.addr

	stream, err := http.Get(base + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := bufio.NewReader(stream.Body)
	first := nextEvent(t, events)

	const n = 1000
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range n {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
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
	if code, body := post(t, "GET", base+"/api/state", "", nil, ""); code != 200 || !strings.Contains(body, `"board"`) {
		t.Fatalf("a normal request among %d slow ones: %d %q", n, code, body)
	}
	// Every slow connection is closed by the server: reading it ends at
	// its end, not at this test's own (generous) deadline.
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(time.Minute))
		_, err := io.Copy(io.Discard, c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("slow connection %d (kind %d) still open after a minute", i, i%3)
		}
	}
	// The event stream outlived the timeouts: a change made now reaches it.
	script := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer sesame"}
	if code, body := post(t, "POST", base+"/api/action", "", script, `{"lift":"b1"}`); code != 200 {
		t.Fatalf("lift: %d %q", code, body)
	}
	for {
		if ev := nextEvent(t, events); ev != first {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A start that fails (here: an address that cannot be listened on) leaves
// no journal behind: before, it left an empty game that the next start
// resumed instead of the unfinished one.
func TestFailedStartLeavesNoJournal(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var errb bytes.Buffer
	first := &Options{IO: &cmdutil.IO{Out: &errb, Err: &errb}, Game: "star", First: "red", Board: "sim", Journal: dir,
		Listen: "off", Seed: 1, Ready: func(*companion.Session, string) { cancel() }}
	if err := Run(ctx, first); err != nil {
		t.Fatalf("first start: %v\n%s", err, errb.String())
	}
	before, _ := filepath.Glob(filepath.Join(dir, "game-*.jsonl"))
	if len(before) != 1 {
		t.Fatalf("journals after the first start: %v", before)
	}
	for _, listen := range []string{"999.1.1.1:99999", "127.0.0.1:99999"} {
		o := &Options{IO: &cmdutil.IO{Out: &errb, Err: &errb}, Game: "star", First: "red", Board: "sim", Journal: dir,
			Listen: listen, NoResume: true, Seed: 2}
		err := Run(context.Background(), o)
		if cmdutil.CodeOf(err) != cmdutil.ExitError || !strings.Contains(err.Error(), listen) {
			t.Errorf("--listen %s: exit %d, %v; want exit 1 naming the address", listen, cmdutil.CodeOf(err), err)
		}
	}
	after, _ := filepath.Glob(filepath.Join(dir, "game-*.jsonl"))
	if !slices.Equal(after, before) {
		t.Fatalf("journals after the failed starts: %v, want %v", after, before)
	}
}
