package record

import (
	"encoding/json"
	"testing"
)

var shapes = []struct {
	line string
	kind string
}{
	{`{"tick":1800}`, "tick"},
	{`{"tick":0}`, "tick"},
	{`{"tick":01}`, ""},
	{`{"tick":}`, ""},
	{`{"tick":1}}`, ""},
	{`{"tick":-1}`, ""},
	{`{"tick":1.5}`, ""},
	{`{"tick":1 }`, ""},
	{`{"sensor":"c3","code":255,"at":1200}`, "sensor"},
	{`{"sensor":"#17","code":0,"at":0}`, "sensor"},
	{`{"sensor":"","code":0,"at":0}`, "sensor"},
	{`{"sensor":"c\"3","code":0,"at":0}`, ""},
	{`{"sensor":"c\\3","code":0,"at":0}`, ""},
	{"{\"sensor\":\"c\x013\",\"code\":0,\"at\":0}", ""},
	{`{"sensor":"c3","code":0,"at":0,"x":1}`, ""},
	{`{"sensor":"c3","code":,"at":0}`, ""},
	{`{"sensor":"c3","at":0,"code":0}`, ""},
	{`{"sensor":{"cell":"a1"}}`, ""},
}

// journalShape accepts only valid JSON of its two shapes.
func TestJournalShape(t *testing.T) {
	for _, tc := range shapes {
		if got := journalShape([]byte(tc.line)); got != tc.kind {
			t.Errorf("%s: got %q, want %q", tc.line, got, tc.kind)
		}
	}
}

func FuzzJournalShape(f *testing.F) {
	for _, tc := range shapes {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		kind := journalShape(line)
		if kind == "" {
			return
		}
		var m map[string]json.RawMessage
		if !json.Valid(line) || json.Unmarshal(line, &m) != nil || m[kind] == nil {
			t.Fatalf("%q: shape %q but not a valid line of that kind", line, kind)
		}
	})
}

var moveShapes = []struct {
	line, move, by string
	ok             bool
}{
	{`{"move":"b1-f3"}`, "b1-f3", "", true},
	{`{"move":"b1-f3","by":"red"}`, "b1-f3", "red", true},
	{`{"move":"0,1>2,-1/1,0"}`, "0,1>2,-1/1,0", "", true},
	{`{"move":""}`, "", "", false},
	{`{"move":"b1-f3","by":""}`, "", "", false},
	{`{"move":"b1\"f3"}`, "", "", false},
	{`{"move":"b1\\f3"}`, "", "", false},
	{"{\"move\":\"b1\x01f3\"}", "", "", false},
	{`{"move":"b1-f3" }`, "", "", false},
	{`{"move":"b1-f3"}}`, "", "", false},
	{`{"move":"b1-f3","by":"red","t":"2026-11-01T10:00:00Z"}`, "", "", false},
	{`{"move":"b1-f3","by":"red"`, "", "", false},
	{`{"move":"b1-f3","roll":"N"}`, "", "", false},
	{`{"move":4}`, "", "", false},
}

// moveShape accepts only valid JSON move lines of its two shapes, and
// reads them as the full check does.
func TestMoveShape(t *testing.T) {
	for _, tc := range moveShapes {
		move, by, ok := moveShape([]byte(tc.line))
		if ok != tc.ok || move != tc.move || by != tc.by {
			t.Errorf("%s: got %q %q %v, want %q %q %v", tc.line, move, by, ok, tc.move, tc.by, tc.ok)
		}
	}
}

func FuzzMoveShape(f *testing.F) {
	for _, tc := range moveShapes {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		move, by, ok := moveShape(line)
		if !ok {
			return
		}
		var m struct {
			Move *string `json:"move"`
			By   string  `json:"by"`
		}
		var raw map[string]json.RawMessage
		if !json.Valid(line) || json.Unmarshal(line, &raw) != nil || json.Unmarshal(line, &m) != nil ||
			m.Move == nil || *m.Move != move || m.By != by || len(raw) != map[bool]int{true: 1, false: 2}[by == ""] {
			t.Fatalf("%q: shape %q by %q but not that move line", line, move, by)
		}
	})
}
