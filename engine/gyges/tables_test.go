package gyges

import (
	"testing"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// TestSharedTables checks that games on one board share their path tables
// and that a board with other links gets its own.
func TestSharedTables(t *testing.T) {
	g1 := mustGame(t, "basic", nil)
	g2 := mustGame(t, "advanced", rowsPosition("321123", "321123", "south"))
	if g1.t != g2.t {
		t.Fatal("two games on the default board have their own tables")
	}
	b := boards.Default("gyges")
	a1, _ := b.Index("a1")
	c1, _ := b.Index("c1")
	b.Cells[a1].Adj = append(b.Cells[a1].Adj, c1)
	b.Cells[c1].Adj = append(b.Cells[c1].Adj, a1)
	g3, err := NewGame(engine.Config{Board: b, Start: pos("south", "a1:1 d4:2")})
	if err != nil {
		t.Fatal(err)
	}
	if g3.t == g1.t {
		t.Fatal("a board with another link shares the default board's tables")
	}
	if got := moveSet(g3); !contains(got, "a1-c1") {
		t.Fatalf("a1 linked to c1 but a1-c1 is not a move: %v", got)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
