package referee

import (
	"testing"

	"github.com/tabla-board/tabla/engine"
)

func TestStarBasics(t *testing.T) {
	for _, ident := range []bool{false, true} {
		tb := newTable(t, "star", engine.Config{First: "red"}, ident, 1)
		tb.expect("to_move=red", "in_sync=true", "mode=play")
		// lift b1: destinations lit, pivots too
		tb.do("lift b1")
		tb.expect("in_sync=false", "mode=play")
		st := tb.r.State()
		if len(st.LEDs) == 0 {
			t.Fatal("nothing lit after a lift")
		}
		tb.expect(`lit={"dest":["d9","f3","h7","l9"],"pivot":["c5","d2","e4","g5"]}`)
		tb.do("place f3")
		tb.expect("to_move=white", "in_sync=true", "last_move=b1-f3", `moves=["b1-f3"]`)
		// bumped neighbour, bouncing sensor: nothing happens
		tb.do("lift d13", "place d13", "bounce h13 3")
		tb.expect("to_move=white", "in_sync=true", "ply=1")
		// a wrong placement, corrected
		tb.do("lift d13", "place d12")
		tb.expect("in_sync=false", "mode=correct")
		tb.expect(`lit={"illegal":["d12"]}`)
		tb.do("lift d12", "place d13")
		tb.expect("in_sync=true", "mode=play", "ply=1")
		// physical takeback of red's move: it looks like a move under way
		// until somebody says so, so it is proposed and confirmed
		tb.do("lift f3", "place b1")
		tb.expect("mode=confirm", "ply=1", `lit={"confirm":["b1","f3"]}`)
		tb.do("press takeback") // the takeback button says so too
		tb.expect("to_move=red", "ply=0", "in_sync=true")
		if got, want := tb.log(), "red:b1-f3 takeback:1"; got != want {
			t.Errorf("log %q want %q", got, want)
		}
	}
}
