package search

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/search/eval"
)

// Score bounds. A win found ply plies below the root scores Win − ply.
const (
	Win      int32 = 1_000_000
	winBound int32 = Win - 10_000
	inf      int32 = Win + 1
	// MaxDepth is the deepest alpha-beta iteration.
	MaxDepth = 64
	maxPly   = MaxDepth + 4
	moveCap  = 4096
)

// IsWin reports whether an alpha-beta score is a forced win (>0) or loss (<0).
func IsWin(score int32) bool { return score > winBound || score < -winBound }

const (
	ttExact uint8 = iota + 1
	ttLower
	ttUpper
)

type ttEntry struct {
	key   uint64
	move  engine.Move
	score int32
	depth int8
	flag  uint8
}

type abWorker struct {
	s       engine.State
	ev      eval.Evaluator
	sideOf  []int
	tt      []ttEntry
	ttMask  uint64
	moves   [maxPly][]engine.Move
	scores  [maxPly][]int32
	sortKey [maxPly][]uint64 // sortRest's buffers per depth
	sortTmp [maxPly][]engine.Move
	killers [maxPly][2]engine.Move
	history [4096]int32
	histMax int32        // the largest history score
	lc      legalChecker // nil: the game lists its moves only
	// histLog records the history updates while a node tries moves
	// before listing them (prefixOpen such nodes on the path), so that it
	// can order its list by the history it found on entry.
	histLog    []histUpdate
	prefixOpen int
	pv         [maxPly][maxPly]engine.Move
	pvLen      [maxPly]int
	nodes      int64
	limit      int64
	deadline   time.Time
	stop       *atomic.Bool
	cancel     <-chan struct{} // Options.Stop
	aborted    bool
	capPlies   int
}

// newABWorker makes a worker for a search of at most limit nodes and
// maxDepth plies. Its transposition table has room for twice the node
// budget (at least 4,096 entries, at most 1<<20), except in a search one ply
// deep: search stores and reads entries only at nodes with a ply still to
// search, and the root's moves go through rootMove, so such a search never
// touches the table, and a level-1 search (unbounded nodes, one ply: the
// library's quick look at every move) would otherwise make and zero 1<<20
// entries (24 MB) for nothing: it keeps the smallest table.
func newABWorker(s engine.State, opts Options, limit int64, maxDepth int, deadline time.Time, stop *atomic.Bool) *abWorker {
	w := &abWorker{s: s, sideOf: s.Info().SideOf, limit: limit, deadline: deadline, stop: stop,
		cancel: opts.Stop, capPlies: capFor(s, opts.MaxPlies)}
	if opts.NewEval != nil {
		w.ev = opts.NewEval()
	} else {
		w.ev = eval.New(s.Info().Game)
	}
	size := 1 << 12
	for int64(size) < limit*2 && size < 1<<20 && maxDepth > 1 {
		size <<= 1
	}
	if useLegal {
		w.lc, _ = s.(legalChecker)
	}
	w.tt = make([]ttEntry, size)
	w.ttMask = uint64(size - 1)
	if w.ev != nil {
		w.ev.Reset(s)
	}
	return w
}

func (w *abWorker) play(m engine.Move) {
	seat := w.s.ToMove()
	w.s.Play(m)
	if w.ev != nil {
		w.ev.Played(w.s, m, seat)
	}
}

func (w *abWorker) undo() {
	w.s.Undo()
	if w.ev != nil {
		w.ev.Undone(w.s)
	}
}

func (w *abWorker) evaluate() int32 {
	if w.ev == nil {
		return 0
	}
	v := w.ev.Eval(w.s)
	return max(-winBound+1, min(v, winBound-1))
}

// child scores the position after a move from the view of side me, who moved;
// ply is the child's distance from the root.
func (w *abWorker) child(me, depth, ply int, alpha, beta int32) int32 {
	s := w.s
	if s.Awaiting() == engine.AwaitNone {
		w.nodes++
		w.pvLen[ply] = 0
		res := s.Result()
		switch {
		case res.Status != engine.Won:
			return 0
		case res.Winner == me:
			return Win - int32(ply)
		default:
			return -Win + int32(ply)
		}
	}
	if s.Plies() >= w.capPlies {
		w.nodes++
		w.pvLen[ply] = 0
		return 0
	}
	if w.sideOf[s.ToMove()] == me {
		return w.search(depth, ply, alpha, beta)
	}
	return -w.search(depth, ply, -beta, -alpha)
}

func (w *abWorker) out() bool {
	if w.aborted {
		return true
	}
	switch {
	case w.nodes >= w.limit:
		// Out of this worker's own budget. The others go on with theirs, so
		// every worker's node count stays deterministic.
		w.aborted = true
	case w.nodes&1023 == 0 && (w.stop.Load() || stopped(w.cancel) || !w.deadline.IsZero() && time.Now().After(w.deadline)):
		w.aborted = true
		w.stop.Store(true)
	}
	return w.aborted
}

