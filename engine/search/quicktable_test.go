package search

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// TestOnePlyLeavesTheTableAlone: a search one ply deep stores and reads no
// table entry (every root move's child is a leaf), so newABWorker gives it
// the smallest table; a deeper search gets its table by the node budget.
// The library's quick look at every move is such a search (level 1), and
// made and zeroed 1<<20 entries (24 MB) each time before.
func TestOnePlyLeavesTheTableAlone(t *testing.T) {
	for _, game := range []string{"daha", "star", "gyges", "ray", "six"} {
		t.Run(game, func(t *testing.T) {
			s := mustNew(t, game, engine.Config{})
			if s.Awaiting() == engine.AwaitRoll {
				if err := s.Roll(0); err != nil {
					t.Fatal(err)
				}
			}
			nodes, depth, _ := budget(Options{Level: 1}, true)
			w := newABWorker(s.Clone(), Options{Level: 1}, nodes, depth, time.Time{}, new(atomic.Bool))
			if len(w.tt) != 1<<12 {
				t.Errorf("level 1: a table of %d entries, want %d", len(w.tt), 1<<12)
			}
			for _, m := range s.Moves(nil) {
				w.rootMove(m, depth, -inf, inf)
			}
			for i, e := range w.tt {
				if e != (ttEntry{}) {
					t.Fatalf("a one-ply search wrote table entry %d: %+v", i, e)
				}
			}
			if w.nodes == 0 {
				t.Fatal("the one-ply search visited no node")
			}
			nodes, depth, _ = budget(Options{Level: 3}, true)
			if w := newABWorker(s.Clone(), Options{Level: 3}, nodes, depth, time.Time{}, new(atomic.Bool)); len(w.tt) != 1<<16 {
				t.Errorf("level 3 (30,000 nodes): a table of %d entries, want %d", len(w.tt), 1<<16)
			}
		})
	}
}

// BenchmarkLevel1: one level-1 search (one ply, one worker) from STAR's
// start, as the library's quick look at each move makes.
func BenchmarkLevel1(b *testing.B) {
	s := mustNew(b, "star", engine.Config{})
	b.ReportAllocs()
	for b.Loop() {
		Search(s, Options{Level: 1, Seed: 1})
	}
}
