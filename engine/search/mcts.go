package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// UCTC is the exploration constant of UCT (rewards are in [0, 1]).
const UCTC = 0.8

// node is one MCTS tree node. Children of a node are contiguous in the pool.
type node struct {
	move   engine.Move // the move (or face, for children of a chance node) leading here
	first  int32       // first child; -1 while not expanded
	nkids  int32
	visits int32
	chance bool       // a roll is due here
	won    bool       // the move leading here wins at once (proven)
	w      [4]float32 // reward sums per side
}

type mctsWorker struct {
	s        engine.State
	rng      *rand.Rand
	pool     []node
	maxPool  int
	path     []int32
	buf      []engine.Move
	nsides   int
	sideOf   []int
	nfaces   int
	capPlies int
	rm       engine.RandomMover
	rp       RandomPlayer // nil: the loop of playout
	pe       PlayoutEstimator
	end      func() // w.rewards(w.out), for rp
	out      *[4]float32
	iters    int64
	draw     float32
}

// A RandomPlayer plays a random playout itself: random rolls and moves
// until the game ends or capPlies plies have been played, then calls end
// with that position and restores the position. Its games must be
// distributed as those of the loop in playout (every face equally likely
// when a roll is due, every legal move equally likely when a move is),
// but it may draw them its own way from rng (DAHA seeds its own generator
// from one draw and draws a destination without listing them all), so
// MCTS finds with it what it finds with the loop up to the playouts' own
// noise, only sooner.
type RandomPlayer interface {
	RandomPlayout(rng *rand.Rand, capPlies int, end func())
}

// A PlayoutEstimator plays a random playout cut short: a few random turns
// drawn as RandomPlayer's are, then, unless the game ended or reached
// capPlies, an estimate of each side's expected reward from a random
// playout to the end (a win 1, a draw 1/len(Sides)), written into out
// (indexed by side, as rewards are); it restores the position. Estimates
// says whether it can for this game (DAHA: on the board its estimate was
// fitted on); when it cannot, MCTS plays whole playouts. The estimate must
// be fitted on the game's own random playouts, so that MCTS's values stay
// those of random playouts up to the estimate's error, with far less noise
// per iteration: MCTS then runs Level.MCTSCutIter iterations instead of
// MCTSIter.
type PlayoutEstimator interface {
	Estimates() bool
	EstimatePlayout(rng *rand.Rand, capPlies int, out *[4]float32)
}

// estimator is s's PlayoutEstimator when MCTS with opts cuts its playouts.
func estimator(s engine.State, opts Options) PlayoutEstimator {
	if opts.loopPlayouts || !opts.CutPlayouts {
		return nil
	}
	if pe, ok := s.(PlayoutEstimator); ok && pe.Estimates() {
		return pe
	}
	return nil
}

func newMCTSWorker(s engine.State, opts Options, seed uint64, iters int64) *mctsWorker {
	info := s.Info()
	w := &mctsWorker{s: s, rng: rand.New(rand.NewPCG(seed, seed^0xa5a5a5a5)), nsides: len(info.Sides),
		sideOf: info.SideOf, capPlies: capFor(s, opts.MaxPlies), buf: make([]engine.Move, 0, moveCap),
		path: make([]int32, 0, 1024)}
	w.draw = 1 / float32(w.nsides)
	if info.Die != nil {
		w.nfaces = len(info.Die.Faces)
	}
	w.rm, _ = s.(engine.RandomMover)
	if rp, ok := s.(RandomPlayer); ok && !opts.loopPlayouts {
		w.rp = rp
		w.end = func() { w.rewards(w.out) }
	}
	w.pe = estimator(s, opts)
	w.maxPool = int(min(iters*48+64, 4<<20))
	w.pool = make([]node, 1, min(w.maxPool, int(iters)*8+64))
	w.pool[0] = node{first: -1, chance: s.Awaiting() == engine.AwaitRoll}
	return w
}

