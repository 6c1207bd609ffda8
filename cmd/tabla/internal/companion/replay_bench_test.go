package companion

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/enginetest"
)

// starStart is the snapshot of STAR's start position, as `tabla sim`
// journals it.
const starStart = "00ff000000ff000000ff000000000000ff000000ff000000ff0000000000000000000000000000ff000000ff000000ff000000000000ff000000ff000000ff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000ff000000ff000000ff000000000000ff000000ff000000ff0000000000000000000000000000ff000000ff000000ff000000000000ff000000ff000000ff00"

// chatterJournal writes a STAR journal of about size bytes whose every
// board event the referee settles on: red's b1-f3 on a connected board,
// then a sensor under the empty cell a5 that reads a piece and none again,
// each reading lasting past the settle window (a tick after each, as the
// daemon journals them), and white's d13-h11 at the end. It is the worst
// case of a long evening with a faulty sensor: a million settles of the
// board in 64 MB.
func chatterJournal(tb testing.TB, size int) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), JournalName("star", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	n := 0
	p := func(format string, args ...any) {
		k, _ := fmt.Fprintf(w, format, args...)
		n += k
	}
	p(`{"tabla":1,"game":"star","first":"red","meta":{"companion":{"board":"star","identifying":false,"settle_ms":100,"takeback":2,"source":"sim"}}}` + "\n")
	p(`{"snapshot":"%s","at":0}`+"\n", starStart)
	p(`{"conn":"connected","at":0}` + "\n")
	p(`{"snapshot":"%s","at":0}`+"\n", starStart)
	p("{\"sensor\":\"b1\",\"code\":0,\"at\":0}\n{\"tick\":200}\n{\"sensor\":\"f3\",\"code\":255,\"at\":200}\n{\"tick\":400}\n")
	p(`{"move":"b1-f3","by":"red","t":"2026-11-01T10:00:00.4Z","source":"sim"}` + "\n")
	const tail = 300 // bytes the last move takes, at most
	at := 1000
	for n < size-tail-100 {
		p("{\"sensor\":\"a5\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n{\"sensor\":\"a5\",\"code\":0,\"at\":%d}\n{\"tick\":%d}\n", at, at+100, at+200, at+300)
		at += 400
	}
	p("{\"sensor\":\"d13\",\"code\":0,\"at\":%d}\n{\"tick\":%d}\n{\"sensor\":\"h11\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n", at, at+200, at+400, at+600)
	p(`{"move":"d13-h11","by":"white","t":"2026-11-01T12:00:00Z","source":"sim"}` + "\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// The chatter journal reproduces its two moves and counts every event.
func TestReplayChatter(t *testing.T) {
	path := chatterJournal(t, 1<<20)
	res, err := ReplayFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Match() || len(res.Got) != 2 || res.Got[1] != "move white d13-h11" {
		t.Fatalf("got %q, want %q", res.Got, res.Want)
	}
	fi, _ := os.Stat(path)
	// every line but the header and the two moves is a board event, a
	// tick or a snapshot; half the chatter is ticks
	if res.Events < int(fi.Size())/60 {
		t.Errorf("%d events replayed from %d bytes", res.Events, fi.Size())
	}
}

// BenchmarkReplay64MB: `tabla replay` of a journal at the library's 64 MB
// cap whose every board event the referee settles on (chatterJournal).
// Issue 25's budget is 2 s and 100 MB.
func BenchmarkReplay64MB(b *testing.B) {
	path := chatterJournal(b, 64<<20)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		res, err := ReplayFile(path)
		if err != nil || !res.Match() {
			b.Fatal(err, res.Got)
		}
	}
}

// Replay reads board events without allocating for each (it allocated a
// line's fields every line: 42 MB for 200,000 events); what remains is
// the referee's.
func TestReplayBoundedAllocs(t *testing.T) {
	path := bigJournal(t, 400_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := ReplayFile(path)
	runtime.ReadMemStats(&after)
	if err != nil || res.Events != 200_003 {
		t.Fatalf("got %v, %+v", err, res)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 && !enginetest.Race {
		t.Errorf("replaying a journal of 400,000 board lines allocated %d bytes, want at most 4 MB", n)
	}
}
