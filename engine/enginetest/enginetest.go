// Package enginetest holds checks every game engine must pass: perft node
// counts, undo restoring position and hash, notation round trips, and random
// playouts that never panic.
package enginetest

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// Perft counts the leaf nodes of the move tree to depth plies. At a chance
// node (a roll due) every face is expanded as a branch without using up
// depth, so a dice game's perft counts (roll, move) sequences; the position
// after the last move is a leaf whether or not a roll is due there. A
// finished game is a leaf.
func Perft(s engine.State, depth int) uint64 {
	bufs := make([][]engine.Move, depth+1)
	for i := range bufs {
		bufs[i] = make([]engine.Move, 0, 1024)
	}
	return perft(s, depth, bufs)
}

func perft(s engine.State, depth int, bufs [][]engine.Move) uint64 {
	if depth == 0 {
		return 1
	}
	switch s.Awaiting() {
	case engine.AwaitNone:
		return 1
	case engine.AwaitRoll:
		var n uint64
		for f := range s.Info().Die.Faces {
			if err := s.Roll(f); err != nil {
				panic(err)
			}
			n += perft(s, depth, bufs)
			s.Undo()
		}
		return n
	}
	moves := s.Moves(bufs[depth][:0])
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		s.Play(m)
		n += perft(s, depth-1, bufs)
		s.Undo()
	}
	return n
}

// Snapshot is everything observable about a position, for comparisons.
type Snapshot struct {
	Hash     uint64
	Position engine.Position
	ToMove   int
	Awaiting engine.Awaiting
	Result   engine.Result
	Plies    int
	Moves    []string
}

// Take records a snapshot of s.
func Take(s engine.State) Snapshot {
	snap := Snapshot{Hash: s.Hash(), Position: s.Position(), ToMove: s.ToMove(),
		Awaiting: s.Awaiting(), Result: s.Result(), Plies: s.Plies()}
	for _, m := range s.Moves(nil) {
		snap.Moves = append(snap.Moves, engine.MoveString(s, m))
	}
	return snap
}

// Step makes one random step: a roll when one is due, else a random legal
// move. It reports false when the game is over.
func Step(s engine.State, rng *rand.Rand, buf []engine.Move) bool {
	switch s.Awaiting() {
	case engine.AwaitNone:
		return false
	case engine.AwaitRoll:
		if err := s.Roll(rng.IntN(len(s.Info().Die.Faces))); err != nil {
			panic(err)
		}
		return true
	}
	moves := s.Moves(buf[:0])
	if len(moves) == 0 {
		panic("enginetest: no moves while a move is awaited")
	}
	s.Play(moves[rng.IntN(len(moves))])
	return true
}

// CheckUndo plays random games from s (which it leaves unchanged) for up to
// maxSteps steps each and checks at every step that Undo restores the exact
// snapshot, that every legal move's notation parses back to the same move, and
// that a Clone behaves like the original.
func CheckUndo(t testing.TB, s engine.State, games, maxSteps int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	buf := make([]engine.Move, 0, 1024)
	root := Take(s)
	for g := 0; g < games; g++ {
		var trail []Snapshot
		for step := 0; step < maxSteps; step++ {
			before := Take(s)
			moves := s.Moves(buf[:0])
			for k, m := range moves {
				// Every move's notation when there are few; a sample of 64 in
				// the long lists (six's ~800), where games check all of them
				// in a test of their own.
				if len(moves) > 64 && k%(len(moves)/64+1) != step%(len(moves)/64+1) {
					continue
				}
				text := engine.MoveString(s, m)
				back, err := s.ParseMove(text)
				if err != nil || back != m {
					t.Fatalf("game %d step %d: move %q parses back as %v, %v", g, step, text, back, err)
				}
			}
			if !Step(s, rng, buf) {
				break
			}
			trail = append(trail, before)
			if step%7 == 0 {
				c := s.Clone()
				if c.Hash() != s.Hash() || !reflect.DeepEqual(Take(c), Take(s)) {
					t.Fatalf("game %d step %d: clone differs from original", g, step)
				}
			}
		}
		for i := len(trail) - 1; i >= 0; i-- {
			s.Undo()
			if got := Take(s); !reflect.DeepEqual(got, trail[i]) {
				t.Fatalf("game %d: undo of step %d: got %+v, want %+v", g, i, got, trail[i])
			}
		}
		if got := Take(s); !reflect.DeepEqual(got, root) {
			t.Fatalf("game %d: not back at the root after undoing", g)
		}
	}
}

