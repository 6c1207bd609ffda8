package analysis

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tabla-board/tabla/engine/enginetest"
	"github.com/tabla-board/tabla/engine/search"
)

var (
	updateVerdicts = flag.Bool("update-verdicts", false, "rewrite testdata/level3-verdicts.json from this search (only from the search the file is meant to pin)")
	verdictSeed    = flag.Uint64("verdict-seed", 1, "the MCTS seed of TestLevel3Verdicts's analyses (another one measures the search's own noise)")
	verdictOnly    = flag.String("verdict-config", "", "TestLevel3Verdicts: only this configuration (daha, gyges-advanced, …)")
	verdictNodes   = flag.Int64("verdict-nodes", 0, "TestLevel3Verdicts: search this many nodes (MCTS iterations) a position instead of level 3's, to measure what a smaller budget changes (the test then fails where verdicts differ)")
	verdictN       = flag.Int("verdict-games", 1, "TestLevel3Verdicts: how many of each configuration's pinned games to analyse (all 20 take minutes)")
	verdictFile    = flag.String("verdict-file", verdictsFile, "TestLevel3Verdicts: the pinned verdicts to compare with (testdata/level3-verdicts-daha-e086792.json: DAHA's before its playouts changed); configurations it lacks are skipped")
)

// verdictGames and verdictPlies: the games of each configuration the
// level-3 verdicts are pinned on, and their length.
const (
	verdictGames = 20
	verdictPlies = 30
)

