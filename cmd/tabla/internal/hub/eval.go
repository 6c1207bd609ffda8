package hub

import (
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/search"
)

// evalLevel and evalNodes are the search of the evaluation bar: level 2
// capped at 2,000 alpha-beta nodes or MCTS iterations (level 1's unbounded
// node budget would size a 1M-entry transposition table per search).
const (
	evalLevel = 2
	evalNodes = 2000
)

// evalDuty bounds the evaluator's share of a core: after a search of d it
// rests (1/evalDuty - 1)·d.
const evalDuty = 0.25

// wantEval asks for the position of a table's current game to be
// evaluated, if someone watches it.
func (h *Hub) wantEval(table string) {
	if h.opts.EvalTime < 0 {
		return
	}
	select {
	case h.evalQ <- table:
	default: // the evaluator is far behind: it will see the latest anyway
	}
}

// evaluator evaluates watched positions one at a time, each within
// EvalTime, the latest position of each table only.
func (h *Hub) evaluator() {
	for {
		var table string
		select {
		case <-h.ctx.Done():
			return
		case table = <-h.evalQ:
		}
		h.mu.Lock()
		ts := h.tables[table]
		var st engine.State
		events := 0
		if ts != nil && h.watchedLocked(table) {
			if g := h.games[table+"/"+ts.game]; g != nil && g.Err == nil && (ts.eval == nil || ts.eval.Events != g.N) {
				st, events = g.State.Clone(), g.N
			}
		}
		h.mu.Unlock()
		if st == nil {
			continue
		}
		began := time.Now()
		vals := evaluate(st, h.opts.EvalTime)
		rest := time.Duration(float64(time.Since(began)) * (1/evalDuty - 1))
		if vals == nil {
			continue
		}
		e := &Eval{Events: events, Values: map[string]float64{}, Level: evalLevel}
		for i, side := range st.Info().Sides {
			if i < len(vals) {
				e.Values[side] = vals[i]
			}
		}
		h.mu.Lock()
		if ts := h.tables[table]; ts != nil {
			ts.eval = e
		}
		h.mu.Unlock()
		h.bump(table)
		select {
		case <-h.ctx.Done():
			return
		case <-time.After(rest):
		}
	}
}

// evaluate returns each side's win probability in st (nil: unknown): the
// result of a finished game, a search's values, the mean over the die's
// faces when a roll is due.
func evaluate(st engine.State, budget time.Duration) []float64 {
	info := st.Info()
	n := len(info.Sides)
	switch st.Awaiting() {
	case engine.AwaitNone:
		out := make([]float64, n)
		r := st.Result()
		for i := range out {
			switch {
			case r.Status == engine.Won && r.Winner == i:
				out[i] = 1
			case r.Status == engine.Draw:
				out[i] = 1 / float64(n)
			}
		}
		return out
	case engine.AwaitRoll:
		faces := len(info.Die.Faces)
		sum := make([]float64, n)
		for f := 0; f < faces; f++ {
			c := st.Clone()
			if c.Roll(f) != nil {
				return nil
			}
			v := evaluate(c, budget/time.Duration(faces))
			if v == nil {
				return nil
			}
			for i := range sum {
				sum[i] += v[i] / float64(faces)
			}
		}
		return sum
	}
	res := search.Search(st.Clone(), search.Options{Level: evalLevel, Nodes: evalNodes, Time: budget, Seed: uint64(st.Plies()) + 1})
	if len(res.Values) != n {
		return nil
	}
	return res.Values
}
