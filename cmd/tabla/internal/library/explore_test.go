package library_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/analysis"
	"github.com/tabla-board/tabla/engine/record"
)

// TestBestArrowIsTheNamedMove: the arrow kept for the position before
// every move draws the move the analysis names as the engine's there (the
// analysis board draws Best[k-1] at a mistake of move k, named by
// Moves[k-1].Best).
func TestBestArrowIsTheNamedMove(t *testing.T) {
	lib, _ := newLibrary(t, 24)
	for _, name := range librarytest.Good {
		lib.Analyze(name)
		a := waitAnalysis(t, lib, name)
		for i, m := range a.Report.Moves {
			arrow := a.Best[i]
			if (arrow == nil) != (m.Best == "") && !(arrow == nil && m.Best != "") {
				t.Errorf("%s move %d: best %q, arrow %+v", name, m.N, m.Best, arrow)
			}
			if arrow != nil && arrow.Move != m.Best {
				t.Errorf("%s move %d: the analysis names %q, the arrow draws %q", name, m.N, m.Best, arrow.Move)
			}
		}
	}
}

// TestSearch: a query matches any move of a game (not only the first), its
// seats, its file, and any header field generically (meta here; the
// record package's own fields the same way), every word of the query.
func TestSearch(t *testing.T) {
	lib, dir := newLibrary(t, 24)
	data, err := os.ReadFile(filepath.Join(dir, "gyges.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	withMeta := strings.Replace(lines[0], `"game":"gyges"`, `"game":"gyges","meta":{"event":"Club Night","players":{"south":"Alice Grey","north":"Bo"},"round":3}`, 1)
	if withMeta == lines[0] {
		t.Fatalf("header %s", lines[0])
	}
	if err := os.WriteFile(filepath.Join(dir, "club.jsonl"), []byte(withMeta+strings.Join(lines[1:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Games(); err != nil {
		t.Fatal(err)
	}
	g, err := lib.Game("gyges.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	late := g.Steps[len(g.Steps)-1].Move // the last move, far from the first
	if late == g.Steps[1].Move {
		t.Fatalf("last move %q is the first", late)
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"club night", []string{"club.jsonl"}},
		{"ALICE", []string{"club.jsonl"}},
		{"event:club", []string{"club.jsonl"}},
		{"players.north:bo", []string{"club.jsonl"}},
		{"round:3", []string{"club.jsonl"}},
		{"alice star", []string{}},
		{"torn", []string{"torn.jsonl"}},
		{"white", []string{"star-missed-win.jsonl", "star.jsonl"}},
	} {
		if got := lib.Search(c.q); !slices.Equal(got, c.want) {
			t.Errorf("Search(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	got := lib.Search(late)
	if !slices.Contains(got, "gyges.jsonl") || !slices.Contains(got, "club.jsonl") {
		t.Errorf("Search(%q), the last move of gyges.jsonl: %q", late, got)
	}
	if n := len(lib.Search("")); n != 11 {
		t.Errorf("an empty query matches %d files, want all 11", n)
	}
	// the search text survives the index cache, and is never listed
	lib2, err := library.Open(dir, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	entries, _ := lib2.Games()
	if got := lib2.Search("alice " + late); !slices.Equal(got, []string{"club.jsonl"}) {
		t.Errorf("from the cache: %q", got)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, library.TextFile))
	if !bytes.Contains(raw, []byte("event:club night")) {
		t.Error("the index cache has no search text")
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, library.IndexFile)); bytes.Contains(raw, []byte("event:club night")) {
		t.Error("the index itself holds the search text (a library's opening reads it)")
	}
	// a texts file lost (or older than a record) is made up by reading
	os.Remove(filepath.Join(dir, library.TextFile))
	lib3, _ := library.Open(dir, library.Options{})
	defer lib3.Close()
	lib3.Games()
	if got := lib3.Search("alice " + late); !slices.Equal(got, []string{"club.jsonl"}) {
		t.Errorf("without the texts file: %q", got)
	}
	if out := mustJSON(entries); strings.Contains(out, "club night") || strings.Contains(out, late+" ") {
		t.Error("the listing carries the search text")
	}
}

// TestIndexProgress: while the first index reads the files, Progress
// counts them.
func TestIndexProgress(t *testing.T) {
	dir := t.TempDir()
	if err := librarytest.WriteMany(dir, 12, 3); err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(dir, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if p := lib.Progress(); p.Indexing {
		t.Errorf("before: %+v", p)
	}
	var n atomic.Int32
	release := make(chan struct{})
	held := make(chan struct{})
	var once sync.Once
	library.SetReadHook(lib, func(string) {
		if n.Add(1) > 5 {
			once.Do(func() { close(held) })
			<-release
		}
	})
	done := make(chan error)
	go func() { _, err := lib.Games(); done <- err }()
	<-held
	// the readers past the fifth wait; the fifth may still be counted
	for p := lib.Progress(); p.Read < 5; p = lib.Progress() {
		if !p.Indexing || p.Total != 12 || p.Read > 5 {
			t.Fatalf("while reading: %+v", p)
		}
	}
	if p := lib.Progress(); !p.Indexing || p.Total != 12 || p.Read != 5 {
		t.Errorf("held after 5 files: %+v, want 5 of 12", p)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if p := lib.Progress(); p.Indexing || p.Read != 12 || p.Total != 12 {
		t.Errorf("after: %+v", p)
	}
}

// TestExplore: a variation from any step of a game has the position the
// engine has after those moves, and every legal move of it with its cells;
// an illegal move is refused.
func TestExplore(t *testing.T) {
	lib, dir := newLibrary(t, 24)
	for _, name := range librarytest.Good {
		g, err := lib.Game(name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		rg, err := record.Replay(bytes.NewReader(data), name)
		if err != nil {
			t.Fatal(err)
		}
		for _, ply := range []int{0, len(g.Steps) / 2, len(g.Steps) - 1} {
			x, err := lib.Explore(name, ply, nil)
			if err != nil {
				t.Fatalf("%s ply %d: %v", name, ply, err)
			}
			if !mapsEqual(x.Step.Pieces, g.Steps[ply].Pieces) {
				t.Fatalf("%s ply %d: explore %v, game %v", name, ply, x.Step.Pieces, g.Steps[ply].Pieces)
			}
			if len(x.Legal) == 0 && len(x.Die) == 0 {
				continue // the end
			}
			// play two moves (or rolls) of the variation
			var line []string
			st := stateAt(t, rg, ply)
			for range 2 {
				switch st.Awaiting() {
				case engine.AwaitRoll:
					line = append(line, library.RollPrefix+st.Info().Die.Faces[0])
					st.Roll(0)
				case engine.AwaitMove:
					ms := st.Moves(nil)
					m := ms[len(ms)-1]
					line = append(line, engine.MoveString(st, m))
					st.Play(m)
				}
			}
			x, err = lib.Explore(name, ply, line)
			if err != nil {
				t.Fatalf("%s ply %d %q: %v", name, ply, line, err)
			}
			if !mapsEqual(x.Step.Pieces, st.Position().Pieces) {
				t.Errorf("%s ply %d %q: explore %v, engine %v", name, ply, line, x.Step.Pieces, st.Position().Pieces)
			}
			var want []string
			for _, m := range st.Moves(nil) {
				want = append(want, engine.MoveString(st, m))
			}
			var got []string
			for _, a := range x.Legal {
				got = append(got, a.Move)
				if len(a.To) == 0 && a.Move != "pass" {
					t.Errorf("%s: legal move %q reaches no cell", name, a.Move)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s ply %d %q: legal %q, engine %q", name, ply, line, got, want)
			}
		}
	}
	if _, err := lib.Explore("star.jsonl", 0, []string{"a1-a9"}); !errors.Is(err, library.ErrVariation) {
		t.Errorf("an illegal move: %v", err)
	}
	if _, err := lib.Explore("star.jsonl", 999, nil); !errors.Is(err, library.ErrVariation) {
		t.Errorf("ply 999: %v", err)
	}
	if _, err := lib.Explore("star.jsonl", 0, []string{"roll:4"}); !errors.Is(err, library.ErrVariation) {
		t.Errorf("a roll in STAR: %v", err)
	}
}

// stateAt replays a game to its step ply and the roll made there.
func stateAt(t *testing.T, g *record.Game, ply int) engine.State {
	t.Helper()
	st, err := record.NewState(g.Header)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, a := range g.Applied {
		if !a.Roll && k == ply {
			break
		}
		if a.Roll {
			st.Roll(a.Face)
			continue
		}
		st.Play(a.Move)
		k++
	}
	return st
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestEvaluate: the engine's three best lines at a STAR position, best
// first, each a legal line starting with its move and searched to a depth;
// and the evaluation of a variation follows its moves.
func TestEvaluate(t *testing.T) {
	lib, _ := newLibrary(t, 24)
	ev, err := lib.Evaluate(context.Background(), "star.jsonl", 4, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Lines) != 3 || ev.Algo != "alphabeta" || ev.Depth < 1 || len(ev.Values) != 2 || ev.Side < 0 {
		t.Fatalf("evaluation %+v", ev)
	}
	x, _ := lib.Explore("star.jsonl", 4, nil)
	legal := map[string]bool{}
	for _, a := range x.Legal {
		legal[a.Move] = true
	}
	for i, l := range ev.Lines {
		if !legal[l.Move] || len(l.PV) == 0 || l.PV[0] != l.Move || l.Depth < 1 {
			t.Errorf("line %d: %+v", i, l)
		}
		if i > 0 && l.Value > ev.Lines[i-1].Value {
			t.Errorf("line %d (%v) is better than line %d (%v)", i, l.Value, i-1, ev.Lines[i-1].Value)
		}
		if _, err := lib.Explore("star.jsonl", 4, l.PV); err != nil {
			t.Errorf("line %d %q does not play: %v", i, l.PV, err)
		}
	}
	if a, b := ev.Lines[0].Move, ev.Lines[1].Move; a == b {
		t.Errorf("two lines of %q", a)
	}
	after, err := lib.Evaluate(context.Background(), "star.jsonl", 4, []string{ev.Lines[0].Move}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if after.Side == ev.Side || len(after.Lines) != 1 {
		t.Errorf("after the best move: %+v", after)
	}
	// an evaluation the page no longer wants is not made
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lib.Evaluate(gone, "star.jsonl", 4, nil, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled evaluation: %v", err)
	}
	// DAHA (dice): lines at a position that awaits a roll are none
	if ev, err := lib.Evaluate(context.Background(), "daha.jsonl", 0, nil, 3); err != nil || len(ev.Values) == 0 {
		t.Errorf("daha: %+v %v", ev, err)
	}
}

// TestAnnotated: the annotated record is the record with comment lines: it
// replays to the same game, has the summary after the header and a comment
// after every move with a tier or a missed win, naming the better move.
func TestAnnotated(t *testing.T) {
	lib, dir := newLibrary(t, 24)
	if _, err := lib.Annotated("star.jsonl"); !errors.Is(err, library.ErrNotAnalysed) {
		t.Errorf("before the analysis: %v", err)
	}
	for _, name := range append([]string{"star-missed-win.jsonl"}, librarytest.Good[:5]...) {
		lib.Analyze(name)
		a := waitAnalysis(t, lib, name)
		out, err := lib.Annotated(name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		orig, err := record.Replay(bytes.NewReader(data), name)
		if err != nil {
			t.Fatal(err)
		}
		ann, err := record.Replay(bytes.NewReader(out), name+" annotated")
		if err != nil {
			t.Fatalf("%s: the annotated record does not replay: %v\n%s", name, err, out)
		}
		if !mapsEqual(orig.State.Position().Pieces, ann.State.Position().Pieces) || orig.State.Plies() != ann.State.Plies() {
			t.Errorf("%s: annotated replays to another game", name)
		}
		var comments []string
		rd := record.NewReader(bytes.NewReader(out), name)
		for rd.Next() {
			if ev := rd.Event(); ev.Kind == "comment" {
				comments = append(comments, string(ev.Raw))
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		want := 1
		for _, m := range a.Report.Moves {
			if m.Tier != "" || m.MissedWin {
				want++
				c := fmt.Sprintf(`"ply":%d`, m.N)
				found := false
				for _, x := range comments {
					found = found || strings.Contains(x, c) && (m.Best == "" || strings.Contains(x, "better "+m.Best))
				}
				if !found {
					t.Errorf("%s: no comment for move %d (%s) naming %q", name, m.N, m.Tier, m.Best)
				}
			}
		}
		if len(comments) != want {
			t.Errorf("%s: %d comments, want %d", name, len(comments), want)
		}
		if !strings.Contains(comments[0], "accuracy") || !strings.Contains(string(out), "\n"+comments[0]) || !bytes.HasPrefix(out, data[:bytes.IndexByte(data, '\n')+1]) {
			t.Errorf("%s: summary %s", name, comments[0])
		}
		if name == "star-missed-win.jsonl" && !strings.Contains(string(out), "missed win") {
			t.Errorf("missed win not named:\n%s", out)
		}
	}
	_ = analysis.TierBlunder
}
