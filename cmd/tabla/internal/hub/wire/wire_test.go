package wire

import (
	"testing"

	_ "github.com/tabla-board/tabla/engine/games"
)

func TestLineKind(t *testing.T) {
	for _, c := range []struct{ line, kind string }{
		{`{"move":"3@b1","by":"south"}`, "move"},
		{`{ "roll" : 4 }`, "roll"},
		{`{"undone":{"move":"x"}}`, "undone"},
		{`{"sensor":"c3","code":1,"at":2}`, "sensor"},
		{`{"command":"move"}`, "command"},
		{`{}`, ""},
		{`[1,2]`, ""},
		{`not json`, ""},
		{``, ""},
	} {
		if got := LineKind([]byte(c.line)); got != c.kind {
			t.Errorf("LineKind(%s) = %q, want %q", c.line, got, c.kind)
		}
	}
	for kind, want := range map[string]bool{"move": true, "roll": true, "takeback": true, "end": true, "who": true, "undone": false, "sensor": false, "resume": false} {
		if RecordKinds[kind] != want {
			t.Errorf("RecordKinds[%q] = %v, want %v", kind, RecordKinds[kind], want)
		}
	}
}

func TestKeys(t *testing.T) {
	if got := SeatKey("h", "g1", "black 1"); got != "h.g1.black_1" {
		t.Fatalf("SeatKey: %s", got)
	}
	req := RequestKey("x", "h", "g1", "south")
	if req != "x.h.g1.south" || IsSeatKey(req) || !IsSeatKey(SeatKey("h", "g1", "south")) {
		t.Fatalf("RequestKey %s, IsSeatKey wrong", req)
	}
	if a, g, s, ok := ParseRequestKey(req, "h"); !ok || a != "x" || g != "g1" || s != "south" {
		t.Fatalf("ParseRequestKey: %s %s %s %v", a, g, s, ok)
	}
	if _, _, _, ok := ParseRequestKey(req, "other"); ok {
		t.Fatal("a request to another host parsed as this one's")
	}
	if tb, g, ok := SplitRec(RecSubject("alpha", "g1")); !ok || tb != "alpha" || g != "g1" {
		t.Fatalf("SplitRec: %s %s %v", tb, g, ok)
	}
}

// TestWhoLine: a game's who comes from its header, a who line replaces it
// (and the record's header), a who line naming a seat the game lacks is an
// error of the game.
func TestWhoLine(t *testing.T) {
	g, err := NewGame(&Event{N: 0, Table: "t1", Game: "g1",
		Header: []byte(`{"tabla":1,"game":"star","first":"red","names":{"red":"Ayşe"},"event":"club"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if g.Who.Names["red"] != "Ayşe" || g.Who.Event != "club" {
		t.Fatalf("who from the header: %+v", g.Who)
	}
	if err := g.Apply(1, []byte(`{"who":{"names":{"red":"Ayşe","white":"Bora"},"round":"2"},"t":"2026-11-26T20:00:00Z"}`)); err != nil {
		t.Fatal(err)
	}
	if g.Who.Names["white"] != "Bora" || g.Who.Event != "" || g.Who.Round != "2" {
		t.Errorf("who after the line: %+v", g.Who)
	}
	if h, err := ParseHeader(g.HeaderRaw); err != nil || h.Names["white"] != "Bora" || len(g.Lines) != 0 {
		t.Errorf("record header after the line: %v %+v, lines %d", err, h, len(g.Lines))
	}
	if err := g.Apply(2, []byte(`{"who":{"names":{"green":"Can"}}}`)); err == nil {
		t.Error("a who line naming a seat star has not: no error")
	}
}

// TestClockLines: the turn times of a game's lines make its clocks on the
// hub; an end "time" names the seat whose flag fell.
func TestClockLines(t *testing.T) {
	g, err := NewGame(&Event{N: 0, Table: "t1", Game: "g1", Header: []byte(`{"tabla":1,"game":"star","first":"red","clock":"1m+2s"}`)})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []string{`{"move":"b1-d9","ms":12345}`, `{"move":"b12-d6","ms":4000}`, `{"end":"time","flag":"red","at":99000}`} {
		if err := g.Apply(i+1, []byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	c := g.Clocks()
	if c.Left(0, 0).Milliseconds() != 60000-12345+2000 || c.Left(1, 0).Milliseconds() != 58000 {
		t.Errorf("clocks %v %v", c.Left(0, 0), c.Left(1, 0))
	}
	if g.Ended != "time" || g.Flag != "red" || !g.Over() || *g.Steps[0].MS != 12345 {
		t.Errorf("ended %q flag %q over %v", g.Ended, g.Flag, g.Over())
	}
}
