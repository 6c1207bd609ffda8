package eval

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tabla-board/tabla/engine"
)

// Verifier is implemented by the evaluators: Verify rebuilds the evaluator's
// view of s from scratch (as Reset would) and reports the first way the
// incrementally kept state differs from it, nil when it does not. It is for
// tests and fuzzing; it allocates and is slow.
type Verifier interface {
	Verify(s engine.State) error
}

var (
	_ Verifier = (*Star)(nil)
	_ Verifier = (*Gyges)(nil)
	_ Verifier = (*Six)(nil)
)

// Verify checks the piece lists against a fresh Reset of s.
func (e *Star) Verify(s engine.State) error {
	f := &Star{}
	f.Reset(s)
	if e.size != f.size || e.n != f.n {
		return fmt.Errorf("star eval: board %d/%d pieces, fresh %d/%d", e.size, e.n, f.size, f.n)
	}
	for c := range 2 {
		if e.cnt[c] != f.cnt[c] {
			return fmt.Errorf("star eval: colour %d has %d pieces, fresh %d", c, e.cnt[c], f.cnt[c])
		}
		got := slices.Clone(e.cellOf[c][:e.cnt[c]])
		want := slices.Clone(f.cellOf[c][:f.cnt[c]])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("star eval: colour %d on cells %v, fresh %v", c, got, want)
		}
		for k := 0; k < e.cnt[c]; k++ {
			i := int(e.cellOf[c][k])
			if int(e.xs[c][k]) != i%e.size || int(e.ys[c][k]) != i/e.size {
				return fmt.Errorf("star eval: colour %d piece %d on cell %d at x,y %d,%d", c, k, i, e.xs[c][k], e.ys[c][k])
			}
		}
	}
	for c := range 2 {
		if pot, adj := e.pairs(c); pot != e.pot[c] || adj != e.adj[c] {
			return fmt.Errorf("star eval: colour %d pair potential %d, touching %x; from its pieces %d, %x", c, e.pot[c], e.adj[c][:e.cnt[c]], pot, adj[:e.cnt[c]])
		}
	}
	if s.Awaiting() == engine.AwaitNone {
		return nil // Eval is for positions still being played
	}
	if a, b := e.Eval(s), f.Eval(s); a != b {
		return fmt.Errorf("star eval: %d, fresh %d", a, b)
	}
	return nil
}

// Verify has nothing to check: Gyges keeps no state between moves.
func (e *Gyges) Verify(engine.State) error { return nil }

// Verify checks the board, the tile list, every window through a hexagon and
// the scores against a fresh Reset of s (whose window may sit elsewhere).
func (e *Six) Verify(s engine.State) error {
	f := &Six{}
	f.Reset(s)
	if e.advanced != f.advanced {
		return fmt.Errorf("six eval: advanced %v, fresh %v", e.advanced, f.advanced)
	}
	name := func(t int32) string {
		return strconv.Itoa(int(t&(sixSide-1))+e.offQ) + "," + strconv.Itoa(int(t>>sixBits)+e.offR)
	}
	pieces := s.Position().Pieces
	if len(e.tiles) != len(pieces) {
		return fmt.Errorf("six eval: %d tiles, the engine has %d hexagons", len(e.tiles), len(pieces))
	}
	seen := map[int32]bool{}
	for _, t := range e.tiles {
		if t < 0 || int(t) >= len(e.cell) {
			return fmt.Errorf("six eval: tile index %d outside the window", t)
		}
		if q, r := t&(sixSide-1), t>>sixBits; q < 6 || r < 6 || q >= sixSide-6 || r >= sixSide-6 {
			return fmt.Errorf("six eval: tile %s at the window's edge (%d,%d)", name(t), q, r)
		}
		if seen[t] {
			return fmt.Errorf("six eval: tile %s listed twice", name(t))
		}
		if k := int(e.slot[t]); k >= len(e.tiles) || e.tiles[k] != t {
			return fmt.Errorf("six eval: tile %s's slot is %d", name(t), k)
		}
		seen[t] = true
		want := int8(0)
		switch pieces[name(t)] {
		case "black":
			want = 1
		case "red":
			want = 2
		}
		if e.cell[t] != want {
			return fmt.Errorf("six eval: cell %s holds %d, the engine has %q", name(t), e.cell[t], pieces[name(t)])
		}
	}
	occupied := 0
	for _, v := range e.cell {
		if v != 0 {
			occupied++
		}
	}
	if occupied != len(e.tiles) {
		return fmt.Errorf("six eval: %d occupied cells, %d tiles", occupied, len(e.tiles))
	}
	// Windows: those through a hexagon must equal the fresh ones; all others
	// must be empty (the counts are never negative and add up to 36 per
	// hexagon).
	var sum int
	for i, w := range e.win {
		if a, b := w&15, w>>4; a > 6 || b > 6 {
			return fmt.Errorf("six eval: window %d has counts %d, %d", i, a, b)
		}
		sum += int(w&15) + int(w>>4)
	}
	if want := 36 * len(e.tiles); sum != want {
		return fmt.Errorf("six eval: window counts add up to %d, want %d", sum, want)
	}
	for _, t := range e.tiles {
		ft := f.index(int(t&(sixSide-1))+e.offQ, int(t>>sixBits)+e.offR)
		for tmpl, offs := range sixOffsets {
			for _, o := range offs {
				if a, b := e.win[int(t-o)*6+tmpl], f.win[int(ft-o)*6+tmpl]; a != b {
					return fmt.Errorf("six eval: window %d through %s anchored %d back holds %#x, fresh %#x", tmpl, name(t), o, a, b)
				}
			}
		}
	}
	if e.score != f.score {
		return fmt.Errorf("six eval: scores %v, fresh %v", e.score, f.score)
	}
	if slow := e.slowEval(); slow != e.score {
		return fmt.Errorf("six eval: scores %v, recounted from the board %v", e.score, slow)
	}
	return nil
}
