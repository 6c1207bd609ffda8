package companion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/enginetest"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
	"github.com/tabla-board/tabla/sim/script"
)

// act performs one action given as JSON.
func act(t testing.TB, p *Player, js string) {
	t.Helper()
	if err := p.Act(json.RawMessage(js)); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
}

func newSimSession(t testing.TB, h record.Header, dir string, noResume bool) (*Player, *Session) {
	t.Helper()
	def := boards.Default(h.Game)
	b, err := sim.New(sim.Options{Board: def, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	s, err := Open(Options{Header: h, Board: def, HW: b, JournalDir: dir, NoResume: noResume, Source: "sim", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return NewPlayer(b, s), s
}

// playRandomStar plays n random STAR moves physically.
func playRandomStar(t testing.TB, p *Player, s *Session, n int, rng *rand.Rand) {
	t.Helper()
	for i := 0; i < n; i++ {
		st := s.State()
		if st.Status != "playing" {
			return
		}
		// pick a legal move on a copy of the game
		g, err := record.Replay(strings.NewReader(gameRecord(t, s)), "x")
		if err != nil {
			t.Fatal(err)
		}
		moves := g.State.Moves(nil)
		m := engine.MoveString(g.State, moves[rng.IntN(len(moves))])
		from, to, _ := strings.Cut(m, "-")
		act(t, p, `{"lift":"`+from+`"}`)
		act(t, p, `{"place":"`+to+`"}`)
		if got := s.State().LastMove; got != m {
			t.Fatalf("move %d: played %s, referee has %s", i, m, got)
		}
	}
}

// gameRecord returns the session's journal as a clean record.
func gameRecord(t testing.TB, s *Session) string {
	data, err := os.ReadFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, l := range strings.SplitAfter(string(data), "\n") {
		if i == 0 || strings.HasPrefix(l, `{"move":`) || strings.HasPrefix(l, `{"roll":`) {
			b.WriteString(l)
		}
	}
	return b.String()
}

// The daemon is killed at any byte of its journal, the header's included:
// the session started on the directory either resumes, with every move
// whose line was written before the cut, brings the board back in line, and
// the game goes on; or (the header line not whole) starts a new game, the
// torn file moved into unreadable/ with every byte kept and a log line
// saying so.
func TestJournalCutResume(t *testing.T) {
	dir := t.TempDir()
	h := record.Header{Game: "star", First: "red"}
	p, s := newSimSession(t, h, dir, true)
	playRandomStar(t, p, s, 6, rand.New(rand.NewPCG(3, 4)))
	full, err := os.ReadFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	moves := s.State().Moves
	header := bytes.IndexByte(full, '\n')
	resumed, fresh, skipped := 0, 0, 0
	for cut := 0; cut <= len(full); cut++ {
		prefix := full[:cut]
		// the moves whose lines are complete in the prefix
		var want []string
		sc := bufio.NewScanner(bytes.NewReader(prefix))
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, `{"move":`) && json.Valid([]byte(l)) {
				var ev struct{ Move string }
				json.Unmarshal([]byte(l), &ev)
				want = append(want, ev.Move)
			}
		}
		if !slices.Equal(want, moves[:len(want)]) {
			t.Fatalf("cut %d: moves not a prefix", cut)
		}
		// going on is slower: at line ends and every 37th byte
		goOn := cut%37 == 0 || cut == len(full) || full[max(cut-1, 0)] == '\n' || (cut < len(full) && full[cut] == '\n')
		if enginetest.Reduced() && cut > header && !goOn && cut%4 != 0 {
			// Under the race detector a quarter of the cuts inside a move's
			// line (each a session opened and closed as the others are):
			// every cut of the header and at the line ends, and the game
			// going on, are kept; .ci/run's step 4 cuts at every byte
			// without it, as TABLA_LONG=1 does with it.
			skipped++
			continue
		}
		rdir := filepath.Join(dir, "cut", strconv.Itoa(cut))
		if err := os.MkdirAll(rdir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(rdir, filepath.Base(s.JournalPath()))
		if err := os.WriteFile(name, prefix, 0o644); err != nil {
			t.Fatal(err)
		}
		// the whole header line is there (its newline may be missing)
		whole := cut > header || json.Valid(prefix)
		func() {
			b, err := sim.New(sim.Options{Board: boards.Default(h.Game), Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var logged bytes.Buffer
			rs, err := Open(Options{Header: h, Board: b.Def(), HW: b, JournalDir: rdir, Source: "sim", Seed: 1,
				Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			if err != nil {
				t.Fatalf("cut %d of %d: the session does not start: %v", cut, len(full), err)
			}
			defer rs.Close()
			st := rs.State()
			if whole {
				resumed++
				if rs.Resumed() != name {
					t.Fatalf("cut %d: resumed %q, want %q\nlog:\n%s", cut, rs.Resumed(), name, logged.String())
				}
				if !slices.Equal(st.Moves, want) && !(len(want) == 0 && len(st.Moves) == 0) {
					t.Fatalf("cut %d: resumed moves %v, want %v", cut, st.Moves, want)
				}
			} else {
				fresh++
				aside := filepath.Join(rdir, UnreadableDir, filepath.Base(name))
				if rs.Resumed() != "" || len(st.Moves) != 0 || rs.JournalPath() == name {
					t.Fatalf("cut %d: torn header: resumed %q with moves %v in %s, want a new game", cut, rs.Resumed(), st.Moves, rs.JournalPath())
				}
				kept, err := os.ReadFile(aside)
				if err != nil || !bytes.Equal(kept, prefix) {
					t.Fatalf("cut %d: the torn journal was not moved aside whole: %q (err %v), want %q", cut, kept, err, prefix)
				}
				if _, err := os.Stat(name); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("cut %d: the torn journal is still in place (%v)", cut, err)
				}
				if l := logged.String(); !strings.Contains(l, "moved aside") || !strings.Contains(l, "moved_to="+aside) || !strings.Contains(l, "line=1 byte=0") {
					t.Fatalf("cut %d: log does not say what was moved where and why:\n%s", cut, l)
				}
			}
			if !goOn {
				return
			}
			rp := NewPlayer(b, rs)
			defer rp.Close()
			// the virtual board starts from the start layout: guide it back
			fixBoard(t, rp, rs)
			if st := rs.State(); !st.InSync || st.Mode != "play" {
				t.Fatalf("cut %d: after correction mode %s in_sync %v pending %v", cut, st.Mode, st.InSync, st.Pending)
			}
			// and the game goes on
			playRandomStar(t, rp, rs, 1, rand.New(rand.NewPCG(uint64(cut), 1)))
			if got := len(rs.State().Moves); got != len(want)+1 {
				t.Fatalf("cut %d: %d moves after going on, want %d", cut, got, len(want)+1)
			}
			res, err := ReplayFile(rs.JournalPath())
			if err != nil {
				t.Fatal(err)
			}
			if !res.Match() {
				t.Fatalf("cut %d: the resumed journal does not replay:\n%s", cut, res.Diff())
			}
		}()
		os.RemoveAll(rdir)
	}
	t.Logf("%d bytes (header %d): %d cuts resumed, %d started afresh, %d skipped", len(full), header+1, resumed, fresh, skipped)
	if fresh != header || resumed != len(full)+1-header-skipped {
		t.Errorf("resumed %d, fresh %d: want %d and %d", resumed, fresh, len(full)+1-header-skipped, header)
	}
}

// fixBoard follows the correction LEDs: pairs first, then takes and fills.
func fixBoard(t testing.TB, p *Player, s *Session) {
	t.Helper()
	for round := 0; round < 40 && !s.State().InSync; round++ {
		st := s.State()
		var surplus, missing []string
		for c, k := range st.Sensed {
			if st.Expected[c] == "" || (k != "?" && k != st.Expected[c]) {
				surplus = append(surplus, c)
			}
		}
		for c := range st.Expected {
			if st.Sensed[c] == "" {
				missing = append(missing, c)
			}
		}
		slices.Sort(surplus)
		slices.Sort(missing)
		switch {
		case len(surplus) > 0 && len(missing) > 0:
			act(t, p, `{"lift":"`+surplus[0]+`"}`)
			act(t, p, `{"place":"`+missing[0]+`"}`)
		case len(surplus) > 0:
			act(t, p, `{"remove":"`+surplus[0]+`"}`)
		case len(missing) > 0:
			act(t, p, `{"place":"`+missing[0]+`","piece":"`+st.Expected[missing[0]]+`"}`)
		}
	}
}

// fake is a fake board that starts with the game's start layout.
type fakeBoard struct {
	*hwFake
	def *boards.Board
}

func newFake(game string) *fakeBoard {
	def := boards.Default(game)
	return &fakeBoard{hwFake: newHWFake(def), def: def}
}

// snapshot feeds the start layout to s.
func (f *fakeBoard) snapshot(s *Session) {
	codes := make([]byte, len(f.def.Sensors))
	for _, p := range f.def.Start {
		c := f.def.MustIndex(p.Cell)
		for sensor, cell := range f.def.Sensors {
			if cell == c {
				codes[sensor] = hardware.Occupied
			}
		}
	}
	s.Handle(hardware.Event{Kind: hardware.Snapshot, Codes: codes})
}

// TestRayMemory: a RAY session (841 cells) after a long game stays small.
func TestRayMemory(t *testing.T) {
	dir := t.TempDir()
	p, s := newSimSession(t, record.Header{Game: "ray"}, dir, true)
	rng := rand.New(rand.NewPCG(5, 6))
	faces := []string{"N", "S", "E", "W"}
	for i := 0; i < 400 && s.State().Status == "playing"; i++ {
		act(t, p, `{"roll":"`+faces[rng.IntN(4)]+`"}`)
		st := s.State()
		if st.Awaiting != "move" {
			continue
		}
		var from, to string
		for c, l := range st.LEDs {
			switch l.Role {
			case "turn":
				from = c
			case "target":
				to = c
			}
		}
		act(t, p, `{"lift":"`+from+`"}`)
		act(t, p, `{"place":"`+to+`"}`)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rss := vmRSS()
	t.Logf("RAY after %d plies: heap in use %.1f MB, runtime Sys %.1f MB, VmRSS %s", s.State().Ply,
		float64(m.HeapInuse)/(1<<20), float64(m.Sys)/(1<<20), rss)
	if m.HeapInuse > 30<<20 {
		t.Errorf("heap in use %d bytes, want under 30 MB", m.HeapInuse)
	}
}

func vmRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "?"
}

// BenchmarkSettledEventToLEDFrame: from the read of the settled board that
// completes a move to the LED frame handed to the board, through the
// session; ns/frame is that latency, ns/op the whole work of a move and its
// physical takeback (two frames) including, with /journal, the journal
// writes and their fsyncs, which come after the frame.
func BenchmarkSettledEventToLEDFrame(b *testing.B) {
	for _, g := range []struct {
		name string
		h    record.Header
		roll string
		from string
		to   string
	}{
		{"star", record.Header{Game: "star", First: "red"}, "", "b1", "f3"},
		{"ray", record.Header{Game: "ray"}, "S", "a29", "a28"},
		{"daha", record.Header{Game: "daha"}, "3", "C0", "O"},
		{"six", record.Header{Game: "six"}, "", "", "-1,0"},
	} {
		for _, journal := range []bool{false, true} {
			name := g.name
			if journal {
				name += "/journal"
			}
			b.Run(name, func(b *testing.B) {
				dir := ""
				if journal {
					dir = b.TempDir()
				}
				def := boards.Default(g.h.Game)
				hw := newHWFake(def)
				s, err := Open(Options{Header: g.h, Board: def, HW: hw, JournalDir: dir, NoResume: true, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				(&fakeBoard{hwFake: hw, def: def}).snapshot(s)
				sensor := map[string]int{}
				for i, c := range def.Sensors {
					sensor[def.Cells[c].Name] = i
				}
				at := time.Second
				ev := func(cell string, code byte) {
					at += 200 * time.Millisecond
					s.Handle(hardware.Event{Kind: hardware.Change, Sensor: sensor[cell], Code: code, At: at})
				}
				if g.roll != "" {
					s.Handle(hardware.Event{Kind: hardware.Roll, Face: g.roll, At: at})
				}
				settle := func() {
					frames := hw.frames
					s.Tick(at + 150*time.Millisecond)
					if hw.frames == frames {
						b.Fatal("no frame sent")
					}
				}
				b.ResetTimer()
				var settled time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					if g.from != "" {
						ev(g.from, 0)
						s.Tick(at + 150*time.Millisecond)
					}
					ev(g.to, hardware.Occupied)
					b.StartTimer()
					t0 := time.Now()
					settle() // the move
					settled += hw.lastAt.Sub(t0)
					b.StopTimer()
					ev(g.to, 0)
					if g.from != "" {
						s.Tick(at + 150*time.Millisecond)
						ev(g.from, hardware.Occupied)
					}
					b.StartTimer()
					t0 = time.Now()
					settle() // the takeback, proposed
					settled += hw.lastAt.Sub(t0)
					b.StopTimer()
					if err := s.Command("confirm", ""); err != nil { // and taken
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if st := s.State(); st.Ply != 0 {
					b.Fatalf("ply %d after the takebacks", st.Ply)
				}
				b.ReportMetric(float64(settled.Nanoseconds())/float64(2*b.N), "ns/frame")
			})
		}
	}
}

// The live player (the simulator page, /api/action) acts on a board a
// running session reads on its own clock; actions take no board time.
func TestLivePlayer(t *testing.T) {
	def := boards.Default("star")
	b, err := sim.New(sim.Options{Board: def, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, Board: def, HW: b, Source: "sim", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	p := NewLivePlayer(b, s)
	for _, js := range []string{`{"lift":"b1"}`, `{"place":"f3"}`} {
		if err := p.Act(json.RawMessage(js)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	if b.Now() != 0 {
		t.Errorf("board time %v after two live actions, want 0", b.Now())
	}
	for deadline := time.Now().Add(5 * time.Second); s.State().LastMove != "b1-f3"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no move: %+v", s.State())
		}
	}
	for _, tc := range []struct {
		js   string
		is   error
		want string
	}{
		{`{"expect":{"to_move":"white","last_move":"b1-f3"}}`, nil, ""},
		{`{"expect":{"to_move":"red"}}`, script.ErrExpect, `expect: to_move: got "white", want "red"`},
		{`{"lift":"z99"}`, script.ErrSyntax, `bad action: lift: no cell "z99"`},
		{`{"lift":"b1"}`, script.ErrAction, "empty"},
		{`{"wait":500}`, nil, ""},
	} {
		err := p.Act(json.RawMessage(tc.js))
		if tc.is == nil && err != nil || tc.is != nil && (!errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %v %q", tc.js, err, tc.is, tc.want)
		}
	}
	if b.Now() != 500*time.Millisecond {
		t.Errorf("board time %v after a wait of 500 ms", b.Now())
	}
}

// The player on virtual time: 200 ms an action, the settled board read
// after it, a failed expectation an error.
func TestPlayerAct(t *testing.T) {
	p, s := newSimSession(t, record.Header{Game: "star", First: "red"}, t.TempDir(), true)
	act(t, p, `{"lift":"b1"}`)
	act(t, p, `{"place":"f3"}`)
	if got := s.State().LastMove; got != "b1-f3" {
		t.Errorf("last move %q", got)
	}
	act(t, p, `{"wait":100}`)
	if got := p.Sim.Now(); got != 500*time.Millisecond {
		t.Errorf("board time %v, want 500ms", got)
	}
	act(t, p, `{"expect":{"to_move":"white","in_sync":true,"lit":{"pivot":[]}}}`)
	if err := p.Act(json.RawMessage(`{"expect":{"to_move":"red"}}`)); !errors.Is(err, script.ErrExpect) || !strings.Contains(err.Error(), "expect: to_move") {
		t.Errorf("failed expectation: %v", err)
	}
}
