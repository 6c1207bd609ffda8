package link

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/crypto/bcrypt"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// TestCheckedCountsWhatVerifyPutBack: a journal marked sent whose last
// event the hub lacks (an older version marked journals sent before their
// last lines were acknowledged) is put back by the comparison at connect;
// until a pass over the journals has read it the link must not say
// Checked with no Backlog — the state "all on the hub" that Close and the
// tests wait for. Before, runVerify set Checked as it ended, beside the
// last pass's Backlog of 0, and TestStartRepublishesWhatTheHubLacks read
// the hub before the event was published (1 run in 10). The passes and
// the comparison are driven here one by one (no publishing loop), so the
// order that was a race there is the order here.
func TestCheckedCountsWhatVerifyPutBack(t *testing.T) {
	srv, js, pw := startTestHub(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// a finished game's journal, with a second end line the hub never got
	dir := t.TempDir()
	name := companion.JournalName("gyges", time.Date(2026, 12, 8, 0, 1, 0, 0, time.UTC))
	path := filepath.Join(dir, name)
	writeGame(t, path, 6)
	appendLine(t, path, `{"end":"new"}`)
	appendLine(t, path, `{"end":"new"}`)
	rec, err := ReadJournal(path, "solo")
	if err != nil {
		t.Fatal(err)
	}
	all := len(rec.Events)
	subj := wire.RecSubject("solo", rec.Game)
	for n, ev := range rec.Events[:all-1] {
		msg := nats.NewMsg(subj)
		msg.Data = ev
		msg.Header.Set(wire.HdrN, strconv.Itoa(n))
		if _, err := js.PublishMsg(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, wire.JournalSubject("solo", rec.Game), data); err != nil {
		t.Fatal(err)
	}

	ln, err := Connect(TableOptions{URL: natsrv.UserURL(srv.ClientURL(), "solo", pw), JournalDir: dir, ReconnectWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close(0)
	// that version marked it sent, and kept no counts
	state, _ := json.Marshal(pubState{Done: map[string][]string{ln.hubKey(): {name}}})
	if err := os.WriteFile(filepath.Join(dir, stateFile), state, 0o644); err != nil {
		t.Fatal(err)
	}
	changes := ln.Subscribe(ctx)
	// the connect's report (onConn) pokes the loop, which does not run
	// here: once the poke is there, the report is in
	select {
	case <-ln.poke:
	case <-ctx.Done():
		t.Fatal("the link did not connect")
	}
	ln.loopCtx = ctx

	// the pass at connect starts the comparison; wait for its end
	ln.sync(ctx)
	for {
		ln.mu.Lock()
		running := ln.verifying != nil
		ln.mu.Unlock()
		if !running {
			break
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatal("the comparison did not end")
		}
	}
	hubN := func() int {
		n, _, err := LastEvent(ctx, js, subj)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := hubN(); n != all-2 {
		t.Fatalf("the hub holds up to event %d before the link published, want %d", n, all-2)
	}
	if ln.Sent() != 0 {
		t.Fatalf("%s is still marked sent while the hub lacks event %d", name, all-1)
	}
	if s := ln.Stats(); s.Checked && s.Backlog == 0 {
		t.Fatalf("the link says all is on the hub (%+v) while the hub lacks event %d of %s, put back by the comparison", s, all-1, name)
	}

	// the pass the comparison woke: the journal read, its event published
	ln.sync(ctx)
	if s := ln.Stats(); !s.Checked || s.Backlog != 0 {
		t.Fatalf("after the pass that read the journal put back: %+v, want checked with no backlog", s)
	}
	if n := hubN(); n != all-1 {
		t.Fatalf("the hub holds up to event %d, the journal %d", n, all-1)
	}
	if ln.Sent() != 1 {
		t.Fatalf("%s not marked sent again once the hub has all of it", name)
	}
	if got := ln.loadState().Events[ln.hubKey()][name]; got != all {
		t.Fatalf("%s marked sent with %d events, the journal has %d", name, got, all)
	}
}

// writeGame writes a GYGES journal of plies moves (the first legal one
// each time).
func writeGame(t *testing.T, path string, plies int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := record.NewWriter(f)
	h := record.Header{Game: "gyges"}
	if err := w.WriteHeader(&h); err != nil {
		t.Fatal(err)
	}
	st, err := record.NewState(&h)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 8, 0, 1, 0, 0, time.UTC)
	for ply := 0; ply < plies && st.Result().Status == engine.Playing; ply++ {
		m := st.Moves(nil)[0]
		by := st.Info().Seats[st.ToMove()]
		text := engine.MoveString(st, m)
		st.Play(m)
		if err := w.Write(record.Line{Move: text, By: by, T: at.Add(time.Duration(ply) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		t.Fatal(err)
	}
}

// TestCloseTakesUpTheLastLines: a line journalled just before Close
// (the session's last move, then `tabla run` stops) is published within
// Close's wait. Before, Close drained while Backlog > 0, and Backlog was
// the last pass's, taken before the line was written: Close returned at
// once and stopped the pass that would have published it (the move
// reached the hub only at the table's next start). Stats.Pending now says
// a report is not yet taken up by a pass.
func TestCloseTakesUpTheLastLines(t *testing.T) {
	srv, js, pw := startTestHub(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	ln, err := Connect(TableOptions{URL: natsrv.UserURL(srv.ClientURL(), "solo", pw), JournalDir: dir, ReconnectWait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close(0)
	changes := ln.Subscribe(ctx)
	ln.Start(nil)
	path := filepath.Join(dir, companion.JournalName("gyges", time.Date(2026, 12, 8, 0, 1, 0, 0, time.UTC)))
	writeGame(t, path, 4)
	ln.Journalled(path, 4)
	first, err := ReadJournal(path, "solo")
	if err != nil {
		t.Fatal(err)
	}
	subj := wire.RecSubject("solo", first.Game)
	for {
		if s := ln.Stats(); s.Connected && s.Checked && s.Backlog == 0 {
			if n, _, err := LastEvent(ctx, js, subj); err == nil && n == len(first.Events)-1 {
				break
			}
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("the journal not published: %+v", ln.Stats())
		}
	}
	appendLine(t, path, `{"end":"new"}`)
	ln.Journalled(path, 4)
	ln.Close(30 * time.Second)
	rec, err := ReadJournal(path, "solo")
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := LastEvent(ctx, js, subj)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(rec.Events)-1 {
		t.Fatalf("after Close the hub holds up to event %d of the journal's %d: the line journalled before Close was not published", n, len(rec.Events)-1)
	}
}

// startTestHub starts a hub's NATS server with its streams and a table
// "solo": the server, the admin's JetStream and the table's password.
func startTestHub(t *testing.T) (*natsrv.Server, jetstream.JetStream, string) {
	t.Helper()
	natsrv.BcryptCost = bcrypt.MinCost
	hubDir := t.TempDir()
	creds, err := natsrv.LoadCredentials(hubDir)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := creds.AddTable("solo")
	if err != nil {
		t.Fatal(err)
	}
	if err := creds.Save(hubDir); err != nil {
		t.Fatal(err)
	}
	srv, err := natsrv.StartServer(natsrv.ServerConfig{Dir: hubDir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	nc, err := nats.Connect(srv.URL("admin", creds.Admin))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := natsrv.Setup(ctx, js, 1); err != nil {
		t.Fatal(err)
	}
	return srv, js, pw
}
