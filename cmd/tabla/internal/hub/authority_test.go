package hub

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/remote"
	"github.com/tabla-board/tabla/engine/record"
)

// answered waits until the host has answered n seat requests.
func answered(t testing.TB, v *vtable, n int) {
	t.Helper()
	waitFor(t, "the host to answer the seat request", 10*time.Second, func() bool {
		return v.rem.Answered() >= n
	})
}

// TestOnlyTheHostGrantsItsSeats: an unrelated table cannot write a seat
// of another's game (NATS refuses the put), and its request for a seat
// another table plays is not granted — the host's game is untouched.
func TestOnlyTheHostGrantsItsSeats(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	urls := th.tableURLs("x", "h", "g")
	xURL := urls["x"]
	host := openVTable(t, urls["h"], "h", t.TempDir(), record.Header{Game: "gyges"}, "", 51)
	waitFor(t, "the host's game", 10*time.Second, func() bool { return th.hub.Game("h", GameID(host.sess.JournalPath())) != nil })
	guest := openVTable(t, urls["g"], "g", t.TempDir(), record.Header{}, "h", 52)
	joined(t, host, guest)
	steps(t, 6, host, guest)
	midGame(t, host, guest)
	plies := len(host.sess.History())
	before := host.rem.Answered()

	pe := &permErrs{}
	nc, err := nats.Connect(xURL, nats.ErrorHandler(pe.handler), nats.CustomInboxPrefix(Inbox("x")))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, BucketSeats)
	if err != nil {
		t.Fatal(err)
	}
	gid := GameID(host.sess.JournalPath())
	seat := guest.rem.Seat()
	fake, _ := json.Marshal(Ref{Table: "x", Game: "whatever", Seat: seat})
	short, scancel := context.WithTimeout(ctx, time.Second) // a refused publish gets no answer
	_, err = kv.Put(short, seatKey("h", gid, seat), fake)
	scancel()
	if err == nil {
		t.Fatal("table x wrote a seat of h's game")
	}
	waitFor(t, "the permission error", 5*time.Second, func() bool { return pe.saw("Permissions Violation for Publish to \"$KV.tabla_seats.h.") })
	// its own request: allowed to ask, not granted (g plays the seat)
	if _, err := kv.Put(ctx, requestKey("x", "h", gid, seat), fake); err != nil {
		t.Fatalf("x asking for a seat: %v", err)
	}
	answered(t, host, before+1)
	e, err := kv.Get(ctx, seatKey("h", gid, seat))
	if err != nil {
		t.Fatal(err)
	}
	var p Ref
	json.Unmarshal(e.Value(), &p)
	if p.Table != "g" {
		t.Fatalf("the seat is played by %q now, want g", p.Table)
	}
	// a request in g's name from x: refused by NATS too
	short, scancel = context.WithTimeout(ctx, time.Second)
	_, err = kv.Put(short, requestKey("g", "h", gid, seat), fake)
	scancel()
	if err == nil {
		t.Fatal("table x asked in g's name")
	}
	if n := len(host.sess.History()); n < plies {
		t.Fatalf("the host's game went back from ply %d to %d", plies, n)
	}
	play(t, 20000, host, guest)
	sameGame(t, host, guest)
}

// TestBrowserSeatNotMidGame: the board's seat cannot be taken over from
// the browser once the game is under way (it took the whole game back).
func TestBrowserSeatNotMidGame(t *testing.T) {
	th := startHub(t)
	host := openVTable(t, th.tableURL("h"), "h", t.TempDir(), record.Header{Game: "gyges"}, "", 53)
	steps(t, 3, host)
	waitFor(t, "the game under way on the hub", 10*time.Second, func() bool {
		g := th.hub.Game("h", GameID(host.sess.JournalPath()))
		return g != nil && len(g.Steps) > 0
	})
	plies := len(host.sess.History())
	base := "http://" + th.httpAddr + "/api/tables/h"
	for _, seat := range host.sess.Seats() {
		code, msg := post(t, base+"/play", "secret", map[string]string{"seat": seat})
		if code != http.StatusConflict || !strings.Contains(string(msg), "under way") {
			t.Fatalf("claiming %s mid-game: %d %s, want 409 under way", seat, code, msg)
		}
	}
	steps(t, 2, host)
	if n := len(host.sess.History()); n < plies {
		t.Fatalf("the game went back from ply %d to %d", plies, n)
	}
}

