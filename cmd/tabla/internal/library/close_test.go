package library_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
)

// TestCloseStopsIndexing: Close stops a listing under way (Warm's, and a
// page's Games waiting for it) between two files and waits for it: the
// files being read when Close came are read to their end, no file is
// begun after it, the listings return ErrClosed, the index cache written
// before is left as it was (no temporary file beside it), and the next
// library lists every game as one never interrupted does.
func TestCloseStopsIndexing(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteMany(dir, 20, 1); err != nil {
		t.Fatal(err)
	}
	lib1, err := library.Open(dir, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib1.Games(); err != nil { // the cache of the first 20
		t.Fatal(err)
	}
	lib1.Close()
	cache, err := os.ReadFile(filepath.Join(dir, library.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(dir, "later") // 20 more: stale in the cache
	if err := os.Mkdir(later, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := librarytest.WriteMany(later, 20, 2); err != nil {
		t.Fatal(err)
	}

	lib, err := library.Open(dir, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const passed = 3 // files read before the listing is held
	var calls atomic.Int64
	var afterClose atomic.Int64 // hook calls once Close returned
	returned := make(chan struct{})
	held := make(chan struct{})
	library.SetReadHook(lib, func(id string) {
		select {
		case <-returned:
			afterClose.Add(1)
		default:
		}
		if calls.Add(1) <= passed {
			return
		}
		if calls.Load() == passed+1 {
			close(held)
		}
		<-library.Closing(lib) // every worker waits here for Close
	})
	lib.Warm()
	select {
	case <-held:
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("the listing never reached its 4th file")
	}
	page := make(chan error, 1)
	go func() { _, err := lib.Games(); page <- err }() // a page asking meanwhile
	lib.Close()
	close(returned)

	// Close waited: the files begun before it are read, none after.
	if p := lib.Progress(); p.Read != passed {
		t.Errorf("read %d files; want the %d begun before Close", p.Read, passed)
	}
	if n := calls.Load(); n > passed+int64(runtime.GOMAXPROCS(0)) {
		t.Errorf("%d files begun; want at most %d (one a worker after the %d read)", n, passed+runtime.GOMAXPROCS(0), passed)
	}
	select {
	case err := <-page:
		if !errors.Is(err, library.ErrClosed) {
			t.Errorf("the page's listing: %v; want ErrClosed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the page's listing did not end after Close")
	}
	if _, err := lib.Games(); !errors.Is(err, library.ErrClosed) {
		t.Errorf("Games after Close: %v; want ErrClosed", err)
	}
	if n := afterClose.Load(); n != 0 {
		t.Errorf("%d files begun after Close returned", n)
	}

	// The cache is the one written before, whole, with nothing beside it.
	if now, err := os.ReadFile(filepath.Join(dir, library.IndexFile)); err != nil || !bytes.Equal(now, cache) {
		t.Errorf("the index cache changed (%v)", err)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*.*"))
	for _, h := range hidden {
		if b := filepath.Base(h); b != library.IndexFile && b != library.TextFile {
			t.Errorf("left behind: %s", b)
		}
	}

	// The next library lists all 40, as one indexing from scratch does.
	lib2, err := library.Open(dir, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	got, err := lib2.Games()
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, library.IndexFile))
	os.Remove(filepath.Join(dir, library.TextFile))
	lib3, err := library.Open(dir, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib3.Close()
	want, err := lib3.Games()
	if err != nil {
		t.Fatal(err)
	}
	// as JSON: times read from the cache have another *time.Location
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if len(got) != 40 || !bytes.Equal(gj, wj) {
		t.Errorf("after the interrupted index: %d entries, want the %d of a fresh index:\n%s\n%s", len(got), len(want), gj, wj)
	}
	for _, e := range got {
		if e.Error != nil {
			t.Errorf("%s: %v", e.ID, e.Error)
		}
	}
}