// Playout plays one random game from s to its end or maxPlies plies and
// returns the number of steps taken. s is left at the final position. It
// draws moves with RandomMove when the game has it.
func Playout(s engine.State, rng *rand.Rand, buf []engine.Move, maxPlies int) int {
	n := 0
	rm, fast := s.(engine.RandomMover)
	for s.Plies() < maxPlies {
		if fast && s.Awaiting() == engine.AwaitMove {
			s.Play(rm.RandomMove(rng))
		} else if !Step(s, rng, buf) {
			break
		}
		n++
	}
	return n
}

// CheckRandomMove checks that a game's RandomMove only returns legal moves and
// reaches every legal move, on random positions.
func CheckRandomMove(t testing.TB, s engine.State, games, maxSteps int, seed uint64) {
	t.Helper()
	if _, ok := s.(engine.RandomMover); !ok {
		t.Fatal("enginetest: not a RandomMover")
	}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	buf := make([]engine.Move, 0, 1024)
	for g := 0; g < games; g++ {
		c := s.Clone()
		rm := c.(engine.RandomMover)
		for step := 0; step < maxSteps && c.Awaiting() != engine.AwaitNone; step++ {
			if c.Awaiting() == engine.AwaitMove && step%5 == 0 {
				legal := map[engine.Move]bool{}
				for _, m := range c.Moves(buf[:0]) {
					legal[m] = true
				}
				seen := map[engine.Move]bool{}
				for i := 0; i < 40*len(legal); i++ {
					m := rm.RandomMove(rng)
					if !legal[m] {
						t.Fatalf("game %d step %d: RandomMove gave illegal %s", g, step, engine.MoveString(c, m))
					}
					seen[m] = true
				}
				if len(seen) != len(legal) {
					t.Fatalf("game %d step %d: RandomMove reached %d of %d moves", g, step, len(seen), len(legal))
				}
			}
			Step(c, rng, buf)
		}
	}
}

// Scale returns n, or a quarter of it (at least 1) under the race detector:
// the engines are single-threaded, so their long randomised comparisons
// gain nothing from it but its 5–10× slowdown. CI plays the full n without
// it (.ci/run's `go test ./engine/...`, before the README's race run);
// TABLA_LONG=1 plays the full n under the race detector too.
func Scale(n int) int {
	if Reduced() {
		return max(1, n/4)
	}
	return n
}

// Reduced reports whether the long seeded tests run at their reduced size:
// under the race detector, unless TABLA_LONG=1. Tests whose reduction is not
// a quarter (a shallower perft, fewer steps) ask this.
func Reduced() bool {
	return Race && os.Getenv("TABLA_LONG") != "1"
}

// PerftLine is one line of a perft table: NAME DEPTH COUNT.
type PerftLine struct {
	Name  string
	Depth int
	Count uint64
}

// ReadPerft reads a perft table (testdata/perft.txt): "NAME DEPTH COUNT"
// lines, blank lines and '#' comments. A malformed line fails the test with
// its line number.
func ReadPerft(t testing.TB, path string) []PerftLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []PerftLine
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		w := strings.Fields(line)
		if len(w) != 3 {
			t.Fatalf("%s:%d: want NAME DEPTH COUNT", path, n+1)
		}
		d, err1 := strconv.Atoi(w[1])
		c, err2 := strconv.ParseUint(w[2], 10, 64)
		if err1 != nil || err2 != nil || d < 0 {
			t.Fatalf("%s:%d: bad numbers", path, n+1)
		}
		out = append(out, PerftLine{w[0], d, c})
	}
	if len(out) == 0 {
		t.Fatalf("%s: no perft entries", path)
	}
	return out
}
