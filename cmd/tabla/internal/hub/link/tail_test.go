package link

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine/record/recordtest"
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
		var ev wire.Event
		if err := json.Unmarshal(tl.events[i+1], &ev); err != nil {
			t.Fatal(err)
		}
		if ev.N != i+1 || string(ev.Line) != w {
			t.Errorf("event %d: got %d %s, want %s", i+1, ev.N, ev.Line, w)
		}
	}
}

// TestTailMillionMoves: the table's copy of a journal of a million moves
// (18 MB) is read a chunk at a time and holds wire.MaxSteps events: the
// first decision beyond is named by its line, and the game on the hub
// stops there too. What it keeps after the read is bounded by the events
// kept, not by the journal (issue 36: it was the whole journal, read at
// once, and an event per move).
func TestTailMillionMoves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "game-20260102T150405.000000000Z-star.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := recordtest.BackAndForth(f, "", 1_000_000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tl := newTail(path, nil)
	defer tl.close()
	if _, err := tl.read("solo"); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(tl.events) != wire.MaxSteps+1 || tl.over != wire.MaxSteps+2 {
		t.Fatalf("%d events, the first left out on line %d; want %d and line %d", len(tl.events), tl.over, wire.MaxSteps+1, wire.MaxSteps+2)
	}
	if tl.game == nil || tl.game.Err != nil || tl.game.State.Plies() != wire.MaxSteps {
		t.Fatalf("the game: %+v", tl.game)
	}
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("kept %.1f MB for %d events", float64(kept)/(1<<20), len(tl.events))
	if kept > 64<<20 {
		t.Errorf("the tail keeps %d MB after the read, want under 64 MB", kept>>20)
	}
	// a journal grown further: still nothing taken beyond the limit
	if took, err := tl.read("solo"); err != nil || took {
		t.Errorf("read again: took %v, %v", took, err)
	}
	g := tl.game
	if err := g.Apply(wire.MaxSteps+1, json.RawMessage(`{"move":"b1-f3"}`)); !errors.Is(err, wire.ErrTooMany) {
		t.Errorf("event %d on the hub: %v, want wire.ErrTooMany", wire.MaxSteps+1, err)
	}
}
