package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// post sends a POST to the hub's pages with the token; it returns the
// status and body.
func clubPost(t testing.TB, th *testHub, path, token string, body any) (int, string) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", "http://"+th.httpAddr+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func clubGet(t testing.TB, th *testHub, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get("http://" + th.httpAddr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// eventView reads the event's page as a spectator's browser does.
func eventView(t testing.TB, th *testHub, id string) *EventView {
	t.Helper()
	code, data := clubGet(t, th, "/api/club/"+id)
	if code != 200 {
		t.Fatalf("/api/club/%s: %d %s", id, code, data)
	}
	var v EventView
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// pairedWho is who and where a pairing sends its table.
func pairedWho(e *EventState, s *club.Section, round int, p *club.Pairing) record.Who {
	w := record.Who{Names: map[string]string{}, Event: e.Name, Round: p.Round(round), Site: e.Site, Date: e.Date}
	for i, n := range p.Players {
		w.Names[s.Seats[i]] = n
	}
	return w
}

// waitRound waits until every game of the event has paired round n and
// each pairing's table has its game under way with the pairing's header;
// it returns the pairings by table.
func waitRound(t testing.TB, th *testHub, id string, n int, tables map[string]*vtable) map[string]*club.Pairing {
	t.Helper()
	var e *EventState
	waitFor(t, fmt.Sprintf("round %d to be paired", n), 30*time.Second, func() bool {
		e = th.hub.Event(id)
		if e == nil {
			return false
		}
		for _, s := range e.Sections {
			if len(s.Played) < n {
				return false
			}
		}
		return true
	})
	out := map[string]*club.Pairing{}
	for _, s := range e.Sections {
		for _, p := range s.Played[n-1].Pairings {
			out[p.Table] = p
			v := tables[p.Table]
			w := pairedWho(e, s, n, p)
			waitFor(t, fmt.Sprintf("table %s to start round %s", p.Table, w.Round), 30*time.Second, func() bool { return v.sess.Paired(w) })
		}
	}
	return out
}

// playClub runs the tables' people until the game each table plays now
// is over — won, drawn or lost on time (max steps in all); the next
// round's game, which the hub may start meanwhile, is left alone.
func playClub(t testing.TB, max int, tables ...*vtable) {
	t.Helper()
	games := map[*vtable]string{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 1) // any table's state may have changed
	for _, v := range tables {
		games[v] = v.sess.JournalPath()
		go func(c <-chan struct{}) {
			for range c {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}(v.sess.Subscribe(ctx))
	}
	for i := 0; i < max; i++ {
		acted, over := false, true
		for _, v := range tables {
			if v.sess.Ended() || v.sess.JournalPath() != games[v] {
				continue
			}
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
		if !acted {
			// a settle, a clock or the hub's pairing on its way: wait for
			// a table's state to change
			select {
			case <-changed:
			case <-time.After(30 * time.Second):
				t.Fatalf("no table's state changed for 30 s while their games go on")
			}
		}
	}
	t.Fatalf("the games did not end within %d steps", max)
}

// journalOf is the journal of a table's game on the hub.
func journalOf(t testing.TB, v *vtable, gid string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(v.dir, "*.jsonl"))
	for _, f := range files {
		if GameID(f) == gid {
			return f
		}
	}
	t.Fatalf("%s: no journal of game %s among %v", v.name, gid, files)
	return ""
}

// journalPlaces are the places a journal's game gives its seats, read
// from the journal alone (an independent reading of the result).
func journalPlaces(t testing.TB, path string) (places []int, end string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := record.Replay(bytes.NewReader(data), path)
	if err != nil {
		t.Fatal(err)
	}
	seats := g.State.Info().Seats
	places = make([]int, len(seats))
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, `{"end":"time"`) {
			var l struct{ Flag string }
			json.Unmarshal([]byte(line), &l)
			for i := range places {
				places[i] = 1
			}
			places[slices.Index(seats, l.Flag)] = len(seats)
			return places, "time"
		}
	}
	r := g.State.Result()
	if r.Status.String() != "won" {
		t.Fatalf("%s: %s, not won", path, r.Status)
	}
	for i := range places {
		places[i] = 2
	}
	places[r.Winner] = 1
	if el, ok := g.State.(interface{ Eliminated() []int }); ok {
		for k, s := range el.Eliminated() {
			places[s] = len(seats) - k
		}
	}
	return places, "won"
}

