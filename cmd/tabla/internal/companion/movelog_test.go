package companion

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// TestMoveCells: the cells a move left and reached and the pieces it took
// off, read from the positions around it in every notation.
func TestMoveCells(t *testing.T) {
	for _, tc := range []struct {
		name, text         string
		before, after      map[string]string
		from, to, captured []string
	}{
		{"star step", "e4-a6", map[string]string{"e4": "red", "b1": "white"}, map[string]string{"a6": "red", "b1": "white"}, []string{"e4"}, []string{"a6"}, nil},
		{"daha landing only", "B3", map[string]string{"C0": "red", "C2": "yellow"}, map[string]string{"B3": "red", "C2": "yellow"}, []string{"C0"}, []string{"B3"}, nil},
		{"gyges placement", "3@c1", map[string]string{}, map[string]string{"c1": "3"}, nil, []string{"c1"}, nil},
		{"gyges replace", "e1-c1/a3", map[string]string{"e1": "3", "c1": "1"}, map[string]string{"c1": "3", "a3": "1"}, []string{"e1"}, []string{"c1", "a3"}, nil},
		{"six placement", "-1,1", map[string]string{"0,0": "red"}, map[string]string{"0,0": "red", "-1,1": "black"}, nil, []string{"-1,1"}, nil},
		{"six split", "1,0>3,-4", map[string]string{"1,0": "black", "0,0": "red", "-2,4": "black", "0,2": "red"}, map[string]string{"0,0": "red", "3,-4": "black"}, []string{"1,0"}, []string{"3,-4"}, []string{"black", "red"}},
		{"pass", "pass", map[string]string{"a1": "red"}, map[string]string{"a1": "red"}, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to, captured := moveCells(tc.text, tc.before, tc.after)
			if !slices.Equal(from, tc.from) || !slices.Equal(to, tc.to) || !slices.Equal(captured, tc.captured) {
				t.Errorf("got from %v to %v captured %v, want %v %v %v", from, to, captured, tc.from, tc.to, tc.captured)
			}
		})
	}
}

// TestMoveCellsSixSplits: in random six advanced games every move's
// captures are the pieces that left the board, and its origin is the
// notation's.
func TestMoveCellsSixSplits(t *testing.T) {
	splits := 0
	for seed := uint64(0); seed < 20 && splits < 3; seed++ {
		st, err := record.NewState(&record.Header{Game: "six", Variant: "advanced"})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 2))
		buf := make([]engine.Move, 0, 1024)
		for i := 0; i < 400 && st.Result().Status == engine.Playing; i++ {
			ms := st.Moves(buf)
			m := ms[r.IntN(len(ms))]
			text := engine.MoveString(st, m)
			before := st.Position().Pieces
			st.Play(m)
			after := st.Position().Pieces
			from, to, captured := moveCells(text, before, after)
			if want := len(before) - len(after) + len(to) - len(from); len(captured) != want {
				t.Fatalf("%s: captured %v, want %d pieces", text, captured, want)
			}
			if len(captured) > 0 {
				splits++
				if o, _ := notationCells(text); len(from) != 1 || from[0] != o {
					t.Errorf("%s: from %v", text, from)
				}
			}
		}
	}
	if splits == 0 {
		t.Fatal("no split in 20 games")
	}
}
