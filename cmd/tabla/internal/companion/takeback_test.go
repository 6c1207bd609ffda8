package companion

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
)

// TestTakebackMoves: a takeback command of N moves undoes N moves as N
// takebacks would (the journal replays to the same decisions); a count out
// of range, or more than the game has, is a clear error that changes
// nothing.
func TestTakebackMoves(t *testing.T) {
	p, s := newSimSession(t, record.Header{Game: "star", First: "red"}, t.TempDir(), true)
	playRandomStar(t, p, s, 4, rand.New(rand.NewPCG(5, 6)))
	moves := s.State().Moves
	if len(moves) != 4 {
		t.Fatalf("moves %v", moves)
	}
	for _, arg := range []string{"0", "-1", "x", "9", "5"} {
		err := s.Command("takeback", arg)
		if err == nil || !strings.Contains(err.Error(), "takeback") {
			t.Errorf("takeback %q: %v, want an error", arg, err)
		}
	}
	if got := s.State().Moves; !slices.Equal(got, moves) {
		t.Fatalf("a refused takeback changed the game: %v", got)
	}
	if err := s.Command("takeback", "2"); err != nil {
		t.Fatal(err)
	}
	if got := s.State().Moves; !slices.Equal(got, moves[:2]) {
		t.Fatalf("after taking back 2: %v, want %v", got, moves[:2])
	}
	if err := s.Command("takeback", ""); err != nil {
		t.Fatal(err)
	}
	if got := s.State().Moves; !slices.Equal(got, moves[:1]) {
		t.Fatalf("after taking back 1: %v, want %v", got, moves[:1])
	}
	r, err := ReplayFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Match() {
		t.Errorf("the journal does not replay:\n%v\n%v", r.Want, r.Got)
	}
	if n := strings.Count(strings.Join(r.Want, "\n"), "takeback"); n != 3 {
		t.Errorf("%d takebacks journalled, want 3: %v", n, r.Want)
	}
}
