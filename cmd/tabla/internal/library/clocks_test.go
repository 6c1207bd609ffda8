package library_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library/librarytest"
)

// TestStepsClocks (issue 38 item 5): a game whose header has a time
// control and whose lines keep each move's time steps with every move's
// time and every seat's clock after it: the base time, less each of the
// seat's moves, plus the increment; the header's names and event come
// with the game. A game without them has neither.
func TestStepsClocks(t *testing.T) {
	lib, dir := newLibrary(t, 12)
	rec, err := librarytest.Timed(12)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "timed.jsonl"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := lib.Game("timed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if g.Header.Names["red"] != "Ayşe Yılmaz" || g.Header.Event != "Kadıköy club night" {
		t.Errorf("the header reads names %v, event %q", g.Header.Names, g.Header.Event)
	}
	left := map[string]int64{"red": 60000, "white": 60000}
	if got := g.Steps[0].Clocks; got["red"] != 60000 || got["white"] != 60000 {
		t.Errorf("step 0's clocks %v, want both 60000", got)
	}
	for k := 1; k < len(g.Steps); k++ {
		s := g.Steps[k]
		want := librarytest.TimedMS(k)
		if s.MS == nil || *s.MS != want {
			t.Errorf("move %d (%s %s) took %v ms, want %d", k, s.Seat, s.Move, s.MS, want)
		}
		left[s.Seat] += 2000 - want
		for seat, ms := range left {
			if s.Clocks[seat] != ms {
				t.Errorf("after move %d %s's clock shows %d ms, want %d", k, seat, s.Clocks[seat], ms)
			}
		}
	}
	// a page from the middle has the same clocks
	p, err := lib.GamePage("timed.jsonl", 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range p.Steps {
		if !equalClocks(s.Clocks, g.Steps[5+i].Clocks) {
			t.Errorf("step %d on a page from 5: clocks %v, from the start %v", 5+i, s.Clocks, g.Steps[5+i].Clocks)
		}
	}
	plain, err := lib.Game("star.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plain.Steps {
		if s.MS != nil || s.Clocks != nil {
			t.Fatalf("a game without a clock steps with ms %v, clocks %v", s.MS, s.Clocks)
		}
	}
}

func equalClocks(a, b map[string]int64) bool {
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

// TestAnnotatedVariations (issue 38 item 5): the analysis board's
// variations go into the annotated record as comment lines after the
// move they start from, sorted so that a sub-variation follows its line,
// in canonical notation; the record still replays as it was; a variation
// that cannot be played is an error naming it.
func TestAnnotatedVariations(t *testing.T) {
	lib, _ := newLibrary(t, 12)
	const id = "star.jsonl"
	if _, err := lib.Analyze(id); err != nil {
		t.Fatal(err)
	}
	waitAnalysis(t, lib, id)
	x, err := lib.Explore(id, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := x.Legal[0].Move, x.Legal[1].Move
	y, err := lib.Explore(id, 4, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	reply := y.Legal[0].Move
	vars := []library.Variation{{Ply: 4, Line: []string{b}}, {Ply: 4, Line: []string{a, reply}}, {Ply: 0, Line: []string{"roll:9"}}}
	if _, err := lib.AnnotatedWith(id, vars); !errors.Is(err, library.ErrVariation) || !strings.Contains(err.Error(), "variation 3") {
		t.Fatalf("a variation that cannot be played: %v", err)
	}
	vars = vars[:2]
	out, err := lib.AnnotatedWith(id, vars)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := lib.Annotated(id)
	if err != nil {
		t.Fatal(err)
	}
	var got []library.Comment
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	movesBefore := -1
	for i, l := range lines {
		var c library.Comment
		if json.Unmarshal(l, &c) != nil || len(c.Variation) == 0 {
			continue
		}
		got = append(got, c)
		n := 0
		for _, p := range lines[1:i] {
			if bytes.HasPrefix(p, []byte(`{"move"`)) {
				n++
			}
		}
		if movesBefore >= 0 && n != movesBefore {
			t.Errorf("the variations follow %d and %d moves", movesBefore, n)
		}
		movesBefore = n
	}
	if movesBefore != 4 {
		t.Errorf("the variations follow move %d, want 4", movesBefore)
	}
	if len(got) != 2 || strings.Join(got[0].Variation, " ") != first(a, reply, b) || got[0].Ply != 4 ||
		!strings.HasPrefix(got[0].Comment, "variation from move 4: ") {
		t.Errorf("the variations' comments: %+v", got)
	}
	// without them the annotated record is the one of before
	if n := len(lines) - len(bytes.Split(bytes.TrimSuffix(plain, []byte("\n")), []byte("\n"))); n != 2 {
		t.Errorf("the variations added %d lines, want 2", n)
	}
}

// first is the line sorted first of [a, reply] and [b].
func first(a, reply, b string) string {
	if b < a {
		return b
	}
	return a + " " + reply
}
