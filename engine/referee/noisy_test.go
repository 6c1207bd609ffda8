package referee

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
)

// The seeded noisy-game harness: random legal games of every game, variant,
// player count and sensor kind, each move carried out physically with
// realistic noise. The referee must reproduce the record exactly, or ask for
// confirmation with the true move offered.
//
//	go test ./engine/referee -run Noisy -noisy.games 10000 -v
//
// TABLA_NOISY_GAMES sets the same knob from the environment.

var noisyGames = flag.Int("noisy.games", 0, "noisy games per configuration (0: $TABLA_NOISY_GAMES, else 120, 15 with -short, 4 with -race)")

func noisyGameCount() int {
	if *noisyGames > 0 {
		return *noisyGames
	}
	if n, err := strconv.Atoi(os.Getenv("TABLA_NOISY_GAMES")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 15
	}
	if raceEnabled {
		// the race detector checks the referee on a few games a
		// configuration, the 18 in parallel; the run without it
		// (.ci/run's engine step, or TestNoisyGamesFull with
		// TABLA_LONG=1) plays the full count
		return raceGames
	}
	return 120
}

// raceGames is the noisy and the clean harness's games a configuration
// under the race detector: the referee is one goroutine a configuration, so
// the detector has the configurations running side by side to watch, not
// the games' count.
const raceGames = 4

