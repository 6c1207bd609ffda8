package daha

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// This file holds an independent reference implementation of the rules,
// written for obviousness rather than speed: plain maps keyed by cell name
// and a recursive enumeration of simple paths on the boards.Board adjacency.
// It shares nothing with the engine but the board and engine.Position.

// naiveGame is a DAHA position in the reference implementation.
type naiveGame struct {
	board   *boards.Board
	pieces  map[string]string // cell → colour
	painted map[string]string // cell → colour
	last    map[string]int    // colour → previous roll followed by a move
	out     []string
	toMove  string // "" once over
}

var naiveOrder = []string{"red", "yellow", "blue", "black"}

func naiveFrom(b *boards.Board, p engine.Position) *naiveGame {
	g := &naiveGame{board: b, pieces: map[string]string{}, painted: map[string]string{}, last: map[string]int{}, toMove: p.ToMove}
	for k, v := range p.Pieces {
		g.pieces[k] = v
	}
	for k, v := range p.Painted {
		g.painted[k] = v
	}
	for k, v := range p.LastRoll {
		g.last[k] = v
	}
	g.out = append(g.out, p.Out...)
	if len(g.pieces) == 1 {
		g.toMove = ""
	}
	return g
}

func (g *naiveGame) clone() *naiveGame {
	c := naiveFrom(g.board, engine.Position{Pieces: g.pieces, Painted: g.painted, LastRoll: g.last, Out: g.out, ToMove: g.toMove})
	c.toMove = g.toMove
	return c
}

func (g *naiveGame) cellOf(colour string) string {
	for cell, c := range g.pieces {
		if c == colour {
			return cell
		}
	}
	return ""
}

