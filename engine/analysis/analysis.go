package analysis

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/search"
)

// Options configure an analysis.
type Options struct {
	// Search is the search per position (Workers is ignored: see Workers).
	// Its Stop, when closed, ends the analysis: the searches under way
	// stop, no other starts, and Analyze returns ErrStopped.
	Search  search.Options
	Workers int // positions searched in parallel; 0: all cores
	// Blunder is the loss (in win probability) from which a move is a
	// blunder; 0 means DefaultBlunder.
	Blunder float64
	// Progress, when set, is called after each position searched with the
	// number done and the total (positions, not moves: a position after a
	// move is also the one before the next). Calls come from the worker
	// goroutines, one at a time and with done increasing. Positions taken
	// from Known count as done from the start: the first call reports
	// one more than them.
	Progress func(done, total int)
	// Searched, when set, is called with each position searched to the
	// end (not one a Stop cut short): its index among the analysis's
	// positions and its search. Calls come from the worker goroutines, one
	// at a time. Keep them to resume a stopped analysis (Known).
	Searched func(i int, s Searched)
	// Known are searches of an earlier run of the same analysis (the same
	// record and search options) by position index, as Searched reported
	// them; nil entries, and entries whose position differs, are searched.
	// An analysis resumed this way reports what one run would have.
	Known []*Searched
}

// Searched is one position's search, kept to resume an analysis.
type Searched struct {
	Hash   uint64        `json:"hash"` // the position's (engine.State.Hash)
	Result search.Result `json:"result"`
}

// ErrStopped: the analysis was stopped (Options.Search.Stop closed).
var ErrStopped = errors.New("analysis: stopped")

// DefaultBlunder is the default blunder threshold: 20 points of win chance.
const DefaultBlunder = 0.20

// MaxMoves is the most moves and rolls Analyze takes: it keeps every
// position before and after a move and searches each, so its memory and
// time grow with the moves. A game at the table is a few hundred; a
// longer record (a million back-and-forth moves are legal) is refused,
// by the readers with the line of the first move beyond
// (record.ReplayLimit).
const MaxMoves = 10_000

// ErrTooLong: more moves and rolls than MaxMoves.
var ErrTooLong = errors.New("analysis: too many moves")

// Move is the analysis of one move.
type Move struct {
	N         int     `json:"n"`    // 1-based move number (plies)
	Line      int     `json:"line"` // record line
	Seat      string  `json:"seat"`
	Side      string  `json:"side"`
	Move      string  `json:"move"`
	Before    float64 `json:"before"` // mover's side win probability before
	After     float64 `json:"after"`  // … and after the move
	Best      string  `json:"best"`   // the engine's move ("" when forced)
	BestAfter float64 `json:"-"`
	Loss      float64 `json:"loss"`
	// Tier is "inaccuracy", "mistake" or "blunder" by Loss (TierOf), ""
	// for a good move.
	Tier      string    `json:"tier,omitempty"`
	Blunder   bool      `json:"blunder,omitempty"`
	MissedWin bool      `json:"missed_win,omitempty"`
	Forced    bool      `json:"forced,omitempty"` // only one legal move
	Values    []float64 `json:"values"`           // every side's win probability after
	// MS is the time the mover's clock ran for the turn this move ended
	// (its record line's "ms", a roll before it included), when the game
	// had clocks.
	MS *int64 `json:"ms,omitempty"`
}

// Player sums up one seat.
type Player struct {
	Seat     string  `json:"seat"`
	Moves    int     `json:"moves"`
	MeanLoss float64 `json:"mean_loss"`
	Blunders int     `json:"blunders"`
	// Mistakes and Inaccuracies count the moves of those tiers (TierOf).
	Mistakes     int `json:"mistakes"`
	Inaccuracies int `json:"inaccuracies"`
	// Accuracy (0–100) is lichess's accuracy of the seat's unforced moves:
	// the mean of their volatility-weighted and harmonic mean MoveAccuracy
	// (Accuracy, Volatility); -1 when it had none.
	Accuracy   float64 `json:"accuracy"`
	MissedWins int     `json:"missed_wins"`
	Unforced   int     `json:"unforced"`  // moves with a choice
	Agreement  float64 `json:"agreement"` // share of unforced moves equal to the engine's
}

