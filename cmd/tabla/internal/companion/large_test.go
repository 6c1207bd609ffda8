package companion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/enginetest"
)

// bigJournal writes a star journal of a few moves followed by n board
// events (a sensor line and a tick, alternately) and returns its path.
func bigJournal(tb testing.TB, n int) string {
	tb.Helper()
	var b bytes.Buffer
	b.WriteString(`{"tabla":1,"game":"star","first":"red","meta":{"companion":{"board":"star","identifying":false,"settle_ms":100,"takeback":2,"source":"sim"}}}` + "\n")
	b.WriteString(`{"conn":"connected","at":0}` + "\n")
	b.WriteString(`{"sensor":"b1","code":0,"at":0}` + "\n{\"tick\":200}\n")
	b.WriteString(`{"sensor":"f3","code":255,"at":200}` + "\n{\"tick\":400}\n")
	b.WriteString(`{"move":"b1-f3","by":"red","t":"2026-11-25T23:51:50.58364643Z","source":"sim"}` + "\n")
	for i := range n / 2 {
		at := 1000 + 200*i
		fmt.Fprintf(&b, "{\"sensor\":\"f3\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n", at, at+100)
	}
	path := filepath.Join(tb.TempDir(), JournalName("star", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)))
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

func BenchmarkReplayJournal(b *testing.B) {
	path := bigJournal(b, 200_000)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		res, err := ReplayFile(path)
		if err != nil || res.Events != 100_003 {
			b.Fatal(err, res)
		}
	}
}

func BenchmarkReadJournal(b *testing.B) {
	path := bigJournal(b, 400_000)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		u, err := readJournal(path, "star")
		if err != nil || u.Game.State.Plies() != 1 {
			b.Fatal(err)
		}
	}
}

// Resuming reads a journal of many board events line by line: what it
// allocates does not grow with them (it was the whole file and a copy of
// every line).
func TestReadJournalBoundedMemory(t *testing.T) {
	path := bigJournal(t, 400_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	u, err := readJournal(path, "star")
	runtime.ReadMemStats(&after)
	if err != nil || u.Game.State.Plies() != 1 {
		t.Fatalf("got %v, want the game after b1-f3", err)
	}
	// the race detector's sync.Pool drops a share of what is put back
	// (json.Valid's scanner among it)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 && !enginetest.Race {
		t.Errorf("reading a journal of 400,000 board events allocated %d bytes, want at most 4 MB", n)
	}
}

// parseSensor reads what Journal.Event writes as the JSON decoder does,
// and leaves anything else to it.
func TestParseSensor(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{`{"sensor":"f3","code":255,"at":1200}`, true},
		{`{"sensor":"#17","code":0,"at":0}`, true},
		{`{"sensor":"f3","code":256,"at":1}`, false},
		{`{"sensor":"f3","code":-1,"at":1}`, false},
		{`{"sensor":"f3","at":1,"code":2}`, false},
		{`{"sensor":"f3","code":1,"at":1,"x":2}`, false},
		{`{"sensor":"f3","code":1,"at":1.5}`, false},
		{`{"sensor":"f3","code":1,"at":}`, false},
	} {
		cell, code, at, ok := parseSensor([]byte(tc.line))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		var l boardLine
		if err := json.Unmarshal([]byte(tc.line), &l); err != nil || l.Sensor != string(cell) || l.Code != code || l.At != at {
			t.Errorf("%s: got %s %d %d, the decoder %+v (%v)", tc.line, cell, code, at, l, err)
		}
	}
}
