package library

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// Explored is a position of a variation: a game's step Ply followed by the
// moves (and rolls) of Line, with every move that can be played from it.
type Explored struct {
	Ply  int      `json:"ply"`
	Line []string `json:"line"` // the variation as played, canonical texts
	// Step is the position reached; its Move and Seat are the variation's
	// last move (none for an empty line).
	Step Step `json:"step"`
	// Legal holds every legal move (awaiting a move) with the cells it
	// leaves and reaches: the page plays one by a tap on a piece and a tap
	// on a destination.
	Legal []*Arrow `json:"legal"`
	// Die holds the faces to choose from when the position awaits a roll.
	Die []string `json:"die,omitempty"`
}

// RollPrefix marks a roll in a variation's line: "roll:4".
const RollPrefix = "roll:"

// errReached stops a replay at the step asked for.
var errReached = errors.New("library: step reached")

// ErrVariation: a variation's move or roll cannot be played.
var ErrVariation = errors.New("cannot be played here")

// explore replays a game to its step ply, then the roll the game made there
// (an alternative to the next move is played on the same roll), then line.
func (l *Library) explore(id string, ply int, line []string) (engine.State, []string, error) {
	f, e, err := l.Record(id)
	if err != nil {
		return nil, nil, err
	}
	if ply < 0 || len(line) > 1000 {
		f.Close()
		return nil, nil, fmt.Errorf("library: ply %d, %d moves: %w", ply, len(line), ErrVariation)
	}
	// streamed to the step: the position after ply moves and the rolls
	// that follow it, whatever the length of the game
	var st engine.State
	k := 0
	g, _, err := replay(f, e.ID, nil, func(at engine.State, a *record.Applied) error {
		if !a.Roll {
			k++
		}
		if k > ply {
			return errReached
		}
		if k == ply {
			st = at.Clone()
		}
		return nil
	}, 0)
	f.Close()
	if err != nil && !errors.Is(err, errReached) {
		return nil, nil, err
	}
	if k < ply {
		return nil, nil, fmt.Errorf("library: %s has %d moves, not %d: %w", id, k, ply, ErrVariation)
	}
	if st == nil { // step 0, with no roll before the first move
		if st, err = newState(g.Header); err != nil {
			return nil, nil, err
		}
	}
	played := make([]string, 0, len(line))
	info := st.Info()
	for _, text := range line {
		if face, ok := strings.CutPrefix(text, RollPrefix); ok {
			i := -1
			if info.Die != nil && st.Awaiting() == engine.AwaitRoll {
				i = slices.Index(info.Die.Faces, face)
			}
			if i < 0 {
				return nil, nil, fmt.Errorf("library: roll %q: %w", face, ErrVariation)
			}
			if err := st.Roll(i); err != nil {
				return nil, nil, fmt.Errorf("library: roll %q: %w (%v)", face, ErrVariation, err)
			}
			played = append(played, text)
			continue
		}
		if st.Awaiting() != engine.AwaitMove {
			return nil, nil, fmt.Errorf("library: %q: no move is due: %w", text, ErrVariation)
		}
		m, err := st.ParseMove(text)
		if err != nil {
			return nil, nil, fmt.Errorf("library: %q: %w (%v)", text, ErrVariation, err)
		}
		played = append(played, engine.MoveString(st, m))
		st.Play(m)
	}
	return st, played, nil
}

// Explore plays a variation from a game's step ply (the position after
// that many moves, and the roll the game made there if any): line holds
// moves in canonical notation and rolls as "roll:FACE". It returns the
// position reached and its legal moves.
func (l *Library) Explore(id string, ply int, line []string) (*Explored, error) {
	st, played, err := l.explore(id, ply, line)
	if err != nil {
		return nil, err
	}
	info := st.Info()
	out := &Explored{Ply: ply, Line: played, Step: stepOf(st), Legal: []*Arrow{}}
	if n := len(played); n > 0 && !strings.HasPrefix(played[n-1], RollPrefix) {
		out.Step.Move = played[n-1]
	}
	switch st.Awaiting() {
	case engine.AwaitMove:
		for _, m := range st.Moves(nil) {
			if a, err := arrowOf(st, engine.MoveString(st, m)); err == nil {
				out.Legal = append(out.Legal, a)
			}
		}
	case engine.AwaitRoll:
		out.Die = info.Die.Faces
	}
	return out, nil
}