// TestClubEvening is issue 27's club evening: four rounds of two games on
// simulated tables through the hub — GYGES, six players Swiss on tables
// g1–g3, and DAHA, four players at one table of four (d1) — with clocks
// (10m+5s), a power cut at g1 in round 2 (both clocks restored), the hub
// restarted after round 2 and then killed while round 3 is played (its
// results come in when it is back), a flag fall at g2 in round 3, table g3 killed
// in round 4 (the round waits, the page says for which table, until it
// is back), and a table that was not paired reporting a result (refused).
// Pairings, results, standings and ratings are checked against values
// worked out by hand (below); every game's record on the hub against its
// table's journal; the rounds' downloads and the broadcast against the
// records.
func TestClubEvening(t *testing.T) {
	t.Parallel()
	th := startHub(t)
	tables := map[string]*vtable{}
	urls := th.tableURLs("g1", "g2", "g3", "d1", "x1")
	for i, name := range []string{"g1", "g2", "g3", "d1", "x1"} {
		game := "gyges"
		if name == "d1" {
			game = "daha"
		}
		tables[name] = openVTable(t, urls[name], name, t.TempDir(), record.Header{Game: game}, "", uint64(100+i))
	}
	g1, g2, g3, d1, x1 := tables["g1"], tables["g2"], tables["g3"], tables["d1"], tables["x1"]
	e, err := NewEvent(EventSpec{ID: "moda", Name: "Moda club evening", Site: "Moda", Date: "2026-11-26", Sections: []SectionSpec{
		{Game: "gyges", System: club.Swiss, Rounds: 4, Clock: "10m+5s", Tables: []string{"g1", "g2", "g3"}},
		{Game: "daha", Rounds: 4, Clock: "10m+5s", Tables: []string{"d1"}}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err == nil {
		t.Fatal("an event created twice")
	}
	same := *e
	same.ID = "moda2"
	if err := CreateEvent(context.Background(), th.hub.js, &same); err == nil || !strings.Contains(err.Error(), "named") {
		t.Fatalf("a second event of the same name: %v", err)
	}
	waitFor(t, "the hub to read the event", 10*time.Second, func() bool { return th.hub.Event("moda") != nil })
	// the players register on the event's page (the arbiter's token)
	if code, _ := clubPost(t, th, "/api/club/moda/players", "", map[string]string{"game": "gyges", "name": "Mallory"}); code != http.StatusUnauthorized {
		t.Fatalf("a registration without the token: %d", code)
	}
	for game, names := range map[string][]string{"gyges": {"Ayşe", "Bora", "Cem", "Deniz", "Elif", "Filiz"}, "daha": {"Gül", "Hakan", "İpek", "Kaan"}} {
		for _, n := range names {
			if code, body := clubPost(t, th, "/api/club/moda/players", "secret", map[string]string{"game": game, "name": n}); code != 200 {
				t.Fatalf("register %s: %d %s", n, code, body)
			}
		}
	}
	if code, body := clubPost(t, th, "/api/club/moda/start", "secret", struct{}{}); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	if code, _ := clubPost(t, th, "/api/club/moda/players", "secret", map[string]string{"game": "gyges", "name": "Late"}); code != http.StatusConflict {
		t.Fatalf("a registration after the start: %d", code)
	}

	// round 1; then x1, not paired, plays round 1 board 1's game
	r1 := waitRound(t, th, "moda", 1, tables)
	playClub(t, 20000, g1, g2, g3, d1)
	ev := th.hub.Event("moda")
	if _, err := x1.sess.StartPaired(pairedWho(ev, ev.Sections[0], 1, r1["g1"]), nil); err != nil {
		t.Fatal(err)
	}
	playClub(t, 5000, x1)
	x1game := "x1/" + GameID(x1.sess.JournalPath())
	waitFor(t, "x1's result refused", 20*time.Second, func() bool {
		for _, l := range th.hub.Event("moda").Log {
			if l.Refused && l.Game == x1game {
				return true
			}
		}
		return false
	})

	// round 2: the power goes at g1 mid-game
	waitRound(t, th, "moda", 2, tables)
	for range 12 {
		g1.step()
	}
	before := g1.sess.ClockAt(g1.vb.Now())
	g1.restart()
	after := g1.sess.ClockAt(g1.vb.Now())
	if before.Running == "" || after.Running != before.Running {
		t.Fatalf("running: %q before the cut, %q after", before.Running, after.Running)
	}
	// the seat that moved last has its time to the millisecond; the seat
	// to move has its time at the last press back (the turn under way
	// before the cut is not charged: it runs again from the board's
	// first reading) — both as the journal's lines say
	jg, err := record.Replay(bytes.NewReader(must(os.ReadFile(g1.sess.JournalPath()))), "g1")
	if err != nil {
		t.Fatal(err)
	}
	jc := jg.Clock()
	for i, seat := range jg.State.Info().Seats {
		if got, want := after.LeftMs[seat]+after.TurnMs*b2i(seat == after.Running), before.LeftMs[seat]+before.TurnMs*b2i(seat == before.Running); got != want {
			t.Errorf("g1 %s: %d ms after the power cut, want %d (before %+v, after %+v)", seat, got, want, before, after)
		}
		if got, want := after.LeftMs[seat]+after.TurnMs*b2i(seat == after.Running), jc.Left(i, 0).Milliseconds(); got != want {
			t.Errorf("g1 %s: %d ms after the power cut, the journal's %d", seat, got, want)
		}
	}
	playClub(t, 20000, g1, g2, g3, d1)

	// the hub restarts between rounds: the event is read back as it was
	waitRound(t, th, "moda", 3, tables)
	was, _ := json.Marshal(th.hub.Event("moda"))
	th.stop()
	th.start()
	waitFor(t, "the event after the restart", 10*time.Second, func() bool { return th.hub.Event("moda") != nil })
	if now, _ := json.Marshal(th.hub.Event("moda")); !bytes.Equal(now, was) {
		t.Fatalf("the event after the hub's restart:\n%s\nbefore:\n%s", now, was)
	}

	// round 3 is played while the hub is down (killed, its NATS server
	// too): the tables play on, g2's player to move thinking too long;
	// the results come from the journals the tables publish once it is back
	th.stop()
	for range 8 {
		g2.step()
	}
	g2.act(`{"wait":660000}`)
	if !g2.sess.Ended() {
		t.Fatal("no flag fell at g2 after 11 minutes")
	}
	playClub(t, 20000, g1, g2, g3, d1)
	th.start()
	// round 4: g3 dies mid-game; the round waits for it and says so
	waitRound(t, th, "moda", 4, tables)
	var prior EventState
	json.Unmarshal(was, &prior)
	for i, s := range th.hub.Event("moda").Sections {
		if a, b := must(json.Marshal(s.Played[:2])), must(json.Marshal(prior.Sections[i].Played[:2])); !bytes.Equal(a, b) {
			t.Fatalf("%s rounds 1-2 after the hub's outage:\n%s\nbefore:\n%s", s.Game, a, b)
		}
	}
	for range 6 {
		g3.step()
	}
	g3.close()
	playClub(t, 20000, g1, g2, d1)
	waitFor(t, "the page to say the round waits for g3, offline", 20*time.Second, func() bool {
		v := eventView(t, th, "moda")
		w := v.Sections[0].Waiting
		return len(w) == 1 && strings.Contains(w[0].Text, "round 4 board 3 waits for table g3") && w[0].State == "offline" && w[0].Table == "g3" &&
			len(v.Sections[0].Played) == 4 && !v.Sections[0].Played[3].Complete
	})
	g3.open()
	playClub(t, 20000, g3)
	waitFor(t, "the evening's last results", 30*time.Second, func() bool {
		e := th.hub.Event("moda")
		return e.Sections[0].Finished() && e.Sections[1].Finished()
	})

	e = th.hub.Event("moda")
	v := eventView(t, th, "moda")
	checkEvening(t, e, v)

	// what each side holds: every paired game's record on the hub has its
	// table's journal's moves and rolls, and the result the event took is
	// the one the journal's own lines give
	for _, s := range e.Sections {
		for _, r := range s.Played {
			for _, p := range r.Pairings {
				table, gid, _ := strings.Cut(p.Result.Game, "/")
				tv := tables[table]
				path := journalOf(t, tv, gid)
				rec, err := th.hub.gameRecord(p.Result.Game)
				if err != nil {
					t.Fatal(err)
				}
				if hs, js := stepsWithMS(t, rec), stepsWithMS(t, must(os.ReadFile(path))); !slices.EqualFunc(hs, js, sameStep) {
					t.Errorf("%s: the hub's copy %v differs from the journal %v", p.Result.Game, hs, js)
				}
				places, end := journalPlaces(t, path)
				if !slices.Equal(places, p.Result.Places) || end != p.Result.End {
					t.Errorf("%s: the event took %v %s, the journal says %v %s", p.Result.Game, p.Result.Places, p.Result.End, places, end)
				}
				rg, err := record.Replay(bytes.NewReader(rec), "hub")
				if err != nil {
					t.Fatal(err)
				}
				if w := pairedWho(e, s, r.N, p); !samePairingWho(rg.Header.Who(), w) {
					t.Errorf("%s: the record's who %+v, the pairing's %+v", p.Result.Game, rg.Header.Who(), w)
				}
			}
		}
	}
	// a finished round is one file: its games' records, board 1 first
	for _, s := range e.Sections {
		code, data := clubGet(t, th, fmt.Sprintf("/api/club/moda/%s/round/3", s.Game))
		if code != 200 {
			t.Fatalf("round 3 of %s: %d %s", s.Game, code, data)
		}
		var want []byte
		for _, p := range s.Played[2].Pairings {
			want = append(want, must(th.hub.gameRecord(p.Result.Game))...)
		}
		if !bytes.Equal(data, want) || bytes.Count(data, []byte(`"game":"`+s.Game+`"`)) != len(s.Played[2].Pairings) {
			t.Errorf("round 3 of %s: %d bytes, want the %d games' records (%d bytes)", s.Game, len(data), len(s.Played[2].Pairings), len(want))
		}
	}
	// the broadcast: every table's game with its players, as the hub has it
	var b Broadcast
	if code, data := clubGet(t, th, "/api/broadcast"); code != 200 || json.Unmarshal(data, &b) != nil {
		t.Fatalf("/api/broadcast: %d %s", code, data)
	}
	for _, bg := range b.Games {
		if g := th.hub.Game(bg.Table, bg.ID); bg.Table != "x1" && (g == nil || !slices.Equal(bg.Moves, movesOf(g.Steps)) || bg.Who.Event != "Moda club evening" || len(bg.Who.Names) == 0) {
			t.Errorf("broadcast of %s: %+v", bg.Table, bg)
		}
	}
	if len(b.Games) != 5 {
		t.Errorf("the broadcast has %d games, want the 5 tables'", len(b.Games))
	}
}

// stepsWithMS are a journal's moves and rolls in effect with their turn
// times, as the hub's copy holds them.
func stepsWithMS(t testing.TB, data []byte) []Step {
	t.Helper()
	g, err := record.Replay(bytes.NewReader(data), "record")
	if err != nil {
		t.Fatal(err)
	}
	seats := g.State.Info().Seats
	var out []Step
	for _, a := range g.Applied {
		st := Step{Roll: a.Roll, Text: a.Text, Seat: seats[a.Seat]}
		if a.Timed {
			ms := a.MS
			st.MS = &ms
		}
		out = append(out, st)
	}
	return out
}

func sameStep(a, b Step) bool {
	return a.Roll == b.Roll && a.Text == b.Text && a.Seat == b.Seat && (a.MS == nil) == (b.MS == nil) && (a.MS == nil || *a.MS == *b.MS)
}

// checkEvening checks the evening against the values worked out by hand.
func checkEvening(t *testing.T, e *EventState, v *EventView) {
	t.Helper()
	gy, da := e.Sections[0], e.Sections[1]
	// GYGES, Swiss by the Dutch system, everyone rated 1500 (RD 350):
	// pairing numbers by registration (Ayşe 1, Bora 2, Cem 3, Deniz 4,
	// Elif 5, Filiz 6), the first seat (south) as white.
	// R1: S1 Ayşe Bora Cem against S2 Deniz Elif Filiz, seats alternating
	//   down the boards: Ayşe–Deniz 0–1, Elif–Bora 1–0, Cem–Filiz 1–0.
	// R2: Cem, Deniz, Elif on 1: Cem meets Deniz (Deniz due south), Elif
	//   floats down and meets Filiz (Ayşe, like Elif, is due north; Bora
	//   was met), then Bora–Ayşe: 0–1, 1–0, 1–0 (a power cut at g1).
	// R3: Cem 2; Bora, Deniz, Elif, Filiz 1; Ayşe 0. The Dutch pairing,
	//   Cem–Bora, Elif–Deniz, Ayşe–Filiz, would leave round 4 two
	//   triangles of players who have all met; looking ahead, without
	//   Cem–Bora: Cem–Elif (both due south, never on different seats:
	//   Cem ranks higher), Deniz–Bora (the same: Bora ranks higher and
	//   goes north), Ayşe–Filiz: 1–0, 1–0 (Bora's flag fell), 1–0.
	// R4: Cem 3, Deniz 2, the rest 1; the two pairings left both differ
	//   by 2+1+0 points; Bora–Cem, Filiz–Deniz, Elif–Ayşe, seats as due
	//   (Elif and Deniz must not sit a third time running): 0–1, 0–1, 0–1
	//   (g3 killed mid-game, back, the game finished).
	wantPairs := [][][]string{
		{{"Ayşe", "Deniz"}, {"Elif", "Bora"}, {"Cem", "Filiz"}},
		{{"Deniz", "Cem"}, {"Filiz", "Elif"}, {"Bora", "Ayşe"}},
		{{"Cem", "Elif"}, {"Deniz", "Bora"}, {"Ayşe", "Filiz"}},
		{{"Bora", "Cem"}, {"Filiz", "Deniz"}, {"Elif", "Ayşe"}},
	}
	wantScore := [][]string{{"0–1", "1–0", "1–0"}, {"0–1", "1–0", "1–0"}, {"1–0", "1–0", "1–0"}, {"0–1", "0–1", "0–1"}}
	// DAHA, tables of four, seats red, yellow, blue, black going round so
	// that each player sits each seat once; points 3-2-1-0 by place (the
	// last one eliminated second).
	// R1 Gül Hakan İpek Kaan: places 2 3 1 4 → 2–1–3–0
	// R2 Hakan Gül Kaan İpek: places 1 4 3 2 → 3–0–1–2
	// R3 Kaan İpek Gül Hakan: places 3 2 4 1 → 1–2–0–3
	// R4 İpek Kaan Hakan Gül: places 2 4 1 3 → 2–0–3–1
	wantFours := [][]string{{"Gül", "Hakan", "İpek", "Kaan"}, {"Hakan", "Gül", "Kaan", "İpek"}, {"Kaan", "İpek", "Gül", "Hakan"}, {"İpek", "Kaan", "Hakan", "Gül"}}
	wantFourScore := []string{"2–1–3–0", "3–0–1–2", "1–2–0–3", "2–0–3–1"}
	for n := range 4 {
		for b, p := range gy.Played[n].Pairings {
			if !slices.Equal(p.Players, wantPairs[n][b]) || resultText(gy, p.Result) != wantScore[n][b] || p.Table != gy.Tables[b] {
				t.Errorf("gyges round %d board %d at %s: %v %s, want %v %s", n+1, b+1, p.Table, p.Players, resultText(gy, p.Result), wantPairs[n][b], wantScore[n][b])
			}
		}
		if p := da.Played[n].Pairings[0]; !slices.Equal(p.Players, wantFours[n]) || resultText(da, p.Result) != wantFourScore[n] {
			t.Errorf("daha round %d: %v %s, want %v %s", n+1, p.Players, resultText(da, p.Result), wantFours[n], wantFourScore[n])
		}
	}
	if r := gy.Played[2].Pairings[1].Result; r.End != "time" || r.Flag != "north" {
		t.Errorf("gyges round 3 board 2: %+v, want Bora (north) lost on time", r)
	}
	// Standings. GYGES points: Cem 4, Deniz 3, Ayşe 2, Bora 1, Elif 1,
	// Filiz 1. Buchholz (opponents' points): Cem F1+D3+E1+B1 = 6; Deniz
	// A2+C4+B1+F1 = 8; Ayşe D3+B1+F1+E1 = 6; Bora E1+A2+D3+C4 = 10;
	// Filiz C4+E1+A2+D3 = 10; Elif B1+F1+C4+A2 = 8. Sonneborn-Berger (the
	// beaten opponents' points): Cem 1+3+1+1 = 6; Deniz A2+B1+F1 = 4;
	// Ayşe F1+E1 = 2; Bora A2; Filiz E1; Elif B1. The three on 1 point go
	// by Buchholz, then Sonneborn-Berger: Bora, Filiz, Elif.
	// DAHA points: Hakan 1+3+3+3 = 10, İpek 3+2+2+2 = 9, Gül 2+0+0+1 = 3,
	// Kaan 0+1+1+0 = 2; first places Hakan 3, İpek 1; table mates' points:
	// four games with the other three, 4 × (24 − own): 56, 60, 84, 88.
	wantStand := map[string][]club.Standing{
		"gyges": {{Rank: 1, Name: "Cem", Points: 4, Games: 4, Tiebreaks: []float64{6, 6}}, {Rank: 2, Name: "Deniz", Points: 3, Games: 4, Tiebreaks: []float64{8, 4}},
			{Rank: 3, Name: "Ayşe", Points: 2, Games: 4, Tiebreaks: []float64{6, 2}}, {Rank: 4, Name: "Bora", Points: 1, Games: 4, Tiebreaks: []float64{10, 2}},
			{Rank: 5, Name: "Filiz", Points: 1, Games: 4, Tiebreaks: []float64{10, 1}}, {Rank: 6, Name: "Elif", Points: 1, Games: 4, Tiebreaks: []float64{8, 1}}},
		"daha": {{Rank: 1, Name: "Hakan", Points: 10, Games: 4, Tiebreaks: []float64{3, 56}}, {Rank: 2, Name: "İpek", Points: 9, Games: 4, Tiebreaks: []float64{1, 60}},
			{Rank: 3, Name: "Gül", Points: 3, Games: 4, Tiebreaks: []float64{0, 84}}, {Rank: 4, Name: "Kaan", Points: 2, Games: 4, Tiebreaks: []float64{0, 88}}},
	}
	// Ratings (Glicko-2, τ 0.5, the evening one period; every player new:
	// 1500, RD 350 → φ = 350/173.7178 = 2.014761, σ 0.06). Against new
	// players μ_j = 0: g(φ_j) = 1/√(1+3φ²/π²) = 0.669069, E = 0.5, each
	// game adds g²·E(1−E) = 0.111912 to 1/v; Δ = v·g·(W − n/2) for W won
	// of n. φ* = √(φ²+σ'²) = 2.015655, φ' = 1/√(1/φ*² + 1/v), μ' = φ'²·g·(W − n/2).
	// GYGES, n = 4: v = 2.233869, φ' = 1.200570 → RD' = 208.56.
	//   Cem W 4: Δ 2.989226, σ' 0.060001, μ' = 1.441368·0.669069·2 = 1.928750 → r' 1835.06
	//   Deniz W 3: μ' 0.964375 → 1667.53; Ayşe W 2: 1500.00; the three on 1: μ' −0.964375 → 1332.47
	// DAHA, a game of four as three results each, n = 12: v = 0.744623,
	// φ' = 0.793278 → RD' = 137.81; pairwise wins W (places above):
	//   Hakan 10: μ' = 0.629290·0.669069·4 = 1.684154 → 1792.57; İpek 9: 1.263115 → 1719.43;
	//   Gül 3: −1.263115 → 1280.57; Kaan 2: −1.684154 → 1207.43
	wantR := map[string][2]float64{
		"Cem": {1835.06, 208.56}, "Deniz": {1667.53, 208.56}, "Ayşe": {1500.00, 208.56}, "Filiz": {1332.47, 208.56}, "Elif": {1332.47, 208.56}, "Bora": {1332.47, 208.56},
		"Hakan": {1792.57, 137.81}, "İpek": {1719.43, 137.81}, "Gül": {1280.57, 137.81}, "Kaan": {1207.43, 137.81},
	}
	for _, s := range v.Sections {
		if fmt.Sprint(s.Standings) != fmt.Sprint(wantStand[s.Game]) {
			t.Errorf("%s standings on the page:\n%v\nwant\n%v", s.Game, s.Standings, wantStand[s.Game])
		}
		if len(s.Ratings) != len(s.Players) {
			t.Errorf("%s: %d ratings for %d players", s.Game, len(s.Ratings), len(s.Players))
		}
		for _, r := range s.Ratings {
			w := wantR[r.Name]
			if math.Abs(r.After.R-w[0]) > 0.006 || math.Abs(r.After.RD-w[1]) > 0.006 || r.Before.R != 1500 {
				t.Errorf("%s %s: rated %.2f (RD %.2f), want %.2f (%.2f)", s.Game, r.Name, r.After.R, r.After.RD, w[0], w[1])
			}
		}
		if !s.Finished || len(s.Waiting) != 0 || len(s.Played) != 4 || s.Played[3].Download == "" {
			t.Errorf("%s: finished %v, waiting %v, %d rounds", s.Game, s.Finished, s.Waiting, len(s.Played))
		}
	}
	refused := 0
	for _, l := range v.Log {
		if l.Refused {
			refused++
			if !strings.Contains(l.What, "round 1 board 1 was paired at table g1, not x1") {
				t.Errorf("refused: %s", l.What)
			}
		}
	}
	if refused != 1 || !strings.HasPrefix(gy.Played[0].Pairings[0].Result.Game, "g1/") {
		t.Errorf("%d results refused, round 1 board 1's from %s", refused, gy.Played[0].Pairings[0].Result.Game)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestEventArbiter: a table paired for a game plays it under other names
// (refused: the round waits and the page says for which table); the
// arbiter sets that game's result and corrects another, each change
// logged with its reason; the next round is paired once the last result
// is in; a result for a round never paired is refused.
func TestEventArbiter(t *testing.T) {
	th := startHub(t)
	tables := map[string]*vtable{}
	for i, name := range []string{"g1", "g2"} {
		tables[name] = openVTable(t, th.tableURL(name), name, t.TempDir(), record.Header{Game: "gyges"}, "", uint64(300+i))
	}
	g1, g2 := tables["g1"], tables["g2"]
	e, err := NewEvent(EventSpec{ID: "cup", Name: "Cup", Sections: []SectionSpec{{Game: "gyges", System: club.RoundRobin, Rounds: 3, Tables: []string{"g1", "g2"}}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the event", 10*time.Second, func() bool { return th.hub.Event("cup") != nil })
	for _, n := range []string{"A", "B", "C", "D"} {
		if err := th.hub.Register(context.Background(), "cup", "gyges", n); err != nil {
			t.Fatal(err)
		}
	}
	if err := th.hub.StartEvent(context.Background(), "cup"); err != nil {
		t.Fatal(err)
	}
	r1 := waitRound(t, th, "cup", 1, tables)
	playClub(t, 5000, g1)
	// g2 plays its board under swapped names
	ev := th.hub.Event("cup")
	w := pairedWho(ev, ev.Sections[0], 1, r1["g2"])
	w.Names["south"], w.Names["north"] = w.Names["north"], w.Names["south"]
	if _, err := g2.sess.StartPaired(w, nil); err != nil {
		t.Fatal(err)
	}
	playClub(t, 5000, g2)
	var v *EventView
	waitFor(t, "the swapped names refused and the round waiting for g2", 20*time.Second, func() bool {
		v = eventView(t, th, "cup")
		s := v.Sections[0]
		refused := slices.ContainsFunc(v.Log, func(l EventLogEntry) bool {
			return l.Refused && strings.Contains(l.What, "round 1 board 2 pairs") && strings.HasPrefix(l.Game, "g2/")
		})
		return refused && len(s.Waiting) == 1 && s.Waiting[0].Table == "g2" && s.Played[0].Pairings[0].Result != nil && len(s.Played) == 1
	})
	// the arbiter: board 2 to its north player (no token: refused)
	if code, _ := clubPost(t, th, "/api/club/cup/result", "", map[string]any{"game": "gyges", "round": 1, "board": 2, "places": []int{2, 1}, "why": "x"}); code != http.StatusUnauthorized {
		t.Fatalf("a result without the token: %d", code)
	}
	if code, body := clubPost(t, th, "/api/club/cup/result", "secret", map[string]any{"game": "gyges", "round": 1, "board": 2, "places": []int{2, 1}, "why": ""}); code != http.StatusConflict {
		t.Fatalf("a result without a reason: %d %s", code, body)
	}
	if code, body := clubPost(t, th, "/api/club/cup/result", "secret", map[string]any{"game": "gyges", "round": 1, "board": 2, "places": []int{2, 1}, "why": "played under the wrong names; the players agree north won"}); code != 200 {
		t.Fatalf("the arbiter's result: %d %s", code, body)
	}
	old := resultText(ev.Sections[0], th.hub.Event("cup").Sections[0].Played[0].Pairings[0].Result)
	flip := map[string][]int{"1–0": {2, 1}, "0–1": {1, 2}}[old]
	if code, body := clubPost(t, th, "/api/club/cup/result", "secret", map[string]any{"game": "gyges", "round": 1, "board": 1, "places": flip, "why": "an illegal move seen on the video"}); code != 200 {
		t.Fatalf("the arbiter's correction: %d %s", code, body)
	}
	waitRound(t, th, "cup", 2, tables)
	// g1's round 1 journal now ends with {"end":"new"} (round 2's game
	// started there): a hub reading it only now still finds its result
	var first *GameInfo
	var res *gameResult
	waitFor(t, "g1's round 1 game ended by the next one", 10*time.Second, func() bool {
		th.hub.mu.Lock()
		defer th.hub.mu.Unlock()
		for key, g := range th.hub.games {
			if strings.HasPrefix(key, "g1/") && g.Who.Round == "1.1" && g.Ended == "new" {
				first, res = gameInfo(g), resultOfLocked(g)
				return true
			}
		}
		return false
	})
	places, _ := journalPlaces(t, journalOf(t, g1, first.ID))
	if first.Status != "won" || res == nil || !slices.Equal(res.places, places) {
		t.Fatalf("g1's round 1 game, %s and followed by {\"end\":\"new\"}: result %+v, the journal's places %v", first.Status, res, places)
	}
	e = th.hub.Event("cup")
	s := e.Sections[0]
	p1, p2 := s.Played[0].Pairings[0], s.Played[0].Pairings[1]
	if resultText(s, p1.Result) == old || p1.Result.By != "arbiter" || resultText(s, p2.Result) != "0–1" || p2.Result.By != "arbiter" {
		t.Fatalf("round 1 after the arbiter: %+v %+v", p1.Result, p2.Result)
	}
	var logged []string
	for _, l := range e.Log {
		if strings.HasPrefix(l.What, "the arbiter changed") {
			logged = append(logged, l.What)
		}
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "from none to 0–1: played under the wrong names") ||
		!strings.Contains(logged[1], "from "+old+" to "+resultText(s, p1.Result)+": an illegal move seen on the video") {
		t.Fatalf("the arbiter's log: %q", logged)
	}
	// the standings follow the correction
	st := s.Standings()
	pts := map[string]float64{}
	for _, x := range st {
		pts[x.Name] = x.Points
	}
	win1 := p1.Players[slices.Index(p1.Result.Places, 1)]
	if pts[win1] != 1 || pts[p2.Players[1]] != 1 || pts[p2.Players[0]] != 0 {
		t.Fatalf("standings after the corrections: %v", pts)
	}
}

// TestBroadcastDelay: the public feed shows every table's game as it
// stood the delay ago — no line newer than that, its clocks after the
// lines shown — and the whole game once the delay has passed.
func TestBroadcastDelay(t *testing.T) {
	th := startHub(t)
	ctl, err := clock.ParseControls([]string{"5m+2s"})
	if err != nil {
		t.Fatal(err)
	}
	v := openVTable(t, th.tableURL("alpha"), "alpha", t.TempDir(), record.Header{Game: "gyges", Names: map[string]string{"south": "Ayşe", "north": "Bora"}, Event: "Cup", Clock: ctl}, "", 7)
	play(t, 5000, v)
	hubMoves(t, th, "alpha", v)
	g := th.hub.Game("alpha", GameID(v.sess.JournalPath()))
	th.hub.broadcast = time.Hour
	var times []time.Time
	for _, line := range strings.Split(strings.TrimSpace(string(g.Record)), "\n")[1:] {
		var l struct{ T time.Time }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		times = append(times, l.T)
	}
	if len(times) < 10 || len(times) != len(g.Steps) {
		t.Fatalf("%d lines, %d steps", len(times), len(g.Steps))
	}
	k := len(times) / 2
	for times[k] == times[k-1] {
		k--
	}
	at := times[k-1] // k lines are as old as this
	feed := th.hub.broadcastAt(at)
	if len(feed.Games) != 1 {
		t.Fatalf("%d games", len(feed.Games))
	}
	bg := feed.Games[0]
	if len(bg.Steps) != k || bg.Status != "playing" || bg.Who.Names["south"] != "Ayşe" || feed.DelayMs != 3600000 {
		t.Fatalf("the feed at line %d: %d steps, status %s, who %+v", k, len(bg.Steps), bg.Status, bg.Who)
	}
	c := ctl.New([]string{"south", "north"})
	for _, s := range g.Steps[:k] {
		if s.MS != nil {
			c.Charge(slices.Index([]string{"south", "north"}, s.Seat), time.Duration(*s.MS)*time.Millisecond)
		}
	}
	if bg.LeftMs["south"] != c.Left(0, 0).Milliseconds() || bg.LeftMs["north"] != c.Left(1, 0).Milliseconds() {
		t.Fatalf("the feed's clocks %v, the lines shown give %d, %d", bg.LeftMs, c.Left(0, 0).Milliseconds(), c.Left(1, 0).Milliseconds())
	}
	// the feed an hour late has nothing of a game just played; one past
	// its end has all of it
	if n := len(th.hub.BroadcastFeed().Games[0].Steps); n != 0 {
		t.Fatalf("an hour's delay shows %d steps of a game just played", n)
	}
	all := th.hub.broadcastAt(times[len(times)-1].Add(time.Second)).Games[0]
	if st, w := g.Status, g.Winner; len(all.Steps) != len(g.Steps) || all.Status != st || all.Winner != w {
		t.Fatalf("past the end: %d steps %s %s, the game %d %s %s", len(all.Steps), all.Status, all.Winner, len(g.Steps), st, w)
	}
}
