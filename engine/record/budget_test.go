package record_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// BenchmarkRead64MB: the reading `tabla rules check|moves`, `hint` and
// `analyze` do (record.Replay) of a journal at the library's 64 MB cap,
// for each kind of chatter. Issue 25's budget: under 2 s and 100 MB (the
// CPU time an op takes and the process's peak memory are reported beside
// the wall time, which a loaded machine stretches).
func BenchmarkRead64MB(b *testing.B) {
	for _, k := range []struct {
		name string
		kind int
	}{{"toggle", recordtest.Toggle}, {"repeat", recordtest.Repeat}, {"ticks", recordtest.Ticks}} {
		b.Run(k.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "journal.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := recordtest.Chatter(f, 64<<20, k.kind); err != nil {
				b.Fatal(err)
			}
			f.Close()
			fi, _ := os.Stat(path)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0, _ := recordtest.Usage()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				g, err := record.Replay(f, path)
				f.Close()
				if err != nil || len(g.Applied) != 2 {
					b.Fatal(err)
				}
			}
			recordtest.Budget(b, cpu0)
		})
	}
}
