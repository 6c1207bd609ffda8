package companion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/sim"
)

// lockedBuffer is a log destination safe for the session's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Hint behaviours of TestFailingHint.
const (
	hintWorks int32 = iota
	hintPanics
	hintFails
	hintIllegal
)

// A hint search that panics, fails or names an illegal move, asked for by
// the hint button, by a command and by an engine seat (AutoPlay), in a
// running session: each is logged with the position and shown as "no hint"
// (no hint lit, the message says so); the board loop goes on reading the
// board, every move before and after is journalled, and a working hint
// afterwards is shown.
func TestFailingHint(t *testing.T) {
	def := boards.Default("star")
	b, err := sim.New(sim.Options{Board: def, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var mode atomic.Int32
	works := SearchHint(func(int) int { return 1 })
	hint := func(st engine.State) (string, error) {
		switch mode.Load() {
		case hintPanics:
			var none []string
			return none[st.Plies()-st.Plies()-1], nil // index out of range [-1]
		case hintFails:
			return "", errors.New("the search gave up")
		case hintIllegal:
			return "a1-a1", nil
		}
		return works(st)
	}
	logs := &lockedBuffer{}
	s, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: b, JournalDir: t.TempDir(),
		NoResume: true, Source: "sim", Seed: 1, Hint: hint, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	autoDone := make(chan struct{})
	go func() {
		AutoPlay(ctx, s, NewEngines(EngineSeats{"white": 1}, []string{"red", "white"}), slog.New(slog.NewJSONHandler(logs, nil)))
		close(autoDone)
	}()
	defer func() { cancel(); <-done; <-autoDone }()
	live := NewLivePlayer(b, s)
	liveAct := func(js string) {
		t.Helper()
		if err := live.Act(json.RawMessage(js)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var made []string
	move := func(text string) {
		t.Helper()
		if text == "" {
			_, _, text = randomStarMove(t, s, rng)
		}
		from, to, _ := strings.Cut(text, "-")
		ply := s.State().Ply
		liveAct(`{"lift":"` + from + `"}`)
		liveAct(`{"place":"` + to + `"}`)
		waitFor(t, "the move "+text, func() bool { st := s.State(); return st.Ply == ply+1 && st.InSync })
		made = append(made, text)
		if got := s.State().LastMove; got != text {
			t.Fatalf("moved %s, the referee has %s", text, got)
		}
	}
	failed := 0
	noHint := func(what string) {
		t.Helper()
		failed++
		waitFor(t, "no hint after "+what, func() bool {
			return strings.Count(logs.String(), `"msg":"no hint"`) == failed && s.State().Message == referee.NoHintMessage
		})
		st := s.State()
		if st.Hint != "" {
			t.Errorf("%s: hint %q shown", what, st.Hint)
		}
		for c, l := range st.LEDs {
			if l.Role == referee.RoleHint.String() {
				t.Errorf("%s: %s lit as a hint", what, c)
			}
		}
	}

	mode.Store(hintPanics)
	move("") // red, after which the engine's white seat asks: a panic
	noHint("an engine seat's panicking search")
	move("") // a person moves for white
	if m := s.State().Message; m != "" {
		t.Errorf("message %q after the next move", m)
	}
	mode.Store(hintFails)
	liveAct(`{"press":"hint"}`) // red's button: an error
	noHint("a failing search on the hint button")
	mode.Store(hintWorks)
	move("") // red; white's engine seat gets its move
	waitFor(t, "the engine seat's move", func() bool { return s.State().Hint != "" })
	move(s.State().Hint) // carried out for white as lit
	mode.Store(hintIllegal)
	if err := s.Command("hint", ""); err != nil { // the page's hint command
		t.Fatal(err)
	}
	noHint("an illegal hint")
	mode.Store(hintPanics)
	liveAct(`{"press":"hint"}`) // once more, with a panic on the button
	noHint("a panicking search on the hint button")
	mode.Store(hintWorks)
	move("") // the board is still read: red's move goes through
	waitFor(t, "the engine seat's move", func() bool { return s.State().Hint != "" })
	move(s.State().Hint)

	st := s.State()
	if !slices.Equal(st.Moves, made) {
		t.Errorf("referee moves %v, made %v", st.Moves, made)
	}
	if got := journalMoves(t, s.JournalPath()); !slices.Equal(got, made) {
		t.Errorf("journal moves %v, made %v", got, made)
	}

	// The log names each failure with the position: its start format and a
	// record that replays to it.
	var failures []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %s: %v", sc.Text(), err)
		}
		if l["msg"] == "no hint" {
			failures = append(failures, l)
		}
	}
	if len(failures) != 4 {
		t.Fatalf("%d failures logged, want 4:\n%s", len(failures), logs.String())
	}
	for i, l := range failures {
		if l["level"] != "ERROR" || l["game"] != "star" {
			t.Errorf("failure %d: %v", i, l)
		}
		panicked := i == 0 || i == 3
		if stack, _ := l["stack"].(string); panicked != strings.Contains(stack, "hint_test.go") {
			t.Errorf("failure %d: panicked %v, stack %q", i, panicked, stack)
		}
		if e, _ := l["err"].(string); panicked && !strings.Contains(e, "index out of range [-1]") {
			t.Errorf("failure %d: err %q", i, e)
		}
		rec, _ := l["record"].(string)
		g, err := record.Replay(strings.NewReader(rec), "log")
		if err != nil {
			t.Fatalf("failure %d: the logged record %q: %v", i, rec, err)
		}
		pos, _ := json.Marshal(g.State.Position())
		if start, _ := l["start"].(string); string(pos) != start || float64(g.State.Plies()) != l["ply"] {
			t.Errorf("failure %d: the record replays to %s at ply %d, logged %s at ply %v", i, pos, g.State.Plies(), start, l["ply"])
		}
	}
}

func TestGuard(t *testing.T) {
	v, err := Guard(func() (int, error) { return 3, nil })
	if v != 3 || err != nil {
		t.Errorf("got %v, %v", v, err)
	}
	v, err = Guard(func() (int, error) { panic("boom") })
	var pe *PanicError
	if v != 0 || !errors.As(err, &pe) || pe.Value != "boom" || !bytes.Contains(pe.Stack, []byte("TestGuard")) {
		t.Errorf("got %v, %v", v, err)
	}
}

// A slow hint search (a level-5 search on a Pi Zero) runs off the board
// loop: while it searches, moves are read and LEDs lit; its answer, come
// too late for the position it was asked for, is not shown.
func TestSlowHintDoesNotStopTheBoard(t *testing.T) {
	def := boards.Default("star")
	b, err := sim.New(sim.Options{Board: def, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	hint := func(st engine.State) (string, error) {
		asked <- struct{}{}
		<-release
		return "b1-f3", nil
	}
	logs := &lockedBuffer{}
	s, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: b, JournalDir: t.TempDir(),
		NoResume: true, Source: "sim", Seed: 1, Hint: hint, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	live := NewLivePlayer(b, s)
	act := func(js string) {
		t.Helper()
		if err := live.Act(json.RawMessage(js)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	waitFor(t, "the board read", func() bool { return s.State().InSync })
	if err := s.Command("hint", ""); err != nil {
		t.Fatal(err)
	}
	<-asked // the search is under way and blocked
	frames := s.Frames()
	act(`{"lift":"b1"}`)
	act(`{"place":"f3"}`)
	waitFor(t, "the move read while the hint is searched", func() bool { st := s.State(); return st.Ply == 1 && st.InSync })
	if s.Frames() == frames {
		t.Error("no LED frame sent while the hint was searched")
	}
	close(release)
	s.WaitHints()
	if st := s.State(); st.Hint != "" || st.Ply != 1 {
		t.Errorf("a stale hint shown: hint %q ply %d", st.Hint, st.Ply)
	}
	if !strings.Contains(logs.String(), "moved on") {
		t.Errorf("the stale hint is not logged:\n%s", logs.String())
	}
}
