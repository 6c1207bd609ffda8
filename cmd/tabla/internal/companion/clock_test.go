package companion

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

func controls(t testing.TB, vals ...string) clock.Controls {
	t.Helper()
	cs, err := clock.ParseControls(vals)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// wait lets board time pass on the virtual board (whole seconds).
func wait(t testing.TB, p *Player, d time.Duration) {
	t.Helper()
	for d > 0 {
		step := min(d, 60*time.Second)
		act(t, p, `{"wait":`+strconv.FormatInt(step.Milliseconds(), 10)+`}`)
		d -= step
	}
}

// journalled replays the session's journal as a record.
func journalled(t testing.TB, s *Session) (*record.Game, string) {
	t.Helper()
	data, err := os.ReadFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	g, err := record.Replay(strings.NewReader(string(data)), "journal")
	if err != nil {
		t.Fatal(err)
	}
	return g, string(data)
}

// TestClockPress: each STAR move's line carries its turn's time, from the
// previous press (the referee's acceptance of the move) to this one; the
// clocks the journal rebuilds are those the session shows.
func TestClockPress(t *testing.T) {
	h := record.Header{Game: "star", First: "red", Clock: controls(t, "5m+2s")}
	p, s := newSimSession(t, h, t.TempDir(), true)
	if err := s.StartClocks(); err != nil { // the arbiter starts the round
		t.Fatal(err)
	}
	if err := s.StartClocks(); err != ErrClocksRunning {
		t.Fatalf("the clocks started twice: %v", err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 4 {
		wait(t, p, time.Duration(3+i)*time.Second)
		playRandomStar(t, p, s, 1, rng)
	}
	g, data := journalled(t, s)
	if len(g.Applied) != 4 {
		t.Fatalf("%d moves", len(g.Applied))
	}
	for i, a := range g.Applied {
		// the wait, the lift and the place's 200 ms each, and the settle
		// window before the referee accepts it: the first turn began
		// when the arbiter started the clocks
		if !a.Timed || a.MS < int64(3+i)*1000 || a.MS > int64(3+i)*1000+2000 {
			t.Errorf("move %d: ms %d timed %v, want about %d", i+1, a.MS, a.Timed, (3+i)*1000)
		}
	}
	if !strings.Contains(data, `"clock":"5m+2s"`) {
		t.Errorf("header without the clock:\n%s", data[:200])
	}
	c := g.Clock()
	st := s.ClockAt(p.Sim.Now())
	if st.Running != "red" || st.Control != "5m+2s" {
		t.Errorf("status %+v", st)
	}
	if got, want := st.LeftMs["white"], c.Left(1, 0).Milliseconds(); got != want {
		t.Errorf("white: session %d ms, journal %d ms", got, want)
	}
	if r, err := ReplayFile(s.JournalPath()); err != nil || !r.Match() {
		t.Errorf("replay: %v %v", err, r)
	}
	for i, e := range s.MoveLog() {
		if e.MS == nil || *e.MS != g.Applied[i].MS {
			t.Errorf("move list %d: ms %v, journal %d", i+1, e.MS, g.Applied[i].MS)
		}
	}
}

// TestClockResume: a daemon killed mid-game (its journal as the power cut
// left it, a torn last line included) resumes with both clocks exactly as
// they stood at the last journalled move, to the millisecond.
func TestClockResume(t *testing.T) {
	dir := t.TempDir()
	h := record.Header{Game: "star", First: "red", Clock: controls(t, "red=3m+1s", "white=2m/d3s")}
	p, s := newSimSession(t, h, dir, true)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 5 {
		wait(t, p, time.Duration(1500+700*i)*time.Millisecond)
		playRandomStar(t, p, s, 1, rng)
	}
	before := s.ClockAt(p.Sim.Now())
	wait(t, p, 4*time.Second) // white thinks: lost in the power cut
	path := s.JournalPath()
	// the power cut: the daemon stops without closing anything, in the
	// middle of writing a board event
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"sensor":"c3","co`)
	f.Close()
	p.Close()

	def := boards.Default("star")
	b, err := sim.New(sim.Options{Board: def, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s2, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: b, JournalDir: dir, Source: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.Resumed() != path {
		t.Fatalf("resumed %q, want %q", s2.Resumed(), path)
	}
	after := s2.ClockAt(0)
	if before.Running != "white" || after.Running != "" {
		t.Fatalf("running: %q before the cut, %q after (want white, then none until the board speaks)", before.Running, after.Running)
	}
	// red moved last: its clock is what it was, to the ms; white's is
	// where it stood at red's press (before, less the turn so far after
	// its 3 s delay)
	if before.LeftMs["red"] != after.LeftMs["red"] {
		t.Errorf("red: %d ms before the cut, %d after", before.LeftMs["red"], after.LeftMs["red"])
	}
	if got, want := after.LeftMs["white"], before.LeftMs["white"]+max(before.TurnMs-3000, 0); got != want {
		t.Errorf("white: %d ms after the cut, want %d (before %+v)", got, want, before)
	}
	g, _ := journalled(t, s2)
	c := g.Clock()
	for i, seat := range []string{"red", "white"} {
		if got := c.Left(i, 0).Milliseconds(); got != after.LeftMs[seat] {
			t.Errorf("%s: resumed %d ms, journal %d ms", seat, after.LeftMs[seat], got)
		}
	}
	// the clocks start again at the first board event
	s2.Handle(hardware.Event{Kind: hardware.Status, Conn: hardware.Connected, At: 10 * time.Second})
	if st := s2.ClockAt(12 * time.Second); st.Running != before.Running || st.TurnMs != 2000 {
		t.Errorf("after the restart: %+v, want %s running 2000 ms", st, before.Running)
	}
}

// TestFlagFall: the arbiter starts the clocks; with no move, red's flag
// falls at 1 min: the journal ends
// with the time result, the game is over (no takeback, a move on the
// board is not journalled, the game is not resumed), and the new game
// command starts a new game with full clocks. The low time showed on the
// LEDs of the seat to move for its last 10 s.
func TestFlagFall(t *testing.T) {
	dir := t.TempDir()
	h := record.Header{Game: "star", First: "red", Clock: controls(t, "1m")}
	p, s := newSimSession(t, h, dir, true)
	if err := s.StartClocks(); err != nil {
		t.Fatal(err)
	}
	turnCell := func() (string, hardware.LED) {
		for name, l := range s.State().LEDs {
			if l.Role == "turn" {
				c, _ := s.board.Index(name)
				s.mu.Lock()
				defer s.mu.Unlock()
				return name, s.lastLED[s.board.LEDs[c]]
			}
		}
		t.Fatal("no cell shows whose turn it is")
		return "", hardware.LED{}
	}
	wait(t, p, 45*time.Second)
	if name, l := turnCell(); l.Blink != hardware.Steady {
		t.Errorf("at 45 s, %s blinks %v, want steady", name, l.Blink)
	}
	wait(t, p, 6*time.Second)
	if name, l := turnCell(); l.Blink != hardware.Slow {
		t.Errorf("at 51 s (9 s left), %s blinks %v, want slow", name, l.Blink)
	}
	wait(t, p, 10*time.Second)
	if !s.Ended() {
		t.Fatalf("no flag at 61 s: %+v", s.ClockAt(p.Sim.Now()))
	}
	if st := s.Clock(); st.Flag != "red" || st.LeftMs["red"] != 0 || st.Running != "" {
		t.Errorf("clock after the flag: %+v", st)
	}
	// the game is over everywhere: the state (GET /api/state) says so
	if st := s.StatusJSON().State.(referee.State); st.Status != "time" || st.ToMove != nil || st.Winner == nil || *st.Winner != "white" {
		t.Errorf("the state after red's flag fell: status %s, to move %v, winner %v", st.Status, st.ToMove, st.Winner)
	}
	if name, l := turnCell(); l.Blink != hardware.Steady {
		t.Errorf("after the flag, %s blinks %v, want steady", name, l.Blink)
	}
	_, data := journalled(t, s)
	if !strings.Contains(data, `{"end":"time","flag":"red","at":`) {
		t.Fatalf("no end line:\n%s", data)
	}
	if err := s.Command("takeback", ""); err != ErrGameOver {
		t.Errorf("takeback after the flag: %v", err)
	}
	act(t, p, `{"lift":"b1"}`) // a red piece moved on the board
	act(t, p, `{"place":"c1"}`)
	wait(t, p, time.Second)
	if _, after := journalled(t, s); after != data {
		t.Errorf("the journal grew after the flag fell:\n%s", after[len(data):])
	}
	if r, err := ReplayFile(s.JournalPath()); err != nil || !r.Match() {
		t.Errorf("replay: %v %v", err, r)
	}
	if _, err := FindUnfinished(dir, "star", nil); err != ErrNoGame {
		t.Errorf("a game over on time was found to resume: %v", err)
	}
	old := s.JournalPath()
	if err := s.Command("new", ""); err != nil {
		t.Fatal(err)
	}
	if s.JournalPath() == old || s.Ended() {
		t.Errorf("new game: journal %s, ended %v", s.JournalPath(), s.Ended())
	}
	// the new game's clocks wait for its first move (or the arbiter)
	if st := s.Clock(); st.Flag != "" || st.LeftMs["white"] != 60000 || st.LeftMs["red"] != 60000 || st.Running != "" {
		t.Errorf("new game's clocks: %+v", st)
	}
	_, data = journalled(t, s)
	if !strings.Contains(data, `"clock":"1m"`) {
		t.Errorf("the new game lost its time control:\n%s", data)
	}
}

// TestClockPause: with ClockPause, correction mode stops the running
// clock; without, it runs on.
func TestClockPause(t *testing.T) {
	for _, pause := range []bool{false, true} {
		def := boards.Default("star")
		b, err := sim.New(sim.Options{Board: def, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		h := record.Header{Game: "star", First: "red", Clock: controls(t, "5m")}
		s, err := Open(Options{Header: h, Board: def, HW: b, JournalDir: t.TempDir(), NoResume: true, Source: "sim", ClockPause: pause})
		if err != nil {
			t.Fatal(err)
		}
		p := NewPlayer(b, s)
		if err := s.StartClocks(); err != nil {
			t.Fatal(err)
		}
		// a red piece put where no move takes it: correction mode
		act(t, p, `{"lift":"b1"}`)
		act(t, p, `{"place":"c1"}`)
		wait(t, p, time.Second)
		if m := s.State().Mode; m != "correct" {
			t.Fatalf("mode %s, want correct", m)
		}
		wait(t, p, 20*time.Second)
		act(t, p, `{"lift":"c1"}`)
		act(t, p, `{"place":"b1"}`)
		wait(t, p, time.Second)
		turn := s.ClockAt(p.Sim.Now()).TurnMs
		if pause && (turn < 1000 || turn > 3000) || !pause && turn < 22000 {
			t.Errorf("pause %v: red's turn %d ms after 20 s of correction", pause, turn)
		}
		p.Close()
		s.Close()
		b.Close()
	}
}

// TestClockRollIsPartOfTheTurn: in RAY the roll and the move are one turn:
// the roll's line carries no time, the move's carries the whole turn.
func TestClockRollIsPartOfTheTurn(t *testing.T) {
	h := record.Header{Game: "ray", Clock: controls(t, "5m+1s")}
	p, s := newSimSession(t, h, t.TempDir(), true)
	if err := s.StartClocks(); err != nil {
		t.Fatal(err)
	}
	wait(t, p, 2*time.Second)
	act(t, p, `{"roll":"E"}`)
	wait(t, p, 3*time.Second)
	if st := s.ClockAt(p.Sim.Now()); st.Running != "red" {
		t.Fatalf("after red's roll: %+v, want red's clock running", st)
	}
	act(t, p, `{"lift":"a29"}`)
	act(t, p, `{"place":"b29"}`)
	wait(t, p, time.Second)
	g, _ := journalled(t, s)
	if len(g.Applied) != 2 || !g.Applied[0].Roll || g.Applied[0].Timed || !g.Applied[1].Timed {
		t.Fatalf("applied %+v", g.Applied)
	}
	if ms := g.Applied[1].MS; ms < 5400 || ms > 7000 {
		t.Errorf("red's turn %d ms, want the roll's and the move's time together (about 5.6 s)", ms)
	}
	if st := s.ClockAt(p.Sim.Now()); st.Running != "yellow" {
		t.Errorf("after red's move: %+v, want yellow's clock running", st)
	}
}

// TestClockTakeback: a takeback gives the undone turn's time back: the
// clocks are those the remaining turns make, and the seat to move's runs
// from the takeback.
func TestClockTakeback(t *testing.T) {
	h := record.Header{Game: "star", First: "red", Clock: controls(t, "5m+2s")}
	p, s := newSimSession(t, h, t.TempDir(), true)
	rng := rand.New(rand.NewPCG(3, 3))
	wait(t, p, 4*time.Second)
	playRandomStar(t, p, s, 1, rng)
	afterRed := s.ClockAt(p.Sim.Now())
	wait(t, p, 9*time.Second)
	playRandomStar(t, p, s, 1, rng)
	if err := s.Command("takeback", ""); err != nil {
		t.Fatal(err)
	}
	st := s.Clock()
	// white's clock runs again from the takeback on the host's clock: its
	// time left and its turn add up to its full 5 minutes
	if sum := st.LeftMs["white"] + st.TurnMs; st.Running != "white" || st.LeftMs["red"] != afterRed.LeftMs["red"] || sum < 299999 || sum > 300000 {
		t.Errorf("after the takeback: %+v; after red's move: %+v", st, afterRed)
	}
	g, _ := journalled(t, s)
	if c := g.Clock(); len(g.Applied) != 1 || c.Left(0, 0).Milliseconds() != st.LeftMs["red"] || c.Left(1, 0) != 5*time.Minute {
		t.Errorf("journal after the takeback: %d moves, %v %v; session %+v", len(g.Applied), c.Left(0, 0), c.Left(1, 0), st)
	}
}

// TestClockRevision: when the referee takes a recorded move back and
// records the move the hand went on to make (a DAHA piece put down on its
// way, then carried on: B0, then O), the move keeps its whole turn's time,
// from the turn's start, not from the revision.
func TestClockRevision(t *testing.T) {
	h := record.Header{Game: "daha", Clock: controls(t, "10m")}
	p, s := newSimSession(t, h, t.TempDir(), true)
	act(t, p, `{"roll":3}`)
	for _, a := range []string{`{"lift":"C0"}`, `{"place":"B0"}`, `{"lift":"B0"}`, `{"place":"A0"}`, `{"lift":"A0"}`, `{"place":"O"}`} {
		act(t, p, a)
	}
	wait(t, p, time.Second)
	g, data := journalled(t, s)
	if !strings.Contains(data, `{"undone":{"move":"B0"`) {
		t.Fatalf("no revision in this journal:\n%s", data)
	}
	// the clocks started at board time 0 (the roll's); O was put down at
	// 1.2 s (six actions of 200 ms) and the board settled with it 100 ms
	// later: the press, the whole turn
	if len(g.Applied) != 2 || !g.Applied[1].Timed || g.Applied[1].MS != 1300 {
		t.Errorf("applied %+v, want O with the turn's 1300 ms", g.Applied)
	}
	if st := s.ClockAt(p.Sim.Now()); st.LeftMs["red"] != 600000-1300 || st.Running != "yellow" {
		t.Errorf("clocks %+v", st)
	}
}

// TestClockWaitsForSetUp (issue 37): a 3 s game whose pieces are set up
// for 10 s (pieces lifted and put back, the board read all the while)
// loses no time: the clocks start with the first move, which is free;
// the second mover's clock runs from it and its flag falls 3 s later,
// and then the state says the game is over on time, not playing.
func TestClockWaitsForSetUp(t *testing.T) {
	h := record.Header{Game: "star", First: "red", Clock: controls(t, "3s")}
	p, s := newSimSession(t, h, t.TempDir(), true)
	for _, cell := range []string{"b1", "b1", "b1", "b1", "b1"} {
		act(t, p, `{"lift":"`+cell+`"}`)
		wait(t, p, time.Second)
		act(t, p, `{"place":"`+cell+`"}`)
		wait(t, p, time.Second)
	}
	if st := s.ClockAt(p.Sim.Now()); s.Ended() || st.Running != "" || st.LeftMs["red"] != 3000 || st.LeftMs["white"] != 3000 {
		t.Fatalf("after 10 s of setting up: ended %v, clocks %+v", s.Ended(), st)
	}
	playRandomStar(t, p, s, 1, rand.New(rand.NewPCG(3, 3)))
	g, _ := journalled(t, s)
	if len(g.Applied) != 1 || !g.Applied[0].Timed || g.Applied[0].MS != 0 {
		t.Fatalf("the first move: %+v, want timed, 0 ms", g.Applied)
	}
	if st := s.ClockAt(p.Sim.Now()); st.Running != "white" || st.LeftMs["red"] != 3000 {
		t.Fatalf("after the first move: %+v, want white's clock running, red's full", st)
	}
	if st := s.State(); st.Status != "playing" {
		t.Fatalf("status %s before the flag", st.Status)
	}
	wait(t, p, 4*time.Second)
	if !s.Ended() {
		t.Fatalf("no flag 4 s into white's 3 s: %+v", s.ClockAt(p.Sim.Now()))
	}
	for name, st := range map[string]referee.State{"State": s.State(), "StatusJSON": s.StatusJSON().State.(referee.State)} {
		if st.Status != "time" || st.ToMove != nil || st.Awaiting != "none" || st.Winner == nil || *st.Winner != "red" {
			t.Errorf("%s after white's flag fell: status %s, awaiting %s, to move %v, winner %v", name, st.Status, st.Awaiting, st.ToMove, st.Winner)
		}
	}
}