// TestNoisyGamesFull plays the noisy and the clean harness at their full
// count (120 games a configuration, 2,160 of each) from a test binary built
// with the race detector, by running this package's harness again in a test
// binary built without it (five to ten times faster), when TABLA_LONG=1 asks
// for it. CI plays the full count without the race detector in a step of its
// own (.ci/run: `go test ./engine/...` before the README's
// `go test -race ./...`), so the race run plays 4 games a configuration and
// does not play them a second time; TABLA_LONG=1 gives a race run alone the
// same games as CI.
func TestNoisyGamesFull(t *testing.T) {
	if !raceEnabled {
		t.Skip("TestNoisyGames plays the full count in this binary")
	}
	if testing.Short() || *noisyGames > 0 || os.Getenv("TABLA_NOISY_GAMES") != "" || *cleanGames > 0 || os.Getenv("TABLA_CLEAN_GAMES") != "" {
		t.Skip("a count was set: TestNoisyGames and TestCleanGames play it")
	}
	if os.Getenv("TABLA_LONG") != "1" {
		t.Skip("the full count runs without the race detector: go test ./engine/referee (.ci/run runs it; TABLA_LONG=1 runs it from here)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: no go command to run the full harness: %v", err)
		}
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command(gobin, "test", "-count=1", "-timeout=30m", "-run", "^(TestNoisyGames|TestCleanGames)$", ".")
	cmd.Env = append(os.Environ(), "TABLA_NOISY_GAMES=120", "TABLA_CLEAN_GAMES=120")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the full noisy harness failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

type noisyConfig struct {
	game  string
	cfg   engine.Config
	ident bool
}

func (c noisyConfig) String() string {
	s := c.game
	if c.cfg.Variant != "" {
		s += "-" + c.cfg.Variant
	}
	if c.cfg.Players != 0 {
		s += fmt.Sprintf("-%dp", c.cfg.Players)
	}
	if c.ident {
		return s + "-identifying"
	}
	return s + "-presence"
}

func noisyConfigs() []noisyConfig {
	var out []noisyConfig
	for _, ident := range []bool{false, true} {
		for _, g := range []struct {
			game string
			cfg  engine.Config
		}{
			{"daha", engine.Config{}},
			{"ray", engine.Config{}},
			{"star", engine.Config{}},
			{"gyges", engine.Config{}},
			{"gyges", engine.Config{Variant: "advanced"}},
			{"six", engine.Config{Players: 2}},
			{"six", engine.Config{Players: 4}},
			{"six", engine.Config{Variant: "advanced", Players: 2}},
			{"six", engine.Config{Variant: "advanced", Players: 4}},
		} {
			out = append(out, noisyConfig{g.game, g.cfg, ident})
		}
	}
	return out
}

// noisyResult counts one configuration's outcomes.
type noisyResult struct {
	games, moves, asked, revised int
	false_, lost, notOffered     int
	// the explainer's verdicts: the true move the one complete reading, or
	// one of several; and the referee's disagreements with it
	unique, ambiguous                     int
	unexplained, needless, guessed, stuck int
	failures                              []string
}

func (r *noisyResult) bad() int {
	return r.false_ + r.lost + r.notOffered + r.unexplained + r.needless + r.guessed + r.stuck
}

func (r *noisyResult) add(o noisyResult) {
	r.unique += o.unique
	r.ambiguous += o.ambiguous
	r.unexplained += o.unexplained
	r.needless += o.needless
	r.guessed += o.guessed
	r.stuck += o.stuck
	r.games += o.games
	r.moves += o.moves
	r.asked += o.asked
	r.revised += o.revised
	r.false_ += o.false_
	r.lost += o.lost
	r.notOffered += o.notOffered
	r.failures = append(r.failures, o.failures...)
}

func TestNoisyGames(t *testing.T) {
	runHarness(t, "noisy", noisyGameCount(), func(nc noisyConfig) playMode {
		m := nc.mode()
		m.bias = true
		return m
	})
}

// TestCleanGames plays every configuration with no noise and no hands at
// all — each lift and placement alone, the board settled after each — and
// chain-stressing move choice (issue 35): every move must be recorded, no
// question asked unless the explainer admits another reading, never out of
// sync. In advanced GYGES a needless question is still counted rather than
// failed (about 1 in 1,500-4,500 moves: BENCHMARKS.md).
//
//	go test ./engine/referee -run Clean -clean.games 10000 -v
func TestCleanGames(t *testing.T) {
	runHarness(t, "clean", cleanGameCount(), func(nc noisyConfig) playMode {
		return playMode{clean: true, judge: true, bias: true, softAsk: os.Getenv("TABLA_STRICT") == "" && nc.game == "gyges" && nc.cfg.Variant == "advanced"}
	})
}

var cleanGames = flag.Int("clean.games", 0, "clean games per configuration (0: $TABLA_CLEAN_GAMES, else 120, 15 with -short, 4 with -race)")

func cleanGameCount() int {
	if *cleanGames > 0 {
		return *cleanGames
	}
	if n, err := strconv.Atoi(os.Getenv("TABLA_CLEAN_GAMES")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 15
	}
	if raceEnabled {
		return raceGames
	}
	return 120
}

// runHarness plays games seeded games of every configuration in the mode
// modeFor gives it, and fails on every verdict the mode counts as one.
func runHarness(t *testing.T, name string, games int, modeFor func(noisyConfig) playMode) {
	var mu sync.Mutex
	var total noisyResult
	lines := []string{}
	for _, nc := range noisyConfigs() {
		t.Run(nc.String(), func(t *testing.T) {
			t.Parallel()
			var res noisyResult
			first := uint64(1)
			if n, err := strconv.Atoi(os.Getenv("TABLA_NOISY_FROM")); err == nil && n > 0 {
				first = uint64(n) // replay from one seed on (debugging)
			}
			for seed := first; seed <= uint64(games); seed++ {
				res.add(noisyGame(t, nc, seed, modeFor(nc)))
				if testing.Verbose() && seed%1000 == 0 {
					fmt.Fprintf(os.Stderr, name+": %s: %d games, false %d, lost %d, not offered %d, unexplained %d, needless %d, guessed %d, stuck %d\n", nc, seed, res.false_, res.lost, res.notOffered, res.unexplained, res.needless, res.guessed, res.stuck)
				}
			}
			line := fmt.Sprintf("%-32s games %5d moves %7d asked %5d revised %5d false %d lost %d not-offered %d | explainer: unique %d ambiguous %d unexplained %d needless %d guessed %d stuck %d",
				nc, res.games, res.moves, res.asked, res.revised, res.false_, res.lost, res.notOffered,
				res.unique, res.ambiguous, res.unexplained, res.needless, res.guessed, res.stuck)
			if testing.Verbose() {
				fmt.Fprintln(os.Stderr, name+": done:", line) // (a long run's figures, should it be stopped)
			}
			mu.Lock()
			total.add(res)
			lines = append(lines, line)
			mu.Unlock()
			show := 5
			if n, err := strconv.Atoi(os.Getenv("TABLA_NOISY_SHOW")); err == nil && n > 0 {
				show = n // list more failures (debugging)
			}
			for i, f := range res.failures {
				if i == show {
					t.Errorf("… and %d more", len(res.failures)-show)
					break
				}
				t.Error(f)
			}
		})
	}
	t.Cleanup(func() {
		sort.Strings(lines)
		for _, l := range lines {
			t.Log(l)
		}
		t.Logf(name+" harness: %d games, %d moves, asked %d, revised %d, false %d, lost %d, not offered %d; explainer: unique %d, ambiguous %d, unexplained %d, needless asks %d, guessed %d, stuck %d",
			total.games, total.moves, total.asked, total.revised, total.false_, total.lost, total.notOffered,
			total.unique, total.ambiguous, total.unexplained, total.needless, total.guessed, total.stuck)
	})
}

// noisy drives a table with noise.
type noisy struct {
	*table
	rng    *rand.Rand
	kinds  []string
	trace  []string
	settle time.Duration
	off    []string // pieces taken off for good (six removals)
	debug  bool
	// hands: play real hands too (rests on wrong cells, counted paths and
	// slow slides that settle, GYGES bounce pieces looked at); off for the
	// regression seeds recorded before they existed.
	hands bool
	// clean: no noise at all — each lift and placement alone, the board
	// settled after each (playMode.clean)
	clean       bool
	lastEmptied map[int]time.Duration
	win         *window // the raw events since the last committed position
}

// advance lets board time pass, reading the board whenever the settle
// window runs out, as the companion's timer does.
func (n *noisy) advance(d time.Duration) {
	end := n.now + d
	for {
		p, at := n.r.Pending()
		if !p || at > end {
			break
		}
		if at > n.now {
			n.now = at
		}
		n.tick()
	}
	n.now = end
	n.tick()
}

func (n *noisy) ms(lo, hi int) time.Duration {
	return time.Duration(lo+n.rng.IntN(hi-lo+1)) * time.Millisecond
}

func (n *noisy) logf(format string, args ...any) {
	n.trace = append(n.trace, fmt.Sprintf("%d:", n.now/time.Millisecond)+fmt.Sprintf(format, args...))
	if n.debug {
		st := n.r.State()
		fmt.Printf("%-28s before: mode %s sync %v pending %v cands %v moves %v\n", n.trace[len(n.trace)-1], st.Mode, st.InSync, st.Pending, st.Candidates, st.Moves[max(0, len(st.Moves)-2):])
	}
}

func (n *noisy) has(c int) bool { _, ok := n.sensorOf[c]; return ok }

// emit reports a raw sensor reading of cell c.
func (n *noisy) emit(c int, code byte) {
	if !n.has(c) {
		return
	}
	if n.win != nil {
		n.win.events = append(n.win.events, rawEv{cell: c, at: n.now, code: code})
	}
	n.send(Input{Kind: SensorChange, Sensor: n.sensorOf[c], Code: code})
}

// newWindow starts a window of raw events at the board as it stands.
func (n *noisy) newWindow() *window {
	w := &window{start: n.now, init: make([]byte, len(n.b.Cells))}
	for c := range n.b.Cells {
		if n.has(c) {
			w.init[c] = n.code(c)
		}
	}
	return w
}

// wrong returns a reading of c other than the truth (a glitch).
func (n *noisy) wrong(c int) byte {
	if _, ok := n.pieces[c]; ok {
		return CodeEmpty
	}
	if n.ident {
		if code, ok := n.b.CodeOf(n.kinds[n.rng.IntN(len(n.kinds))]); ok {
			return code
		}
	}
	return CodeOccupied
}

// chatter: the sensor of c flips k times and comes back, all within a few
// tens of milliseconds (shorter than the settle window).
func (n *noisy) chatter(c int, k int) {
	if !n.has(c) {
		return
	}
	n.logf("chatter %s %d", n.b.Cells[c].Name, k)
	for i := 0; i < k; i++ {
		n.advance(n.ms(1, 6))
		n.emit(c, n.wrong(c))
		n.advance(n.ms(1, 6))
		n.emit(c, n.code(c))
	}
}

// lift takes the piece on c into the hand (or off the board for good).
func (n *noisy) lift(c int, remove bool) {
	p := n.pieces[c]
	delete(n.pieces, c)
	if remove {
		n.off = append(n.off, p)
		n.logf("remove %s", n.b.Cells[c].Name)
	} else {
		n.hand = append(n.hand, p)
		n.logf("lift %s", n.b.Cells[c].Name)
	}
	if n.lastEmptied != nil {
		n.lastEmptied[c] = n.now
	}
	n.contact(c)
}

// place puts a piece of kind p on c: from the hand if it holds one, else
// from outside the board.
func (n *noisy) place(c int, p string) {
	if i := slices.Index(n.hand, p); i >= 0 {
		n.hand = slices.Delete(n.hand, i, i+1)
	}
	n.pieces[c] = p
	n.logf("place %s %s", n.b.Cells[c].Name, p)
	n.contact(c)
}

// contact reports a cell's new state, sometimes with contact bounce.
func (n *noisy) contact(c int) {
	if !n.clean && n.rng.IntN(3) == 0 {
		for i := n.rng.IntN(3) + 1; i > 0; i-- {
			n.emit(c, n.code(c))
			n.advance(n.ms(1, 4))
			n.emit(c, n.wrong(c))
			n.advance(n.ms(1, 4))
		}
	}
	n.emit(c, n.code(c))
}

// pause is the time between two actions of a person: usually a fraction
// of a second, sometimes quick (both actions settle together), sometimes a
// long hesitation.
func (n *noisy) pause() {
	if n.clean {
		n.advance(n.settle + n.ms(50, 500))
		return
	}
	switch k := n.rng.IntN(20); {
	case k < 3:
		n.advance(n.ms(10, 80))
	case k < 5:
		n.advance(n.ms(900, 3000))
	default:
		n.advance(n.ms(120, 700))
	}
}

// disturb may add noise: chatter anywhere, a neighbour bumped (briefly, or
// knocked off and put back).
func (n *noisy) disturb(near []int) {
	if n.clean {
		return
	}
	k := n.rng.IntN(10)
	if k >= 4 {
		return
	}
	c := n.rng.IntN(len(n.b.Cells))
	if len(near) > 0 && n.rng.IntN(2) == 0 {
		c = near[n.rng.IntN(len(near))]
		if adj := n.b.Cells[c].Adj; len(adj) > 0 {
			c = adj[n.rng.IntN(len(adj))]
		}
	}
	if !n.has(c) {
		return
	}
	_, occupied := n.pieces[c]
	switch {
	case k < 2:
		n.chatter(c, 1+n.rng.IntN(3))
	case !occupied:
		n.chatter(c, 1)
	case k == 2: // a short bump: lifted and set back within the settle window
		n.logf("bump %s", n.b.Cells[c].Name)
		n.emit(c, CodeEmpty)
		n.advance(n.ms(15, int(n.settle/time.Millisecond)*6/10))
		n.emit(c, n.code(c))
	default: // knocked off and put back
		n.logf("knock %s", n.b.Cells[c].Name)
		p := n.pieces[c]
		delete(n.pieces, c)
		n.emit(c, CodeEmpty)
		n.advance(n.ms(150, 1200))
		n.pieces[c] = p
		n.emit(c, n.code(c))
	}
	// A hand that bumped a piece takes a moment before it touches anything
	// again (two touches of one cell closer than the settle window are one
	// to any sensor).
	n.advance(n.ms(int(n.settle/time.Millisecond), 300))
}

// physicalOps lists what a person does for a move: pieces carried from
// one cell to another, pieces taken off the board for good, pieces put
// down from outside (a hand, a pile).
type physicalOps struct {
	carries  [][2]int // from, to
	removes  []int
	outside  map[int]string // cell → the piece kind put there
	from, to int            // the moving piece's start and destination
	text     string
}

func (n *noisy) plan(st engine.State, m engine.Move) (physicalOps, bool) {
	before := st.Position().Pieces
	text := engine.MoveString(st, m)
	c := st.Clone()
	c.Play(m)
	after := c.Position().Pieces
	nt := n.r.parse(text, -1)
	ops := physicalOps{outside: map[int]string{}, from: nt.from, to: nt.to, text: text}
	if ops.from < 0 && (n.r.info.Game == "daha" || n.r.info.Game == "ray") {
		for cell, p := range before {
			if p == st.Info().Seats[st.ToMove()] {
				ops.from, _ = n.b.Index(cell)
			}
		}
	}
	if text == "pass" {
		return ops, true
	}
	onBoard := func(names ...string) bool {
		for _, x := range names {
			if _, ok := n.b.Index(x); !ok {
				return false
			}
		}
		return true
	}
	for cell := range before {
		if _, ok := after[cell]; !ok && !onBoard(cell) {
			return ops, false
		}
	}
	for cell := range after {
		if before[cell] != after[cell] && !onBoard(cell) {
			return ops, false
		}
	}
	if ops.to < 0 || n.b.Cells[ops.to].Goal && !n.has(ops.to) {
		return ops, false
	}
	switch {
	case nt.place:
		ops.outside[ops.to] = after[n.b.Cells[ops.to].Name]
	default:
		if ops.from < 0 {
			return ops, false
		}
		ops.carries = append(ops.carries, [2]int{ops.from, ops.to})
		if nt.extra >= 0 {
			ops.carries = append(ops.carries, [2]int{ops.to, nt.extra})
		}
	}
	// whatever else the move empties leaves the board (six removals)
	for cell, p := range before {
		i, _ := n.b.Index(cell)
		if _, still := after[cell]; still || i == ops.from || i == ops.to {
			continue
		}
		_ = p
		ops.removes = append(ops.removes, i)
	}
	slices.Sort(ops.removes)
	return ops, true
}

// carry out a move physically, in a random order that a person could use,
// with pauses, slides and noise.
func (n *noisy) carry(ops physicalOps, path []int, slow bool) {
	type carry struct {
		from, to int
		lifted   bool
		piece    string
	}
	var carries []*carry
	for _, c := range ops.carries {
		carries = append(carries, &carry{from: c[0], to: c[1]})
	}
	removes := slices.Clone(ops.removes)
	n.rng.Shuffle(len(removes), func(i, j int) { removes[i], removes[j] = removes[j], removes[i] })
	var outside []int
	for c := range ops.outside {
		outside = append(outside, c)
	}
	slices.Sort(outside)
	var near []int
	for _, c := range ops.carries {
		near = append(near, c[0], c[1])
	}
	near = append(append(near, removes...), outside...)
	left := func() int {
		k := len(removes) + len(outside)
		for _, c := range carries {
			if !c.lifted || c.piece != "" {
				k++
			}
		}
		return k
	}
	emptied := map[int]time.Duration{}
	n.disturb(near)
	for left() > 0 {
		var can []func()
		for i, c := range removes {
			can = append(can, func() { removes = slices.Delete(removes, i, i+1); n.lift(c, true) })
		}
		for i, c := range outside {
			if _, occ := n.pieces[c]; !occ {
				can = append(can, func() { outside = slices.Delete(outside, i, i+1); n.place(c, ops.outside[c]) })
			}
		}
		for _, c := range carries {
			switch {
			case !c.lifted:
				can = append(can, func() {
					c.piece = n.pieces[c.from]
					c.lifted = true
					n.lift(c.from, false)
					emptied[c.from] = n.now
				})
			case c.piece != "":
				if _, occ := n.pieces[c.to]; occ {
					continue
				}
				can = append(can, func() {
					p := c.piece
					c.piece = ""
					main := c.from == ops.from && c.to == ops.to
					if main {
						switch {
						case len(path) > 0 && slow:
							n.countRest(path, p, n.r.info.Game == "gyges")
						case len(path) > 0:
							n.count(path, p)
						case n.hands && n.r.info.Game != "daha" && n.r.info.Game != "gyges" && n.rng.IntN(4) == 0:
							n.slowSlide(c.from, c.to, p)
						case !n.clean && n.rng.IntN(4) == 0:
							n.slide(c.from, c.to, p)
						}
					}
					if n.hands && n.rng.IntN(5) == 0 {
						n.restWrong(p, near)
					}
					// a cell just emptied takes a moment to fill again: a hand
					// clears it before the other piece comes down
					if at, ok := emptied[c.to]; ok && n.now-at < 2*n.settle {
						n.advance(2*n.settle - (n.now - at) + n.ms(0, 100))
					}
					n.place(c.to, p)
				})
			}
		}
		if len(can) == 0 {
			n.t.Fatalf("stuck carrying out %s", ops.text)
		}
		can[n.rng.IntN(len(can))]()
		if left() > 0 {
			n.pause()
			n.disturb(near)
		}
	}
	n.disturb(near)
}

// slide moves piece p in hand over the empty cells between a and b, briefly
// touching each.
func (n *noisy) slide(a, b int, p string) {
	ax, ay := n.b.Cells[a].X, n.b.Cells[a].Y
	bx, by := n.b.Cells[b].X, n.b.Cells[b].Y
	var over []int
	for c := range n.b.Cells {
		if c == a || c == b || n.b.Cells[c].Goal {
			continue
		}
		if _, occ := n.pieces[c]; occ {
			continue
		}
		cx, cy := n.b.Cells[c].X, n.b.Cells[c].Y
		// on the segment, within half a cell
		dx, dy := bx-ax, by-ay
		l2 := dx*dx + dy*dy
		if l2 == 0 {
			continue
		}
		u := ((cx-ax)*dx + (cy-ay)*dy) / l2
		if u <= 0 || u >= 1 {
			continue
		}
		px, py := ax+u*dx-cx, ay+u*dy-cy
		if px*px+py*py < 0.2 {
			over = append(over, c)
		}
	}
	sort.Slice(over, func(i, j int) bool {
		di := (n.b.Cells[over[i]].X-ax)*(n.b.Cells[over[i]].X-ax) + (n.b.Cells[over[i]].Y-ay)*(n.b.Cells[over[i]].Y-ay)
		dj := (n.b.Cells[over[j]].X-ax)*(n.b.Cells[over[j]].X-ax) + (n.b.Cells[over[j]].Y-ay)*(n.b.Cells[over[j]].Y-ay)
		return di < dj
	})
	// A slide is quick: a piece that rests on a cell on its way, long
	// enough to settle, has been put there (counted paths are count's).
	for _, c := range over {
		n.logf("slide over %s", n.b.Cells[c].Name)
		n.pieces[c] = p
		n.emit(c, n.code(c))
		n.advance(n.ms(10, int(n.settle/time.Millisecond)*7/10))
		delete(n.pieces, c)
		n.emit(c, CodeEmpty)
		n.advance(n.ms(5, 30))
	}
}

// count sets piece p down on each cell of a counted path, a moment on each.
func (n *noisy) count(path []int, p string) {
	for _, c := range path {
		n.logf("count %s", n.b.Cells[c].Name)
		n.pieces[c] = p
		n.contact(c)
		n.advance(n.ms(60, 500))
		delete(n.pieces, c)
		n.contact(c)
		n.advance(n.ms(30, 300))
	}
}

// dahaPath finds a simple path of exactly k steps from a to b over cells
// the mover may enter, for counting along (nil when none is found).
func (n *noisy) dahaPath(st engine.State, a, b, k int) []int {
	pos := st.Position()
	mover := st.Info().Seats[st.ToMove()]
	free := func(c int) bool {
		name := n.b.Cells[c].Name
		if _, occ := pos.Pieces[name]; occ {
			return false
		}
		if p, ok := pos.Painted[name]; ok && p != mover {
			return false
		}
		return true
	}
	var path []int
	seen := map[int]bool{a: true}
	var dfs func(c, left int) bool
	dfs = func(c, left int) bool {
		if left == 0 {
			return c == b
		}
		adj := slices.Clone(n.b.Cells[c].Adj)
		n.rng.Shuffle(len(adj), func(i, j int) { adj[i], adj[j] = adj[j], adj[i] })
		for _, x := range adj {
			if seen[x] || !free(x) {
				continue
			}
			seen[x] = true
			path = append(path, x)
			if dfs(x, left-1) {
				return true
			}
			path = path[:len(path)-1]
			seen[x] = false
		}
		return false
	}
	if !dfs(a, k) {
		return nil
	}
	return path[:len(path)-1] // the cells before the destination
}

// noisyGame plays one seeded game and reports what went wrong.
// playMode says how the harness plays and judges.
type playMode struct {
	hands bool // real hands (hands_test.go) on top of the noise
	judge bool // the explainer judges every move
	plies int  // plies to play (0: the whole game, up to 80)
	// clean: no noise and no hands at all (lift, place, settle): every
	// move must be recorded unasked unless the explainer admits another
	// reading (TestCleanGames)
	clean bool
	// bias: move choice that stresses chains (chooseMove): in GYGES the
	// piece just moved is moved again, moves go to the goal, bounce far,
	// replace the piece just placed
	bias bool
	// softAsk: a needless ask is counted, not a failure (GYGES advanced in
	// the clean harness: issue 35 stays open for them); everything else
	// fails
	softAsk bool
	// soft: the explainer's verdicts that are no wrong record (a needless
	// ask, the true move recorded where it admits others too) are counted,
	// not failures; a false or lost move, a true move not offered, a move
	// it cannot explain and the referee stuck out of sync still fail
	soft bool
}

// noisyGyges chooses how GYGES is played. By default it is played with
// real hands and judged by the explainer like every game, but softly: its
// counted paths (pieces without an owner: a rest on the way is also the
// next player's move) still draw needless asks and unasked records of the
// true move where the explainer admits others too — issue 23 stays open
// for them — so those two verdicts are counted and reported, not failures.
// "strict" (or "judge") fails on them too; "noise" plays the noise alone,
// judged against the true moves only, as before the explainer.
// misnamed notes, for the soft log, a record whose last moves before ply
// are named otherwise than the moves played (the same position, other
// names).
func misnamed(recorded, played []string, ply int) string {
	recorded = recorded[:min(ply, len(recorded))] // (not the move under way)
	k := min(3, len(recorded), len(played))
	if slices.Equal(recorded[len(recorded)-k:], played[len(played)-k:]) {
		return ""
	}
	return fmt.Sprintf(" (recorded %v, played %v)", recorded[len(recorded)-k:], played[len(played)-k:])
}

// softLog ($TABLA_NOISY_SOFTLOG=1) prints each soft verdict's move
// recorded unasked and each needless ask (debugging; the soft mode only
// counts them).
var softLog = os.Getenv("TABLA_NOISY_SOFTLOG") != ""

var noisyGyges = flag.String("noisy.gyges", "", `GYGES: "strict" or "noise" (default: real hands, soft verdicts; also $TABLA_NOISY_GYGES)`)

func (c noisyConfig) mode() playMode {
	if c.game != "gyges" {
		return playMode{hands: true, judge: true}
	}
	v := *noisyGyges
	if v == "" {
		v = os.Getenv("TABLA_NOISY_GYGES")
	}
	switch {
	case strings.Contains(v, "noise"):
		return playMode{}
	case strings.Contains(v, "strict") || strings.Contains(v, "judge"):
		return playMode{hands: true, judge: true}
	}
	return playMode{hands: true, judge: true, soft: true}
}

func noisyGame(t *testing.T, nc noisyConfig, seed uint64, mode playMode) (res noisyResult) {
	hands := mode.hands
	res.games = 1
	cfg := nc.cfg
	tb := newTable(t, nc.game, cfg, nc.ident, seed)
	n := &noisy{table: tb, rng: rand.New(rand.NewPCG(seed, 0x6e6f697379)), kinds: tb.r.kinds, settle: DefaultSettle,
		hands: hands, clean: mode.clean, lastEmptied: map[int]time.Duration{}}
	var x *explainer
	var h history
	var prevWin *window
	var ownAlts []past // the other pasts the explainer's readings of this move leave
	if mode.judge {
		x = newExplainer(tb.b, nc.game, nc.cfg, nc.ident, DefaultSettle)
		n.win = n.newWindow()
	}
	cfg.Board = tb.b
	shadow, err := engine.New(nc.game, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fail := func(kind *int, ply int, format string, args ...any) {
		*kind++
		tr := n.trace
		if len(tr) > 40 {
			tr = tr[len(tr)-40:]
		}
		res.failures = append(res.failures, fmt.Sprintf("%s seed %d ply %d: %s\n  journal: %s\n  physical: %s",
			nc, seed, ply, fmt.Sprintf(format, args...), tb.log(), strings.Join(tr, " ")))
		if testing.Verbose() && *noisyGames > 0 {
			// (a long run: say it now, not only when the configuration ends)
			fmt.Fprintf(os.Stderr, "noisy: failed: %s seed %d ply %d: %s\n", nc, seed, ply, fmt.Sprintf(format, args...))
		}
	}
	buf := make([]engine.Move, 0, 4096)
	rolled := ""
	lastMove := ""      // the last move, until a roll
	var recent []string // the moves since the last roll, oldest first
	maxPly := 80
	if mode.plies > 0 {
		maxPly = mode.plies
	}
	for ply := 0; ply < maxPly && shadow.Awaiting() != engine.AwaitNone; ply++ {
		n.trace = n.trace[:0]
		n.debug = os.Getenv("TABLA_NOISY_DEBUG") == fmt.Sprintf("%s/%d/%d", nc, seed, ply)
		if n.debug {
			debugHook = func(r *Referee, text string, ok bool) {
				var tr []string
				for _, e := range r.trace {
					if e.seq > r.lastAcc {
						tr = append(tr, fmt.Sprintf("%d:%s:%v", e.seq, r.b.Cells[e.cell].Name, e.empty()))
					}
				}
				fmt.Println("  fits", text, "evidence", ok, tr)
			}
		}
		n.advance(n.ms(100, 900))
		if n.rng.IntN(3) == 0 {
			n.disturb(nil)
		}
		if shadow.Awaiting() == engine.AwaitRoll {
			faces := shadow.Info().Die.Faces
			if n.rng.IntN(5) == 0 {
				n.logf("press roll")
				n.send(Input{Kind: ButtonPress, Button: RollButton})
				face := slices.Index(faces, n.r.State().Roll)
				if face < 0 || n.r.Game().Awaiting() == engine.AwaitRoll && n.r.Game().Hash() == shadow.Hash() {
					fail(&res.lost, ply, "press roll: no roll (state %q)", n.r.State().Roll)
					return
				}
				shadow.Roll(face)
				rolled = faces[face]
			} else {
				f := n.rng.IntN(len(faces))
				n.logf("roll %s", faces[f])
				shadow.Roll(f)
				rolled = faces[f]
				n.send(Input{Kind: DieRoll, Face: faces[f]})
			}
			if ms := shadow.Moves(buf[:0]); len(ms) == 1 && engine.MoveString(shadow, ms[0]) == "pass" {
				h.add(shadow.Clone(), "pass")
				shadow.Play(ms[0])
			}
			// an eliminated DAHA piece is taken off the board
			want := shadow.Position().Pieces
			for c, p := range n.pieces {
				if want[n.b.Cells[c].Name] != p {
					n.pause()
					n.lift(c, true)
				}
			}
			n.advance(n.settle + n.ms(10, 300))
			if tb.r.Game().Hash() != shadow.Hash() {
				fail(&res.lost, ply, "after the roll the referee's game differs")
				return
			}
			lastMove = ""
			recent = recent[:0]
			if x != nil {
				// a roll ends the last move's revisions
				if k := len(h.rollAfter); k > 0 {
					h.rollAfter[k-1] = true
				}
				prevWin, n.win = nil, n.newWindow()
			}
			continue
		}
		moves := shadow.Moves(buf[:0])
		var ops physicalOps
		var m engine.Move
		ok := false
		for try := 0; try < 20 && !ok; try++ {
			m = moves[n.rng.IntN(len(moves))]
			if mode.bias {
				m = n.chooseMove(shadow, moves, lastMove)
			}
			ops, ok = n.plan(shadow, m)
		}
		if !ok {
			return // the game wandered off the physical board
		}
		var path []int
		slow := false
		if nc.game == "daha" && !mode.clean && ops.from >= 0 && ops.to >= 0 && n.rng.IntN(2) == 0 {
			k, _ := strconv.Atoi(rolled)
			path = n.dahaPath(shadow, ops.from, ops.to, k)
			slow = n.hands && n.rng.IntN(2) == 0
		}
		if nc.game == "gyges" && n.hands && len(ops.carries) > 0 && n.rng.IntN(2) == 0 {
			path = n.gygesPath(shadow, ops.text, ops.from, ops.to, len(ops.carries) > 1)
			slow = true
		}
		before := len(tb.actions)
		committed := shadow.Clone()
		prevMove := lastMove
		lastMove = ops.text
		before2 := slices.Clone(recent)
		recent = append(recent, ops.text)
		shadow.Play(m)
		res.moves++
		n.carry(ops, path, slow)
		n.advance(n.settle + n.ms(10, 400))
		if x != nil && ops.text != "pass" {
			readings, ends := x.explainOutcomes(committed, &h, n.win, prevWin, n.now)
			ownAlts = x.ownPasts(&h, readings, ends, ops.text)
			if n.debug {
				fmt.Println("explainer:", readings)
			}
			st := tb.r.State()
			truth := slices.Contains(readings, ops.text)
			switch {
			case !truth:
				fail(&res.unexplained, ply, "the explainer does not admit the true move %s: readings %v", ops.text, readings)
				return
			case len(readings) == 1 || oneToTheGame(readings, ends):
				res.unique++
				if st.Mode == "confirm" {
					if mode.soft || mode.softAsk {
						res.needless++ // counted, and the harness answers
						if softLog {
							fmt.Fprintf(os.Stderr, "needless: %s seed %d ply %d: %s asked, candidates %v%s%s judge %v\n", nc, seed, ply, ops.text, st.Candidates, misnamed(st.Moves, h.moves, ply), candDepths(tb.r, tb.r.confirm, shadow.Hash()), readings)
						}
					} else {
						fail(&res.needless, ply, "%s: the one reading, yet confirm offers %v", ops.text, st.Candidates)
						return
					}
				}
			default:
				res.ambiguous++
				if st.Mode != "confirm" && tb.r.Game().Hash() == shadow.Hash() {
					if mode.soft {
						res.guessed++ // counted: the true move was recorded
						if softLog {
							fmt.Fprintf(os.Stderr, "guessed: %s seed %d ply %d: %s recorded unasked, but the explainer admits %v%s\n", nc, seed, ply, ops.text, readings, misnamed(st.Moves, h.moves, ply))
						}
					} else {
						fail(&res.guessed, ply, "%s recorded unasked, but the explainer admits %v", ops.text, readings)
						return
					}
				}
			}
			if st.Mode != "confirm" && !st.InSync {
				fail(&res.stuck, ply, "%s: out of sync (mode %s, moves %v, pending %v) while the explainer admits %v", ops.text, st.Mode, st.Moves[max(0, len(st.Moves)-2):], st.Pending, readings)
				return
			}
			h.add(committed, ops.text)
			prevWin, n.win = n.win, nil // the next window starts once this move is settled
		} else if x != nil {
			h.add(committed, ops.text) // a forced pass
		}
		for _, a := range tb.actions[before:] {
			if a.Kind == TookBack {
				res.revised++
				break
			}
		}
		chosen := false
		if st := tb.r.State(); st.Mode == "confirm" {
			res.asked++
			// The player chooses the reading that names what the hands did
			// and ends where they left the game: a reading named like the
			// move but ending elsewhere (a presence look-alike that keeps
			// a misread move before it) is not chosen for its name.
			index := func(text string) int {
				for k, c := range st.Candidates {
					if c == text {
						if h, ok := tb.r.outcome(tb.r.confirm[k]); !ok || h == shadow.Hash() {
							return k
						}
					}
				}
				return -1
			}
			i := index(ops.text)
			if i < 0 {
				i = index("revise:" + ops.text)
			}
			if i < 0 && prevMove != "" {
				// the last move as it was, and this one after it
				i = index("revise:" + prevMove + ";" + ops.text)
			}
			for k := 2; i < 0 && k <= len(before2) && k <= maxReviseDepth; k++ {
				// the last moves as they were (a deeper reading undone)
				i = index("revise:" + strings.Join(before2[len(before2)-k:], ";") + ";" + ops.text)
			}
			for k, c := range tb.r.confirm {
				// (a reading that names the last plies otherwise than the
				// truth, ending in the same position — one to the game,
				// README rules notes; the position is checked below)
				if h, ok := tb.r.outcome(c); i < 0 && ok && h == shadow.Hash() && (c.kind == candMove || c.kind == candRevise) {
					i = k
				}
			}
			if i < 0 {
				fail(&res.notOffered, ply, "%s: confirm offers %v, not the true move", ops.text, st.Candidates)
				return
			}
			n.logf("choose %s", ops.text)
			chosen = true
			if err := tb.r.Choose(i, n.now); err != nil {
				t.Fatal(err)
			}
			tb.actions = append(tb.actions, tb.r.Actions()...)
		}
		if chosen && x != nil && len(h.chosen) > 0 {
			h.chosen[len(h.chosen)-1] = true
		}
		// a pass forced on the next player is played at once (the board
		// stays as it is): the shadow plays it too
		if ms := shadow.Moves(buf[:0]); tb.r.Game().Plies() > shadow.Plies() && shadow.Awaiting() == engine.AwaitMove &&
			len(ms) == 1 && engine.MoveString(shadow, ms[0]) == "pass" {
			h.add(shadow.Clone(), "pass")
			shadow.Play(ms[0])
			lastMove = ""
		}
		if tb.r.Game().Hash() != shadow.Hash() {
			st := tb.r.State()
			if tb.r.Game().Plies() >= shadow.Plies() {
				fail(&res.false_, ply, "%s recorded as %q (mode %s, in sync %v)", ops.text, st.LastMove, st.Mode, st.InSync)
			} else {
				fail(&res.lost, ply, "%s not recorded (mode %s, pending %v, candidates %v)", ops.text, st.Mode, st.Pending, st.Candidates)
			}
			return
		}
		if st := tb.r.State(); !st.InSync {
			fail(&res.lost, ply, "%s: out of sync after the move (pending %v)", ops.text, st.Pending)
			return
		}
		if x != nil {
			h.alts = ownAlts
			if alt := x.recordedPast(tb.r.State().Moves, &h); alt.before != nil {
				h.alts = append(h.alts, alt)
			}
			ownAlts = nil
		}
		if x != nil && n.win == nil {
			n.win = n.newWindow()
		}
	}
	return res
}

// Seeds beyond CI's range that the harness once failed on, each replayed on
// every run (TABLA_NOISY_FROM=SEED with -run 'Noisy/^CONFIG$' replays one by
// hand, TABLA_NOISY_DEBUG=CONFIG/SEED/PLY traces a move).
var noisyRegressions = []struct {
	config string
	seed   uint64
	what   string
	hands  bool // played with real hands (issue 23 on)
	plies  int  // plies replayed (0: the whole game): GYGES with real hands up to a fixed move
}{
	{"gyges-advanced-presence", 367, "a replace read as a plain move: the lift's chatter moved the lift after the landing", false, 0},
	// found by the first 10,000-per-configuration run
	{"six-2p-presence", 4262, "a placement read as a revision of the last one: an earlier knock of that piece counted as its lift", false, 0},
	{"six-2p-presence", 3060, "the same", false, 0},
	{"six-advanced-4p-presence", 6269, "the same", false, 0},
	{"gyges-advanced-identifying", 7419, "a replace whose displaced piece went first returned the board two plies back: only the takeback offered", false, 0},
	{"gyges-advanced-identifying", 8913, "the same", false, 0},
	{"gyges-advanced-identifying", 9478, "the same", false, 0},
	{"gyges-advanced-presence", 2821, "the same, presence sensors", false, 0},
	// found by real hands and the explainer (issue 23)
	{"six-advanced-2p-presence", 488, "a knocked hexagon read as the mover, then revised to the real one: asked though the one reading", true, 0},
	{"six-advanced-2p-presence", 178, "the same", true, 0},
	{"six-advanced-2p-presence", 369, "the same", true, 0},
	{"six-advanced-2p-presence", 537, "the same", true, 0},
	{"six-advanced-2p-identifying", 208, "the same, identifying sensors", true, 0},
	{"six-advanced-2p-identifying", 525, "the same", true, 0},
	{"six-advanced-2p-presence", 837, "a takeback that swaps pieces presence sensors cannot tell apart counted as a reading (the explainer's)", true, 0},
	{"gyges-advanced-presence", 892, "a revision of another piece taken unasked while the next player's replace was under way: a wrong move recorded (e030ecf dropped the asks; restored)", false, 0},
	{"gyges-advanced-presence", 940, "the same", false, 0},
	{"gyges-advanced-presence", 617, "the same, the move then lost", false, 0},
	{"daha-presence", 160, "the same, a DAHA takeback of four moves", true, 0},
	// found by the first 10,000-per-configuration run with real hands
	{"daha-identifying", 4399, "a counted move recorded at a rest and revised to where it ended, which is also the board of a round before: the takeback not offered (the rest took a round's place)", true, 0},
	{"daha-identifying", 7784, "the same", true, 0},
	{"gyges-advanced-identifying", 2817, "a replace's displaced piece set down first read as the last move's revision, then the mover landed: the replace not offered (revisionsThen left out the next player moving the piece the earlier reading put down)", false, 0},
	{"gyges-advanced-presence", 6300, "the same, presence sensors", false, 0},
	{"gyges-advanced-presence", 7799, "the same", false, 0},
	// GYGES with real hands, up to the move each once failed (later moves
	// of these games still fail the judge: issue 23)
	{"gyges-advanced-identifying", 1, "a replace whose displaced piece was set down first (b2-d3, then d2-b2/d3) asked though the one reading", true, 35},
	{"gyges-advanced-identifying", 9, "the same, the displaced piece counted on from where it was read as a move", true, 16},
	{"gyges-advanced-identifying", 10, "a displaced piece counted on asked for while the next player's replace (its mover not lifted) might be under way", true, 16},
	{"gyges-advanced-identifying", 2, "a counted path asked for while the next player's replace might be under way", true, 45},
	{"gyges-advanced-presence", 9, "a replace's displaced piece read as a plain move and counted on: the replace not offered, the plain move recorded", true, 37},
	{"gyges-advanced-presence", 16, "a piece displaced by the next player taken unasked as a revision: the true move then not offered", true, 25},
	{"gyges-presence", 17, "the next player's counted move read as revisions of the last: the true move not offered", true, 37},
	{"gyges-presence", 18, "the same, the move lost", true, 52},
	{"gyges-advanced-identifying", 26, "a replace's displaced piece set down first, recorded as the last mover going on, then its mover counted on from a rest of its own: the replace not offered", true, 66},
}

// GYGES with real hands, found by the harness judged softly (issue 23,
// sessions 6 and 7): each replayed up to and with the move it once failed;
// soft: the explainer's needless-ask verdict is counted, not a failure (the
// move was once lost or stuck and is now asked for with the true reading) —
// a move recorded unasked where the explainer admits others fails always.
var noisyHandRegressions = []struct {
	config string
	seed   uint64
	plies  int
	soft   bool
	what   string
}{
	{"gyges-presence", 262, 35, false, "a counted path's rest read as the next player's move, the hand returned to the rest: only the takeback of that move offered, not the move itself (a deeper revision to the first replaced move)"},
	{"gyges-presence", 653, 44, false, "the same"},
	{"gyges-presence", 723, 34, false, "the same"},
	{"gyges-presence", 798, 57, false, "the same"},
	{"gyges-identifying", 227, 55, true, "the same, identifying sensors (soft since issue 35: the referee asks between a deeper revision and a revision with the next player's move, which end in one position — the explainer counts them one reading with the plain move it sees, a needless ask)"},
	{"gyges-identifying", 245, 30, false, "the same"},
	{"gyges-identifying", 506, 26, false, "the same"},
	{"gyges-identifying", 757, 20, false, "the same"},
	{"gyges-identifying", 643, 69, false, "the next player's counted move read as the last mover going on: the last move as it was and the next player's not offered (its piece lifted before the revision was recorded)"},
	{"gyges-presence", 839, 60, false, "the same, presence sensors"},
	{"gyges-advanced-identifying", 154, 48, true, "a counted path read as moves of both players after the last replace was revised: a wrong move recorded (the last move as it was and the next player's move, three moves back, not read); its ask at ply 47 offers readings the explainer has rejected since a piece must be picked up before it is put down"},
	{"gyges-identifying", 434, 73, true, "a deeper revision made the other player's real move a rest; the hand went on from there: stuck out of sync (the deeper revision undone is now offered)"},
	{"gyges-advanced-identifying", 289, 56, true, "a replace's displaced piece carried on by the hand (the mover only looked at the landing cell): stuck out of sync (the deeper revision through the displaced piece is now offered)"},
	{"gyges-advanced-identifying", 242, 57, true, "the same"},
	{"gyges-advanced-presence", 135, 44, true, "the same, presence sensors"},
	{"gyges-advanced-presence", 31, 47, false, "a replace whose displaced piece went to the mover's cell (a swap presence sensors cannot see) recorded unasked as a revision, though nothing having happened explains the board as well"},
	{"gyges-advanced-presence", 149, 49, true, "the same (its ask at ply 45 offers a revision whose displaced piece was put down before it left its cell: needless since the explainer checks that)"},
	{"gyges-advanced-presence", 406, 22, false, "the same"},
	{"gyges-advanced-identifying", 76, 38, true, "a replace whose displaced piece was set down first, read as the last move revised, then its mover counted on through rests read as moves of both players: the replace not offered (read back three deep from a plain counted move)"},
	{"gyges-advanced-presence", 80, 33, true, "a replace's displaced piece set down first read as the last plain move revised, then the mover counted on: the replace not offered"},
	{"gyges-advanced-presence", 126, 66, true, "the same"},
	{"gyges-advanced-presence", 207, 52, true, "the same"},
	{"gyges-advanced-presence", 96, 59, true, "a counted rest recorded, then a bounce piece looked at (a replace there on presence sensors) and the hand back on the rest: recorded unasked, though the replace shows the same board (lookAlikes now asks)"},
	{"gyges-advanced-identifying", 54, 27, true, "the same, identifying sensors, pieces of one height"},
	{"gyges-presence", 2354, 60, true, "the next player's piece counted on from the last move's destination, read as that move's hand going on (revised) and then as a deeper revision of both moves: stuck out of sync when it landed (the chain's last move as first recorded is now offered back, op.chainWas)"},
	{"gyges-presence", 1805, 66, true, "the same: the true move not offered"},
	{"gyges-identifying", 6456, 56, true, "a counted path read as a deeper revision, then its chain read back with the other player's move revised: when the hand went on, that move as first recorded was not read back (the moves played back in a chain's place keep its moves as their was, with its evidence: the true move not offered)"},
	{"gyges-identifying", 6114, 37, true, "the same"},
	{"gyges-identifying", 6510, 36, true, "the same"},
	{"gyges-identifying", 6068, 27, true, "a counted path read three deep as the first mover's going on, then back on the cell of the chain's last move and on: stuck out of sync (the chain's last move revised is now read: chainRevised)"},
	{"gyges-identifying", 3053, 63, true, "a deeper revision revised again by the hand going on lost the chain it had replaced: the true move not offered (a revision of the last move keeps its chain, op.chainAfter)"},
	{"gyges-advanced-identifying", 5235, 71, true, "a deeper revision through the next player's replace onto the piece the last move moved, taken unasked while the next player's own replace was under way (its displaced piece set down first, its mover resting): a move lost and a wrong one recorded (found at 10,000 games after 98e7908 added that revision; it is now only asked)"},
	{"six-advanced-2p-presence", 4238, 44, false, "a hexagon rested, then put down on its cell as a neighbour is knocked off: read as the next player's move from the knocked cell, stuck out of sync when it was set back (a mover is now lifted before its destination is filled)"},
	{"six-advanced-2p-presence", 5237, 51, false, "the same, read as the last move revised to come from the knocked cell"},
	// found by the 10,000-game runs of session 7
	{"gyges-advanced-presence", 3175, 28, true, "the next player counting a displaced piece on (heights unseen) read as a deeper revision to the last mover going on, unasked, though that mover was put down before its piece left its cell: a wrong move recorded (a composite's first move is now ordered: its piece lifted before it was put where the next player took it on)"},
	{"gyges-advanced-presence", 8298, 79, true, "the same"},
	{"gyges-advanced-presence", 2763, 52, true, "a swap replace (the displaced piece to the mover's cell, unseen on presence sensors) whose displaced piece went first, read as the last move's replace finishing, then the mover counted on: the true move not offered (the next player's move after the last move's first reading was read only from the last reading on: op.first)"},
	{"gyges-advanced-presence", 2856, 70, true, "the same"},
	{"gyges-advanced-presence", 8761, 43, true, "the same"},
	{"gyges-advanced-presence", 5032, 24, true, "a replace whose displaced piece was set down first and counted on through a rest (recorded as moves of both players), then its mover: the true move not offered (a deeper revision now reads a move of another piece, asked)"},
	{"gyges-advanced-presence", 6805, 50, true, "a swap replace whose mover was counted on through rests read as the displaced piece's moves: the true move not offered (the same)"},
	{"gyges-advanced-presence", 7749, 54, true, "the same family"},
	{"gyges-advanced-presence", 9934, 64, true, "the same family"},
	{"gyges-advanced-identifying", 2922, 36, true, "a replace whose displaced piece was set down first and counted on, then its mover: stuck out of sync (the same)"},
	{"gyges-advanced-identifying", 8303, 62, true, "the same"},
	{"gyges-advanced-identifying", 8014, 30, true, "a swap replace read as moves of the displaced piece: the true move not offered (the same)"},
	{"gyges-advanced-identifying", 8021, 69, true, "a replace whose displaced piece went first and on: the true move not offered (the same)"},
	{"gyges-advanced-identifying", 1565, 43, true, "a rest of the next player's hand read as a deeper revision of the last two moves, its piece lifted before: stuck out of sync (the next player's move is now read from the last move's first reading on: op.first)"},
	{"gyges-advanced-identifying", 9951, 58, true, "the next player's displaced piece set down first, read as the last move's displaced piece going on and then as the next player's plain move: its replace not read, as its cells were touched before that move was recorded — stuck (a move played back after a revision has its evidence from where its pieces were first lifted: thenSince)"},
	{"gyges-identifying", 7264, 36, true, "a counted path read as the next player's move after an earlier rest of the last move, two deep, taken unasked: the true move then not offered (a composite two deep drops a move recorded since: now only asked)"},
	{"gyges-advanced-presence", 89, 79, true, "a replace's displaced piece carried on while the referee asked whether the last move was revised, then the next player's move: recorded unasked (a revision asked about is now read back like a rest recorded)"},
}

// Seeds of the harness as it plays now (chain-stressing move choice, real
// hands), each replayed up to and with the move it once failed on, judged
// strictly: a needless ask fails too. Session 12: a revision of the last
// move and the next player's move, the one reading, is taken unasked
// (op.lone); each failed when it was asked, or, taken without the two read
// back together, sat stuck out of sync when the hand went on.
var noisyChainRegressions = []struct {
	config string
	seed   uint64
	plies  int
	soft   bool // a needless ask is counted, not failed (stuck, lost or a false or guessed record fail)
	what   string
}{
	{"gyges-advanced-presence", 54, 15, false, "a replace's displaced piece set down first and counted on, read as the last move's displaced piece going on; then the mover landed: the one reading (the last move as first recorded and the next player's replace) asked"},
	{"gyges-advanced-presence", 92, 38, false, "the same"},
	{"gyges-advanced-presence", 158, 17, false, "the same, a plain last move revised"},
	{"gyges-advanced-presence", 261, 17, false, "the same"},
	{"gyges-advanced-presence", 375, 28, false, "the same"},
	{"gyges-presence", 419, 23, true, "the next player's counted piece resting where the last move's could have gone, taken unasked as that move revised and the next player's move; the hand went on: stuck out of sync (the two are now read back together to the revised move's first reading, asked)"},
	{"gyges-presence", 593, 22, true, "the same"},
	{"gyges-presence", 995, 24, true, "the same"},
	{"gyges-identifying", 1238, 17, true, "the same, identifying sensors"},
	{"gyges-advanced-identifying", 1294, 40, false, "a replace's mover resting on its way after the displaced piece was set down, taken unasked as the last move's displaced piece going on and the next player's replace landing there; the mover went on: stuck out of sync (the next player's move read back two deep is now any piece's, not only the one the lone reading moved)"},
	{"gyges-advanced-identifying", 1270, 16, true, "a piece knocked off a cell and set back, then the next player's replace landing there: with a landing counted as filled since the move (the explainer's wentOn), a revision was taken unasked and then the replace recorded where a plain move fits too (a guess)"},
	{"gyges-advanced-identifying", 403, 25, true, "a lone reading taken two deep after another: the last move revised alone (the explainer's other reading) was no longer offered (a guess)"},
	{"gyges-advanced-presence", 602, 30, true, "a composite whose revised move's piece was not in the hand when it landed, dropped: the plain move recorded though the explainer admits another composite the referee does not offer (a guess)"},
	{"gyges-advanced-presence", 1696, 23, true, "a lone reading that took a presence look-alike, read back at once and asked beside the true reading: the player's answer named like the move but ending elsewhere was taken for theirs (a false record, the harness's choice: it now chooses by where the reading ends)"},
	{"gyges-advanced-identifying", 3890, 68, true, "a replace's displaced piece set down first and the mover counted on, its rest taken as a lone reading (the last move revised and the next player's move); the mover went on: the read-back two deep wanted the mover lifted after the lone reading was taken, but the hand had lifted it before (stuck)"},
	{"gyges-advanced-presence", 5788, 32, true, "the same, presence sensors"},
	{"gyges-advanced-identifying", 9841, 45, true, "a replace's displaced piece set down first and the mover counted on: its rest taken as a lone reading (the last move's displaced piece going on, and the next player's move of the piece it landed on), its next rest as the move after that; the read-back three deep wanted that move to be of a piece the lone reading's second move put down, not its first (stuck)"},
	{"gyges-advanced-presence", 3903, 42, true, "the same, the lone reading's second move then revised by its hand going on (twice): the lone mark was lost with the revision, so the two were no longer read back together (the true move not offered)"},
	// session 15: needless asks of the advanced noisy harness
	{"gyges-advanced-identifying", 16, 14, false, "the next player's replace under way, its landing piece (the last move's displaced one) set down first while their mover was off its cell: read as the last move's displaced piece going on, taken; the mover landed and the record behind the hand was asked (nextHandLifts: such a revision is asked while it stands)"},
	{"gyges-advanced-presence", 52, 76, false, "a plain move asked beside a composite two deep whose next player's replace put its displaced piece down before its landing piece left (a fill of the rests before): the composite's second move out of a hand's order (composites: ordered)"},
	{"gyges-advanced-presence", 4249, 40, true, "a lone reading (the last move revised and the next player's replace) whose next player's mover went on: read back two deep to the last move as recorded and that mover's move, taken as the one reading (the hand went on), was a guess — the explainer admits a revised replace's mover moved on, which the referee does not offer (handWentOn takes no read-back after a lone reading)"},
	{"gyges-advanced-identifying", 5890, 58, true, "the same reading taken after a lone reading while the player to move lifted the piece it had landed and counted it on: stuck"},
	{"gyges-advanced-presence", 465, 61, false, "the next player's replace under way, its displaced piece set down first while a neighbour was knocked off and set back: read as a replace landing on the knocked cell; the mover landed, and the one reading (the last move misread, another piece's) was asked though no move of the next player under way shows that board (underWayMasks)"},
	{"gyges-advanced-identifying", 538, 14, false, "the same, identifying sensors"},
	// session 20: two players' plies need a pause between them (turnsOK)
	{"gyges-advanced-presence", 142, 29, false, "a plain move (d1-d2) asked beside the two moves before it read again (c2-b6, then c6-b6/d2), though between those two the cells they change never read the board after the first: the first player's hand had not let go when the second's began (turnsOK: a moment between two plies shows the first's board)"},
	{"gyges-advanced-presence", 1477, 27, false, "the same (d1-c2 beside c1-c2, then c5-c2/e6)"},
	{"gyges-advanced-identifying", 1245, 39, false, "the same, identifying sensors (d3-b4/e5 beside d3-d6, then d6-d4)"},
	{"gyges-advanced-identifying", 1532, 39, false, "the same (a1-b2 beside c2-f5/e2, then f5-e2/b2)"},
	{"gyges-advanced-identifying", 1506, 25, true, "a replace (d2-c5/c6) recorded unasked while the explainer admitted the replace with its displaced piece put elsewhere (b6) and the next player moving it on (b6-c6), though the board after the replace never showed: the explainer now asks a moment between two plies that shows the first's board (a guess)"},
	{"gyges-advanced-presence", 1800, 27, true, "the same, presence sensors (f1-f2/a6 beside f1-f2/b6, then b6-a6)"},
	{"gyges-advanced-presence", 1027, 61, true, "a takeback of the round before reaching over a rest recorded as a move, not offered: the revision recorded unasked (a guess)"},
	{"gyges-advanced-presence", 690, 14, false, "a replace whose displaced piece was set down first (c6-a5/d3): asked beside the last move revised to put its piece there (d1-d3) and then the plain move (c6-a5), though the mover was lifted within a settle time of that piece being put down — two people's hands a tenth of a second apart (turnsOK's pause)"},
	{"gyges-advanced-presence", 650, 18, false, "the same (b6-c4/d1 beside d1-b1/d1 and b6-c4)"},
	{"gyges-advanced-presence", 964, 18, false, "the same (a6-b4/e3 beside f1-e3 and a6-b4)"},
	{"gyges-advanced-presence", 1053, 15, false, "the same (b1-c2/a5 beside a6-a5 and b1-c2)"},
	{"gyges-advanced-presence", 1224, 21, false, "the same (d1-f3/b3 beside f6-f5/b3 and d1-f3)"},
	{"gyges-advanced-presence", 216, 20, false, "the same"},
	{"gyges-advanced-presence", 119, 45, false, "a plain move asked beside the last replace read as landing on a cell knocked off and set back before its mover was lifted, and the next player moving its displaced piece on (composites: a displaced piece moved on needs its replace's mover off the board while the landing piece was)"},
	{"gyges-advanced-identifying", 470, 38, false, "a replace's displaced piece set down first, read as the last move's displaced piece going on; the next player's mover rested on its way (recorded as a move), then landed on the cell the displaced piece left: the two read back to the replace as first read and that mover's replace, the one reading, asked (handWentOn: the last move's piece left where it was recorded, and the next player's replace put its displaced piece where the move before was recorded putting its own)"},
	{"gyges-advanced-presence", 313, 56, false, "the same reading two deep, but the last move's piece still where it was recorded: a rest of the next player's hand, not taken (it went on: stuck when it was)"},
	{"gyges-advanced-presence", 1402, 17, true, "a replace onto the piece the move before displaced, its own displaced piece set down first and its mover counted on through its start cell (read as the replace the other way round), then landed: that revision was taken as another piece's (underWayMasks) though the move before's displaced piece going on explains the board too (a guess; displacedBefore)"},
	{"gyges-advanced-identifying", 745, 24, true, "the same, identifying sensors"},
	// session 16: the composites' plies in a hand's order, a revised
	// replace's mover taken on
	{"gyges-advanced-presence", 126, 17, false, "a plain replace asked beside the last replace revised and the next player's replace onto its displaced piece, whose revised mover would have landed on a cell knocked off and set back before that mover was lifted (turnsOK: within a ply, a piece is put down after it was picked up)"},
	{"gyges-advanced-presence", 472, 41, false, "a revision of the last move and the next player's replace asked beside the same revision with a replace whose mover landed before it was lifted (turnsOK)"},
	{"gyges-advanced-identifying", 127, 17, false, "the one reading, a revision and the next player's replace onto its displaced piece, asked beside nothing (turnsOK)"},
	{"gyges-advanced-identifying", 309, 41, false, "a replace asked beside a composite of it and the next player's move of its mover on, out of a hand's order (turnsOK)"},
	{"gyges-advanced-identifying", 20, 33, false, "the next player's replace onto the last move's displaced piece, that piece set down first (read as the last move's displaced piece going on) and carried on (recorded as the next player's plain move), then the mover landing where it had been: the one reading, the two read back to the replace as first recorded and the next player's replace, asked (handWentOn: the plain move took on the piece the move before was recorded putting down, and the replace's displaced piece ends where it put it)"},
	{"gyges-advanced-presence", 283, 48, false, "the same, presence sensors"},
	{"gyges-advanced-identifying", 596, 31, false, "the same"},
	{"gyges-advanced-presence", 473, 19, false, "a lone reading (the last move revised and the next player's replace, its mover resting on the revised cell) whose mover went on and landed where the last move was first recorded: read back two deep to that move and the replace landing there, the one reading, asked (handWentOn after a lone reading; the player to move may not move the piece it had landed)"},
	{"gyges-advanced-identifying", 502, 24, false, "the same, the next player's mover going on to the goal"},
	{"gyges-advanced-presence", 316, 19, true, "a replace recorded unasked though the last replace revised and the next player's replace landing on its mover explain the board too (a guess: composites now take a revised replace's mover on, or onto it, as they took its displaced piece)"},
	// session 17: what a hand puts down it has picked up, across plies
	// too; a record named otherwise than the hands played
	{"gyges-advanced-presence", 316, 19, false, "the same seed, judged strictly: the replace asked beside the last replace revised (its displaced piece put on a cell filled before that piece left where it was recorded) and the next player's replace onto it (wentOn in the composites, the cells the next player's move names excepted)"},
	{"gyges-advanced-identifying", 181, 44, false, "a plain move asked beside a revision three deep through a replace onto the piece the move before had put down (the displaced piece carried on): a chain of one piece stops at a replace that moved another"},
	{"gyges-advanced-identifying", 356, 31, false, "the next player's hand counting the last move's displaced piece on, its rests taken as that piece going on and as the next player's plain move (a lone reading), then landing further: the one reading, the last move as recorded and the next player's move of that piece from where it put it, asked (sameHandOn)"},
	{"gyges-advanced-identifying", 345, 42, false, "the next player moving on the piece the last move put down, asked beside the last mover going on: the referee's record names the last two moves otherwise than they were played (the same position), and from its record the last mover's hand going on explains the board too — the explainer now also reads the last move as recorded (recordedPast)"},
	{"gyges-advanced-identifying", 31, 42, false, "the same"},
	{"gyges-advanced-identifying", 428, 30, false, "the same"},
	// session 18: the judge admits any next player's move after a GYGES
	// revision (pieces have no owner); the referee asks where one ends
	// elsewhere (otherCompositesThan). Seeds 54, 92 and 5788 above fail
	// without it: the next player's replace recorded unasked, though the
	// last move revised to land on a cell whose piece was lifted and put
	// back (a bounce piece looked at) and the next player's plain move
	// explain the board too, and end otherwise.
	{"gyges-advanced-presence", 473, 18, false, "such a reading asked though the revision's landing cell was filled before the last move's piece left where it was recorded (wentOn without its exception for an occupied cell: leftFirst)"},
	// session 21: a swap after a past
	{"gyges-advanced-identifying", 380, 18, false, "the next player's replace with its displaced piece set down first, read as the last move's displaced piece going on; the mover landed: after that past the plain move and a replace onto a piece of one height (d6-c5, d6-d5/c5) end alike, a swap, asked — a real question, since the explainer admits that past too ($TABLA_NOISY_FRAME=off: the explainer's frame alone, a needless ask)"},
	{"gyges-advanced-presence", 1495, 41, true, "the plain replace recorded unasked while the explainer admits the last move revised and, after it, two namings of the next move ending alike (c2-b5, c2-b4/b5): a swap after that past, asked (oneOutcome; $TABLA_NOISY_FRAMEOFF=1: a guess)"},
}

// Seeds of the clean harness (TestCleanGames: lift, place, settle, nothing
// else), each replayed up to and with the move it once failed on, judged
// as the clean harness judges: a needless ask fails.
var cleanRegressions = []struct {
	config string
	seed   uint64
	plies  int
	what   string
}{
	{"gyges-presence", 5039, 53, "a piece moved on four plies in a row (c5-e2, e2-e6, e6-b2, b2-c5): the fourth move asked beside a takeback of the three before it, which ends on the same board (a takeback reached a round further when the last move's piece was lifted again, though the next player may move it)"},
	{"gyges-identifying", 5039, 53, "the same, identifying sensors"},
	{"gyges-advanced-identifying", 1254, 42, "a swap replace (a6-c3/a6: the displaced piece to the mover's cell) after a plain move to its start cell, asked beside that move revised to land on the replace's landing (b3-c3/a6), though no piece left the cells the last move put one on (wentOn)"},
	{"gyges-advanced-identifying", 933, 29, "the same (e2-e5/e2 beside f5-e5/e2)"},
	{"gyges-advanced-identifying", 911, 17, "a replace whose displaced piece was set down first (c1-d1/a3, first read d1-a3), the next player's move, then the current player moving the replace's mover back to its start (d1-c1): asked beside the replace read back to its first reading and the next player's move as recorded, though the hand changed nothing of the replace before that move was recorded"},
	{"gyges-advanced-identifying", 780, 27, "the same (e1-f1/d5 first read f1-d5; f1-e1)"},
	{"gyges-advanced-identifying", 1113, 22, "the same (c6-d6/e6 first read d6-e6; d6-c6)"},
	{"gyges-advanced-identifying", 215, 38, "a swap replace (a6-d3/a6) asked beside the last replace revised to land there (e3-d3/a6), though the last move's landing (b4) was not touched since it was recorded (wentOn: an occupied landing cell is no exception then)"},
	// session 19: look-alike pasts. The guesses of the clean harness at
	// 10,000 games, fixed; each is recorded unasked with TABLA_NOISY_ALTOFF.
	{"gyges-advanced-presence", 5957, 64, "a replace whose displaced piece was set down first (a5-b5/c5), recorded as a plain move (b5-c5) and then revised: the board also shows the position before the two moves before it, a takeback of them whose first rest was recorded — not offered, the revision recorded unasked (a takeback now reaches over a last move that may be a rest, of cells touched since its hand began)"},
	{"gyges-advanced-identifying", 4164, 46, "a swap (a6-b4/a6) recorded unasked while the explainer admitted the last move revised to a swap of its own (d2-a6/d2) whose displaced piece was put down on the mover's cell before it left its landing cell: the explainer now checks a swap's displaced piece like any other (displacedAfter)"},
	{"gyges-advanced-identifying", 6797, 46, "the same (e6-a4/e6 beside e2-a4/e2)"},
	{"gyges-advanced-identifying", 4436, 41, "a replace whose displaced piece went first (b5-b2/a1), recorded as the last move corrected (b1-a1) and the plain move (b5-b2); then the next player moving that displaced piece on (a1-a2) was recorded unasked, though the replace's hand carrying it on (b5-b2/a2) explains the board too: the look-alike past's revision (lookAlikePast)"},
	{"gyges-advanced-presence", 159, 36, "the same, presence sensors (c6-d5 beside d2-b5/d5)"},
	{"gyges-advanced-presence", 4823, 22, "the same (d6-d5 beside c1-c5/d5)"},
	{"gyges-advanced-presence", 3683, 29, "the next player's replace recorded unasked, though the look-alike past's last move revised and that player's plain move explain the board too and end otherwise (altComposites)"},
	{"gyges-advanced-presence", 3894, 16, "the same (a6-a4/c4 beside b1-c4;a6-a4)"},
}

func TestCleanRegressions(t *testing.T) {
	t.Parallel()
	for _, rg := range cleanRegressions {
		nc := configNamed(t, rg.config)
		res := noisyGame(t, nc, rg.seed, playMode{clean: true, judge: true, bias: true, plies: rg.plies})
		if res.bad() > 0 {
			t.Errorf("%s seed %d (%s): %v", rg.config, rg.seed, rg.what, res.failures)
		}
	}
}

// configNamed is the harness's configuration of that name.
func configNamed(t *testing.T, name string) noisyConfig {
	t.Helper()
	for _, c := range noisyConfigs() {
		if c.String() == name {
			return c
		}
	}
	t.Fatalf("no configuration %s", name)
	return noisyConfig{}
}

func TestNoisyRegressions(t *testing.T) {
	t.Parallel() // one referee of its own a game, as the harness's configurations
	// Under the race detector every eighth seed of each list (the referee
	// is one goroutine a game: the detector adds nothing to the seeds'
	// count); CI replays them all without it (.ci/run's engine step), and
	// TABLA_LONG=1 replays them all under it.
	picked := func(i int) bool { return !enginetest.Reduced() || i%8 == 0 }
	for i, rg := range noisyHandRegressions {
		if !picked(i) {
			continue
		}
		res := noisyGame(t, configNamed(t, rg.config), rg.seed, playMode{hands: true, judge: true, plies: rg.plies, soft: rg.soft})
		if res.bad() > 0 && !(rg.soft && res.bad() == res.needless) {
			t.Errorf("%s seed %d (%s): %v", rg.config, rg.seed, rg.what, res.failures)
		}
	}
	for i, rg := range noisyChainRegressions {
		if !picked(i) {
			continue
		}
		nc := configNamed(t, rg.config)
		res := noisyGame(t, nc, rg.seed, playMode{hands: true, judge: true, bias: true, plies: rg.plies, soft: rg.soft})
		if res.bad() > 0 && !(rg.soft && res.bad() == res.needless) {
			t.Errorf("%s seed %d (%s): %v", rg.config, rg.seed, rg.what, res.failures)
		}
	}
	for i, rg := range noisyRegressions {
		if !picked(i) {
			continue
		}
		res := noisyGame(t, configNamed(t, rg.config), rg.seed, playMode{hands: rg.hands, judge: rg.hands, plies: rg.plies})
		if res.bad() > 0 {
			t.Errorf("%s seed %d (%s): %v", rg.config, rg.seed, rg.what, res.failures)
		}
	}
}

// chooseMove picks the next move so that it stresses what a referee finds
// hard (issue 35): in GYGES, whose pieces have no owner, the piece the last
// move put down is moved again in 40% of plies where it may be (the same
// piece three plies in a row is everyday play), a move to the goal, a long
// bounce or a replace of the piece just placed in 10% each; otherwise, and
// in the other games, any legal move.
func (n *noisy) chooseMove(st engine.State, moves []engine.Move, last string) engine.Move {
	any := moves[n.rng.IntN(len(moves))]
	if n.r.info.Game != "gyges" {
		return any
	}
	ln := n.r.parse(last, -1)
	var pick []engine.Move
	k := n.rng.IntN(100)
	for _, m := range moves {
		nt := n.r.parse(engine.MoveString(st, m), -1)
		if nt.from < 0 || nt.to < 0 {
			continue
		}
		var want bool
		switch {
		case k < 40:
			want = last != "" && (nt.from == ln.to && ln.to >= 0 || nt.from == ln.extra && ln.extra >= 0)
		case k < 50:
			want = n.b.Cells[nt.to].Goal
		case k < 60:
			a, b := n.b.Cells[nt.from], n.b.Cells[nt.to]
			want = math.Abs(a.X-b.X)+math.Abs(a.Y-b.Y) >= 4*n.pitch()
		case k < 70:
			want = nt.extra >= 0 && last != "" && nt.to == ln.to
		}
		if want {
			pick = append(pick, m)
		}
	}
	if len(pick) == 0 {
		return any
	}
	return pick[n.rng.IntN(len(pick))]
}

// pitch is the distance between two neighbouring cells of the board.
func (n *noisy) pitch() float64 {
	for _, c := range n.b.Cells {
		for _, a := range c.Adj {
			if o := n.b.Cells[a]; !o.Goal && !c.Goal {
				return math.Hypot(o.X-c.X, o.Y-c.Y)
			}
		}
	}
	return 1
}

// candDepths names each asked candidate's kind, depth and evidence
// (kind:depth:eEVIDENCE; the soft log's debugging).
func candDepths(r *Referee, cs []candidate, want uint64) string {
	var b strings.Builder
	b.WriteString(" depths [")
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d:e%d", c.kind, c.depth, c.evidence)
		if h, ok := r.outcome(c); ok && h == want {
			b.WriteString(":same")
		}
	}
	b.WriteByte(']')
	return b.String()
}
