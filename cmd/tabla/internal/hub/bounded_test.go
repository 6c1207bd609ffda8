package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
)

// TestWebMoveNotApplied: a browser's move the hub never applies is an
// error, not a 200.
func TestWebMoveNotApplied(t *testing.T) {
	th := startHub(t)
	host, base := rayOnHub(t, th, 61)
	if code, msg := post(t, base+"/play", "secret", map[string]string{"seat": "blue"}); code != 200 {
		t.Fatalf("play blue: %d %s", code, msg)
	}
	id := webID("h", GameID(host.sess.JournalPath()), "blue")
	waitFor(t, "the browser's record", 10*time.Second, func() bool { return th.hub.Game(WebTable, id) != nil })
	// play on until it is the browser's turn
	var turn Turn
	deadline := time.Now().Add(20 * time.Second)
	for getJSON(t, base+"/legal?seat=blue", &turn); turn.Awaiting == ""; getJSON(t, base+"/legal?seat=blue", &turn) {
		if time.Now().After(deadline) {
			t.Fatal("the browser's seat never had its turn")
		}
		if !host.step() {
			th.awaitChange() // the board waits for the hub
		}
	}
	// the record goes wrong (an event no game can apply, as a writer
	// that lost a race would leave it): later events never apply
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	subj := RecSubject(WebTable, id)
	n, seq, err := link.LastEvent(ctx, th.hub.js, subj)
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg(subj)
	msg.Data, _ = json.Marshal(Event{N: n + 1, Line: json.RawMessage(`{"move":"zz9-zz9","by":"blue"}`)})
	msg.Header.Set(hdrN, strconv.Itoa(n+1))
	if _, err := th.hub.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(seq)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hub to take the bad event", 10*time.Second, func() bool {
		g := th.hub.Game(WebTable, id)
		return g != nil && g.Err != nil
	})
	move := ""
	if turn.Awaiting == "move" {
		move = turn.Moves[0]
	}
	code, body := post(t, base+"/move", "secret", map[string]string{"seat": "blue", "move": move})
	if code == http.StatusOK {
		t.Fatalf("a step that cannot apply answered 200: %s", body)
	}
	t.Logf("%d %s", code, strings.TrimSpace(string(body)))
}

// TestMirrorRefused: `tabla library --hub` and `tabla stats --hub` with a
// wrong password or an unreachable hub end with the reason, not a hang
// that says "context canceled" when the person gives up.
func TestMirrorRefused(t *testing.T) {
	defer func(d time.Duration) { mirrorPatience = d }(mirrorPatience)
	mirrorPatience = 500 * time.Millisecond
	th := startHub(t)
	for _, c := range []struct{ name, url, want string }{
		{"wrong password", UserURL("nats://"+th.addr, "spectator", "wrong"), "refused the credentials"},
		{"nobody there", UserURL("nats://127.0.0.1:"+strconv.Itoa(freePort(t)), "spectator", "pw"), "cannot reach"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, _, err := Mirror(ctx, c.url, "", t.TempDir(), testLog(t))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "wrong@") {
				t.Fatalf("got %v, want an error saying %q (and no password)", err, c.want)
			}
			t.Log(err)
		})
	}
}

// TestHubKeepsOnlyWhatItShows: the hub keeps every table's current game
// and a few finished ones in memory (the library holds them all), and a
// restarted hub reads its games stream from its checkpoint — the oldest
// game it still shows — not from the first event ever published.
func TestHubKeepsOnlyWhatItShows(t *testing.T) {
	defer func(n int) { keepEnded = n }(keepEnded)
	keepEnded = 2
	th := startHub(t)
	jt := newJournalTable(t, th.tableURL("solo"), "solo", 400)
	const games = 6
	if err := jt.play(t, games, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	jt.sent(t, 30*time.Second)
	journals := jt.journals(t)
	total := 0
	var lastEvents int
	for _, p := range journals {
		tl, err := link.ReadJournal(p, "solo")
		if err != nil {
			t.Fatal(err)
		}
		total += len(tl.Events)
		lastEvents = len(tl.Events)
	}
	last := GameID(journals[len(journals)-1])
	waitFor(t, "the hub to follow every game", 20*time.Second, func() bool {
		g := th.hub.Game("solo", last)
		return g != nil && g.Events == lastEvents-1
	})
	inMemory := func() int {
		th.hub.mu.Lock()
		defer th.hub.mu.Unlock()
		return len(th.hub.games)
	}
	if n := inMemory(); n > keepEnded+1 {
		t.Fatalf("the hub keeps %d games in memory, want at most %d finished and the current one", n, keepEnded)
	}
	for _, p := range journals[:games-1] {
		if _, err := os.Stat(filepath.Join(th.dir, "library", "solo", GameID(p)+".jsonl")); err != nil {
			t.Fatalf("a finished game is not in the library: %v", err)
		}
	}
	th.stop()
	th.start()
	th.hub.mu.Lock()
	applied := th.hub.applied
	th.hub.mu.Unlock()
	if applied != lastEvents {
		t.Fatalf("the restarted hub read %d events, want the %d of the game the table plays now (of %d in all)", applied, lastEvents, total)
	}
	if g := th.hub.Game("solo", last); g == nil || g.Events != lastEvents-1 {
		t.Fatalf("the table's current game after the restart: %+v", g)
	}
	t.Logf("%d games, %d events; the restarted hub read %d", games, total, applied)
}
