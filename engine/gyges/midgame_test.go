package gyges

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

var updateMidgame = flag.Bool("update-midgame", false, "regenerate testdata/midgame.txt")

const midgameFile = "testdata/midgame.txt"

// midgameHeader explains testdata/midgame.txt.
const midgameHeader = `# 64 GYGES mid-game positions for BenchmarkMidgameMoves (advanced rules).
# Each line: the player to move, then cell:height for every piece.
# Reached by seeded random play with advanced rules from both home rows
# 3,2,1,1,2,3 (a to f), south first: rand.NewPCG(1, 2); for each game a
# target of 4 + IntN(30) plies, then enginetest.Step until it is reached;
# games that ended were skipped. The random moves index the move lists in
# the order of the generator at the time, so the file is kept, not
# regenerated (go test -run TestMidgamePositions -update-midgame rewrites it).
`

// genMidgame plays the seeded random games of midgameHeader.
func genMidgame(tb testing.TB) []*Game {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]engine.Move, 0, 4096)
	var games []*Game
	for len(games) < 64 {
		g := mustGame(tb, "advanced", rowsPosition("321123", "321123", "south"))
		plies := 4 + rng.IntN(30)
		for g.Plies() < plies && enginetest.Step(g, rng, buf) {
		}
		if g.Awaiting() == engine.AwaitMove {
			games = append(games, g)
		}
	}
	return games
}

// positionLine writes a position as one line of testdata/midgame.txt.
func positionLine(g *Game) string {
	var b strings.Builder
	b.WriteString(seatNames[g.toMove])
	for c := Cell(0); c < numCells; c++ {
		if h := g.h[c]; h != 0 {
			fmt.Fprintf(&b, " %s:%d", c, h)
		}
	}
	return b.String()
}

// midgamePositions reads testdata/midgame.txt.
func midgamePositions(tb testing.TB) []*engine.Position {
	f, err := os.Open(midgameFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []*engine.Position
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text, _, _ := strings.Cut(sc.Text(), "#")
		toMove, spec, ok := strings.Cut(strings.TrimSpace(text), " ")
		if !ok {
			continue
		}
		out = append(out, pos(toMove, spec))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// midgameGames loads the committed mid-game positions with the given rules.
func midgameGames(tb testing.TB, variant string) []*Game {
	var games []*Game
	for _, p := range midgamePositions(tb) {
		games = append(games, mustGame(tb, variant, p))
	}
	if len(games) != 64 {
		tb.Fatalf("%s: %d positions, want 64", midgameFile, len(games))
	}
	return games
}

// TestMidgamePositions checks the committed benchmark positions: 64
// positions of all 12 pieces, each with moves to make.
func TestMidgamePositions(t *testing.T) {
	if *updateMidgame {
		var b strings.Builder
		b.WriteString(midgameHeader)
		for _, g := range genMidgame(t) {
			b.WriteString(positionLine(g) + "\n")
		}
		if err := os.WriteFile(midgameFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for i, g := range midgameGames(t, "advanced") {
		n := 0
		for c := Cell(0); c < numCells; c++ {
			if g.h[c] != 0 {
				n++
			}
		}
		moves := g.Moves(nil)
		if n != 12 || g.Awaiting() != engine.AwaitMove || len(moves) == 0 || moves[0] == Pass {
			t.Errorf("position %d: %d pieces, awaiting %v, %d moves", i+1, n, g.Awaiting(), len(moves))
		}
		total += len(moves)
	}
	t.Logf("%d moves per list on average", total/64)
}

// TestPerft3Bench checks BenchmarkPerft3's counter against the table.
func TestPerft3Bench(t *testing.T) {
	g := mustGame(t, "advanced", rowsPosition("321123", "321123", "south"))
	var bufs [3][]engine.Move
	if got, want := perft3(g, &bufs), uint64(16734550); got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}
