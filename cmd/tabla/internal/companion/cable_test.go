package companion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware/serial"
	"github.com/tabla-board/tabla/sim"
)

// randomStarMove picks a legal move of the session's game: its from and to
// cells and its text.
func randomStarMove(t testing.TB, s *Session, rng *rand.Rand) (from, to, text string) {
	t.Helper()
	g, err := record.Replay(strings.NewReader(gameRecord(t, s)), "x")
	if err != nil {
		t.Fatal(err)
	}
	moves := g.State.Moves(nil)
	text = engine.MoveString(g.State, moves[rng.IntN(len(moves))])
	from, to, _ = strings.Cut(text, "-")
	return from, to, text
}

// journalMoves returns the moves of a journal's move lines.
func journalMoves(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := sc.Bytes(); bytes.HasPrefix(l, []byte(`{"move":`)) {
			var ev struct{ Move string }
			if err := json.Unmarshal(l, &ev); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, ev.Move)
		}
	}
	return out
}

// 120 cable pulls on the virtual board (virtual time), between moves, right
// after one, in the middle of one and with a whole move made while the
// cable is out: after each replug every accepted move is still there (in
// the referee and in the journal), the board is brought back in line if it
// must be, and the game goes on with a move the referee accepts.
func TestCablePulls(t *testing.T) {
	h := record.Header{Game: "star", First: "red"}
	p, s := newSimSession(t, h, t.TempDir(), true)
	rng := rand.New(rand.NewPCG(7, 8))
	var accepted []string
	recognised, corrected := 0, 0
	const pulls = 120
	for i := range pulls {
		from, to, text := randomStarMove(t, s, rng)
		var script []string
		switch i % 4 {
		case 0: // between moves
			script = []string{`{"fault":"unplug"}`, `{"fault":"replug"}`}
		case 1: // a whole move while the cable is out
			script = []string{`{"fault":"unplug"}`, `{"lift":"` + from + `"}`, `{"place":"` + to + `"}`, `{"fault":"replug"}`}
		case 2: // in the middle of a move
			script = []string{`{"lift":"` + from + `"}`, `{"fault":"unplug"}`, `{"place":"` + to + `"}`, `{"fault":"replug"}`}
		case 3: // right after a move, before the board was read
			script = []string{`{"lift":"` + from + `"}`, `{"place":"` + to + `"}`, `{"fault":"unplug"}`, `{"wait":500}`, `{"fault":"replug"}`}
		}
		for _, a := range script {
			act(t, p, a)
		}
		st := s.State()
		if st.Conn != "connected" {
			t.Fatalf("pull %d: conn %q after the replug", i, st.Conn)
		}
		if len(st.Moves) < len(accepted) || !slices.Equal(st.Moves[:len(accepted)], accepted) {
			t.Fatalf("pull %d (%v): moves %v, accepted before %v", i, script, st.Moves, accepted)
		}
		switch {
		case i%4 != 0 && slices.Equal(st.Moves, append(slices.Clone(accepted), text)):
			recognised++
		case len(st.Moves) != len(accepted):
			t.Fatalf("pull %d (%v): moves %v, want %v and perhaps %s", i, script, st.Moves, accepted, text)
		}
		if !st.InSync {
			corrected++
			fixBoard(t, p, s)
		}
		if st := s.State(); !st.InSync || st.Mode != "play" {
			t.Fatalf("pull %d: after correction mode %s in_sync %v", i, st.Mode, st.InSync)
		}
		// the game goes on
		before := len(s.State().Moves)
		playRandomStar(t, p, s, 1, rng)
		accepted = s.State().Moves
		if len(accepted) != before+1 {
			t.Fatalf("pull %d: %d moves after going on, want %d", i, len(accepted), before+1)
		}
		if got := journalMoves(t, s.JournalPath()); !slices.Equal(got, accepted) {
			t.Fatalf("pull %d: journal moves %v, referee %v", i, got, accepted)
		}
	}
	t.Logf("%d pulls, %d moves: %d moves made around a pull recognised, %d boards corrected", pulls, len(accepted), recognised, corrected)
	res, err := ReplayFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Match() {
		t.Fatalf("the journal does not replay:\n%s", res.Diff())
	}
}

// silentPort is a serial line whose board can fall silent: from then on
// nothing it sends reaches the host and nothing the host sends reaches it,
// as with a hung microcontroller, until the host dials again.
type silentPort struct {
	io.ReadWriteCloser
	silent atomic.Bool
}

func (p *silentPort) Read(b []byte) (int, error) {
	for {
		n, err := p.ReadWriteCloser.Read(b)
		if err != nil || !p.silent.Load() {
			return n, err
		}
	}
}

func (p *silentPort) Write(b []byte) (int, error) {
	if p.silent.Load() {
		return len(b), nil
	}
	return p.ReadWriteCloser.Write(b)
}

// countLines counts the lines of a file that contain sub.
func countLines(t testing.TB, path, sub string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte(sub))
}

// waitFor polls cond; the deadline only guards against a hang (no timing
// is asserted).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// sensedIsTruth: the cells the referee reads occupied are the board's.
func sensedIsTruth(def *boards.Board, st referee.State, truth []byte) bool {
	n := 0
	for s, code := range truth {
		if code == 0 || def.Sensors[s] < 0 {
			continue
		}
		n++
		if _, ok := st.Sensed[def.Cells[def.Sensors[s]].Name]; !ok {
			return false
		}
	}
	return n == len(st.Sensed)
}