// expand adds the children of node i (the state is at node i).
func (w *mctsWorker) expand(i int32) {
	s := w.s
	if s.Awaiting() == engine.AwaitRoll {
		if len(w.pool)+w.nfaces > w.maxPool {
			return
		}
		first := int32(len(w.pool))
		for f := 0; f < w.nfaces; f++ {
			if err := s.Roll(f); err != nil {
				panic(err)
			}
			chance := s.Awaiting() == engine.AwaitRoll
			s.Undo()
			w.pool = append(w.pool, node{move: engine.Move(f), first: -1, chance: chance})
		}
		w.pool[i].first, w.pool[i].nkids = first, int32(w.nfaces)
		return
	}
	moves := s.Moves(w.buf[:0])
	slices.Sort(moves) // canonical child order, whatever order the engine lists
	if len(w.pool)+len(moves) > w.maxPool {
		return
	}
	me := w.sideOf[s.ToMove()]
	first := int32(len(w.pool))
	for _, m := range moves {
		s.Play(m)
		r := s.Result()
		chance := s.Awaiting() == engine.AwaitRoll
		s.Undo()
		if r.Status == engine.Won && r.Winner == me {
			// The mover takes a winning move: it is the only child.
			w.pool = append(w.pool[:first], node{move: m, first: -1, won: true})
			w.pool[i].first, w.pool[i].nkids = first, 1
			return
		}
		w.pool = append(w.pool, node{move: m, first: -1, chance: chance})
	}
	w.pool[i].first, w.pool[i].nkids = first, int32(len(moves))
}

// selectChild picks the UCT child of decision node i for side.
func (w *mctsWorker) selectChild(i int32, side int) int32 {
	nd := &w.pool[i]
	logN := math.Log(float64(nd.visits + 1))
	best, bestV := nd.first, -1.0
	for c := nd.first; c < nd.first+nd.nkids; c++ {
		ch := &w.pool[c]
		if ch.visits == 0 {
			return c
		}
		n := float64(ch.visits)
		v := float64(ch.w[side])/n + UCTC*math.Sqrt(logN/n)
		if v > bestV {
			best, bestV = c, v
		}
	}
	return best
}

// rewards of a finished or capped game.
func (w *mctsWorker) rewards(out *[4]float32) {
	*out = [4]float32{}
	r := w.s.Result()
	if r.Status == engine.Won {
		out[r.Winner] = 1
		return
	}
	for k := 0; k < w.nsides; k++ {
		out[k] = w.draw
	}
}

// playout plays randomly to the end or the cap and undoes it.
func (w *mctsWorker) playout(out *[4]float32) {
	if w.pe != nil {
		w.pe.EstimatePlayout(w.rng, w.capPlies, out)
		return
	}
	if w.rp != nil {
		w.out = out
		w.rp.RandomPlayout(w.rng, w.capPlies, w.end)
		return
	}
	s := w.s
	n := 0
	for s.Awaiting() != engine.AwaitNone && s.Plies() < w.capPlies {
		if s.Awaiting() == engine.AwaitRoll {
			if err := s.Roll(w.rng.IntN(w.nfaces)); err != nil {
				panic(err)
			}
		} else if w.rm != nil {
			s.Play(w.rm.RandomMove(w.rng))
		} else {
			moves := s.Moves(w.buf[:0])
			s.Play(moves[w.rng.IntN(len(moves))])
		}
		n++
	}
	w.rewards(out)
	for ; n > 0; n-- {
		s.Undo()
	}
}

// iterate runs one MCTS iteration.
func (w *mctsWorker) iterate() {
	s := w.s
	w.path = append(w.path[:0], 0)
	i := int32(0)
	applied := 0
	var rew [4]float32
	for {
		nd := &w.pool[i]
		if s.Awaiting() == engine.AwaitNone || s.Plies() >= w.capPlies {
			w.rewards(&rew)
			break
		}
		if nd.first < 0 {
			if nd.visits > 0 || i == 0 {
				w.expand(i)
			}
			if w.pool[i].first < 0 {
				w.playout(&rew)
				break
			}
			nd = &w.pool[i]
		}
		var c int32
		if s.Awaiting() == engine.AwaitRoll {
			f := w.rng.IntN(int(nd.nkids))
			c = nd.first + int32(f)
			if err := s.Roll(f); err != nil {
				panic(err)
			}
		} else {
			c = w.selectChild(i, w.sideOf[s.ToMove()])
			s.Play(w.pool[c].move)
		}
		applied++
		i = c
		w.path = append(w.path, i)
	}
	for _, k := range w.path {
		nd := &w.pool[k]
		nd.visits++
		for j := 0; j < w.nsides; j++ {
			nd.w[j] += rew[j]
		}
	}
	for ; applied > 0; applied-- {
		s.Undo()
	}
	w.iters++
}