// TestSpectatorRights: the spectator creates no durable consumer, deletes
// no consumer of the hub's and reads no reply but its own.
func TestSpectatorRights(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	c, _ := LoadCredentials(th.dir)
	u := UserURL("nats://"+th.addr, "spectator", c.Spectator)
	pe := &permErrs{}
	nc, err := nats.Connect(u, nats.ErrorHandler(pe.handler), nats.CustomInboxPrefix(Inbox("spectator")))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	short := func() context.Context {
		c, cancel := context.WithTimeout(ctx, time.Second)
		t.Cleanup(cancel)
		return c
	}
	// reading, with an ephemeral consumer, works
	if _, err := js.OrderedConsumer(ctx, StreamGames, jetstream.OrderedConsumerConfig{}); err != nil {
		t.Fatalf("an ordered consumer: %v", err)
	}
	// a durable one through the durable API subject: refused
	if _, err := nc.Request("$JS.API.CONSUMER.DURABLE.CREATE."+StreamGames+".mine",
		[]byte(`{"stream_name":"TABLA_GAMES","config":{"durable_name":"mine","ack_policy":"none"}}`), time.Second); err == nil {
		t.Fatal("the spectator created a durable consumer")
	}
	// a durable one through the consumer API (its name in the subject, which
	// permissions cannot tell from an ephemeral one's): it goes when unused
	kept, err := js.CreateOrUpdateConsumer(ctx, StreamGames, jetstream.ConsumerConfig{Durable: "kept", AckPolicy: jetstream.AckNonePolicy})
	if err != nil {
		t.Fatal(err)
	}
	if d := kept.CachedInfo().Config.InactiveThreshold; d <= 0 || d > ConsumerIdle {
		t.Fatalf("a reader's durable consumer stays for %v unused, want at most %v", d, ConsumerIdle)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, StreamGames, jetstream.ConsumerConfig{Durable: "forever", AckPolicy: jetstream.AckNonePolicy,
		InactiveThreshold: 100 * ConsumerIdle}); err == nil {
		t.Fatal("a consumer that stays 100 hours unused")
	}
	// the hub's consumer (the admin's): not to be deleted
	adm, err := th.hub.js.CreateOrUpdateConsumer(ctx, StreamGames, jetstream.ConsumerConfig{Durable: "hubs", AckPolicy: jetstream.AckNonePolicy})
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteConsumer(short(), StreamGames, adm.CachedInfo().Name); err == nil {
		t.Fatal("the spectator deleted the hub's consumer")
	}
	if _, err := th.hub.js.Consumer(ctx, StreamGames, "hubs"); err != nil {
		t.Fatalf("the hub's consumer: %v", err)
	}
	// others' replies
	sub, err := nc.SubscribeSync("_INBOX.>")
	if err == nil {
		nc.Flush()
		waitFor(t, "the permission error", 5*time.Second, func() bool { return pe.saw(`Permissions Violation for Subscription to "_INBOX.>"`) })
		sub.Unsubscribe()
	}
}

// TestAnalysisLimited: engine analyses on the hub's library need the
// token, or are a few a minute.
func TestAnalysisLimited(t *testing.T) {
	th := startHub(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	th.hub.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	url := "http://" + th.httpAddr + "/library/api/analysis"
	ask := func(token string) (int, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "http://"+th.httpAddr)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	for i := range AnalysisRate {
		if code, _ := ask(""); code == http.StatusTooManyRequests {
			t.Fatalf("analysis %d of the minute refused", i+1)
		}
	}
	code, retry := ask("")
	if code != http.StatusTooManyRequests || retry == "" {
		t.Fatalf("analysis %d of the minute: %d (Retry-After %q), want 429", AnalysisRate+1, code, retry)
	}
	if code, _ := ask("secret"); code == http.StatusTooManyRequests {
		t.Fatal("an analysis with the token refused")
	}
	mu.Lock()
	now = now.Add(time.Minute / AnalysisRate)
	mu.Unlock()
	if code, _ := ask(""); code == http.StatusTooManyRequests {
		t.Fatal("refused after the wait it asked for")
	}
}

// TestLivePageOnlyForKnownTables: /t/NAME/ of a table the hub has never
// heard of is 404 (a page handler was kept for every name asked).
func TestLivePageOnlyForKnownTables(t *testing.T) {
	th := startHub(t)
	host := openVTable(t, th.tableURL("h"), "h", t.TempDir(), record.Header{Game: "gyges"}, "", 54)
	waitFor(t, "the host's game", 10*time.Second, func() bool { return th.hub.Game("h", GameID(host.sess.JournalPath())) != nil })
	for name, want := range map[string]int{"h": 200, "nosuch": 404, "zz-" + strings.Repeat("a", 20): 404} {
		resp, err := http.Get("http://" + th.httpAddr + "/t/" + name + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("/t/%s/: %d, want %d", name, resp.StatusCode, want)
		}
	}
}

// TestOtherBoardGone: when the board that plays the seat to move goes
// away, asking this board for a hint says so (the board shows that none
// comes) instead of waiting without a word.
func TestOtherBoardGone(t *testing.T) {
	th := startHub(t)
	host := openVTable(t, th.tableURL("h"), "h", t.TempDir(), record.Header{Game: "gyges"}, "", 71)
	waitFor(t, "the host's game", 10*time.Second, func() bool { return th.hub.Game("h", GameID(host.sess.JournalPath())) != nil })
	guest := openVTable(t, th.tableURL("g"), "g", t.TempDir(), record.Header{}, "h", 72)
	joined(t, host, guest)
	seat := guest.rem.Seat()
	// play until the guest's seat is to move
	for range 200 {
		st := host.state()
		if st.ToMove() >= 0 && st.Info().Seats[st.ToMove()] == seat && len(host.sess.History()) > 2 {
			break
		}
		steps(t, 1, host, guest)
	}
	st := host.state()
	if st.ToMove() < 0 || st.Info().Seats[st.ToMove()] != seat {
		t.Skip("the game never came to the guest's seat")
	}
	waitFor(t, "the guest's live status", 10*time.Second, func() bool {
		return !host.rem.LastHeard(seat).IsZero()
	})
	if _, err := host.rem.Hint(st); !errors.Is(err, companion.ErrNoHintYet) {
		t.Fatalf("with the other board there: %v, want ErrNoHintYet", err)
	}
	guest.close()
	host.rem.SetClock(func() time.Time { return time.Now().Add(2 * remote.OfflineAfter) })
	_, err := host.rem.Hint(st)
	if err == nil || errors.Is(err, companion.ErrNoHintYet) || !strings.Contains(err.Error(), "board g") {
		t.Fatalf("with the other board gone: %v, want it said", err)
	}
	t.Log(err)
}