// waitForState is waitFor that says, when it gives up, what the referee
// and the line held: the failure is then read from the log, not guessed.
func waitForState(t testing.TB, s *Session, hw *serial.Board, journal, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	changes := s.Subscribe(ctx) // woken by every change of the session's state
	for !cond() {
		if _, ok := <-changes; !ok {
			st := s.State()
			tail, _ := os.ReadFile(journal)
			if len(tail) > 3000 {
				tail = tail[len(tail)-3000:]
			}
			t.Fatalf("gave up waiting for %s: conn %s, mode %s, in sync %v, pending %v, moves %v, sensed %v, expected %v, message %q; line %+v; journal ends:\n%s",
				what, st.Conn, st.Mode, st.InSync, st.Pending, st.Moves, st.Sensed, st.Expected, st.Message, hw.Stats(), tail)
		}
	}
}

// 100 times the board falls silent (a hung microcontroller on the serial
// line: the virtual board on a pty behind the real serial driver), between
// moves, with a move made during the silence and right after a move: the
// driver's heartbeat watchdog declares it gone and reconnects, and every
// accepted move is still there, the board is in line (or brought back),
// and the game goes on.
func TestSilentBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("real time, a pty")
	}
	def := boards.Default("star")
	vb, err := sim.New(sim.Options{Board: def, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer vb.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pty, err := sim.NewPTY(ctx, vb)
	if err != nil {
		t.Fatal(err)
	}
	go func() { // the board's clock follows the host's
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tk.C:
				vb.Advance(now.Sub(last))
				last = now
			}
		}
	}()
	var line atomic.Pointer[silentPort]
	dial := serial.PortDialer(pty.Path(), 0, nil)
	hw, err := serial.Open(ctx, serial.Config{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			rw, err := dial(ctx)
			if err != nil {
				return nil, err
			}
			p := &silentPort{ReadWriteCloser: rw}
			line.Store(p)
			return p, nil
		},
		Heartbeat: 20 * time.Millisecond, MissedHeartbeats: 3, HelloInterval: 50 * time.Millisecond,
		BackoffMin: time.Millisecond, BackoffMax: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer hw.Close()
	s, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: hw, JournalDir: t.TempDir(),
		NoResume: true, Source: "sim", Settle: 30 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	live := NewLivePlayer(vb, s)
	liveAct := func(js string) {
		t.Helper()
		if err := live.Act(json.RawMessage(js)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	journal := s.JournalPath()
	waitFor(t, "the first snapshot", func() bool { st := s.State(); return st.InSync && st.Conn == "connected" })

	rng := rand.New(rand.NewPCG(9, 10))
	var accepted []string
	recognised := 0
	const silences = 100
	for i := range silences {
		watchdogs := countLines(t, journal, "heartbeat watchdog")
		connects := countLines(t, journal, `{"conn":"connected"`)
		from, to, text := randomStarMove(t, s, rng)
		moved := i%3 != 0
		if i%3 == 2 { // right after a move
			liveAct(`{"lift":"` + from + `"}`)
			liveAct(`{"place":"` + to + `"}`)
		}
		line.Load().silent.Store(true)
		if i%3 == 1 { // a move while the board says nothing
			liveAct(`{"lift":"` + from + `"}`)
			liveAct(`{"place":"` + to + `"}`)
		}
		waitFor(t, "the watchdog and the reconnection", func() bool {
			return countLines(t, journal, "heartbeat watchdog") > watchdogs && countLines(t, journal, `{"conn":"connected"`) > connects
		})
		// The board read, and everything the board did delivered: its
		// changes may reach the daemon after the reconnection's snapshot,
		// and a check made before them sees a board without the move (the
		// next move then lands on top of it: two moves at once).
		waitFor(t, "the board read", func() bool {
			st := s.State()
			return st.Conn == "connected" && len(st.Pending) == 0 && (st.InSync || st.Mode == "correct") && sensedIsTruth(def, st, vb.Truth())
		})
		st := s.State()
		if len(st.Moves) < len(accepted) || !slices.Equal(st.Moves[:len(accepted)], accepted) {
			t.Fatalf("silence %d: moves %v, accepted before %v", i, st.Moves, accepted)
		}
		switch {
		case moved && slices.Equal(st.Moves, append(slices.Clone(accepted), text)):
			recognised++
		case len(st.Moves) != len(accepted):
			t.Fatalf("silence %d: moves %v, want %v and perhaps %s", i, st.Moves, accepted, text)
		}
		if !st.InSync {
			t.Fatalf("silence %d: out of line after the reconnection: mode %s, sensed %v, expected %v", i, st.Mode, st.Sensed, st.Expected)
		}
		// the game goes on
		before := len(st.Moves)
		from, to, text = randomStarMove(t, s, rng)
		liveAct(`{"lift":"` + from + `"}`)
		liveAct(`{"place":"` + to + `"}`)
		waitForState(t, s, hw, journal, "the move "+text, func() bool { return len(s.State().Moves) > before })
		accepted = s.State().Moves
		if accepted[before] != text || len(accepted) != before+1 {
			t.Fatalf("silence %d: moves %v after %s", i, accepted, text)
		}
		if got := journalMoves(t, journal); !slices.Equal(got, accepted) {
			t.Fatalf("silence %d: journal moves %v, referee %v", i, got, accepted)
		}
	}
	t.Logf("%d silences (%d watchdog reconnections in all), %d moves: %d made around a silence recognised; line %+v",
		silences, countLines(t, journal, "heartbeat watchdog"), len(accepted), recognised, hw.Stats())
}
