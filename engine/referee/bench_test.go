package referee

import (
	"testing"

	"github.com/tabla-board/tabla/engine"
)

var benchGames = []struct {
	name string
	game string
	cfg  engine.Config
	roll string
	move []string // steps of a move, undone physically after each
}{
	{"star", "star", engine.Config{First: "red"}, "", []string{"lift b1", "place f3"}},
	{"ray", "ray", engine.Config{}, "S", []string{"lift a29", "place a28"}},
	{"daha", "daha", engine.Config{}, "3", []string{"lift C0", "place O"}},
	{"gyges", "gyges", engine.Config{Variant: "advanced", Start: &engine.Position{ToMove: "south", Pieces: map[string]string{
		"a1": "1", "b1": "2", "c1": "3", "d1": "1", "e1": "2", "f1": "3",
		"a6": "1", "b6": "2", "c6": "3", "d6": "1", "e6": "2", "f6": "3"}}}, "", []string{"lift a1", "place a2"}},
	{"six", "six", engine.Config{Variant: "advanced", Start: &engine.Position{ToMove: "black", Hands: map[string]any{"black": 0, "red": 0},
		Pieces: map[string]string{
			"0,0": "red", "-1,0": "red", "-2,0": "red", "-3,0": "red", "-4,0": "red", "0,1": "red", "-1,1": "red",
			"1,0": "black", "2,0": "red", "3,0": "black",
			"0,-1": "black", "-1,-1": "black", "-2,-1": "black", "-3,-1": "black", "-4,-1": "black", "1,-1": "red",
		}}}, "", []string{"lift 3,0", "place 2,1"}},
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
