package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
)

// A contestant is a search configuration; nil plays uniformly at random.
type contestant struct {
	name string
	opts *Options
}

func lvl(l int) contestant { return contestant{fmt.Sprintf("L%d", l), &Options{Level: l}} }

var random = contestant{"random", nil}

// playMatchGame plays one game: seats[i] plays seat i. The first `opening`
// plies are random (so deterministic engines play different games). It
// returns the winning side (-1 for a draw or the cap) and the plies.
func playMatchGame(game string, seats []contestant, seed uint64, opening int) (int, int) {
	s, err := engine.New(game, engine.Config{})
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	buf := make([]engine.Move, 0, moveCap)
	for s.Awaiting() != engine.AwaitNone && s.Plies() < DefaultMaxPlies {
		if s.Awaiting() == engine.AwaitRoll {
			if err := s.Roll(rng.IntN(len(s.Info().Die.Faces))); err != nil {
				panic(err)
			}
			continue
		}
		c := seats[s.ToMove()]
		var m engine.Move
		if c.opts == nil || s.Plies() < opening {
			moves := s.Moves(buf[:0])
			m = moves[rng.IntN(len(moves))]
		} else {
			o := *c.opts
			o.Seed = seed + uint64(s.Plies())
			m = Search(s, o).Move
		}
		s.Play(m)
	}
	r := s.Result()
	if r.Status == engine.Won {
		return r.Winner, s.Plies()
	}
	return -1, s.Plies()
}

type matchResult struct {
	game        string
	a, b        string
	games       int
	score       float64 // a's points: win 1, draw ½ (multi-seat: a's side share)
	wins, draws int
	plies       int
	elapsed     time.Duration
	done        int // games finished
}

// progress: runMatch prints its tally every 10 games (TABLA_MATCH_PROGRESS=1).
var progress = os.Getenv("TABLA_MATCH_PROGRESS") != ""

// matchFrom is the number of runMatch's first game (TABLA_MATCH_FROM, even;
// 0 by default): a match split over processes plays games 0…n-1 in one
// and n…2n-1 in the other, the same games as one process of 2n.
var matchFrom, _ = strconv.Atoi(os.Getenv("TABLA_MATCH_FROM"))

// wilson is the 95 % Wilson interval of a proportion.
func wilson(p float64, n int) (float64, float64) {
	z := 1.96
	nf := float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / (1 + z*z/nf)
	return c - h, c + h
}

func (r matchResult) String() string {
	p := r.score / float64(r.games)
	lo, hi := wilson(p, r.games)
	return fmt.Sprintf("| %s | %s vs %s | %d | %d | %d | %.1f%% | %.1f–%.1f%% | %.0f | %.1fs |", r.game, r.a, r.b, r.games, r.wins, r.draws,
		100*p, 100*lo, 100*hi, float64(r.plies)/float64(r.games), r.elapsed.Seconds())
}