func moveSlot(m engine.Move) int {
	return int((uint64(m) * 0x9e3779b97f4a7c15) >> 52)
}

// order scores moves for ordering: TT move, killers, history.
func (w *abWorker) order(moves []engine.Move, ply int, ttMove engine.Move) []int32 {
	sc := w.scores[ply][:len(moves)]
	k := &w.killers[ply]
	for i, m := range moves {
		switch m {
		case ttMove:
			sc[i] = 1 << 30
		case k[0]:
			sc[i] = 1 << 29
		case k[1]:
			sc[i] = 1<<29 - 1
		default:
			sc[i] = w.history[moveSlot(m)]
		}
	}
	return sc
}

// pick moves the best-scored remaining move to position i. Ties go to the
// smaller move value, so the order does not depend on the order the engine
// lists moves in (which can follow Go map order for start positions).
func pick(moves []engine.Move, sc []int32, i int) {
	b := i
	for j := i + 1; j < len(moves); j++ {
		if sc[j] > sc[b] || sc[j] == sc[b] && moves[j] < moves[b] {
			b = j
		}
	}
	moves[i], moves[b] = moves[b], moves[i]
	sc[i], sc[b] = sc[b], sc[i]
}

// sortFrom is the move index from which a node's remaining moves are sorted
// at once instead of picked one by one: a node that has not cut off after
// this many moves usually tries them all, and picking is quadratic.
const sortFrom = 3

// sortRest sorts moves[i:] (and their scores) into the order pick would
// take them in: by score, highest first, ties by the smaller move. The key
// is a total order, so the sequence is the one of repeated picks. Two
// sorts of plain integers, no comparison function: by score (each score
// packed above its move's index in keys), then each run of one score by
// move (in tmp). keys and tmp are buffers (grown when short).
func sortRest(moves []engine.Move, sc []int32, i int, keys []uint64, tmp []engine.Move) ([]uint64, []engine.Move) {
	rest, rsc := moves[i:], sc[i:]
	keys, tmp = keys[:0], tmp[:0]
	for k, v := range rsc {
		// the score flipped to sort highest first, as an unsigned number
		keys = append(keys, uint64(^(uint32(v)^1<<31))<<32|uint64(k))
	}
	slices.Sort(keys)
	for _, key := range keys {
		tmp = append(tmp, rest[uint32(key)])
	}
	for a := 0; a < len(keys); {
		b := a + 1
		for b < len(keys) && keys[b]>>32 == keys[a]>>32 {
			b++
		}
		if b-a > 1 {
			slices.Sort(tmp[a:b])
		}
		v := int32(^uint32(keys[a]>>32) ^ 1<<31)
		for k := a; k < b; k++ {
			rsc[k] = v
		}
		a = b
	}
	copy(rest, tmp)
	return keys, tmp
}

