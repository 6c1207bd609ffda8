package rayodds

import (
	"fmt"
	"math"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/ray"
)

// Interaction quantifies how far the independent model is from the real
// game (see the package doc).
type Interaction struct {
	// Blocks is the expected number of blocked steps (a roll towards a cell
	// another walker stands on) per seat before the game ends, under the
	// independent model.
	Blocks []float64
	// Bound is min(1, Σ Blocks): the real game and the independent model,
	// driven by the same rolls, agree until the first block, so no win
	// probability differs by more than the chance of a block, which is at
	// most the expected number of blocks. Rigorous, but weak from far
	// positions (≈ 5.9 expected blocks from the start).
	Bound float64
	// Delay is the expected number of own turns the blocks cost each seat,
	// E[T|x] − E[T|y] summed over blocks from x towards y (1 per block on
	// average over directions, more for a step towards the target).
	Delay []float64
	// Corrected is Win with a first-order correction: each seat's
	// hitting-time law delayed by one turn per expected block (a block
	// costs one turn on average). It is an estimate, not a bound: near the
	// target, blocks towards it cost more (see Delay) and the tests show
	// effects up to 0.01 there.
	Corrected []float64
	// Effect is max over seats of |Corrected − Win|: the size of the
	// interaction effect.
	Effect float64
}

// Interact computes the interaction bound of a position awaiting a roll.
// It runs the forward distributions of all walkers round by round until all
// walkers are still out with probability below 10⁻⁵ (a few seconds from the start of the 29×29 board).
func Interact(st engine.State) (*Interaction, error) {
	s, ok := st.(*ray.State)
	if !ok || st.Awaiting() != engine.AwaitRoll {
		return nil, fmt.Errorf("rayodds: Interact needs a ray position awaiting a roll")
	}
	t := TableFor(s)
	var order []int
	for k := 0; k < 4; k++ {
		if seat := (s.ToMove() + k) % 4; s.Cell(seat) >= 0 {
			order = append(order, seat)
		}
	}
	k := len(order)
	n := t.N
	m := make([][]float64, k) // unabsorbed marginal of each walker
	next := make([]float64, n)
	for p, seat := range order {
		m[p] = make([]float64, n)
		m[p][s.Cell(seat)] = 1
	}
	alive := make([]float64, k) // Σ m[p]
	for p := range alive {
		alive[p] = 1
	}
	in := &Interaction{Blocks: make([]float64, 4), Delay: make([]float64, 4)}
	et := t.Expected()
	cost := make([][4]float64, n)
	for x := range cost {
		for f := 0; f < 4; f++ {
			cost[x][f] = et[x] - et[t.Step[x][f]]
		}
	}
	for r := 1; ; r++ {
		for p := 0; p < k; p++ {
			// Walker p moves for the r-th time; the others stand at their
			// current marginals (earlier seats after r moves, later after r−1).
			for q := 0; q < k; q++ {
				if q == p {
					continue
				}
				others := 1.0
				for u := 0; u < k; u++ {
					if u != p && u != q {
						others *= alive[u]
					}
				}
				var blocks, delay float64
				mp, mq := m[p], m[q]
				for x, px := range mp {
					if px == 0 {
						continue
					}
					for f := 0; f < 4; f++ {
						y := t.Step[x][f]
						if int(y) == x {
							continue
						}
						w := px * mq[y]
						blocks += w
						delay += w * cost[x][f]
					}
				}
				in.Blocks[order[p]] += 0.25 * blocks * others
				in.Delay[order[p]] += 0.25 * delay * others
			}
			clear(next)
			for x, px := range m[p] {
				if px == 0 {
					continue
				}
				for f := 0; f < 4; f++ {
					next[t.Step[x][f]] += 0.25 * px
				}
			}
			next[t.Target] = 0
			m[p], next = next, m[p]
			var a float64
			for _, v := range m[p] {
				a += v
			}
			alive[p] = a
		}
		all := 1.0
		for _, a := range alive {
			all *= a
		}
		if all < 1e-5 || r > 1<<20 {
			break
		}
	}
	base, err := Compute(st)
	if err != nil {
		return nil, err
	}
	cells := make([]int, k)
	for p, seat := range order {
		cells[p] = s.Cell(seat)
	}
	in.Corrected = append([]float64(nil), base.Win...)
	for p, seat := range order {
		o := &Odds{Win: make([]float64, 4), Turns: make([]float64, 4), Order: order}
		delay := make([]float64, k)
		delay[p] = in.Blocks[seat]
		combineDelayed(t, cells, delay, o)
		for q := range in.Corrected {
			in.Corrected[q] += o.Win[q] - base.Win[q]
		}
	}
	for _, b := range in.Blocks {
		in.Bound += b
	}
	in.Bound = min(1, in.Bound)
	for q := range in.Corrected {
		in.Effect = max(in.Effect, math.Abs(in.Corrected[q]-base.Win[q]))
	}
	return in, nil
}

// delayedSurvival is the survival of a walker from x delayed by d turns
// (fractional d interpolates between whole delays).
func (t *Table) delayedSurvival(x int, k int, d float64) float64 {
	if d == 0 {
		return t.Survival(x, k)
	}
	lo := int(math.Floor(d))
	fr := d - float64(lo)
	at := func(j int) float64 {
		if j <= 0 {
			return t.Survival(x, 0)
		}
		return t.Survival(x, j)
	}
	return (1-fr)*at(k-lo) + fr*at(k-lo-1)
}

// combineDelayed is combine with delays; it fills only Win.
func combineDelayed(t *Table, cells []int, delay []float64, o *Odds) {
	k := len(cells)
	prev := make([]float64, k)
	cur := make([]float64, k)
	for q, x := range cells {
		prev[q] = t.delayedSurvival(x, 0, delay[q])
	}
	for r := 1; r < 1<<22; r++ {
		for q, x := range cells {
			cur[q] = t.delayedSurvival(x, r, delay[q])
		}
		alive := 1.0
		for p := 0; p < k; p++ {
			alive *= cur[p]
			f := prev[p] - cur[p]
			if f <= 0 {
				continue
			}
			for q := 0; q < p; q++ {
				f *= cur[q]
			}
			for q := p + 1; q < k; q++ {
				f *= prev[q]
			}
			o.Win[o.Order[p]] += f
		}
		prev, cur = cur, prev
		if alive < 1e-14 {
			return
		}
	}
}

// Expected returns E[T | start x] for every cell, in own turns.
func (t *Table) Expected() []float64 {
	e := make([]float64, t.N)
	for x := range e {
		for k := 0; k < Horizon; k++ {
			e[x] += t.S[k][x]
		}
		if t.Lambda < 1 {
			e[x] += t.S[Horizon][x] / (1 - t.Lambda)
		}
	}
	return e
}
