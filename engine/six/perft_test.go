package six

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

var updatePerft = flag.Bool("update", false, "rewrite testdata/perft.txt from the engine")

// perftPositions names the positions of testdata/perft.txt.
func perftPositions(t testing.TB) map[string]func() *State {
	data, err := os.ReadFile("testdata/positions.json")
	if err != nil {
		t.Fatal(err)
	}
	var named map[string]engine.Position
	if err := json.Unmarshal(data, &named); err != nil {
		t.Fatal(err)
	}
	from := func(variant, name string) func() *State {
		return func() *State {
			p := named[name]
			return mustNew(t, variant, 2, &p)
		}
	}
	return map[string]func() *State{
		"start":           func() *State { return mustNew(t, "basic", 2, nil) },
		"start-advanced":  func() *State { return mustNew(t, "advanced", 2, nil) },
		"start-4p":        func() *State { return mustNew(t, "basic", 4, nil) },
		"middle-basic":    from("basic", "middle"),
		"middle-advanced": from("advanced", "middle"),
		"late-advanced":   from("advanced", "late"),
	}
}

func readPerft(t *testing.T) []enginetest.PerftLine {
	return enginetest.ReadPerft(t, "testdata/perft.txt")
}

// TestPerft checks the node counts of testdata/perft.txt; depths beyond 4
// and the movement-phase depth 2 run only without -short, and not under the
// race detector (one goroutine: CI counts them without it, in
// `go test ./engine/...`; TABLA_LONG=1 counts them under it too).
func TestPerft(t *testing.T) {
	if *updatePerft {
		writePerft(t)
	}
	positions := perftPositions(t)
	for _, pl := range readPerft(t) {
		mk, ok := positions[pl.Name]
		if !ok {
			t.Fatalf("perft.txt: unknown position %q", pl.Name)
		}
		deep := pl.Depth > 4 || (strings.Contains(pl.Name, "middle") && pl.Depth > 1) || (strings.Contains(pl.Name, "late") && pl.Depth > 2)
		if deep && (testing.Short() || enginetest.Reduced()) {
			continue
		}
		t.Run(fmt.Sprintf("%s/%d", pl.Name, pl.Depth), func(t *testing.T) {
			if got := enginetest.Perft(mk(), pl.Depth); got != pl.Count {
				t.Fatalf("perft %s %d: got %d want %d", pl.Name, pl.Depth, got, pl.Count)
			}
		})
	}
}

// refPerft counts with the naive reference.
func refPerft(r *refState, depth int) uint64 {
	if r.status != engine.Playing {
		return 1
	}
	if depth == 0 {
		return 1
	}
	moves := r.moves()
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		c := *r
		c.pieces = make(map[rc]int, len(r.pieces))
		for k, v := range r.pieces {
			c.pieces[k] = v
		}
		c.play(m)
		n += refPerft(&c, depth-1)
	}
	return n
}

// TestPerftReference recomputes the shallow table lines with the reference.
func TestPerftReference(t *testing.T) {
	positions := perftPositions(t)
	for _, pl := range readPerft(t) {
		full := !testing.Short() && !enginetest.Reduced() // as TestPerft
		limit := 3
		if full {
			limit = 4
		}
		if strings.Contains(pl.Name, "middle") || strings.Contains(pl.Name, "late") {
			limit = 1
			if full {
				limit = 2
			}
		}
		if pl.Depth > limit {
			continue
		}
		t.Run(fmt.Sprintf("%s/%d", pl.Name, pl.Depth), func(t *testing.T) {
			s := positions[pl.Name]()
			r := refFrom(s.Position(), s.advanced, int(s.nSeats))
			if got := refPerft(r, pl.Depth); got != pl.Count {
				t.Fatalf("reference perft %s %d: got %d, table says %d", pl.Name, pl.Depth, got, pl.Count)
			}
		})
	}
}

func writePerft(t *testing.T) {
	positions := perftPositions(t)
	var b strings.Builder
	b.WriteString("# six perft: position depth leaf-count (positions in positions.json; start = the default start)\n")
	for _, name := range []string{"start", "start-advanced", "start-4p", "middle-basic", "middle-advanced", "late-advanced"} {
		maxD := 7
		if strings.Contains(name, "middle") {
			maxD = 2
		}
		if name == "late-advanced" {
			maxD = 3
		}
		for d := 1; d <= maxD; d++ {
			fmt.Fprintf(&b, "%s %d %d\n", name, d, enginetest.Perft(positions[name](), d))
		}
	}
	if err := os.WriteFile("testdata/perft.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
