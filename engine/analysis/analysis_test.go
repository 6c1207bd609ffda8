package analysis

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/gyges"
	_ "github.com/tabla-board/tabla/engine/ray"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
	_ "github.com/tabla-board/tabla/engine/star"
)

// Both sides have a win in 1; red to move.
const starBoth = `{"tabla":1,"game":"star","first":"red","start":{"to_move":"red","pieces":{"a1":"red","b1":"red","c1":"red","a2":"red","b2":"red","c2":"red","a3":"red","b3":"red","c3":"red","b5":"red","e9":"red","g12":"red","k11":"white","l11":"white","m11":"white","k12":"white","l12":"white","m12":"white","k13":"white","l13":"white","m13":"white","l9":"white","f6":"white","h6":"white"}}}
`

func replay(t *testing.T, text string) *record.Game {
	t.Helper()
	g, err := record.Replay(strings.NewReader(text), "test")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestMissedWin: red can win at once but plays a quiet move.
func TestMissedWin(t *testing.T) {
	st := replay(t, starBoth).State
	quiet := ""
	for _, m := range st.Moves(nil) {
		st.Play(m)
		if st.Awaiting() == engine.AwaitMove {
			quiet = engine.MoveString(st, m)
		}
		st.Undo()
	}
	g := replay(t, starBoth+`{"move":"`+quiet+`"}`+"\n")
	rep, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 2}})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Moves[0]
	if !m.MissedWin || !m.Blunder || m.Before != 1 || m.After != 0 || m.Best == "" || m.Best == m.Move {
		t.Errorf("move 1: %+v", m)
	}
	if rep.Players[0].MissedWins != 1 {
		t.Errorf("players: %+v", rep.Players)
	}
}

func TestWorkersDoNotMatter(t *testing.T) {
	text := `{"tabla":1,"game":"gyges"}` + "\n"
	for _, mv := range strings.Fields("1@a1 1@a6 1@b1 1@b6 2@c1 2@c6 2@d1 2@d6 3@e1 3@e6 3@f1 3@f6 a1-a2 a6-a5") {
		text += `{"move":"` + mv + `"}` + "\n"
	}
	g := replay(t, text)
	a, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 2}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 2}, Workers: 3})
	a.TimeMS, b.TimeMS = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Error("reports differ between 1 and 3 workers")
	}
	if len(a.Moves) != 14 || a.Moves[12].N != 13 || a.Moves[12].Seat != "south" {
		t.Errorf("moves: %+v", a.Moves[12])
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, a); err != nil || !strings.Contains(svg.String(), "</svg>") {
		t.Errorf("svg: %v", err)
	}
}

// TestRay: forced moves lose nothing and the curve sums to 1.
func TestRay(t *testing.T) {
	text := `{"tabla":1,"game":"ray"}` + "\n"
	for _, f := range strings.Fields("E S W N S E E S") {
		text += `{"roll":"` + f + `"}` + "\n"
		g := replay(t, text)
		text += `{"move":"` + engine.MoveString(g.State, g.State.Moves(nil)[0]) + `"}` + "\n"
	}
	g := replay(t, text)
	rep, err := Analyze(g.Header, g.Applied, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Moves {
		sum := 0.0
		for _, v := range m.Values {
			sum += v
		}
		if m.Loss != 0 || !m.Forced || math.Abs(sum-1) > 1e-9 {
			t.Errorf("move %d: %+v (sum %v)", m.N, m, sum)
		}
	}
}

// TestProgress: the callback counts every position once, up to the total.
func TestProgress(t *testing.T) {
	text := `{"tabla":1,"game":"gyges"}` + "\n"
	for _, mv := range strings.Fields("1@a1 1@a6 1@b1 1@b6 2@c1 2@c6") {
		text += `{"move":"` + mv + `"}` + "\n"
	}
	g := replay(t, text)
	var calls []int
	total := 0
	_, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 1}, Workers: 2, Progress: func(done, n int) {
		calls = append(calls, done)
		total = n
	}})
	if err != nil {
		t.Fatal(err)
	}
	// 6 moves without dice: the start and the position after each move
	if total != 7 || len(calls) != 7 || calls[6] != 7 {
		t.Errorf("progress calls %v of %d, want 1…7 of 7", calls, total)
	}
	for i, c := range calls {
		if c != i+1 {
			t.Errorf("call %d reports %d done", i, c)
		}
	}
}

// A closed Stop ends the analysis with ErrStopped.
func TestStop(t *testing.T) {
	g, err := record.Replay(strings.NewReader(`{"tabla":1,"game":"star","first":"red"}`+"\n"+`{"move":"b1-f3"}`+"\n"), "stop")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	rep, err := Analyze(g.Header, g.Applied, Options{Search: search.Options{Level: 5, Nodes: 1 << 40, Stop: stop}, Workers: 1})
	if !errors.Is(err, ErrStopped) || rep != nil {
		t.Fatalf("got %v, %v; want ErrStopped", rep, err)
	}
}

// TestResume: an analysis stopped part way keeps the positions it searched
// (Searched); given them back (Known) it searches only the others, counts
// them as done from the start, and reports what one run reports.
func TestResume(t *testing.T) {
	text := `{"tabla":1,"game":"gyges"}` + "\n"
	for _, mv := range strings.Fields("1@a1 1@a6 1@b1 1@b6 2@c1 2@c6 2@d1 2@d6 3@e1 3@e6 3@f1 3@f6 a1-a2 a6-a5 b1-b2") {
		text += `{"move":"` + mv + `"}` + "\n"
	}
	g := replay(t, text)
	so := search.Options{Level: 2, Seed: 1}
	whole, err := Analyze(g.Header, g.Applied, Options{Search: so, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Stopped after 5 positions.
	stop := make(chan struct{})
	known := make([]*Searched, 16)
	kept := 0
	so.Stop = stop
	_, err = Analyze(g.Header, g.Applied, Options{Search: so, Workers: 1, Searched: func(i int, s Searched) {
		known[i] = &s
		if kept++; kept == 5 {
			close(stop)
		}
	}})
	if !errors.Is(err, ErrStopped) || kept != 5 {
		t.Fatalf("stopped run: %v, %d positions kept", err, kept)
	}
	// Resumed.
	so.Stop = nil
	var searched, progress []int
	total := 0
	rep, err := Analyze(g.Header, g.Applied, Options{Search: so, Workers: 2,
		Searched: func(i int, s Searched) {
			if known[i] != nil {
				t.Errorf("position %d searched again", i)
			}
			searched = append(searched, i)
		},
		Progress: func(done, n int) { progress, total = append(progress, done), n },
		Known:    known})
	if err != nil {
		t.Fatal(err)
	}
	if total != 16 || len(searched) != 11 || len(progress) != 11 || progress[0] != 6 || progress[10] != 16 {
		t.Errorf("resumed: searched %v, progress %v of %d; want the 11 others, 6…16 of 16", searched, progress, total)
	}
	rep.TimeMS, whole.TimeMS = 0, 0
	if !reflect.DeepEqual(rep, whole) {
		t.Errorf("resumed report differs from one run:\n%+v\n%+v", rep, whole)
	}
	// A known search of another position is not taken.
	known[0] = &Searched{Hash: known[0].Hash + 1, Result: search.Result{Values: []float64{1, 0}}}
	searched = nil
	if _, err := Analyze(g.Header, g.Applied, Options{Search: so, Workers: 1, Known: known,
		Searched: func(i int, s Searched) { searched = append(searched, i) }}); err != nil || len(searched) != 12 || searched[0] != 0 {
		t.Errorf("with a wrong hash: searched %v, %v", searched, err)
	}
}
