package referee

import (
	"slices"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// benchGame is a move to time: its steps, undone physically after each
// (pre: steps played once before, untimed).
type benchGame struct {
	name string
	game string
	cfg  engine.Config
	roll string
	move []string
	pre  []string
}

var benchGames = []benchGame{
	{"star", "star", engine.Config{First: "red"}, "", []string{"lift b1", "place f3"}, nil},
	{"ray", "ray", engine.Config{}, "S", []string{"lift a29", "place a28"}, nil},
	{"daha", "daha", engine.Config{}, "3", []string{"lift C0", "place O"}, nil},
	{"gyges", "gyges", engine.Config{Variant: "advanced", Start: &engine.Position{ToMove: "south", Pieces: map[string]string{
		"a1": "1", "b1": "2", "c1": "3", "d1": "1", "e1": "2", "f1": "3",
		"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3"}}}, "", []string{"lift a1", "place a2"}, nil},
	{"six", "six", engine.Config{Variant: "advanced", Start: &engine.Position{ToMove: "black", Hands: map[string]any{"black": 0, "red": 0},
		Pieces: map[string]string{
			"0,0": "red", "-1,0": "red", "-2,0": "red", "-3,0": "red", "-4,0": "red", "0,1": "red", "-1,1": "red",
			"1,0": "black", "2,0": "red", "3,0": "black",
			"0,-1": "black", "-1,-1": "black", "-2,-1": "black", "-3,-1": "black", "-4,-1": "black", "1,-1": "red",
		}}}, "", []string{"lift 3,0", "place 2,1"}, nil},
}

// BenchmarkSettleToFrame measures the referee's work from the event that
// completes a move (the final place, read once the board settles) to the new
// LED frame: recognising the move among every legal move, playing it, and
// rendering. Each op is one move recognised plus its physical takeback (two
// settled boards, and the confirm that takes the takeback); settle/op reports one.
func BenchmarkSettleToFrame(b *testing.B) {
	for _, g := range benchGames {
		b.Run(g.name, func(b *testing.B) {
			tb := newTable(&testing.T{}, g.game, g.cfg, false, 1)
			if g.roll != "" {
				tb.do("roll " + g.roll)
			}
			undo := []string{"lift " + g.move[1][6:], "place " + g.move[0][5:]}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tb.do(g.move...)
				tb.do(undo...)
				tb.do("press confirm") // a physical takeback is only proposed
				tb.actions = tb.actions[:0]
			}
			b.StopTimer()
			if tb.r.State().Ply != 0 {
				b.Fatal("the move was not taken back")
			}
		})
	}
}

// BenchmarkSettleLatency measures the one call that matters to a player:
// the Tick that reads the settled board after a move's last placement and
// renders the new LED frame (recognition among every legal move, the
// takebacks and the revisions of the last moves included). Each game's move
// is carried out physically, its last placement timed, then taken back
// (untimed). It reports the median and the 99th percentile.
func BenchmarkSettleLatency(b *testing.B) {
	// a counted GYGES path: the piece rests on two legal destinations on
	// its way (each recorded, then revised) before it ends; a GYGES move
	// after a move recorded (the last move's revisions and the next
	// player's moves after them are read too); and one after a move with a
	// look-alike past
	cases := append(slices.Clone(benchGames),
		benchGame{name: "gyges-counted", game: "gyges", cfg: benchGames[3].cfg, move: []string{"lift c1", "place c2", "lift c2", "place c3", "lift c3", "place d3"}},
		benchGame{name: "gyges-second", game: "gyges", cfg: benchGames[3].cfg, move: []string{"lift b6", "place b4"}, pre: []string{"lift a1", "place a2"}},
		// a move after a replace written as one to the game with a
		// look-alike past (its revisions are read too: TestLookAlikePast)
		benchGame{name: "gyges-lookalike", game: "gyges", cfg: lookAlikeStart, move: lookAlikeSteps[2], pre: slices.Concat(lookAlikeSteps[:2]...)})
	for _, g := range cases {
		b.Run(g.name, func(b *testing.B) {
			tb := newTable(&testing.T{}, g.game, g.cfg, false, 1)
			if g.roll != "" {
				tb.do("roll " + g.roll)
			}
			tb.do(g.pre...)
			ply0 := tb.r.State().Ply
			last := g.move[len(g.move)-1]
			from := g.move[0][5:]
			undo := []string{"lift " + last[6:], "place " + from}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tb.do(g.move[:len(g.move)-1]...)
				c := tb.cell(last[6:])
				tb.pieces[c] = tb.hand[len(tb.hand)-1]
				tb.hand = tb.hand[:len(tb.hand)-1]
				tb.change(c)
				tb.now += 200 * time.Millisecond
				b.StartTimer()
				t0 := time.Now()
				tb.r.Tick(tb.now)
				lat = append(lat, time.Since(t0))
				b.StopTimer()
				tb.actions = append(tb.actions, tb.r.Actions()...)
				tb.do(undo...)
				tb.do("press confirm") // a physical takeback is only proposed
				tb.actions = tb.actions[:0]
				b.StartTimer()
			}
			b.StopTimer()
			if tb.r.State().Ply != ply0 {
				b.Fatal("the move was not taken back")
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