// Report is a whole analysis.
type Report struct {
	Game    string    `json:"game"`
	Sides   []string  `json:"sides"`
	Seats   []string  `json:"seats"`
	Result  string    `json:"result"`
	Start   []float64 `json:"start"` // every side's win probability at the start
	Moves   []Move    `json:"moves"`
	Players []Player  `json:"players"`
	Level   int       `json:"level"`
	Algo    string    `json:"algorithm"`
	Nodes   int64     `json:"nodes"`
	TimeMS  int64     `json:"time_ms"`
}

type job struct {
	s   engine.State
	res search.Result
}

// Analyze replays the record's applied events from its header and analyses
// every move.
func Analyze(h *record.Header, applied []record.Applied, opts Options) (*Report, error) {
	start := time.Now()
	if len(applied) > MaxMoves {
		return nil, fmt.Errorf("%w: %d moves and rolls, the most analysis takes is %d (the move on line %d is beyond)", ErrTooLong, len(applied), MaxMoves, applied[MaxMoves].Line)
	}
	if opts.Blunder == 0 {
		opts.Blunder = DefaultBlunder
	}
	st, err := record.NewState(h)
	if err != nil {
		return nil, err
	}
	info := st.Info()
	rep := &Report{Game: info.Game, Sides: info.Sides, Seats: info.Seats, Level: opts.Search.Level}
	if rep.Level == 0 {
		rep.Level = search.DefaultLevel
	}
	// Collect positions: before and after every move.
	var jobs []*job
	type pair struct {
		before, after *job
		a             record.Applied
		n             int
		forced        bool
	}
	var pairs []pair
	var last *job
	snap := func() *job {
		if last != nil && last.s.Hash() == st.Hash() && last.s.Awaiting() == st.Awaiting() {
			return last
		}
		last = &job{s: st.Clone()}
		jobs = append(jobs, last)
		return last
	}
	first := snap()
	n := 0
	for _, a := range applied {
		if a.Roll {
			if err := st.Roll(a.Face); err != nil {
				return nil, err
			}
			continue
		}
		b := snap()
		forced := len(st.Moves(nil)) == 1
		st.Play(a.Move)
		n++
		pairs = append(pairs, pair{before: b, after: snap(), a: a, n: n, forced: forced})
	}
	rep.Result = describe(st)
	// Search them all.
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	so := opts.Search
	// (MCTS's playouts cut short by the game's estimate where it has one:
	// the verdicts of whole playouts at a fraction of the time; issue 39)
	so.CutPlayouts = true
	so.Workers = 1
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	done := 0
	var todo []int // the positions to search: those not known
	for i, j := range jobs {
		if i < len(opts.Known) && opts.Known[i] != nil && opts.Known[i].Hash == j.s.Hash() {
			j.res = opts.Known[i].Result
			done++
			continue
		}
		todo = append(todo, i)
	}
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				j.res = search.Search(j.s, so)
				if stopped(so.Stop) {
					continue // cut short: neither done nor kept
				}
				if opts.Progress != nil || opts.Searched != nil {
					progressMu.Lock()
					done++
					if opts.Searched != nil {
						opts.Searched(i, Searched{Hash: j.s.Hash(), Result: j.res})
					}
					if opts.Progress != nil {
						opts.Progress(done, len(jobs))
					}
					progressMu.Unlock()
				}
			}
		}()
	}
