package library_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// BenchmarkGame64MB: issue 25's budget (any record or journal up to the
// library's 64 MB cap in under 100 MB and 2 s) for the library — a fresh
// library's first GET /api/game of a 64 MB STAR journal (its entry read,
// then its steps: index), and the same request again (the entry cached:
// steps), for each kind of chatter; the CPU time an op takes and the peak
// memory beside the wall time.
func BenchmarkGame64MB(b *testing.B) {
	for _, k := range []struct {
		name string
		kind int
	}{{"toggle", recordtest.Toggle}, {"ticks", recordtest.Ticks}} {
		dir := b.TempDir()
		const id = "game-20261101T100000.000000000Z-star.jsonl"
		f, err := os.Create(filepath.Join(dir, id))
		if err != nil {
			b.Fatal(err)
		}
		if err := recordtest.Chatter(f, 64<<20, k.kind); err != nil {
			b.Fatal(err)
		}
		f.Close()
		fi, _ := os.Stat(filepath.Join(dir, id))
		game := func(b *testing.B, lib *library.Library) {
			g, err := lib.Game(id)
			if err != nil || len(g.Steps) != 3 {
				b.Fatalf("got %v", err)
			}
		}
		b.Run("index/"+k.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0, _ := recordtest.Usage()
			for b.Loop() {
				os.Remove(filepath.Join(dir, ".tabla-library.json"))
				lib, err := library.Open(dir, library.Options{})
				if err != nil {
					b.Fatal(err)
				}
				game(b, lib)
				lib.Close()
			}
			recordtest.Budget(b, cpu0)
		})
		b.Run("steps/"+k.name, func(b *testing.B) {
			lib, err := library.Open(dir, library.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer lib.Close()
			game(b, lib)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0, _ := recordtest.Usage()
			for b.Loop() {
				game(b, lib)
			}
			recordtest.Budget(b, cpu0)
		})
	}
}