// naiveDests lists, sorted, the cells at the end of a simple path of exactly
// k steps from colour's piece through cells free of pieces and of paint of
// another colour.
func naiveDests(b *boards.Board, pieces, painted map[string]string, colour string, k int) []string {
	var from string
	for cell, c := range pieces {
		if c == colour {
			from = cell
		}
	}
	neighbours := func(name string) []string {
		var out []string
		for _, c := range b.Cells {
			if c.Name == name {
				for _, j := range c.Adj {
					out = append(out, b.Cells[j].Name)
				}
			}
		}
		return out
	}
	found := map[string]bool{}
	onPath := map[string]bool{from: true}
	var walk func(cell string, left int)
	walk = func(cell string, left int) {
		if left == 0 {
			found[cell] = true
			return
		}
		for _, n := range neighbours(cell) {
			if onPath[n] {
				continue
			}
			if _, taken := pieces[n]; taken {
				continue
			}
			if p, ok := painted[n]; ok && p != colour {
				continue
			}
			onPath[n] = true
			walk(n, left-1)
			delete(onPath, n)
		}
	}
	walk(from, k)
	var out []string
	for c := range found {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func (g *naiveGame) dests(k int) []string {
	return naiveDests(g.board, g.pieces, g.painted, g.toMove, k)
}

func (g *naiveGame) next(after string) string {
	i := slices.Index(naiveOrder, after)
	for d := 1; d <= 4; d++ {
		c := naiveOrder[(i+d)%4]
		if g.cellOf(c) != "" {
			return c
		}
	}
	return ""
}

// roll applies roll k: it reports the destinations, or eliminates the player.
func (g *naiveGame) roll(k int) []string {
	d := g.dests(k)
	if len(d) > 0 {
		return d
	}
	c := g.toMove
	delete(g.pieces, g.cellOf(c))
	delete(g.last, c)
	g.out = append(g.out, c)
	if len(g.pieces) == 1 {
		g.toMove = ""
	} else {
		g.toMove = g.next(c)
	}
	return nil
}

func (g *naiveGame) move(k int, dest string) {
	c := g.toMove
	delete(g.pieces, g.cellOf(c))
	g.pieces[dest] = c
	if g.last[c] == k {
		g.painted[dest] = c
	}
	g.last[c] = k
	g.toMove = g.next(c)
}

// naivePerft counts like enginetest.Perft: a roll due expands all six values
// without using depth; a finished game is a leaf.
func naivePerft(g *naiveGame, depth int) uint64 {
	if g.toMove == "" {
		return 1
	}
	var n uint64
	for k := 1; k <= 6; k++ {
		c := g.clone()
		d := c.roll(k)
		switch {
		case d == nil:
			n += naivePerft(c, depth)
		case depth == 0:
			n++
		case depth == 1:
			n += uint64(len(d))
		default:
			for _, dest := range d {
				cc := c.clone()
				cc.move(k, dest)
				n += naivePerft(cc, depth-1)
			}
		}
	}
	return n
}

// randomStart makes a random legal start position on b: a random set of
// two to four colours with pieces, some out, random paint (never under a
// foreign piece), random previous rolls.
func randomStart(b *boards.Board, rng *rand.Rand) engine.Position {
	p := engine.Position{Pieces: map[string]string{}}
	cells := rng.Perm(len(b.Cells))
	nLive := 2 + rng.IntN(3)
	if len(b.Cells) < nLive {
		nLive = len(b.Cells)
	}
	cols := rng.Perm(4)
	var live []string
	for i, ci := range cols {
		c := naiveOrder[ci]
		switch {
		case i < nLive:
			p.Pieces[b.Cells[cells[i]].Name] = c
			live = append(live, c)
		case rng.IntN(2) == 0:
			p.Out = append(p.Out, c)
		}
	}
	density := rng.Float64() * 0.6
	for _, c := range b.Cells {
		if rng.Float64() >= density {
			continue
		}
		col := naiveOrder[rng.IntN(4)]
		if on, ok := p.Pieces[c.Name]; ok && on != col {
			continue
		}
		if p.Painted == nil {
			p.Painted = map[string]string{}
		}
		p.Painted[c.Name] = col
	}
	for _, c := range live {
		if rng.IntN(3) > 0 {
			if p.LastRoll == nil {
				p.LastRoll = map[string]int{}
			}
			p.LastRoll[c] = 1 + rng.IntN(6)
		}
	}
	p.ToMove = live[rng.IntN(len(live))]
	return p
}

// randomBoard makes a random connected-ish graph board of n cells with about
// extra edges beyond a spanning path, with red and blue (and maybe more) start cells.
func randomBoard(t testing.TB, rng *rand.Rand, n, extra int) *boards.Board {
	t.Helper()
	adj := make([]map[int]bool, n)
	for i := range adj {
		adj[i] = map[int]bool{}
	}
	link := func(i, j int) {
		if i != j {
			adj[i][j], adj[j][i] = true, true
		}
	}
	for i := 1; i < n; i++ {
		link(i, rng.IntN(i))
	}
	for e := 0; e < extra; e++ {
		link(rng.IntN(n), rng.IntN(n))
	}
	var sb strings.Builder
	sb.WriteString("board rnd\ngame daha\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "cell x%d %d 0\n", i, i)
	}
	for i := 0; i < n; i++ {
		if len(adj[i]) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "adj x%d", i)
		for j := range adj[i] {
			fmt.Fprintf(&sb, " x%d", j)
		}
		sb.WriteByte('\n')
	}
	perm := rng.Perm(n)
	for c := 0; c < 4 && c < n; c++ {
		if c >= 2 && rng.IntN(2) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "start x%d %s\n", perm[c], naiveOrder[c])
	}
	b, err := boards.Parse("random", []byte(sb.String()))
	if err != nil {
		t.Fatalf("random board: %v\n%s", err, sb.String())
	}
	return b
}

func maskNames(s *State, m uint64) []string {
	var out []string
	for i := 0; i < s.g.n; i++ {
		if m>>uint(i)&1 != 0 {
			out = append(out, s.g.names[i])
		}
	}
	sort.Strings(out)
	return out
}

// compareGenerators checks the engine's DFS, the path table and the reference on every
// colour in play and every roll of position pos.
func compareGenerators(t *testing.T, b *boards.Board, pos engine.Position) {
	t.Helper()
	s, err := newState(engine.Config{Board: b, Start: &pos})
	if err != nil {
		t.Fatalf("start %+v: %v", pos, err)
	}
	table := tableOf(s.g, 1<<18)
	for c := Red; c <= Black; c++ {
		if s.pos[c] < 0 {
			continue
		}
		for k := 1; k <= 6; k++ {
			want := naiveDests(b, pos.Pieces, pos.Painted, c.String(), k)
			blocked := s.blocked(int(c))
			got := maskNames(s, s.g.dests(int(s.pos[c]), k, blocked))
			if !slices.Equal(got, want) {
				t.Fatalf("engine: %s rolls %d in %+v: got %v, want %v", c, k, pos, got, want)
			}
			if table != nil {
				got := maskNames(s, table.dests(int(s.pos[c]), k, blocked))
				if !slices.Equal(got, want) {
					t.Fatalf("path table: %s rolls %d in %+v: got %v, want %v", c, k, pos, got, want)
				}
			}
		}
	}
}

func TestGeneratorsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if enginetest.Reduced() {
		n = 200 // under the race detector; CI compares the 3000 without it (go test ./engine/...)
	}
	if testing.Short() {
		n = 500
	}
	t.Run("default board, random starts", func(t *testing.T) {
		b := defBoard()
		for i := 0; i < n; i++ {
			compareGenerators(t, b, randomStart(b, rng))
		}
	})
	t.Run("default board, played positions", func(t *testing.T) {
		b := defBoard()
		s, _ := newState(engine.Config{})
		buf := make([]engine.Move, 0, 64)
		for i := 0; i < n; i++ {
			if s.Awaiting() == engine.AwaitNone || s.Plies() > 300 {
				s, _ = newState(engine.Config{})
			}
			if s.Awaiting() == engine.AwaitRoll {
				compareGenerators(t, b, s.Position())
			}
			enginetest.Step(s, rng, buf)
		}
	})
	t.Run("random boards", func(t *testing.T) {
		for i := 0; i < n/10; i++ {
			b := randomBoard(t, rng, 2+rng.IntN(63), rng.IntN(40))
			for j := 0; j < 10; j++ {
				compareGenerators(t, b, randomStart(b, rng))
			}
		}
	})
	t.Run("dense board with the superset reach", func(t *testing.T) {
		b := completeBoard(t, 14)
		g, err := graphFor(b)
		if err != nil {
			t.Fatal(err)
		}
		if g.exact {
			t.Fatal("K14 has more paths than the reach budget; want the superset reach")
		}
		// The reference walks up to 1.2 million paths per query here.
		for j := 0; j < n/500; j++ {
			compareGenerators(t, b, randomStart(b, rng))
		}
	})
}

// completeBoard is the complete graph on n cells, red on k0 and blue on k1.
func completeBoard(t testing.TB, n int) *boards.Board {
	var sb strings.Builder
	sb.WriteString("board complete\ngame daha\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "cell k%d %d 0\n", i, i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "adj k%d", i)
		for j := 0; j < n; j++ {
			if j != i {
				fmt.Fprintf(&sb, " k%d", j)
			}
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("start k0 red\nstart k1 blue\n")
	b, err := boards.Parse("complete", []byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEngineAgainstReferenceGames plays random games in the engine and in
// the reference side by side and compares every roll's outcome.
func TestEngineAgainstReferenceGames(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	games := 200
	if testing.Short() {
		games = 40
	}
	b := defBoard()
	for gi := 0; gi < games; gi++ {
		var s *State
		if gi%2 == 0 {
			s, _ = newState(engine.Config{})
		} else {
			pos := randomStart(b, rng)
			var err error
			if s, err = newState(engine.Config{Start: &pos}); err != nil {
				t.Fatal(err)
			}
		}
		ref := naiveFrom(b, s.Position())
		for ply := 0; ply < 400 && s.Awaiting() != engine.AwaitNone; ply++ {
			k := 1 + rng.IntN(6)
			if err := s.Roll(k - 1); err != nil {
				t.Fatal(err)
			}
			want := ref.roll(k)
			var got []string
			for _, m := range s.Moves(nil) {
				got = append(got, engine.MoveString(s, m))
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Fatalf("game %d ply %d roll %d: got %v, want %v", gi, ply, k, got, want)
			}
			if len(got) > 0 {
				d := got[rng.IntN(len(got))]
				m, err := s.ParseMove(d)
				if err != nil {
					t.Fatal(err)
				}
				s.Play(m)
				ref.move(k, d)
			}
			wantPos := engine.Position{ToMove: ref.toMove, Pieces: ref.pieces, Painted: ref.painted, LastRoll: ref.last, Out: ref.out}
			if !samePosition(s.Position(), wantPos) {
				t.Fatalf("game %d ply %d: got %+v, want %+v", gi, ply, s.Position(), wantPos)
			}
		}
	}
}

// samePosition compares positions treating nil and empty maps/slices alike.
func samePosition(a, b engine.Position) bool {
	return a.ToMove == b.ToMove && mapsEq(a.Pieces, b.Pieces) && mapsEq(a.Painted, b.Painted) &&
		mapsEq(a.LastRoll, b.LastRoll) && slices.Equal(a.Out, b.Out)
}

func mapsEq[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