func mcts(s engine.State, opts Options) Result {
	iters, _, deadline := budget(opts, false)
	if estimator(s, opts) != nil && opts.Nodes <= 0 && opts.Time <= 0 {
		iters = levels[opts.Level-1].MCTSCutIter
	}
	nw := opts.Workers
	per := max(1, iters/int64(nw))
	workers := make([]*mctsWorker, nw)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for k := range workers {
		w := newMCTSWorker(s.Clone(), opts, opts.Seed+uint64(k)*0x9e3779b97f4a7c15, per)
		workers[k] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := int64(0); it < per; it++ {
				if it&63 == 0 && (stop.Load() || stopped(opts.Stop) || !deadline.IsZero() && time.Now().After(deadline)) {
					stop.Store(true)
					break
				}
				w.iterate()
			}
		}()
	}
	wg.Wait()
	info := s.Info()
	res := Result{Values: make([]float64, len(info.Sides))}
	var rootVisits float64
	var rootW [4]float64
	for _, w := range workers {
		res.Nodes += w.iters
		rootVisits += float64(w.pool[0].visits)
		for j := range rootW {
			rootW[j] += float64(w.pool[0].w[j])
		}
	}
	w0 := workers[0]
	root := &w0.pool[0]
	if s.Awaiting() == engine.AwaitRoll || root.first < 0 {
		for j := range res.Values {
			res.Values[j] = rootW[j] / max(1, rootVisits)
		}
		res.Value = res.Values[info.SideOf[s.ToMove()]]
		if s.Awaiting() == engine.AwaitMove {
			res.Move = s.Moves(nil)[0]
		}
		return res
	}
	// Sum the root children over the trees (same order in every tree).
	k := int(root.nkids)
	visits := make([]float64, k)
	sums := make([][4]float64, k)
	for _, w := range workers {
		r := &w.pool[0]
		if int(r.nkids) != k {
			continue
		}
		for c := 0; c < k; c++ {
			ch := &w.pool[r.first+int32(c)]
			visits[c] += float64(ch.visits)
			for j := range sums[c] {
				sums[c][j] += float64(ch.w[j])
			}
		}
	}
	me := info.SideOf[s.ToMove()]
	b := 0
	for c := 1; c < k; c++ {
		if visits[c] > visits[b] || visits[c] == visits[b] && sums[c][me] > sums[b][me] {
			b = c
		}
	}
	res.Move = w0.pool[root.first+int32(b)].move
	for j := range res.Values {
		res.Values[j] = sums[b][j] / max(1, visits[b])
	}
	res.Value = res.Values[me]
	if w0.pool[root.first+int32(b)].won {
		res.Proven = 1
		res.Value = 1
		for j := range res.Values {
			res.Values[j] = 0
		}
		res.Values[me] = 1
	}
	res.PV = w0.principal(b)
	return res
}

// principal follows the most visited children of decision nodes.
// The first move is root child b (chosen over all trees).
func (w *mctsWorker) principal(b int) []engine.Move {
	i := w.pool[0].first + int32(b)
	pv := []engine.Move{w.pool[i].move}
	for len(pv) < 16 {
		nd := &w.pool[i]
		if nd.first < 0 || nd.chance {
			break
		}
		b := nd.first
		for c := nd.first; c < nd.first+nd.nkids; c++ {
			if w.pool[c].visits > w.pool[b].visits {
				b = c
			}
		}
		if w.pool[b].visits < 2 {
			break
		}
		pv = append(pv, w.pool[b].move)
		i = b
	}
	return pv
}
