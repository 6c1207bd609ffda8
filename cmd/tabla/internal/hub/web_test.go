package hub

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

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
	th := startHub(t)
	host := openVTable(t, th.tableURL("h"), "h", t.TempDir(), record.Header{Game: "ray"}, "", 41)
	host.paired = true
	base := "http://" + th.httpAddr + "/api/tables/h"
	waitFor(t, "the table's game on the hub", 10*time.Second, func() bool {
		var v TableView
		return getJSON(t, base, &v) == 200 && v.Game != nil
	})
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
	waitFor(t, "the table to see the browser's seat", 10*time.Second, func() bool { return !host.mine("blue") })
	deadline := time.Now().Add(30 * time.Second)
	for host.sess.State().Status == "playing" {
		if time.Now().After(deadline) {
			st := host.sess.State()
			t.Logf("host: to_move %v awaiting %s mode %s in_sync %v hint %q; %s", deref(st.ToMove), st.Awaiting, st.Mode, st.InSync, st.Hint, host.rem.debug())
			if g := th.hub.Game(WebTable, webID("h", GameID(host.sess.JournalPath()), "blue")); g != nil {
				t.Logf("browser's record: %d events, err %v, steps %v", g.Events, g.Err, g.Steps)
			}
			t.Logf("host's steps: %v", journalSteps(t, host.sess.JournalPath()))
			t.Fatalf("the game did not end: %+v", st.Moves)
		}
		if host.step() {
			continue
		}
		var turn Turn
		getJSON(t, base+"/legal?seat=blue", &turn)
		if turn.Awaiting == "" || turn.Awaiting == "move" && len(turn.Moves) == 0 {
			time.Sleep(5 * time.Millisecond) // not the browser's turn (yet)
			continue
		}
		move := ""
		if turn.Awaiting == "move" {
			move = turn.Moves[0]
		}
		if code, msg := post(t, base+"/move", "secret", map[string]string{"seat": "blue", "move": move}); code != 200 {
			t.Fatalf("move %q: %d %s", move, code, msg)
		}
	}
	hs := journalSteps(t, host.sess.JournalPath())
	id := webID("h", GameID(host.sess.JournalPath()), "blue")
	waitFor(t, "the browser's record to end with the game", 10*time.Second, func() bool {
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