// EngineLine is one of the engine's best moves with the line it expects.
type EngineLine struct {
	Move string   `json:"move"`
	PV   []string `json:"pv"` // the line, Move first
	// Value is the mover's side's win probability after Move; Values every
	// side's.
	Value  float64   `json:"value"`
	Values []float64 `json:"values"`
	Depth  int       `json:"depth"` // plies searched (alpha-beta; 0 otherwise)
	Nodes  int64     `json:"nodes"`
}

// Evaluation is the engine's view of an explored position.
type Evaluation struct {
	// Values is every side's win probability at the position.
	Values []float64 `json:"values"`
	Side   int       `json:"side"` // the mover's side (-1 at the end)
	Algo   string    `json:"algorithm"`
	Depth  int       `json:"depth"` // the position's search: plies (alpha-beta)
	Nodes  int64     `json:"nodes"`
	// Lines are the best moves, best first, each searched one level below
	// the position (at least level 1).
	Lines []EngineLine `json:"lines"`
}

// MaxLines is the most engine lines Evaluate gives.
const MaxLines = 5

// evalBudget bounds the time of one Evaluate: a Pi shares its cores with
// the board's referee.
const evalBudget = 4 * time.Second

// Evaluate searches a variation's position (see Explore) at the library's
// level and its n best moves (1–MaxLines): every legal move is looked at
// one ply deep, the best few of those (and the search's own move) searched
// one level lower, and the n best of them are the lines. Evaluations run
// one at a time; one whose ctx ends (the page asked for another position)
// gives up waiting for its turn, or stops searching with what it found.
func (l *Library) Evaluate(ctx context.Context, id string, ply int, line []string, n int) (*Evaluation, error) {
	st, _, err := l.explore(id, ply, line)
	if err != nil {
		return nil, err
	}
	n = max(1, min(n, MaxLines))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case l.evalSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-l.evalSem }()
	stop := make(chan struct{})
	t := time.AfterFunc(evalBudget, func() { close(stop) })
	defer func() {
		if t.Stop() { // not fired: end the merging goroutine
			close(stop)
		}
	}()
	done := l.jobs.done
	merged := make(chan struct{})
	go func() {
		select {
		case <-stop:
		case <-done:
		case <-ctx.Done():
		}
		close(merged)
	}()
	so := search.Options{Level: l.level(), Seed: 1, Stop: merged}
	root := search.Search(st, so)
	ev := &Evaluation{Values: root.Values, Side: -1, Algo: root.Algo.String(), Depth: root.Depth, Nodes: root.Nodes, Lines: []EngineLine{}}
	if st.Awaiting() != engine.AwaitMove {
		return ev, nil
	}
	info := st.Info()
	side := info.SideOf[st.ToMove()]
	ev.Side = side
	type cand struct {
		m     engine.Move
		quick float64
		res   search.Result
	}
	var cands []cand
	quick := search.Options{Level: 1, Seed: 1, Stop: merged}
	for _, m := range st.Moves(nil) {
		c := st.Clone()
		c.Play(m)
		r := search.Search(c, quick)
		cands = append(cands, cand{m: m, quick: r.Values[side], res: r})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.m == root.Move && b.m != root.Move:
			return -1
		case b.m == root.Move && a.m != root.Move:
			return 1
		case a.quick > b.quick:
			return -1
		case a.quick < b.quick:
			return 1
		}
		return 0
	})
	deep := search.Options{Level: max(1, l.level()-1), Seed: 1, Stop: merged}
	keep := min(len(cands), n+3)
	for i := range cands[:keep] {
		c := st.Clone()
		c.Play(cands[i].m)
		cands[i].res = search.Search(c, deep)
		cands[i].quick = cands[i].res.Values[side]
	}
	top := cands[:keep]
	slices.SortStableFunc(top, func(a, b cand) int {
		switch {
		case a.quick > b.quick:
			return -1
		case a.quick < b.quick:
			return 1
		}
		return 0
	})
	for _, c := range top[:min(n, len(top))] {
		s := st.Clone()
		el := EngineLine{Move: engine.MoveString(s, c.m), Value: c.quick, Values: c.res.Values, Nodes: c.res.Nodes}
		el.PV = append(el.PV, el.Move)
		s.Play(c.m)
		for _, m := range c.res.PV {
			if s.Awaiting() != engine.AwaitMove || !engine.Legal(s, m) {
				break
			}
			el.PV = append(el.PV, engine.MoveString(s, m))
			s.Play(m)
		}
		if c.res.Algo == search.AlphaBeta {
			el.Depth = c.res.Depth + 1
		}
		ev.Lines = append(ev.Lines, el)
	}
	return ev, nil
}