feed:
	for _, i := range todo {
		if stopped(so.Stop) {
			break
		}
		select {
		case next <- i:
		case <-so.Stop: // nil: never
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case <-so.Stop:
		return nil, ErrStopped
	default:
	}
	rep.Start = first.res.Values
	rep.Algo = search.Pick(first.s, so.Algo).String()
	for _, j := range jobs {
		rep.Nodes += j.res.Nodes
	}
	players := make([]Player, len(info.Seats))
	agree := make([]int, len(info.Seats))
	unforced := make([]int, len(info.Seats))
	losses := make([][]float64, len(info.Seats))
	weights := make([][]float64, len(info.Seats))
	for i := range players {
		players[i].Seat = info.Seats[i]
	}
	// Each side's win probability at the start and after every move, and
	// from it the weight of each move in its mover's accuracy (Volatility).
	vol := make([][]float64, len(info.Sides))
	for side := range vol {
		wins := make([]float64, 0, len(pairs)+1)
		wins = append(wins, valueOf(first.res.Values, side))
		for _, p := range pairs {
			wins = append(wins, valueOf(p.after.res.Values, side))
		}
		vol[side] = Volatility(wins)
	}
	for k, p := range pairs {
		side := info.SideOf[p.a.Seat]
		bv, av := p.before.res.Values, p.after.res.Values
		m := Move{N: p.n, Line: p.a.Line, Seat: info.Seats[p.a.Seat], Side: info.Sides[side], Move: p.a.Text,
			Before: bv[side], After: av[side], Forced: p.forced, Values: av}
		if !p.forced && p.before.res.Move != engine.NoMove {
			m.Best = engine.MoveString(p.before.s, p.before.res.Move)
		}
		if p.a.Timed {
			m.MS = &p.a.MS
		}
		m.Loss = max(0, m.Before-m.After)
		if m.Best == m.Move || p.forced {
			m.Loss = 0 // the engine's own move (or no choice) loses nothing
		}
		m.Blunder = m.Loss >= opts.Blunder
		m.Tier = TierOf(m.Loss, opts.Blunder)
		m.MissedWin = p.before.res.Proven == 1 && !provenWin(p.after, side)
		pl := &players[p.a.Seat]
		pl.Moves++
		pl.MeanLoss += m.Loss
		switch m.Tier {
		case TierBlunder:
			pl.Blunders++
		case TierMistake:
			pl.Mistakes++
		case TierInaccuracy:
			pl.Inaccuracies++
		}
		if m.MissedWin {
			pl.MissedWins++
		}
		if !p.forced {
			unforced[p.a.Seat]++
			losses[p.a.Seat] = append(losses[p.a.Seat], m.Loss)
			weights[p.a.Seat] = append(weights[p.a.Seat], vol[side][k])
			if m.Best == m.Move {
				agree[p.a.Seat]++
			}
		}
		rep.Moves = append(rep.Moves, m)
	}
	for i := range players {
		if players[i].Moves > 0 {
			players[i].MeanLoss /= float64(players[i].Moves)
		}
		players[i].Unforced = unforced[i]
		players[i].Accuracy = Accuracy(losses[i], weights[i])
		if unforced[i] > 0 {
			players[i].Agreement = float64(agree[i]) / float64(unforced[i])
		}
	}
	rep.Players = players
	rep.TimeMS = time.Since(start).Milliseconds()
	return rep, nil
}

// valueOf is side's value in values (0 when a search left none).
func valueOf(values []float64, side int) float64 {
	if side < len(values) {
		return values[side]
	}
	return 0
}

// provenWin: does side have a forced win (or has won) at j's position?
func provenWin(j *job, side int) bool {
	s := j.s
	if s.Awaiting() == engine.AwaitNone {
		r := s.Result()
		return r.Status == engine.Won && r.Winner == side
	}
	if s.Info().SideOf[s.ToMove()] == side {
		return j.res.Proven == 1
	}
	return j.res.Proven == -1 && len(s.Info().Sides) == 2
}

func describe(s engine.State) string {
	r := s.Result()
	switch r.Status {
	case engine.Won:
		return s.Info().Sides[r.Winner] + " won"
	case engine.Draw:
		return "draw"
	}
	return "unfinished"
}

// stopped reports whether stop is closed (never for nil).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
