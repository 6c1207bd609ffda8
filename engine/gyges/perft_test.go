package gyges

import (
	"bufio"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// perftStarts are the positions named in testdata/perft.txt.
var perftStarts = map[string]func() *engine.Position{
	"setup":      func() *engine.Position { return nil },
	"rows321123": func() *engine.Position { return rowsPosition("321123", "321123", "south") },
	"asym":       func() *engine.Position { return rowsPosition("123321", "231213", "south") },
}

type perftEntry struct {
	name, variant string
	depth         int
	count         uint64
}

func readPerft(t *testing.T) []perftEntry {
	f, err := os.Open("testdata/perft.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []perftEntry
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		w := strings.Fields(text)
		if len(w) == 0 {
			continue
		}
		if len(w) != 4 || perftStarts[w[0]] == nil {
			t.Fatalf("perft.txt:%d: want \"position variant depth count\"", line)
		}
		d, err1 := strconv.Atoi(w[2])
		n, err2 := strconv.ParseUint(w[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("perft.txt:%d: bad numbers", line)
		}
		out = append(out, perftEntry{w[0], w[1], d, n})
	}
	return out
}

func TestPerft(t *testing.T) {
	for _, e := range readPerft(t) {
		name := e.name + "/" + e.variant + "/" + strconv.Itoa(e.depth)
		t.Run(name, func(t *testing.T) {
			if e.depth >= 4 && testing.Short() {
				t.Skip("deep perft skipped in -short mode")
			}
			g := mustGame(t, e.variant, perftStarts[e.name]())
			if got := enginetest.Perft(g, e.depth); got != e.count {
				t.Fatalf("got %d, want %d", got, e.count)
			}
		})
	}
}

// TestPerftReference recomputes the shallow perft counts of the movement
// positions with the naive reference generator.
func TestPerftReference(t *testing.T) {
	for _, e := range readPerft(t) {
		if e.name == "setup" || e.depth > 2 && !(e.depth == 3 && e.variant == "basic") {
			continue
		}
		t.Run(e.name+"/"+e.variant+"/"+strconv.Itoa(e.depth), func(t *testing.T) {
			g := mustGame(t, e.variant, perftStarts[e.name]())
			if got := refPerft(toRef(g), e.depth); got != e.count {
				t.Fatalf("reference perft %d, table %d", got, e.count)
			}
		})
	}
}

func toRef(g *Game) refPos {
	p := refPos{pieces: map[refCell]int{}, mover: int(g.toMove), advanced: g.advanced}
	for c := Cell(0); c < numCells; c++ {
		if h := g.h[c]; h != 0 {
			p.pieces[refCell{int(c) % cols, int(c) / cols}] = int(h)
		}
	}
	return p
}

func refPerft(p refPos, depth int) uint64 {
	moves := refMoves(p, refRules{})
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		next, over := refApply(p, m)
		if over {
			n++
			continue
		}
		n += refPerft(next, depth-1)
	}
	return n
}

// refApply plays a move on a copy of the position and says whether it won.
func refApply(p refPos, m string) (refPos, bool) {
	cell := func(s string) refCell { return refCell{int(s[0] - 'a'), int(s[1] - '1')} }
	next := refPos{pieces: map[refCell]int{}, mover: 1 - p.mover, advanced: p.advanced}
	for c, h := range p.pieces {
		next.pieces[c] = h
	}
	if m == "pass" {
		return next, false
	}
	from := cell(m[:2])
	h := next.pieces[from]
	delete(next.pieces, from)
	to := m[3:]
	if to == "N" || to == "S" {
		return next, true
	}
	if len(to) > 2 {
		d := cell(to[3:])
		next.pieces[d] = next.pieces[cell(to[:2])]
	}
	next.pieces[cell(to[:2])] = h
	return next, false
}

// randomPosition scatters 1–12 pieces (at most four of each height).
func randomPosition(rng *rand.Rand, advanced bool) refPos {
	bag := []int{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}
	rng.Shuffle(len(bag), func(i, j int) { bag[i], bag[j] = bag[j], bag[i] })
	p := refPos{pieces: map[refCell]int{}, mover: rng.IntN(2), advanced: advanced}
	n := 1 + rng.IntN(12)
	for len(p.pieces) < n {
		c := refCell{rng.IntN(6), rng.IntN(6)}
		if p.pieces[c] == 0 {
			p.pieces[c] = bag[len(p.pieces)]
		}
	}
	return p
}

func fromRef(t testing.TB, p refPos) *Game {
	pos := &engine.Position{ToMove: seatNames[p.mover], Pieces: map[string]string{}}
	for c, h := range p.pieces {
		pos.Pieces[c.String()] = strconv.Itoa(h)
	}
	variant := "basic"
	if p.advanced {
		variant = "advanced"
	}
	return mustGame(t, variant, pos)
}

// TestAgainstReference compares the engine's move lists with the naive
// reference generator's on random scattered positions and on positions of
// random games, in both variants.
func TestAgainstReference(t *testing.T) {
	scattered, games := 3000, 40
	if enginetest.Reduced() {
		// under the race detector (one goroutine: it watches nothing
		// here); CI compares the full count without it (go test ./engine/...)
		scattered, games = 200, 3
	}
	if testing.Short() {
		scattered, games = 500, 8
	}
	for _, variant := range []string{"basic", "advanced"} {
		advanced := variant == "advanced"
		rng := rand.New(rand.NewPCG(11, 13))
		checked := 0
		compare := func(g *Game) {
			if g.Setup() || g.Result().Status != engine.Playing {
				return
			}
			checked++
			want := refMoves(toRef(g), refRules{})
			if got := moveSet(g); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: position %v, %s to move:\n got %v\nwant %v", variant, g.Position().Pieces, seatNames[g.toMove], got, want)
			}
		}
		for i := 0; i < scattered; i++ {
			compare(fromRef(t, randomPosition(rng, advanced)))
		}
		randomGames(t, variant, games, 150, 3, compare)
		t.Logf("%s: %d positions agree", variant, checked)
	}
}

