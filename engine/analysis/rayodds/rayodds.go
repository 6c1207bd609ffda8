package rayodds

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/ray"
)

// Horizon is the number of own turns the survival table covers.
const Horizon = 2500

// Table is the hitting-time survival table of one board.
type Table struct {
	N      int         // cells
	Target int         // target cell
	Step   [][4]int32  // step per face; the cell itself when off the board
	S      [][]float64 // S[t][x] = P(T > t | start x), t = 0..Horizon
	Lambda float64     // geometric decay beyond the horizon
}

var (
	tablesMu sync.Mutex
	tables   = map[uint64]*Table{}
)

// geometry discovers the board from the engine: cells reachable from the
// target (the grid is connected) and the step table.
func geometry(s *ray.State) (n int, step [][4]int32, key uint64) {
	t := s.Target()
	seen := make([]bool, t+1, 1024)
	seen[t] = true
	queue := []int{t}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		n = max(n, c+1)
		for f := 0; f < 4; f++ {
			if d := s.Step(c, f); d >= 0 {
				for len(seen) <= d {
					seen = append(seen, false)
				}
				if !seen[d] {
					seen[d] = true
					queue = append(queue, d)
				}
			}
		}
	}
	for len(seen) < n {
		seen = append(seen, false)
	}
	step = make([][4]int32, n)
	h := uint64(14695981039346656037)
	mix := func(v int) {
		h ^= uint64(v + 2)
		h *= 1099511628211
	}
	for c := range step {
		for f := 0; f < 4; f++ {
			d := -1
			if seen[c] {
				d = s.Step(c, f)
			}
			if d < 0 {
				d = c
			}
			step[c][f] = int32(d)
			mix(d)
		}
	}
	mix(-1)
	mix(t)
	return n, step, h
}

// TableFor returns the (cached) table of s's board.
func TableFor(s *ray.State) *Table {
	n, step, key := geometry(s)
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t := tables[key]; t != nil {
		return t
	}
	t := &Table{N: n, Target: s.Target(), Step: step, S: make([][]float64, Horizon+1)}
	back := make([]float64, n*(Horizon+1))
	for k := range t.S {
		t.S[k] = back[k*n : (k+1)*n : (k+1)*n]
	}
	for x := range t.S[0] {
		if x != t.Target {
			t.S[0][x] = 1
		}
	}
	for k := 1; k <= Horizon; k++ {
		prev, cur := t.S[k-1], t.S[k]
		for x := range cur {
			if x == t.Target {
				continue
			}
			st := &step[x]
			cur[x] = 0.25 * (prev[st[0]] + prev[st[1]] + prev[st[2]] + prev[st[3]])
		}
	}
	var a, b float64
	for x := 0; x < n; x++ {
		a += t.S[Horizon][x]
		b += t.S[Horizon-1][x]
	}
	t.Lambda = 1
	if b > 0 {
		t.Lambda = a / b
	}
	tables[key] = t
	return t
}

// Survival is P(T > k | start x), extended geometrically beyond the horizon.
func (t *Table) Survival(x, k int) float64 {
	if k <= Horizon {
		return t.S[k][x]
	}
	return t.S[Horizon][x] * math.Pow(t.Lambda, float64(k-Horizon))
}

// Odds are the chances from one position.
type Odds struct {
	// Win is the win probability of every seat (0 for seats not playing);
	// for a finished game 1 for the winner.
	Win []float64
	// Turns is the expected number of turns (rolls) every seat still takes.
	Turns []float64
	// Length is the expected number of turns left in the game, all seats.
	Length float64
	// Tail bounds the probability mass the sums left out (horizon and
	// geometric extension), a bound on the numerical error of Win.
	Tail float64
	// Order lists the seats in the order they move next.
	Order []int
}

// Compute returns the odds of a RAY position under independent walkers.
func Compute(st engine.State) (*Odds, error) {
	s, ok := st.(*ray.State)
	if !ok {
		return nil, fmt.Errorf("rayodds: %s is not ray", st.Info().Game)
	}
	o := &Odds{Win: make([]float64, 4), Turns: make([]float64, 4)}
	if st.Awaiting() == engine.AwaitMove {
		c := s.Clone()
		c.Play(c.Moves(nil)[0])
		r, err := Compute(c)
		if err != nil {
			return nil, err
		}
		r.Turns[s.ToMove()]++
		r.Length++
		return r, nil
	}
	if res := st.Result(); res.Status == engine.Won {
		o.Win[res.Winner] = 1
		return o, nil
	}
	t := TableFor(s)
	for k := 0; k < 4; k++ {
		seat := (s.ToMove() + k) % 4
		if s.Cell(seat) >= 0 {
			o.Order = append(o.Order, seat)
		}
	}
	cells := make([]int, len(o.Order))
	for p, seat := range o.Order {
		cells[p] = s.Cell(seat)
	}
	combine(t, cells, o)
	return o, nil
}

// combine sums over rounds: see the package doc.
func combine(t *Table, cells []int, o *Odds) {
	k := len(cells)
	prev := make([]float64, k) // A_q(r−1)
	cur := make([]float64, k)  // A_q(r)
	for q, x := range cells {
		prev[q] = t.Survival(x, 0)
	}
	var total float64
	for r := 1; ; r++ {
		for q, x := range cells {
			if r <= Horizon {
				cur[q] = t.S[r][x]
			} else {
				cur[q] = prev[q] * t.Lambda
			}
		}
		for p := 0; p < k; p++ {
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
			total += f
			// This game ends at round r on p's turn: seats up to p took r
			// turns, the later ones r−1.
			for q := 0; q < k; q++ {
				n := float64(r)
				if q > p {
					n--
				}
				o.Turns[o.Order[q]] += f * n
			}
			o.Length += f * float64((r-1)*k+p+1)
		}
		alive := 1.0
		for q := range cur {
			alive *= cur[q]
		}
		prev, cur = cur, prev
		if alive < 1e-14 || r > 1<<22 {
			o.Tail = alive
			if r > Horizon {
				// Geometric-extension error, see the package doc.
				o.Tail += 1e-6 * alive
			}
			break
		}
	}
	_ = total
}

// Simulate plays games of the real rules (blocking included) from s with
// random rolls and returns each seat's share of wins. It is an independent,
// plain implementation of RULES.md §4 for validation; the tests check it
// against the engine roll for roll.
func Simulate(st engine.State, games int, seed uint64) []float64 {
	s := st.(*ray.State)
	t := TableFor(s)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	wins := make([]float64, 4)
	for g := 0; g < games; g++ {
		wins[Play(s, t, rng.IntN)]++
	}
	for i := range wins {
		wins[i] /= float64(games)
	}
	return wins
}

// Play plays one game of the real rules from s, drawing faces with roll(4),
// and returns the winning seat. A pending roll is played first.
func Play(s *ray.State, t *Table, roll func(int) int) int {
	var pos [4]int
	for seat := range pos {
		pos[seat] = s.Cell(seat)
	}
	if r := s.Result(); r.Status == engine.Won {
		return r.Winner
	}
	seat := s.ToMove()
	pending := s.PendingRoll()
	for {
		if pos[seat] >= 0 {
			f := pending
			if f < 0 {
				f = roll(4)
			}
			pending = -1
			to := int(t.Step[pos[seat]][f])
			free := true
			for _, c := range pos {
				if c == to {
					free = false
				}
			}
			if free {
				pos[seat] = to
				if to == t.Target {
					return seat
				}
			}
		}
		seat = (seat + 1) % 4
	}
}