// runMatch plays n games of a against b, alternating seats over the same
// openings (n should be even, a multiple of 4 for four seats); in four-seat
// games a takes seats 0 and 2 or 1 and 3 (vs random: a takes one seat, the
// others are random, and a's fair share is 25 %).
func runMatch(game string, a, b contestant, n int, par int) matchResult {
	s, _ := engine.New(game, engine.Config{})
	info := s.Info()
	res := matchResult{game: game, a: a.name, b: b.name, games: n}
	start := time.Now()
	var mu sync.Mutex
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range jobs {
				seats := make([]contestant, len(info.Seats))
				aSide := -1
				for i := range seats {
					seats[i] = b
				}
				if len(info.Seats) == 2 {
					seats[g%2] = a
					aSide = info.SideOf[g%2]
				} else if b.opts == nil {
					seats[g%4] = a
					aSide = g % 4
				} else {
					seats[g%2], seats[g%2+2] = a, a
				}
				opening := 2
				if game == "six" || game == "daha" {
					opening = 1
				}
				// Games g and g+1 (g+1…g+3 for one seat among four) share the
				// opening and the dice with the seats swapped.
				rot := 2
				if len(info.Seats) == 4 && b.opts == nil {
					rot = 4
				}
				win, plies := playMatchGame(game, seats, uint64(1000+g/rot), opening)
				mu.Lock()
				res.plies += plies
				switch {
				case win < 0:
					res.draws++
					res.score += 1 / float64(len(info.Sides))
				case aSide >= 0 && win == aSide, aSide < 0 && seats[win] == a:
					res.wins++
					res.score++
				}
				if res.done++; progress && res.done%10 == 0 {
					fmt.Printf("after %d games: %d wins, %d draws, score %.1f (%.0fs)\n", res.done, res.wins, res.draws, res.score, time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		}()
	}
	for g := matchFrom; g < matchFrom+n; g++ {
		jobs <- g
	}
	close(jobs)
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// TestMatches plays the strength table. It is not part of the default test
// run: TABLA_MATCHES=star,gyges,six,daha [TABLA_MATCH_N=40]
// [TABLA_MATCH_MINLEVEL=1] [TABLA_MATCH_MAXLEVEL=4] [TABLA_MATCH_ONLY=random|below]
// go test -run 'TestMatches$' -v -timeout 0 ./engine/search
func TestMatches(t *testing.T) {
	games := os.Getenv("TABLA_MATCHES")
	if games == "" {
		t.Skip("set TABLA_MATCHES=star,gyges,six,daha")
	}
	n := 40
	if v, err := strconv.Atoi(os.Getenv("TABLA_MATCH_N")); err == nil {
		n = v
	}
	maxLevel := 4
	if v, err := strconv.Atoi(os.Getenv("TABLA_MATCH_MAXLEVEL")); err == nil {
		maxLevel = v
	}
	minLevel := 1
	if v, err := strconv.Atoi(os.Getenv("TABLA_MATCH_MINLEVEL")); err == nil {
		minLevel = v
	}
	only := os.Getenv("TABLA_MATCH_ONLY") // "random", "below" or both
	fmt.Println("| game | match | games | wins | draws | score | 95% CI | plies | time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, game := range strings.Split(games, ",") {
		for l := minLevel; l <= maxLevel && only != "below"; l++ {
			fmt.Println(runMatch(game, lvl(l), random, n, 2))
		}
		for l := max(2, minLevel); l <= maxLevel && only != "random"; l++ {
			fmt.Println(runMatch(game, lvl(l), lvl(l-1), n, 2))
		}
	}
}

// TestEvalVsPlayouts: alpha-beta with the evaluation against plain UCT with
// random playouts, at equal time per move. TABLA_EVALMATCH=star,gyges,six
func TestEvalVsPlayouts(t *testing.T) {
	games := os.Getenv("TABLA_EVALMATCH")
	if games == "" {
		t.Skip("set TABLA_EVALMATCH=star,gyges,six")
	}
	n := 20
	if v, err := strconv.Atoi(os.Getenv("TABLA_MATCH_N")); err == nil {
		n = v
	}
	for _, game := range strings.Split(games, ",") {
		ab := contestant{"alphabeta+eval 100ms", &Options{Time: 100 * time.Millisecond, Algo: AlphaBeta}}
		mc := contestant{"uct-playouts 100ms", &Options{Time: 100 * time.Millisecond, Algo: MCTS}}
		fmt.Println(runMatch(game, ab, mc, n, 2))
	}
}

// TestSelfPlayFinishes: the share of STAR self-play games (level vs the same
// level, random first two plies) that end with a win inside 400 plies.
// TABLA_SELFPLAY=3
func TestSelfPlayFinishes(t *testing.T) {
	l, err := strconv.Atoi(os.Getenv("TABLA_SELFPLAY"))
	if err != nil {
		t.Skip("set TABLA_SELFPLAY=level")
	}
	n := 40
	if v, err := strconv.Atoi(os.Getenv("TABLA_MATCH_N")); err == nil {
		n = v
	}
	for _, game := range []string{"star"} {
		r := runMatch(game, lvl(l), lvl(l), n, 2)
		fin := r.games - r.draws
		lo, hi := wilson(float64(fin)/float64(r.games), r.games)
		fmt.Printf("%s self-play at level %d: %d of %d games won inside %d plies (%.0f%%, 95%% CI %.0f–%.0f%%), mean %.0f plies\n",
			game, l, fin, r.games, DefaultMaxPlies, 100*float64(fin)/float64(r.games), 100*lo, 100*hi, float64(r.plies)/float64(r.games))
	}
}

// TestPlayoutMatch: DAHA at level 3 with its own playouts (RandomPlayout,
// issue 39) against level 3 with the playouts of the loop through
// engine.State, which draw what e086792's RandomPlayout drew: the search
// before issue 39's second pass. Two seats each, the seats swapped over
// the same opening and dice. TABLA_PLAYOUTMATCH=200
func TestPlayoutMatch(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("TABLA_PLAYOUTMATCH"))
	if err != nil {
		t.Skip("set TABLA_PLAYOUTMATCH=games")
	}
	own := contestant{"L3", &Options{Level: 3}}
	loop := contestant{"L3 loop playouts", &Options{Level: 3, loopPlayouts: true}}
	fmt.Println("| game | match | games | wins | draws | score | 95% CI | plies | time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	fmt.Println(runMatch("daha", own, loop, n, 2))
}

// TestEstimateMatch: DAHA at level 3 with its playouts cut short by the
// estimate (PlayoutEstimator, issue 39's third pass: MCTSCutIter
// iterations) against level 3 with whole random playouts (MCTSIter
// iterations, the search before that pass). Two seats each, the seats
// swapped over the same opening and dice. TABLA_ESTIMATEMATCH=200
// [TABLA_MATCH_PAR=games at a time, 2] [TABLA_MATCH_FROM=first game]
func TestEstimateMatch(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("TABLA_ESTIMATEMATCH"))
	if err != nil {
		t.Skip("set TABLA_ESTIMATEMATCH=games")
	}
	cut := contestant{"L3 (cut playouts)", &Options{Level: 3, CutPlayouts: true}}
	whole := contestant{"L3 (whole playouts)", &Options{Level: 3}}
	fmt.Println("| game | match | games | wins | draws | score | 95% CI | plies | time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	par := 2
	if v, err := strconv.Atoi(os.Getenv("TABLA_MATCH_PAR")); err == nil && v > 0 {
		par = v
	}
	fmt.Println(runMatch("daha", cut, whole, n, par))
}
