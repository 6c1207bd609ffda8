package library_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/aicmd"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/engine/enginetest"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
)

func newLibrary(t *testing.T, plies int) (*library.Library, string) {
	t.Helper()
	dir := t.TempDir()
	if err := librarytest.WriteLibrary(dir, plies); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lib.Close)
	return lib, dir
}

func byID(entries []library.Entry) map[string]library.Entry {
	m := map[string]library.Entry{}
	for _, e := range entries {
		m[e.ID] = e
	}
	return m
}

// TestGames: the good games are listed with their facts, the bad files
// with where they go wrong, the rest skipped; the index is cached and
// refreshed when a file changes.
func TestGames(t *testing.T) {
	lib, dir := newLibrary(t, 24)
	entries, err := lib.Games()
	if err != nil {
		t.Fatal(err)
	}
	got := byID(entries)
	want := append(slices.Clone(librarytest.Good), slices.Sorted(maps.Keys(librarytest.Bad))...)
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
		t.Fatalf("listed %v, want %v", ids, want)
	}
	for _, name := range librarytest.Good {
		e := got[name]
		if e.Error != nil || e.Game == "" || e.Plies == 0 || len(e.Players) < 2 || e.Result == "" || e.Date.Year() != 2026 {
			t.Errorf("%s: %+v (error %v)", name, e, e.Error)
		}
	}
	if e := got["star-missed-win.jsonl"]; e.Game != "star" || e.Plies != 1 || e.Result != "unfinished" || e.FirstMove == "" {
		t.Errorf("missed win: %+v", e)
	}
	for name, line := range librarytest.Bad {
		e := got[name]
		if e.Error == nil || e.Error.Line != line || e.Error.File != name || e.Game != "" {
			t.Errorf("%s: error %+v, want line %d", name, e.Error, line)
		}
	}
	if e := got["torn.jsonl"].Error; e.Byte != int64(len(`{"tabla":1,"game":"star","first":"red"}`+"\n"+`{"move":"b1-f3"}`+"\n"+`{"move":"l13-h11"}`+"\n")) ||
		!strings.Contains(e.Message, "cut off") {
		t.Errorf("torn: %+v", e)
	}
	if e := got["foreign.jsonl"].Error; !strings.Contains(e.Message, `unknown field "name"`) {
		t.Errorf("foreign: %+v", e)
	}
	if e := got["empty.jsonl"].Error; !strings.Contains(e.Message, "header line is missing") {
		t.Errorf("empty: %+v", e)
	}
	if _, err := os.Stat(filepath.Join(dir, library.IndexFile)); err != nil {
		t.Fatalf("no index cache: %v", err)
	}

	// A second library on the directory reads the cache: a file whose size
	// and time are unchanged is not read again (here its bytes were
	// replaced behind the library's back, keeping size and time).
	path := filepath.Join(dir, "star.jsonl")
	fi, _ := os.Stat(path)
	orig, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), len(orig)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	lib2, err := library.Open(dir, library.Options{Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	entries2, err := lib2.Games()
	if err != nil {
		t.Fatal(err)
	}
	if e := byID(entries2)["star.jsonl"]; e.Error != nil || e.Plies != got["star.jsonl"].Plies {
		t.Errorf("the cached entry was not used: %+v", e)
	}
	// a changed file is read again; a removed one drops out
	os.WriteFile(path, orig[:bytes.LastIndexByte(orig[:len(orig)-1], '\n')+1], 0o644)
	os.Remove(filepath.Join(dir, "six.jsonl"))
	entries3, _ := lib2.Games()
	m3 := byID(entries3)
	if e := m3["star.jsonl"]; e.Error != nil || e.Plies != got["star.jsonl"].Plies-1 {
		t.Errorf("changed file: plies %d, want %d (%v)", e.Plies, got["star.jsonl"].Plies-1, e.Error)
	}
	if _, ok := m3["six.jsonl"]; ok || len(m3) != len(got)-1 {
		t.Errorf("after removing six.jsonl: %d entries", len(m3))
	}
}

// TestSteps: every step of every game shows the position the engine
// replays from the record cut after that step's move.
func TestSteps(t *testing.T) {
	lib, dir := newLibrary(t, 24)
	for _, name := range librarytest.Good {
		g, err := lib.Game(name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(g.Steps) != g.Entry.Plies+1 {
			t.Errorf("%s: %d steps for %d plies", name, len(g.Steps), g.Entry.Plies)
		}
		for k, s := range g.Steps {
			n := 1
			if k > 0 {
				n = s.Line
			}
			cut, err := record.Replay(bytes.NewReader(bytes.Join(lines[:n], nil)), name)
			if err != nil {
				t.Fatalf("%s cut at line %d: %v", name, n, err)
			}
			want := cut.State.Position().Pieces
			if !maps.Equal(s.Pieces, want) {
				t.Fatalf("%s step %d: pieces %v, want %v", name, k, s.Pieces, want)
			}
			sum := record.Summary(cut.State)
			if s.Ply != sum.Ply || s.Awaiting != sum.Awaiting || s.Status != sum.Status || (s.ToMove == nil) != (sum.ToMove == nil) {
				t.Fatalf("%s step %d: %+v, rules check says %+v", name, k, s, sum)
			}
		}
	}
	if _, err := lib.Game("torn.jsonl"); err == nil || !strings.Contains(err.Error(), "torn.jsonl:4: line 4, byte") {
		t.Errorf("opening a torn record: %v", err)
	}
	for _, id := range []string{"../x.jsonl", "/etc/passwd", ".hidden/skipped.jsonl", "notes.txt", "nope.jsonl"} {
		if _, err := lib.Game(id); err == nil {
			t.Errorf("%s opened", id)
		}
	}
}

func waitAnalysis(t *testing.T, lib *library.Library, id string) *library.Analysis {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := lib.WatchAnalyses(ctx)
	deadline := time.After(2 * time.Minute)
	for {
		a, p, err := lib.Analysis(id)
		if err != nil {
			t.Fatal(err)
		}
		if a != nil {
			return a
		}
		if p.State == "failed" || p.State == "none" {
			t.Fatalf("%s: analysis %+v", id, p)
		}
		select {
		case <-ended:
		case <-deadline:
			t.Fatalf("%s: analysis still %+v", id, p)
		}
	}
}

// TestAnalysis: an analysis runs in the background, is cached beside the
// record, read from there by the next library, and redone when the
// record changes.
func TestAnalysis(t *testing.T) {
	lib, dir := newLibrary(t, 16)
	id := "star-missed-win.jsonl"
	if _, p, _ := lib.Analysis(id); p.State != "none" {
		t.Fatalf("before: %+v", p)
	}
	if p, err := lib.Analyze(id); err != nil || (p.State != "queued" && p.State != "running" && p.State != "done") {
		t.Fatalf("analyze: %+v %v", p, err)
	}
	a := waitAnalysis(t, lib, id)
	if len(a.Report.Moves) != 1 || !a.Report.Moves[0].MissedWin || len(a.Best) != 1 || a.Best[0] == nil || len(a.Best[0].From) != 1 || len(a.Best[0].To) != 1 {
		t.Fatalf("report %+v best %+v", a.Report.Moves, a.Best)
	}
	cache := filepath.Join(dir, id+library.AnalysisSuffix)
	raw, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	var c library.Analysis
	json.Unmarshal(raw, &c)
	if c.Record.SHA256 == "" || c.Record.Size == 0 {
		t.Errorf("cache stamp %+v", c.Record)
	}
	lib2, _ := library.Open(dir, library.Options{Level: 1})
	defer lib2.Close()
	if a2, p, _ := lib2.Analysis(id); a2 == nil || p.State != "done" {
		t.Errorf("second visit: %+v", p)
	}
	// a changed record is analysed again
	f, _ := os.OpenFile(filepath.Join(dir, id), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"resume":"x"}` + "\n")
	f.Close()
	if a3, p, _ := lib2.Analysis(id); a3 != nil || p.State != "none" {
		t.Errorf("after a change: %+v", p)
	}
	// every game of the five analyses
	for _, name := range librarytest.Good[:5] {
		lib.Analyze(name)
	}
	for _, name := range librarytest.Good[:5] {
		a := waitAnalysis(t, lib, name)
		g, _ := lib.Game(name)
		if len(a.Report.Moves) != len(g.Steps)-1 || len(a.Best) != len(g.Steps)-1 {
			t.Errorf("%s: %d analysed moves, %d arrows, %d steps", name, len(a.Report.Moves), len(a.Best), len(g.Steps))
		}
	}
	if _, err := lib.Analyze("empty.jsonl"); err == nil {
		t.Error("an unreadable record was analysed")
	}
}

// TestStatsAsTablaStats: the library's statistics are `tabla stats`'s.
func TestStatsAsTablaStats(t *testing.T) {
	dir := "../aicmd/testdata/logs"
	var warn bytes.Buffer
	want, err := aicmd.Collect(dir, &warn)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, n := range names {
		data, _ := os.ReadFile(n)
		os.WriteFile(filepath.Join(tmp, filepath.Base(n)), data, 0o644)
	}
	lib, err := library.Open(tmp, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	got, err := lib.Stats()
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want)
	var wantM, gotM map[string]any
	json.Unmarshal(wj, &wantM)
	gj, _ := json.Marshal(got)
	json.Unmarshal(gj, &gotM)
	for _, g := range gotM["by_game"].([]any) { // the library also keeps every length and game, and the sides
		delete(g.(map[string]any), "lengths")
		delete(g.(map[string]any), "ids")
		delete(g.(map[string]any), "sides")
		for _, f := range g.(map[string]any)["first_moves"].([]any) { // and a game of each first move
			delete(f.(map[string]any), "example")
		}
	}
	// tabla stats's figures of players and clocks (issue 27) are not the
	// library's yet
	delete(wantM, "by_player")
	for _, g := range wantM["by_game"].([]any) {
		delete(g.(map[string]any), "on_time")
	}
	if a, b := mustJSON(wantM), mustJSON(gotM); a != b {
		t.Errorf("library stats\n%s\ntabla stats\n%s", b, a)
	}
}

func mustJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A record of a few moves and millions of tick lines is listed, stepped
// and analysed in memory that does not grow with its size: the file is
// read line by line, never whole.
func TestLargeRecordBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString(`{"tabla":1,"game":"star","first":"red"}` + "\n" + `{"move":"b1-f3"}` + "\n")
	for b.Len() < 8<<20 {
		b.WriteString("{\"tick\":1}\n")
	}
	b.WriteString(`{"move":"l13-h11"}` + "\n")
	if err := os.WriteFile(filepath.Join(dir, "ticks.jsonl"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{Level: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	limit := uint64(4 << 20)
	if enginetest.Race {
		limit = 32 << 20 // the race detector's sync.Pool drops a share of what is put back
	}
	if n := allocated(func() {
		if _, err := lib.Games(); err != nil {
			t.Fatal(err)
		}
	}); n > limit {
		t.Errorf("listing an 8 MB record allocated %d bytes, want at most %d", n, limit)
	}
	if n := allocated(func() {
		g, err := lib.Game("ticks.jsonl")
		if err != nil || len(g.Steps) != 3 {
			t.Fatalf("game: %v", err)
		}
	}); n > limit {
		t.Errorf("stepping an 8 MB record allocated %d bytes, want at most %d", n, limit)
	}
	if n := allocated(func() {
		f, _, err := lib.Record("ticks.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}); n > limit {
		t.Errorf("opening an 8 MB record for download allocated %d bytes, want at most %d", n, limit)
	}
}

// Close stops an analysis under way instead of waiting for it (tabla
// library and tabla run stop on Ctrl-C through it), and caches nothing.
func TestCloseStopsAnalysis(t *testing.T) {
	dir := t.TempDir()
	rec, err := librarytest.Random(librarytest.Headers[2], 7, 60, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "long.jsonl"), rec, 0o644)
	lib, err := library.Open(dir, library.Options{Level: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Analyze("long.jsonl"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		_, p, err := lib.Analysis("long.jsonl")
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("analysis %+v, %v", p, err)
		}
		if p.State == "running" {
			break
		}
	}
	closed := make(chan struct{})
	go func() { lib.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("Close waited for the analysis under way")
	}
	if _, err := os.Stat(filepath.Join(dir, "long.jsonl"+library.AnalysisSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped analysis was cached (%v)", err)
	}
}
