package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
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

func TestEventSmoke(t *testing.T) {
	th := startHub(t)
	tables := map[string]*vtable{}
	for i, name := range []string{"g1", "g2"} {
		tables[name] = openVTable(t, th.tableURL(name), name, t.TempDir(), record.Header{Game: "gyges"}, "", uint64(10+i))
	}
	e, err := NewEvent(EventSpec{ID: "moda", Name: "Moda club evening", Date: "2026-11-26", Sections: []SectionSpec{
		{Game: "gyges", System: club.Swiss, Rounds: 2, Clock: "10m+5s", Tables: []string{"g1", "g2"}}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateEvent(context.Background(), th.hub.js, e); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hub to read the event", 10*time.Second, func() bool { return th.hub.Event("moda") != nil })
	for _, n := range []string{"Ayşe", "Bora", "Cem", "Deniz"} {
		if code, body := clubPost(t, th, "/api/club/moda/players", "secret", map[string]string{"game": "gyges", "name": n}); code != 200 {
			t.Fatalf("register %s: %d %s", n, code, body)
		}
	}
	if code, body := clubPost(t, th, "/api/club/moda/start", "secret", struct{}{}); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	for n := 1; n <= 2; n++ {
		waitRound(t, th, "moda", n, tables)
		play(t, 5000, tables["g1"], tables["g2"])
	}
	waitFor(t, "the last results", 20*time.Second, func() bool { return th.hub.Event("moda").Sections[0].Finished() })
	v := eventView(t, th, "moda")
	data, _ := json.MarshalIndent(v, "", " ")
	t.Logf("%s", data)
	_ = strings.Join
}
