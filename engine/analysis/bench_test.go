package analysis

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// randomGame replays a random legal game of h's game that is still under
// way after plies moves (rolls drawn at random too), the first such game
// of seeds 1, 2, ….
func randomGame(tb testing.TB, h record.Header, plies int) *record.Game {
	tb.Helper()
	g, _ := randomGameFrom(tb, h, plies, 1)
	return g
}

// randomGameFrom is randomGame from seed from on; it also returns the seed
// of the game.
func randomGameFrom(tb testing.TB, h record.Header, plies int, from uint64) (*record.Game, uint64) {
	tb.Helper()
	for seed := from; seed < from+1000; seed++ {
		st, err := record.NewState(&h)
		if err != nil {
			tb.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 100))
		var b bytes.Buffer
		w := record.NewWriter(&b)
		if err := w.WriteHeader(&h); err != nil {
			tb.Fatal(err)
		}
		info := st.Info()
		for n := 0; n < plies && st.Awaiting() != engine.AwaitNone; {
			if st.Awaiting() == engine.AwaitRoll {
				face := rng.IntN(len(info.Die.Faces))
				if err := st.Roll(face); err != nil {
					tb.Fatal(err)
				}
				err = w.Write(record.Line{Roll: info.Die.Faces[face], Numeric: info.Die.Numeric})
			} else {
				moves := st.Moves(nil)
				m := moves[rng.IntN(len(moves))]
				text := engine.MoveString(st, m)
				st.Play(m)
				n++
				err = w.Write(record.Line{Move: text})
			}
			if err != nil {
				tb.Fatal(err)
			}
		}
		if st.Awaiting() == engine.AwaitNone {
			continue
		}
		g, err := record.Replay(&b, h.Game)
		if err != nil {
			tb.Fatal(err)
		}
		return g, seed
	}
	tb.Fatalf("%s: no random game lasts %d plies", h.Game, plies)
	return nil, 0
}

// configs are the seven game and variant configurations the analysis
// benchmark and the tier comparison run.
var configs = []record.Header{
	{Game: "daha"},
	{Game: "star", First: "red"},
	{Game: "gyges"},
	{Game: "gyges", Variant: "advanced"},
	{Game: "ray"},
	{Game: "six", Players: 2},
	{Game: "six", Players: 2, Variant: "advanced"},
}

// configName names a configuration: the game, "-advanced" for that variant.
func configName(h record.Header) string {
	if h.Variant != "" {
		return h.Game + "-" + h.Variant
	}
	return h.Game
}

// analyzePlies: BenchmarkAnalyze100 analyses the first this many plies of
// its games (callgrind, some fifty times slower, measures a part).
var analyzePlies = flag.Int("analyze-plies", 100, "BenchmarkAnalyze100: analyse only the first N plies of each game")

// BenchmarkAnalyze100: the analysis of a random 100-ply game (the game
// still under way) of each game and variant at level 3 on one worker, as
// tabla analyze and the library run it; s/op is the time for the whole game.
// The Pi's build is measured with -tags purego.
func BenchmarkAnalyze100(b *testing.B) {
	for _, h := range configs {
		b.Run(configName(h), func(b *testing.B) {
			g := randomGame(b, h, 100)
			applied := g.Applied
			for n, k := 0, 0; k < len(applied); k++ {
				if !applied[k].Roll {
					if n == *analyzePlies {
						applied = applied[:k]
						break
					}
					n++
				}
			}
			var nodes int64
			for b.Loop() {
				rep, err := Analyze(g.Header, applied, Options{Search: search.Options{Level: 3, Seed: 1}, Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				nodes += rep.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/game")
		})
	}
}
