package wire

import "testing"

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
	for kind, want := range map[string]bool{"move": true, "roll": true, "takeback": true, "end": true, "undone": false, "sensor": false, "resume": false} {
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
