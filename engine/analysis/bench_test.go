package analysis

import (
	"bytes"
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
	for seed := uint64(1); seed < 1000; seed++ {
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
		return g
	}
	tb.Fatalf("%s: no random game lasts %d plies", h.Game, plies)
	return nil
}

// BenchmarkAnalyze100: the analysis of a random 100-ply game (the game
// still under way) of each game at level 3 on one worker, as tabla analyze
// and the library run it; s/op is the time for the whole game.
func BenchmarkAnalyze100(b *testing.B) {
	for _, h := range []record.Header{
		{Game: "daha"},
		{Game: "star", First: "red"},
		{Game: "gyges"},
		{Game: "ray"},
		{Game: "six", Players: 2},
	} {
		b.Run(h.Game, func(b *testing.B) {
			g := randomGame(b, h, 100)
			var nodes int64
			for b.Loop() {
				rep, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 3, Seed: 1}, Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				nodes += rep.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/game")
		})
	}
}
