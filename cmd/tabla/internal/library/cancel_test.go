package library_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
)

// TestCancelResume: CancelAnalysis stops an analysis part way (and drops
// a queued one at once); the next Analyze of the record searches only the
// positions not searched yet, and ends with the analysis one run gives.
func TestCancelResume(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"star.jsonl", "other.jsonl"} {
		rec, err := librarytest.Random(librarytest.Headers[1], uint64(3+i), 30, start)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), rec, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := library.Open(dir, library.Options{Level: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	const id, held = "star.jsonl", 8
	reached, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var calls []int // done, as the analysis of id reported it
	wasHeld := false
	library.SetProgressHook(lib, func(game string, done, total int) {
		if game != id {
			return
		}
		mu.Lock()
		calls = append(calls, done)
		first := done == held && !wasHeld
		wasHeld = wasHeld || first
		mu.Unlock()
		if first {
			close(reached)
			<-release
		}
	})
	if _, err := lib.Analyze(id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reached:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a measure
		t.Fatal("the analysis did not reach its 8th position")
	}
	// Queued behind it, and stopped at once.
	if p, err := lib.Analyze("other.jsonl"); err != nil || p.State != "queued" {
		t.Fatalf("other: %+v, %v", p, err)
	}
	if p, err := lib.CancelAnalysis("other.jsonl"); err != nil || p.State != "stopped" {
		t.Fatalf("cancelling the queued analysis: %+v, %v", p, err)
	}
	// Stopped after 8 positions.
	library.RequestCancel(lib, id)
	close(release)
	p, err := lib.CancelAnalysis(id)
	if err != nil || p.State != "stopped" || p.Done != held || p.Total <= held {
		t.Fatalf("cancelled: %+v, %v; want stopped after %d positions", p, err, held)
	}
	if a, p2, err := lib.Analysis(id); a != nil || p2 != p || err != nil {
		t.Errorf("after the cancel: %v, %+v, %v", a, p2, err)
	}
	if _, err := os.Stat(filepath.Join(dir, id+library.AnalysisSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped analysis was cached (%v)", err)
	}
	// Cancelling what is not under way changes nothing.
	if p3, err := lib.CancelAnalysis(id); err != nil || p3 != p {
		t.Errorf("cancelled again: %+v, %v", p3, err)
	}
	// Resumed: the positions after the 8th only.
	mu.Lock()
	calls = nil
	mu.Unlock()
	if p, err := lib.Analyze(id); err != nil || p.Done != held {
		t.Fatalf("resume: %+v, %v; want %d positions done from the start", p, err, held)
	}
	a := waitAnalysis(t, lib, id)
	mu.Lock()
	if len(calls) != p.Total-held || calls[0] != held+1 || calls[len(calls)-1] != p.Total {
		t.Errorf("resumed run reported %v; want %d…%d", calls, held+1, p.Total)
	}
	mu.Unlock()
	// The same as one run, in a library of its own.
	dir2 := t.TempDir()
	rec, _ := os.ReadFile(filepath.Join(dir, id))
	os.WriteFile(filepath.Join(dir2, id), rec, 0o644)
	lib2, err := library.Open(dir2, library.Options{Level: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	lib2.Analyze(id)
	whole := waitAnalysis(t, lib2, id)
	if !reflect.DeepEqual(a.Report, whole.Report) || !reflect.DeepEqual(a.Best, whole.Best) {
		t.Errorf("resumed analysis differs from one run:\n%+v\n%+v", a.Report, whole.Report)
	}
	// The other game, stopped while queued, is analysed in full when asked.
	lib.Analyze("other.jsonl")
	if a := waitAnalysis(t, lib, "other.jsonl"); len(a.Report.Moves) != 30 {
		t.Errorf("other: %d moves analysed", len(a.Report.Moves))
	}
}

// BenchmarkCancelAnalysis: how long CancelAnalysis takes to stop a running
// analysis (level 5, one worker) of each game with a search (RAY's exact
// odds take no search); ns/op is that wait. Each round starts (resumes) the
// analysis, waits for a position to be done, and cancels it while the next
// is searched.
func BenchmarkCancelAnalysis(b *testing.B) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, h := range librarytest.Headers {
		if h.Game == "ray" {
			continue
		}
		b.Run(h.Game, func(b *testing.B) {
			dir := b.TempDir()
			rec, err := librarytest.Random(h, 5, 60, start)
			if err != nil {
				b.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "g.jsonl"), rec, 0o644)
			lib, err := library.Open(dir, library.Options{Level: 5, Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer lib.Close()
			first := make(chan struct{}, 1)
			library.SetProgressHook(lib, func(string, int, int) {
				select {
				case first <- struct{}{}:
				default:
				}
			})
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				select {
				case <-first: // from the round before
				default:
				}
				if _, err := lib.Analyze("g.jsonl"); err != nil {
					b.Fatal(err)
				}
				<-first // a position searched: the next is under way
				b.StartTimer()
				t0 := time.Now()
				p, err := lib.CancelAnalysis("g.jsonl")
				total += time.Since(t0)
				if err != nil || p.State != "stopped" {
					b.Fatalf("%+v, %v", p, err)
				}
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/cancel")
		})
	}
}
