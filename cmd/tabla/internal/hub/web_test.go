package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/engine/record"
)

func post(t testing.TB, url, token string, body any) (int, []byte) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func getJSON(t testing.TB, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// TestBrowserPlay: a person plays a seat of a board's game on the hub's
// page (with the hub's token): the hub rolls for that seat and publishes
// its moves, the board lights them to carry out, and the board's journal,
// the browser seat's record and the hub's copy agree to the game's end.
func TestBrowserPlay(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	host, base := rayOnHub(t, th, 41)
	if code, _ := post(t, base+"/play", "", map[string]string{"seat": "blue"}); code != http.StatusUnauthorized {
		t.Fatalf("play without the token: %d, want 401", code)
	}
	if code, _ := post(t, base+"/play", "nope", map[string]string{"seat": "blue"}); code != http.StatusUnauthorized {
		t.Fatalf("play with a wrong token: %d, want 401", code)
	}
	// a refusal carries the developer's text and the same in plain words
	for _, c := range []struct {
		what, path, token string
		body              map[string]string
		code              int
		err, say          string
	}{
		{"play without the token", "/play", "", map[string]string{"seat": "blue"}, http.StatusUnauthorized, "bad or missing token", "The hub's token is missing or wrong"},
		{"play a seat the game has not", "/play", "secret", map[string]string{"seat": "green"}, http.StatusBadRequest, ErrSeat.Error(), "That is not a seat of this game."},
		{"a move for a seat not played here", "/move", "secret", map[string]string{"seat": "blue", "move": ""}, http.StatusConflict, "not played in a browser here", "This seat is not played in a browser here"},
	} {
		code, body := post(t, base+c.path, c.token, c.body)
		var r Refused
		if err := json.Unmarshal(body, &r); err != nil || code != c.code || !strings.Contains(r.Error, c.err) || !strings.HasPrefix(r.Message, c.say) || strings.Contains(r.Message, "hub:") {
			t.Fatalf("%s: %d %s, want %d with %q and, for people, %q", c.what, code, body, c.code, c.err, c.say)
		}
	}
	if code, msg := post(t, base+"/play", "secret", map[string]string{"seat": "blue"}); code != 200 {
		t.Fatalf("play blue: %d %s", code, msg)
	}
	waitFor(t, "the table to see the browser's seat", 60*time.Second, func() bool { return !host.mine("blue") })
	// the game goes on while the board or the browser makes a step; a
	// starved machine slows it, a stuck one stops it
	progress := time.Now()
	for host.sess.State().Status == "playing" {
		if time.Since(progress) > stuckAfter {
			st := host.sess.State()
			t.Logf("host: to_move %v awaiting %s mode %s in_sync %v hint %q; %s", deref(st.ToMove), st.Awaiting, st.Mode, st.InSync, st.Hint, host.rem.Debug())
			if g := th.hub.Game(WebTable, webID("h", GameID(host.sess.JournalPath()), "blue")); g != nil {
				t.Logf("browser's record: %d events, err %v, steps %v", g.Events, g.Err, g.Steps)
			}
			t.Logf("host's steps: %v", journalSteps(t, host.sess.JournalPath()))
			t.Fatalf("the game stopped for %v: %+v", stuckAfter, st.Moves)
		}
		if host.step() {
			progress = time.Now()
			continue
		}
		var turn Turn
		getJSON(t, base+"/legal?seat=blue", &turn)
		if turn.Awaiting == "" || turn.Awaiting == "move" && len(turn.Moves) == 0 {
			th.awaitChange() // not the browser's turn (yet)
			continue
		}
		move := ""
		if turn.Awaiting == "move" {
			move = turn.Moves[0]
		}
		if slices.Equal(turn.Moves, []string{"pass"}) {
			t.Fatal("the browser was offered a forced pass: the hub plays that itself (two writers of one event)")
		}
		if code, msg := post(t, base+"/move", "secret", map[string]string{"seat": "blue", "move": move}); code != 200 {
			t.Fatalf("move %q: %d %s", move, code, msg)
		}
		progress = time.Now()
	}
	hs := journalSteps(t, host.sess.JournalPath())
	id := webID("h", GameID(host.sess.JournalPath()), "blue")
	waitFor(t, "the browser's record to end with the game", 60*time.Second, func() bool {
		g := th.hub.Game(WebTable, id)
		return g != nil && slices.Equal(g.Steps, hs)
	})
	hubMoves(t, th, "h", host)
	rolls := 0
	for _, s := range hs {
		if s.Roll && s.Seat == "blue" {
			rolls++
		}
	}
	if rolls == 0 {
		t.Fatal("the browser's seat never rolled")
	}
	t.Logf("ray with a browser playing blue: %d steps, %d rolls of blue", len(hs), rolls)
}

// TestWebMoveRecordMovedOn: a browser's roll whose event a writer
// elsewhere (another hub process, or the hub's own copying of the host's
// steps) got into the record first is decided again on the record as it
// then stands, not answered with the stream's conflict: the person sees a
// plain answer, the record holds the one roll, and the seat plays on.
func TestWebMoveRecordMovedOn(t *testing.T) {
	hook := hookWebPublishing(t)
	th := startHub(t)
	host, base := rayOnHub(t, th, 71)
	if code, msg := post(t, base+"/play", "secret", map[string]string{"seat": "blue"}); code != 200 {
		t.Fatalf("play blue: %d %s", code, msg)
	}
	id := webID("h", GameID(host.sess.JournalPath()), "blue")
	var turn Turn
	deadline := time.Now().Add(60 * time.Second)
	for getJSON(t, base+"/legal?seat=blue", &turn); turn.Awaiting != "roll"; getJSON(t, base+"/legal?seat=blue", &turn) {
		if time.Now().After(deadline) {
			t.Fatal("the browser's seat never had its roll")
		}
		if !host.step() {
			th.awaitChange() // the board waits for the hub
		}
	}
	// the writer elsewhere rolls for blue just before the browser's roll
	// is published
	var foreign atomic.Int64
	foreign.Store(-1)
	f := func(rid string, n int, _ json.RawMessage) error {
		if rid != id || !foreign.CompareAndSwap(-1, int64(n)) {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		subj := RecSubject(WebTable, id)
		last, seq, err := link.LastEvent(ctx, th.hub.js, subj)
		if err != nil || last != n-1 {
			t.Errorf("the record's last event: %d, %v; want %d", last, err, n-1)
			return nil
		}
		msg := nats.NewMsg(subj)
		msg.Data, _ = json.Marshal(Event{N: n, Line: json.RawMessage(`{"roll":"N","by":"blue","source":"engine"}`)})
		msg.Header.Set(hdrN, strconv.Itoa(n))
		if _, err := th.hub.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(seq)); err != nil {
			t.Errorf("the other writer's roll: %v", err)
		}
		return nil
	}
	hook.Store(&f)
	code, body := post(t, base+"/move", "secret", map[string]string{"seat": "blue", "move": ""})
	hook.Store(nil)
	var r Refused
	json.Unmarshal(body, &r)
	n := int(foreign.Load())
	if n < 0 {
		t.Fatalf("the other writer never wrote (%d %s)", code, body)
	}
	if strings.Contains(r.Error, "wrong last sequence") || strings.HasPrefix(r.Message, "The hub could not do that") || code != http.StatusConflict || !strings.HasPrefix(r.Message, "Make a move") {
		t.Fatalf("the browser's roll after another's: %d %s, want 409 saying to make a move (the seat has rolled)", code, body)
	}
	g := th.hub.Game(WebTable, id)
	if g == nil || g.Events != n || !g.Steps[len(g.Steps)-1].Roll || g.Steps[len(g.Steps)-1].Seat != "blue" {
		t.Fatalf("the browser's record: %+v, want event %d blue's roll, the last", g, n)
	}
	// the seat plays on
	waitFor(t, "the browser's move (or the hub's pass for it)", 10*time.Second, func() bool {
		getJSON(t, base+"/legal?seat=blue", &turn)
		g := th.hub.Game(WebTable, id)
		return turn.Awaiting == "move" || g != nil && g.Events > n
	})
	if turn.Awaiting == "move" {
		if code, body := post(t, base+"/move", "secret", map[string]string{"seat": "blue", "move": turn.Moves[0]}); code != 200 {
			t.Fatalf("move %s after the other writer's roll: %d %s", turn.Moves[0], code, body)
		}
	}
	t.Logf("%d %s", code, strings.TrimSpace(string(body)))
	// the writers' turns are held only while a record is written: the map
	// does not grow with the records the hub ever wrote
	waitFor(t, "the writers' turns let go", 10*time.Second, func() bool {
		th.hub.web.pmu.Lock()
		defer th.hub.web.pmu.Unlock()
		return len(th.hub.web.writing) == 0
	})
}

// rayOnHub opens a RAY table "h" (its dice seeded with seed), paired with
// the hub, and waits until the hub has its game: the table and its API's
// address.
func rayOnHub(t *testing.T, th *testHub, seed uint64) (*vtable, string) {
	t.Helper()
	host := openVTable(t, th.tableURL("h"), "h", t.TempDir(), record.Header{Game: "ray"}, "", seed)
	host.paired = true
	base := "http://" + th.httpAddr + "/api/tables/h"
	waitFor(t, "the table's game on the hub", 60*time.Second, func() bool {
		var v TableView
		return getJSON(t, base, &v) == 200 && v.Game != nil
	})
	return host, base
}

// hookWebPublishing sets webPublishing, before the hub starts, to call the
// function the returned pointer holds (none: nothing).
func hookWebPublishing(t *testing.T) *atomic.Pointer[func(id string, n int, line json.RawMessage) error] {
	var hook atomic.Pointer[func(id string, n int, line json.RawMessage) error]
	webPublishing = func(id string, n int, line json.RawMessage) error {
		if f := hook.Load(); f != nil {
			return (*f)(id, n, line)
		}
		return nil
	}
	t.Cleanup(func() { webPublishing = nil }) // after the hub stops (registered first, run last)
	return &hook
}

// TestBrowserSeatAfterAFailedCopy: the hub's copy of the host's step into
// a browser's record fails once (a starved server: the publish timed out)
// just before the browser's turn. Nothing else happens then (the board
// waits for the browser's seat, the seat's record for the board's step),
// so the hub tries the copy again by itself: the browser's seat gets its
// turn. Before, the game stood still for good (TestBrowserPlay at load 21).
func TestBrowserSeatAfterAFailedCopy(t *testing.T) {
	hook := hookWebPublishing(t)
	th := startHub(t)
	host, base := rayOnHub(t, th, 81)
	var failed atomic.Bool
	f := func(_ string, n int, line json.RawMessage) error {
		// yellow's move, after which blue is to roll
		if strings.Contains(string(line), `"by":"yellow"`) && strings.Contains(string(line), `"move"`) && failed.CompareAndSwap(false, true) {
			return fmt.Errorf("hub: publishing event %d: %w", n, context.DeadlineExceeded)
		}
		return nil
	}
	hook.Store(&f)
	if code, msg := post(t, base+"/play", "secret", map[string]string{"seat": "blue"}); code != 200 {
		t.Fatalf("play blue: %d %s", code, msg)
	}
	var turn Turn
	progress := time.Now()
	for getJSON(t, base+"/legal?seat=blue", &turn); turn.Awaiting == ""; getJSON(t, base+"/legal?seat=blue", &turn) {
		if time.Since(progress) > stuckAfter {
			t.Fatalf("the browser's seat never had its turn (the copy failed: %v)", failed.Load())
		}
		if host.step() {
			progress = time.Now()
			continue
		}
		th.awaitChange() // the board waits for the hub
	}
	if !failed.Load() {
		t.Fatal("no copy of yellow's move failed")
	}
	if turn.Awaiting != "roll" {
		t.Fatalf("blue's turn: %+v, want its roll", turn)
	}
}