// search is negamax for the side to move (the game is not over).
func (w *abWorker) search(depth, ply int, alpha, beta int32) int32 {
	w.nodes++
	w.pvLen[ply] = 0
	if w.out() {
		return 0
	}
	if depth <= 0 || ply >= maxPly-1 {
		return w.evaluate()
	}
	s := w.s
	key := s.Hash()
	e := &w.tt[key&w.ttMask]
	var ttMove engine.Move
	if e.key == key {
		ttMove = e.move
		if int(e.depth) >= depth && ply > 0 {
			v := fromTT(e.score, ply)
			switch {
			case e.flag == ttExact,
				e.flag == ttLower && v >= beta,
				e.flag == ttUpper && v <= alpha:
				return v
			}
		}
	}
	me := w.sideOf[s.ToMove()]
	nd := abNode{alpha: alpha, beta: beta, best: -inf}
	// The table's move and the killers outrank every other move in the
	// order below (while no history score reaches a killer's): where the
	// game can tell a move legal without listing them all, they are tried
	// first, in that order, and the moves listed only if none cuts off.
	var tried [3]engine.Move
	nt, logFrom := 0, 0
	if w.lc != nil {
		logFrom = len(w.histLog)
		w.prefixOpen++
		k := &w.killers[ply]
		first := [3]engine.Move{ttMove, k[0], k[1]}
		n := 1
		if w.histMax < 1<<29-1 {
			n = 3
		}
		for j, m := range first[:n] {
			if m == engine.NoMove || j > 0 && m == ttMove || !w.lc.Legal(m) {
				continue
			}
			tried[nt] = m
			nt++
			if w.tryMove(m, nt-1, me, depth, ply, &nd) {
				w.closePrefix()
				return w.stored(e, key, depth, ply, alpha, &nd)
			}
		}
	}
	if w.moves[ply] == nil {
		// Buffers per depth, made the first time the depth is reached.
		w.moves[ply] = make([]engine.Move, 0, moveCap)
		w.scores[ply] = make([]int32, moveCap)
	}
	moves := s.Moves(w.moves[ply][:0])
	if len(moves) > len(w.scores[ply]) {
		w.scores[ply] = make([]int32, len(moves))
	}
	// Ordered by the history as it was on entry: the updates the moves
	// tried made since are taken back for the scoring.
	log := w.histLog[logFrom:]
	for j := len(log) - 1; j >= 0; j-- {
		w.history[log[j].slot] -= log[j].add
	}
	sc := w.order(moves, ply, ttMove)
	for _, u := range log {
		w.history[u.slot] += u.add
	}
	if w.lc != nil {
		w.closePrefix()
	}
	// The moves tried go first, as picking would have put them.
	for j, m := range tried[:nt] {
		b := slices.Index(moves[j:], m)
		if b < 0 {
			panic("search: a move the game called legal is not listed")
		}
		moves[j], moves[j+b] = moves[j+b], moves[j]
		sc[j], sc[j+b] = sc[j+b], sc[j]
	}
	for i := nt; i < len(moves); i++ {
		switch {
		case i < sortFrom:
			pick(moves, sc, i)
		case i == sortFrom && len(moves)-i > 1:
			w.sortKey[ply], w.sortTmp[ply] = sortRest(moves, sc, i, w.sortKey[ply], w.sortTmp[ply])
		}
		if w.tryMove(moves[i], i, me, depth, ply, &nd) {
			break
		}
	}
	return w.stored(e, key, depth, ply, alpha, &nd)
}

// histUpdate is one history update: add added to history[slot].
type histUpdate struct {
	slot uint16
	add  int32
}

// closePrefix ends a node's tries before its list; the history log is
// dropped once no node on the path needs it.
func (w *abWorker) closePrefix() {
	w.prefixOpen--
	if w.prefixOpen == 0 {
		w.histLog = w.histLog[:0]
	}
}

// abNode is a node's window and best move so far.
type abNode struct {
	alpha, beta, best int32
	bestMove          engine.Move
}

// useLegal: tests turn it off to compare with listing every node's moves.
var useLegal = true

// A legalChecker tells whether a move is legal in its position without
// listing the moves (GYGES: the chain search from the move's start cell
// alone), so that alpha-beta can try its table's move and killers before
// it lists a node's moves.
type legalChecker interface {
	Legal(m engine.Move) bool
}

// tryMove searches m, the node's i-th move (the first with the full window,
// the others with a null window and again with the full one when they
// fall inside it), and folds its value into nd. It reports whether the node
// is done: a cutoff (the killers and history updated) or an abort.
func (w *abWorker) tryMove(m engine.Move, i, me, depth, ply int, nd *abNode) bool {
	w.play(m)
	var v int32
	if i == 0 {
		v = w.child(me, depth-1, ply+1, nd.alpha, nd.beta)
	} else {
		v = w.child(me, depth-1, ply+1, nd.alpha, nd.alpha+1)
		if v > nd.alpha && v < nd.beta && !w.aborted {
			v = w.child(me, depth-1, ply+1, nd.alpha, nd.beta)
		}
	}
	w.undo()
	if w.aborted {
		return true
	}
	if v > nd.best {
		nd.best, nd.bestMove = v, m
		if v > nd.alpha {
			nd.alpha = v
			w.pv[ply][0] = m
			copy(w.pv[ply][1:], w.pv[ply+1][:w.pvLen[ply+1]])
			w.pvLen[ply] = w.pvLen[ply+1] + 1
		}
	}
	if nd.alpha >= nd.beta {
		if k := &w.killers[ply]; k[0] != m {
			k[1], k[0] = k[0], m
		}
		slot := moveSlot(m)
		h := &w.history[slot]
		*h += int32(depth * depth)
		w.histMax = max(w.histMax, *h)
		if w.prefixOpen > 0 {
			w.histLog = append(w.histLog, histUpdate{uint16(slot), int32(depth * depth)})
		}
		return true
	}
	return false
}

// stored ends a node: 0 when the search was aborted, otherwise its best
// value, stored in the table entry e with its bound (alpha0 is the node's
// alpha on entry).
func (w *abWorker) stored(e *ttEntry, key uint64, depth, ply int, alpha0 int32, nd *abNode) int32 {
	if w.aborted {
		return 0
	}
	best, beta, bestMove := nd.best, nd.beta, nd.bestMove
	flag := ttExact
	switch {
	case best <= alpha0:
		flag = ttUpper
	case best >= beta:
		flag = ttLower
	}
	*e = ttEntry{key: key, move: bestMove, score: toTT(best, ply), depth: int8(depth), flag: flag}
	return best
}