// TestRulesThatMatter shows, with the reference generator, that each chain
// rule changes the legal moves of some position the tests above use — and
// that landing twice on one piece never adds an outcome (the second visit
// has more boundaries used and more pieces landed on than the first, so it
// reaches nothing new); the rule is what makes every chain finite.
func TestRulesThatMatter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rules  refRules
		mover  int
		spec   string
		differ bool
	}{
		{"boundary reuse", refRules{edgeReuse: true}, 0, "d5:1 f5:2", true},
		{"no cell revisits", refRules{noRevisit: true}, 0, "c1:3 f1:3", true},
		{"rest on the start cell", refRules{restOnStart: true}, 0, "d4:2 e3:2", true},
		{"the goal as a shortcut", refRules{goalPass: true}, 1, "b1:2 c1:2", true},
		{"landing twice on a piece", refRules{reland: true}, 1, "d3:1 c3:2 a3:2 a1:2 c1:2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, "basic", pos(seatNames[tc.mover], tc.spec))
			p := toRef(g)
			a, b := refMoves(p, refRules{}), refMoves(p, tc.rules)
			if differ := !reflect.DeepEqual(a, b); differ != tc.differ {
				t.Fatalf("differ %v, want %v: %v vs %v", differ, tc.differ, a, b)
			}
		})
	}
	rng := rand.New(rand.NewPCG(5, 5))
	n := 1000
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		p := randomPosition(rng, i%2 == 0)
		if a, b := refMoves(p, refRules{}), refMoves(p, refRules{reland: true}); !reflect.DeepEqual(a, b) {
			t.Fatalf("landing twice changes %v: %v vs %v", p.pieces, a, b)
		}
	}
}
