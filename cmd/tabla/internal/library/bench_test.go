package library_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
)

// bigLibrary writes n records: 50 random games of up to 60 plies (ten of
// each game) over and over, in folders of 1,000 like a journal directory
// that has been sorted by month.
func bigLibrary(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	var recs [][]byte
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 50; i++ {
		rec, err := librarytest.Random(librarytest.Headers[i%5], uint64(i+1), 60, start.Add(time.Duration(i)*time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec)
	}
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("2026-%02d", i/1000+1))
		if i%1000 == 0 {
			os.MkdirAll(sub, 0o755)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("game-%05d.jsonl", i)), recs[i%len(recs)], 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// list is what GET /api/games does: the listing and its JSON.
func list(b *testing.B, lib *library.Library, n int) {
	entries, err := lib.Games()
	if err != nil {
		b.Fatal(err)
	}
	if len(entries) != n {
		b.Fatalf("%d entries, want %d", len(entries), n)
	}
	if _, err := json.Marshal(entries); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkList: GET /api/games's work on a library of 10,000 games.
//
//   - warm: the server has listed it before (the usual case): every file
//     is stat'ed, none read.
//   - cached: a fresh process on a library indexed before: the index cache
//     file is read, every file stat'ed.
//   - cold: the first listing ever: every record read and replayed.
func BenchmarkList(b *testing.B) {
	const n = 10_000
	dir := bigLibrary(b, n)
	b.Run("warm", func(b *testing.B) {
		lib, _ := library.Open(dir, library.Options{})
		list(b, lib, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			list(b, lib, n)
		}
	})
	b.Run("cached", func(b *testing.B) {
		lib, _ := library.Open(dir, library.Options{})
		list(b, lib, n) // writes the cache
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			lib, err := library.Open(dir, library.Options{})
			if err != nil {
				b.Fatal(err)
			}
			list(b, lib, n)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			os.Remove(filepath.Join(dir, library.IndexFile))
			b.StartTimer()
			lib, err := library.Open(dir, library.Options{})
			if err != nil {
				b.Fatal(err)
			}
			list(b, lib, n)
		}
	})
}