func toTT(v int32, ply int) int32 {
	switch {
	case v > winBound:
		return v + int32(ply)
	case v < -winBound:
		return v - int32(ply)
	}
	return v
}

func fromTT(v int32, ply int) int32 {
	switch {
	case v > winBound:
		return v - int32(ply)
	case v < -winBound:
		return v + int32(ply)
	}
	return v
}

// rootMove searches one root move with a window and returns its score and PV.
func (w *abWorker) rootMove(m engine.Move, depth int, alpha, beta int32) int32 {
	me := w.sideOf[w.s.ToMove()]
	w.play(m)
	v := w.child(me, depth-1, 1, alpha, beta)
	w.undo()
	w.pv[0][0] = m
	copy(w.pv[0][1:], w.pv[1][:w.pvLen[1]])
	w.pvLen[0] = w.pvLen[1] + 1
	return v
}

type rootLine struct {
	move  engine.Move
	score int32
	pv    []engine.Move
	exact bool
}

func alphaBeta(s engine.State, opts Options) Result {
	nodes, maxDepth, deadline := budget(opts, true)
	var stop atomic.Bool
	nw := opts.Workers
	workers := make([]*abWorker, nw)
	for i := range workers {
		workers[i] = newABWorker(s.Clone(), opts, max(1, nodes/int64(nw)), maxDepth, deadline, &stop)
	}
	root := s.Moves(make([]engine.Move, 0, moveCap))
	slices.Sort(root)
	lines := make([]rootLine, len(root))
	for i, m := range root {
		lines[i] = rootLine{move: m}
	}
	// Initial order: the worker's ordering heuristics know nothing yet; keep
	// the engine's order.
	var res Result
	res.Move = root[0]
	res.PV = []engine.Move{root[0]}
	// prev is the best score one depth shallower: the reported value averages
	// the last two depths, so that it does not wobble with the parity of the
	// depth a node budget happens to complete (an odd depth ends on the
	// mover's move and flatters them).
	prev, havePrev := int32(0), false
	for depth := 1; depth <= maxDepth; depth++ {
		w0 := workers[0]
		v0 := w0.rootMove(lines[0].move, depth, -inf, inf)
		if w0.aborted {
			break
		}
		lines[0].score, lines[0].exact = v0, true
		lines[0].pv = append(lines[0].pv[:0], w0.pv[0][:w0.pvLen[0]]...)
		var wg sync.WaitGroup
		for wi, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 1 + wi; k < len(lines); k += nw {
					l := &lines[k]
					v := w.rootMove(l.move, depth, v0, v0+1)
					if w.aborted {
						return
					}
					l.exact = false
					l.score = v
					if v > v0 {
						v = w.rootMove(l.move, depth, v0, inf)
						if w.aborted {
							return
						}
						if v > v0 {
							l.score, l.exact = v, true
							l.pv = append(l.pv[:0], w.pv[0][:w.pvLen[0]]...)
						}
					}
				}
			}()
		}
		wg.Wait()
		aborted := false
		for _, w := range workers {
			aborted = aborted || w.aborted
		}
		if aborted {
			break
		}
		b := 0
		for k := 1; k < len(lines); k++ {
			if lines[k].exact && lines[k].score > lines[b].score {
				b = k
			}
		}
		best := lines[b]
		// Stable reorder: best first, then the exact ones by score, then the rest.
		ordered := make([]rootLine, 0, len(lines))
		ordered = append(ordered, best)
		for k := range lines {
			if k != b {
				ordered = append(ordered, lines[k])
			}
		}
		lines = ordered
		if res.Depth > 0 {
			prev, havePrev = res.Score, true
		}
		res.Move, res.Score, res.Depth = best.move, best.score, depth
		res.PV = append([]engine.Move(nil), best.pv...)
		if IsWin(best.score) || len(root) == 1 && depth >= 2 {
			break
		}
	}
	for _, w := range workers {
		res.Nodes += w.nodes
	}
	me := s.Info().SideOf[s.ToMove()]
	res.Value = eval.WinProb(res.Score)
	if havePrev && !IsWin(res.Score) && !IsWin(prev) {
		res.Value = eval.WinProb((res.Score + prev) / 2)
	}
	switch {
	case res.Score > winBound:
		res.Value, res.Proven = 1, 1
	case res.Score < -winBound:
		res.Value, res.Proven = 0, -1
	}
	res.Values = make([]float64, len(s.Info().Sides))
	res.Values[me] = res.Value
	res.Values[1-me] = 1 - res.Value
	return res
}
