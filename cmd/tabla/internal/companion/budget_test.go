package companion

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// chatterFile writes a 64 MB STAR journal of the kind given.
func chatterFile(b *testing.B, kind int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), JournalName("star", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)))
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := recordtest.Chatter(f, 64<<20, kind); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkBudget64MB: issue 25's budget (any record or journal up to the
// library's 64 MB cap in under 100 MB and 2 s) for the daemon's readers —
// resume (readJournal, what `tabla run` does before it plays on) and
// `tabla replay` (ReplayFile) — on a 64 MB STAR journal of each kind of
// chatter: toggle (the referee reads the board at every event), repeat (a
// sensor reports what it read again and again), ticks. The CPU time an op
// takes and the peak memory are reported beside the wall time.
func BenchmarkBudget64MB(b *testing.B) {
	for _, k := range []struct {
		name string
		kind int
	}{{"toggle", recordtest.Toggle}, {"repeat", recordtest.Repeat}, {"ticks", recordtest.Ticks}} {
		path := chatterFile(b, k.kind)
		fi, _ := os.Stat(path)
		b.Run("resume/"+k.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0, _ := recordtest.Usage()
			for b.Loop() {
				u, err := readJournal(path, "star")
				if err != nil || u.Game.State.Plies() != 2 {
					b.Fatal(err)
				}
			}
			recordtest.Budget(b, cpu0)
		})
		b.Run("replay/"+k.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			cpu0, _ := recordtest.Usage()
			for b.Loop() {
				res, err := ReplayFile(path)
				if err != nil || !res.Match() || len(res.Got) != 2 {
					b.Fatal(err, res.Got)
				}
			}
			recordtest.Budget(b, cpu0)
		})
	}
}
