package daha

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

var updatePerft = flag.Bool("update", false, "rewrite testdata/perft.txt from the engine (after checking it against the reference where cheap)")

// perftPositions are the roots of the perft table: the default start with
// every roll expanded ("start"), and the start after red's first roll k
// ("start-rollK"). Counts follow enginetest.Perft: a roll due expands all six
// faces without using depth, an elimination happens inside the roll.
func perftRoot(t testing.TB, name string) *State {
	t.Helper()
	s, err := newState(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if name == "start" {
		return s
	}
	if pos, ok := perftStarts[name]; ok {
		s, err := newState(engine.Config{Start: &pos})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	k, err := strconv.Atoi(strings.TrimPrefix(name, "start-roll"))
	if err != nil || !strings.HasPrefix(name, "start-roll") {
		t.Fatalf("unknown perft position %q", name)
	}
	if err := s.Roll(k - 1); err != nil {
		t.Fatal(err)
	}
	return s
}

// perftStarts are mid-game roots where painting and eliminations happen
// within a few plies.
var perftStarts = map[string]engine.Position{
	// Some paint of every colour, everybody with a previous roll.
	"mid": {
		ToMove:   "red",
		Pieces:   map[string]string{"A2": "red", "A6": "yellow", "B4": "blue", "C7": "black"},
		Painted:  map[string]string{"A4": "yellow", "A5": "yellow", "A1": "red", "O": "red", "B3": "blue", "C3": "blue", "B6": "black"},
		LastRoll: map[string]int{"red": 1, "yellow": 2, "blue": 5, "black": 4},
	},
	// The inner rings mostly painted: long rolls often eliminate.
	"tight": {
		ToMove: "yellow",
		Pieces: map[string]string{"C0": "red", "C2": "yellow", "C4": "blue", "C6": "black"},
		Painted: map[string]string{"O": "yellow", "A0": "red", "A1": "yellow", "A2": "yellow", "A3": "blue", "A4": "blue",
			"A5": "black", "A6": "black", "A7": "red", "B1": "yellow", "B3": "blue", "B5": "black", "B7": "red"},
		LastRoll: map[string]int{"red": 3, "yellow": 3, "blue": 3, "black": 3},
	},
	// Black is out, blue is nearly walled in.
	"three": {
		ToMove:   "blue",
		Pieces:   map[string]string{"A0": "red", "B2": "yellow", "C4": "blue"},
		Painted:  map[string]string{"C3": "yellow", "C5": "red", "B5": "black", "B3": "black", "A4": "red", "C6": "black"},
		LastRoll: map[string]int{"red": 2, "yellow": 6},
		Out:      []string{"black"},
	},
}

// naivePerftFrom is naivePerft for a root that may already hold a roll.
func naivePerftFrom(t testing.TB, name string, depth int) uint64 {
	s := perftRoot(t, name)
	ref := naiveFrom(defBoard(), s.Position())
	if s.Awaiting() == engine.AwaitRoll {
		return naivePerft(ref, depth)
	}
	k := s.Rolled()
	d := ref.dests(k)
	if depth == 1 {
		return uint64(len(d))
	}
	var n uint64
	for _, dest := range d {
		c := ref.clone()
		c.move(k, dest)
		n += naivePerft(c, depth-1)
	}
	return n
}

func readPerft(t *testing.T) []enginetest.PerftLine {
	return enginetest.ReadPerft(t, "testdata/perft.txt")
}

func TestPerft(t *testing.T) {
	if *updatePerft {
		writePerft(t)
	}
	for _, l := range readPerft(t) {
		t.Run(fmt.Sprintf("%s/depth%d", l.Name, l.Depth), func(t *testing.T) {
			if testing.Short() && l.Depth > 3 {
				t.Skip("deep perft skipped in -short")
			}
			if enginetest.Reduced() && l.Depth > 3 {
				// one goroutine: CI counts it without the race detector
				// (go test ./engine/...), or TABLA_LONG=1 under it
				t.Skip("deep perft skipped under the race detector")
			}
			s := perftRoot(t, l.Name)
			if got := enginetest.Perft(s, l.Depth); got != l.Count {
				t.Errorf("engine: got %d, want %d", got, l.Count)
			}
			s = perftRoot(t, l.Name)
			useTable(t, s)
			if got := enginetest.Perft(s, l.Depth); got != l.Count {
				t.Errorf("engine with the path table: got %d, want %d", got, l.Count)
			}
		})
	}
}

// TestPerftAgainstReference recomputes the shallow table entries with the
// reference implementation.
func TestPerftAgainstReference(t *testing.T) {
	for _, l := range readPerft(t) {
		// The reference is slow: entries beyond 400,000 leaves were checked
		// against it when the table was written (-update), not on every run.
		// Under the race detector as with -short (the reference is one
		// goroutine; CI checks depth 3 without it, go test ./engine/...).
		if l.Depth > 3 || l.Count > 400000 || ((testing.Short() || enginetest.Reduced()) && l.Depth > 2) {
			continue
		}
		t.Run(fmt.Sprintf("%s/depth%d", l.Name, l.Depth), func(t *testing.T) {
			if got := naivePerftFrom(t, l.Name, l.Depth); got != l.Count {
				t.Errorf("reference: got %d, table says %d", got, l.Count)
			}
		})
	}
}

func writePerft(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("# DAHA perft from the default start (enginetest.Perft: a roll due expands\n")
	sb.WriteString("# all six faces without using depth; eliminations happen inside the roll).\n")
	sb.WriteString("# start: red still to roll. start-rollK: red has rolled K. mid, tight,\n")
	sb.WriteString("# three: the start positions of perft_test.go (painting and eliminations).\n")
	sb.WriteString("# NAME DEPTH COUNT\n")
	for _, name := range []string{"start", "start-roll1", "start-roll2", "start-roll3", "start-roll4", "start-roll5", "start-roll6", "mid", "tight", "three"} {
		for d := 1; d <= 4; d++ {
			if name == "three" && d == 4 {
				break // 115 million leaves: too slow for a test
			}
			n := enginetest.Perft(perftRoot(t, name), d)
			if d <= 3 {
				if ref := naivePerftFrom(t, name, d); ref != n {
					t.Fatalf("%s depth %d: engine %d, reference %d", name, d, n, ref)
				}
			}
			fmt.Fprintf(&sb, "%s %d %d\n", name, d, n)
		}
	}
	if err := os.WriteFile("testdata/perft.txt", []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