// verdict is one move of a pinned analysis.
type verdict struct {
	Move   string  `json:"move"`
	Best   string  `json:"best,omitempty"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Tier   string  `json:"tier,omitempty"`
	Missed bool    `json:"missed,omitempty"`
}

// pinnedGame is one game of the pinned analyses: its seed (randomGameFrom)
// and the verdict on each move.
type pinnedGame struct {
	Seed  uint64    `json:"seed"`
	Moves []verdict `json:"moves"`
}

const verdictsFile = "testdata/level3-verdicts.json"

// analyseVerdicts analyses n random games of h of verdictPlies plies at
// level 3 on one worker, as BenchmarkAnalyze100 does.
func analyseVerdicts(t *testing.T, name string, n int) []pinnedGame {
	h := configs[0]
	for _, c := range configs {
		if configName(c) == name {
			h = c
		}
	}
	var out []pinnedGame
	seed := uint64(1)
	for range n {
		g, s := randomGameFrom(t, h, verdictPlies, seed)
		seed = s + 1
		rep, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 3, Nodes: *verdictNodes, Seed: *verdictSeed}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		pg := pinnedGame{Seed: s}
		for _, m := range rep.Moves {
			pg.Moves = append(pg.Moves, verdict{Move: m.Move, Best: m.Best, Before: m.Before, After: m.After, Tier: m.Tier, Missed: m.MissedWin})
		}
		out = append(out, pg)
	}
	return out
}

// writeVerdicts writes the pinned analyses, one game a line.
func writeVerdicts(all map[string][]pinnedGame) error {
	var b []byte
	b = append(b, "{\n"...)
	for i, h := range configs {
		name := configName(h)
		b = fmt.Appendf(b, " %q: [\n", name)
		for j, g := range all[name] {
			line, err := json.Marshal(g)
			if err != nil {
				return err
			}
			b = append(append(b, "  "...), line...)
			if j < len(all[name])-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, " ]"...)
		if i < len(configs)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, "}\n"...)
	if err := os.MkdirAll(filepath.Dir(verdictsFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(verdictsFile, b, 0o644)
}

// verdictDiff counts how a configuration's analyses differ from the pinned
// ones: moves compared, moves whose tier (or missed win) differs, moves whose best move
// differs, and the largest difference in a win probability (before or after).
type verdictDiff struct {
	moves, tiers, best int
	maxProb            float64
	sumProb            float64 // the signed differences (got − pinned) of before and after, summed
}

func compareVerdicts(t *testing.T, name string, pinned, got []pinnedGame) verdictDiff {
	t.Helper()
	var d verdictDiff
	if len(got) != len(pinned) {
		t.Fatalf("%s: %d games, %d pinned", name, len(got), len(pinned))
	}
	for i, g := range got {
		p := pinned[i]
		if g.Seed != p.Seed || len(g.Moves) != len(p.Moves) {
			t.Fatalf("%s game %d: seed %d with %d moves, pinned seed %d with %d moves", name, i, g.Seed, len(g.Moves), p.Seed, len(p.Moves))
		}
		for k, m := range g.Moves {
			pm := p.Moves[k]
			if m.Move != pm.Move {
				t.Fatalf("%s game %d move %d: %s, pinned %s (the random games changed)", name, i, k+1, m.Move, pm.Move)
			}
			d.moves++
			if m.Tier != pm.Tier || m.Missed != pm.Missed {
				d.tiers++
			}
			if m.Best != pm.Best {
				d.best++
			}
			d.maxProb = max(d.maxProb, math.Abs(m.Before-pm.Before), math.Abs(m.After-pm.After))
			d.sumProb += m.Before - pm.Before + m.After - pm.After
		}
	}
	return d
}

// TestLevel3Verdicts: level 3 judges the pinned games as the search they
// were pinned from judged them (testdata/level3-verdicts.json, written
// with -update-verdicts): the same best move, the same win probabilities
// before and after every move, so the same tiers and missed wins. Those
// of STAR, GYGES, RAY and six are e086792's: the speed-ups of issue 39
// change how their positions are evaluated and searched, never what is
// found. DAHA's were pinned again when its playouts began to draw their
// own way (issue 39): MCTS's values are then those of other random
// playouts of the same distribution, and against e086792's verdicts
// (testdata/level3-verdicts-daha-e086792.json, -verdict-file) they
// differ no more than e086792's search with another seed does
// (BENCHMARKS.md); and again when its playouts were cut short and scored
// by a fitted estimate (issue 39's third pass, 1,500 iterations): against
// e086792's they differ about as much as e086792's own reruns do (101–105
// tiers of 600 against 100–101), and against a search of five times
// e086792's budget less than e086792's do (BENCHMARKS.md). By default the first game (-verdict-games=1) of every
// configuration is analysed; -verdict-games=20 runs them all. Under the
// race detector DAHA's (two thirds of the time) is left to the run without
// it (.ci/run's go test ./engine/...; TABLA_LONG=1 keeps it).
func TestLevel3Verdicts(t *testing.T) {
	if testing.Short() && !*updateVerdicts {
		t.Skip("analyses games at level 3: not with -short")
	}
	if *updateVerdicts {
		// Rewrite every configuration, or with -verdict-config that one
		// only (the others kept as pinned).
		all := map[string][]pinnedGame{}
		if *verdictOnly != "" {
			b, err := os.ReadFile(verdictsFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &all); err != nil {
				t.Fatalf("%s: %v", verdictsFile, err)
			}
		}
		for _, h := range configs {
			if *verdictOnly == "" || configName(h) == *verdictOnly {
				all[configName(h)] = analyseVerdicts(t, configName(h), verdictGames)
			}
		}
		if err := writeVerdicts(all); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(*verdictFile)
	if err != nil {
		t.Fatal(err)
	}
	var pinned map[string][]pinnedGame
	if err := json.Unmarshal(b, &pinned); err != nil {
		t.Fatalf("%s: %v", *verdictFile, err)
	}
	for _, h := range configs {
		name := configName(h)
		if *verdictOnly != "" && name != *verdictOnly || pinned[name] == nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if name == "daha" && enginetest.Reduced() && *verdictOnly == "" {
				// two thirds of the test's time under the race detector,
				// which the one-worker analysis gives nothing to watch:
				// CI compares it without it (go test ./engine/...), as
				// TABLA_LONG=1 does under it
				t.Skip("DAHA's verdicts are compared without the race detector")
			}
			n := min(*verdictN, len(pinned[name]))
			d := compareVerdicts(t, name, pinned[name][:n], analyseVerdicts(t, name, n))
			if d.tiers != 0 || d.best != 0 || d.maxProb != 0 {
				t.Errorf("%s: %d of %d tiers differ, %d best moves differ, win probabilities up to %g apart; want none", name, d.tiers, d.moves, d.best, d.maxProb)
			}
			t.Logf("%s: %d moves, %d tiers differ, %d best moves differ, win probabilities at most %.4f apart (%+.4f on average)", name, d.moves, d.tiers, d.best, d.maxProb, d.sumProb/float64(2*d.moves))
		})
	}
}
