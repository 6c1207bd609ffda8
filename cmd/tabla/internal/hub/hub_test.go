package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
)

// play runs the tables' people until every game is over (or max steps).
func play(t testing.TB, max int, tables ...*vtable) {
	t.Helper()
	idle := 0
	progress, lastLen := time.Now(), -1
	dump := func() {
		for _, v := range tables {
			st := v.sess.State()
			t.Logf("%s: ply %d mode %s in_sync %v to_move %v awaiting %s hint %q pending %v moves %v", v.name, st.Ply, st.Mode, st.InSync, deref(st.ToMove), st.Awaiting, st.Hint, st.Pending, st.Moves)
			t.Logf("%s: link %+v; remote %s", v.name, v.link.Stats(), v.rem.Debug())
		}
	}
	for i := 0; i < max; i++ {
		n := 0
		for _, v := range tables {
			n += len(v.sess.History())
		}
		if n != lastLen {
			lastLen, progress = n, time.Now()
		} else if time.Since(progress) > stuckAfter {
			dump()
			t.Fatalf("%v without a move or roll", stuckAfter)
		}
		acted := false
		over := true
		for _, v := range tables {
			if v.step() {
				acted = true
			}
			if st := v.sess.State(); st.Status == "playing" || !st.InSync {
				over = false
			}
		}
		if over {
			return
		}
		if acted {
			idle = 0
			continue
		}
		idle++
		if time.Duration(idle)*5*time.Millisecond > stuckAfter+10*time.Second {
			dump()
			t.Fatalf("nothing happens for %v", stuckAfter+10*time.Second)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the game did not end within %d steps", max)
}

// stuckAfter is how long play waits for a move or roll before it fails.
var stuckAfter = 20 * time.Second

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// hubMoves waits, woken by the hub's reports of changes, until the hub's
// copy of a game has the moves of the table's journal, and returns them.
// It fails when the copy has taken no event for stuckAfter: a starved
// machine or a cluster that lost a node delays the hub, a hub that stopped
// following never catches up.
func hubMoves(t testing.TB, th *testHub, table string, v *vtable) []string {
	t.Helper()
	want := journalMoves(t, v.sess.JournalPath())
	gid := GameID(v.sess.JournalPath())
	var got []string
	awaitCopy(t, th, table, gid, func(g *GameInfo) bool {
		got = movesOf(g.Steps)
		return slices.Equal(got, want)
	}, func() string { return fmt.Sprintf("moves %v, the journal's %v", got, want) })
	return got
}

// awaitCopy waits, woken by the hub's reports of changes, until done holds
// for the hub's copy of a game. It fails, saying what (what it last saw),
// when the copy has taken no event for stuckAfter: a starved machine or a
// cluster that lost a node delays the hub, a hub that stopped following
// never catches up.
func awaitCopy(t testing.TB, th *testHub, table, gid string, done func(*GameInfo) bool, what func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := th.hub.subscribe(ctx, "", false)
	still := time.NewTimer(stuckAfter)
	defer still.Stop()
	events := -1
	for {
		if g := th.hub.Game(table, gid); g != nil {
			if g.Err != nil {
				t.Fatalf("the hub's copy of %s/%s: %v", table, gid, g.Err)
			}
			if done(g) {
				return
			}
			if g.Events != events {
				events = g.Events
				still.Reset(stuckAfter)
			}
		}
		select {
		case <-changes:
		case <-still.C:
			// a game not its table's current one is not reported: look once more
			if g := th.hub.Game(table, gid); g != nil && g.Events != events {
				continue
			}
			t.Fatalf("the hub's copy of %s/%s: %s (no new event within %v)", table, gid, what(), stuckAfter)
		}
	}
}

func TestPublishAndLibrary(t *testing.T) {
	th := startHub(t)
	v := openVTable(t, th.tableURL("alpha"), "alpha", t.TempDir(), record.Header{Game: "gyges"}, "", 1)
	play(t, 5000, v)
	moves := hubMoves(t, th, "alpha", v)
	t.Logf("%d moves: %v", len(moves), moves)
	if len(moves) < 13 {
		t.Fatalf("a gyges game of %d moves", len(moves))
	}
	// the library has it
	id := "alpha/" + GameID(v.sess.JournalPath()) + ".jsonl"
	waitFor(t, "the game in the library", 10*time.Second, func() bool {
		e, _, err := th.hub.Library().Entry(id)
		return err == nil && e.Error == nil && e.Plies == len(moves)
	})
	// the journal upload
	waitFor(t, "the journal on the hub", 10*time.Second, func() bool {
		s, err := th.hub.js.Stream(th.hub.ctx, StreamJournals)
		if err != nil {
			return false
		}
		m, err := s.GetLastMsgForSubject(th.hub.ctx, JournalSubject("alpha", GameID(v.sess.JournalPath())))
		return err == nil && len(m.Data) > 0
	})
	_ = filepath.Join
}

// remoteGame plays a whole game between a host table and a joining
// table, and checks the two journals and the hub's copy agree.
func remoteGame(t *testing.T, th *testHub, urls map[string]string, h record.Header, seed uint64) {
	hn, gn := "host-"+h.Game, "guest-"+h.Game
	host := openVTable(t, urls[hn], hn, t.TempDir(), h, "", seed)
	waitFor(t, "the host's game on the hub", 10*time.Second, func() bool { return th.hub.Game(hn, GameID(host.sess.JournalPath())) != nil })
	guest := openVTable(t, urls[gn], gn, t.TempDir(), record.Header{}, hn, seed+100)
	joined(t, host, guest)
	play(t, 20000, host, guest)
	hs := sameGame(t, host, guest)
	hubMoves(t, th, hn, host)
	hubMoves(t, th, gn, guest)
	if g := th.hub.Game(hn, GameID(host.sess.JournalPath())); !slices.Equal(g.Steps, hs) {
		t.Fatalf("the hub's copy differs from the journals:\nhub     %v\njournal %v", g.Steps, hs)
	}
	hm := movesOf(hs)
	st := host.state()
	t.Logf("%s: %d moves, %s", h.Game, len(hm), describe(st))
}

// TestRemoteGames plays a whole game of each of the five games between
// two virtual boards through the hub: each carries out the other's moves
// as lit, rolls are made once and shared, and both journals and the hub's
// copy hold the same moves. The five games play at once on one hub, each
// between its own two tables.
func TestRemoteGames(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	games := []struct {
		h    record.Header
		seed uint64
	}{
		{record.Header{Game: "gyges"}, 1},
		{record.Header{Game: "star", First: "red"}, 1},
		{record.Header{Game: "six"}, 1},
		{record.Header{Game: "ray"}, 2},
		{record.Header{Game: "daha"}, 2},
	}
	var names []string
	for _, tc := range games {
		names = append(names, "host-"+tc.h.Game, "guest-"+tc.h.Game)
	}
	urls := th.tableURLs(names...)
	for _, tc := range games {
		t.Run(tc.h.Game, func(t *testing.T) {
			t.Parallel()
			remoteGame(t, th, urls, tc.h, tc.seed)
		})
	}
}

// TestRemoteRefusesOtherMove: the person at the host moves a piece of the
// seat played at the other board; the host takes the move back (the LEDs
// guide the piece back) and goes on only with the other board's move.
func TestRemoteRefusesOtherMove(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	urls := th.tableURLs("h", "g")
	host := openVTable(t, urls["h"], "h", t.TempDir(), record.Header{Game: "star", First: "red"}, "", 21)
	waitFor(t, "the host's game", 10*time.Second, func() bool { return th.hub.Game("h", GameID(host.sess.JournalPath())) != nil })
	guest := openVTable(t, urls["g"], "g", t.TempDir(), record.Header{}, "h", 22)
	joined(t, host, guest)
	for deref(host.sess.State().ToMove) != "white" {
		steps(t, 1, host)
	}
	n := len(host.sess.History())
	game := host.state()
	host.carry(game, engine.MoveString(game, game.Moves(nil)[0])) // white's piece, at the wrong board
	// taken back once the other board has moved
	deadline := time.Now().Add(20 * time.Second)
	for len(host.sess.History()) != n {
		if time.Now().After(deadline) {
			t.Fatal("the wrong move was not taken back")
		}
		if !guest.step() {
			time.Sleep(5 * time.Millisecond)
		}
	}
	play(t, 20000, host, guest)
	sameGame(t, host, guest)
	data, err := os.ReadFile(host.sess.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `{"undone":{"move":`) {
		t.Fatal("the host's journal has no undone move")
	}
}

// TestMirror: the club library read-only (the spectator's credentials),
// as `tabla library --hub` and `tabla stats --hub` read it.
func TestMirror(t *testing.T) {
	th := startHub(t)
	v := openVTable(t, th.tableURL("alpha"), "alpha", t.TempDir(), record.Header{Game: "star", First: "red"}, "", 2)
	play(t, 5000, v)
	hubMoves(t, th, "alpha", v)
	c, _ := LoadCredentials(th.dir)
	dir, stop, err := Mirror(t.Context(), UserURL("nats://"+th.addr, "spectator", c.Spectator), "", t.TempDir(), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	data, err := os.ReadFile(filepath.Join(dir, "alpha", GameID(v.sess.JournalPath())+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := record.Replay(strings.NewReader(string(data)), "mirror")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(g.Applied), len(journalSteps(t, v.sess.JournalPath())); got != want || g.State.Result().Status != engine.Won {
		t.Fatalf("the mirrored record has %d steps (want %d), %v", got, want, g.State.Result())
	}
}

// TestNoHintForOtherBoard: the hint button while the other board's seat is
// to move and has not moved lights nothing (an engine's move would be
// carried out as the other board's), and says no "no hint"; the other
// board's move is lit once it is made.
func TestNoHintForOtherBoard(t *testing.T) {
	th := startHub(t)
	host := openVTable(t, th.tableURL("h"), "h", t.TempDir(), record.Header{Game: "gyges"}, "", 31)
	waitFor(t, "the host's game", 10*time.Second, func() bool { return th.hub.Game("h", GameID(host.sess.JournalPath())) != nil })
	guest := openVTable(t, th.tableURL("g"), "g", t.TempDir(), record.Header{}, "h", 32)
	joined(t, host, guest)
	other := guest.rem.Seat()
	toMove := func() string {
		if st := host.sess.State(); st.ToMove != nil && st.Status == "playing" {
			return *st.ToMove
		}
		return ""
	}
	waitFor(t, "the other board's seat to move at the host", 20*time.Second, func() bool {
		if toMove() != other {
			host.step()
		}
		return toMove() == other
	})
	if err := host.sess.Command("hint", ""); err != nil {
		t.Fatal(err)
	}
	host.sess.WaitHints()
	if st := host.sess.State(); st.Hint != "" || strings.Contains(st.Message, referee.NoHintMessage) {
		t.Fatalf("the host lit %q (message %q) for %s, who has not moved at the other board", st.Hint, st.Message, other)
	}
	n := len(host.sess.History())
	waitFor(t, "the other board's move lit and carried out at the host", 20*time.Second, func() bool {
		guest.step()
		host.step()
		return len(host.sess.History()) > n
	})
	waitFor(t, "the journals to agree", 10*time.Second, func() bool {
		return slices.Equal(journalSteps(t, host.sess.JournalPath()), journalSteps(t, guest.sess.JournalPath()))
	})
}

// TestClubTable: a table's players, event and clocks reach the hub — the
// header's, then a phone's change during the game (a who line) — and the
// hub's clocks, rebuilt from the lines' turn times, are the journal's.
func TestClubTable(t *testing.T) {
	th := startHub(t)
	ctl, err := clock.ParseControls([]string{"90m+30s"})
	if err != nil {
		t.Fatal(err)
	}
	h := record.Header{Game: "gyges", Names: map[string]string{"south": "Ayşe", "north": "Bora"}, Event: "club night", Clock: ctl}
	v := openVTable(t, th.tableURL("alpha"), "alpha", t.TempDir(), h, "", 1)
	if err := v.sess.SetWho(record.Who{Names: map[string]string{"south": "Ayşe", "north": "Bora Can"}, Event: "club night", Round: "2"}); err != nil {
		t.Fatal(err)
	}
	play(t, 5000, v)
	hubMoves(t, th, "alpha", v)
	data, err := os.ReadFile(v.sess.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	jg, err := record.Replay(strings.NewReader(string(data)), "journal")
	if err != nil {
		t.Fatal(err)
	}
	jc := jg.Clock()
	g := th.hub.Game("alpha", GameID(v.sess.JournalPath()))
	var tv TableView
	if err := json.Unmarshal(th.hub.TableJSON("alpha"), &tv); err != nil || tv.Game == nil || tv.Game.ID != g.ID {
		t.Fatalf("table view: %v %+v", err, tv)
	}
	view := tv.Game
	if view.Who.Names["north"] != "Bora Can" || view.Who.Round != "2" || view.Clock == nil || view.Clock.Control != "1h30m+30s" {
		t.Fatalf("hub's view: who %+v clock %+v", view.Who, view.Clock)
	}
	for i, seat := range jg.State.Info().Seats {
		if got, want := view.Clock.LeftMs[seat], jc.Left(i, 0).Milliseconds(); got != want {
			t.Errorf("%s: hub %d ms, journal %d ms", seat, got, want)
		}
	}
	if !strings.Contains(string(g.Record), `"Bora Can"`) {
		t.Errorf("the hub's record keeps the old names:\n%.300s", g.Record)
	}
}
