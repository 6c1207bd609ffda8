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
