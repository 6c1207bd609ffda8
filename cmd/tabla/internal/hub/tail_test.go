package hub

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTailLineKinds: the journal's lines are told apart by their kind
// (their first key), not by how their first bytes happen to be written.
func TestTailLineKinds(t *testing.T) {
	journal := strings.Join([]string{
		`{"tabla":1,"game":"gyges"}`,
		`{"sensor":"c3","code":255,"at":1200}`,
		`{"command":"move","arg":"{\"move\":\"x\"}","at":1300}`,
		`{"move":"3@b1","by":"south","t":"2026-11-26T00:00:00Z"}`,
		`{ "roll": 4, "by": "north" }`,
		`{"undone":{"move":"2@c1","by":"north"}}`,
		`{"undone": { "move": "2@d1", "by": "north" } }`,
		`{"takeback":1,"ops":1,"t":"2026-11-26T00:00:01Z"}`,
		`{"resume":"2026-11-26T00:00:02Z"}`,
		`not json`,
		`{"end":"new"}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "game-20261126T000000.000000000Z-gyges.jsonl")
	if err := os.WriteFile(path, []byte(journal), 0o644); err != nil {
		t.Fatal(err)
	}
	tl := newTail(path, nil)
	defer tl.close()
	if _, err := tl.read("solo"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"move":"3@b1","by":"south","t":"2026-11-26T00:00:00Z"}`,
		`{"roll":4,"by":"north"}`,
		`{"move":"2@c1","by":"north"}`,
		`{"move":"2@d1","by":"north"}`,
		`{"takeback":1,"ops":1,"t":"2026-11-26T00:00:01Z"}`,
		`{"end":"new"}`,
	}
	if len(tl.events) != len(want)+1 {
		t.Fatalf("got %d events, want the header and %d", len(tl.events), len(want))
	}
	for i, w := range want {
		var ev Event
		if err := json.Unmarshal(tl.events[i+1], &ev); err != nil {
			t.Fatal(err)
		}
		if ev.N != i+1 || string(ev.Line) != w {
			t.Errorf("event %d: got %d %s, want %s", i+1, ev.N, ev.Line, w)
		}
	}
}
