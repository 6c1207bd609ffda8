package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/games"
	"github.com/tabla-board/tabla/engine/record"
)

const rayGame = `{"tabla":1,"game":"ray","meta":{"place":"Kadıköy"}}
{"roll":"W","by":"red"}
{"move":"pass"}
{"sensor":{"cell":"a29","code":0}}
{"roll":"S","t":"2026-11-22T10:00:00.5+03:00","source":"board"}
{"move":"ac28"}
`

func TestReplayThroughAwkwardReaders(t *testing.T) {
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	} {
		t.Run(name, func(t *testing.T) {
			g, err := record.Replay(wrap(strings.NewReader(rayGame)), "game.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Applied) != 4 || g.Other != 1 || g.Lines != 6 {
				t.Errorf("applied %d other %d lines %d", len(g.Applied), g.Other, g.Lines)
			}
			if got := record.Summary(g.State); *got.ToMove != "blue" || got.Ply != 2 {
				t.Errorf("summary %+v", got)
			}
		})
	}
	_, err := record.Replay(iotest.TimeoutReader(strings.NewReader(rayGame)), "slow.jsonl")
	if !errors.Is(err, iotest.ErrTimeout) {
		t.Errorf("timeout reader: %v", err)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		kind       error
		msg        string
	}{
		{"empty", "", 1, record.ErrHeader, "header line is missing"},
		{"torn header", `{"tabla":1,"ga`, 1, record.ErrTorn, "cut off"},
		{"torn event", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n{\"mo", 3, record.ErrTorn, "cut off"},
		{"bad JSON mid-file", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\n{\"roll\":\"W\"}\n", 2, record.ErrSyntax, "not valid JSON"},
		{"version 2", `{"tabla":2,"game":"ray"}` + "\n", 1, record.ErrHeader, "version 2"},
		{"unknown game", `{"tabla":1,"game":"chess"}` + "\n", 1, record.ErrHeader, "chess"},
		{"players for star", `{"tabla":1,"game":"star","first":"red","players":2}` + "\n", 1, record.ErrHeader, "players belongs to six"},
		{"start unknown field", `{"tabla":1,"game":"ray","start":{"to_move":"red","pieces":{},"colour":1}}` + "\n", 1, record.ErrHeader, "start"},
		{"duplicate key", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\",\"roll\":\"N\"}\n", 2, record.ErrSyntax, "given twice"},
		{"extra field", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\",\"colour\":\"red\"}\n", 2, record.ErrSyntax, "unknown field \"colour\""},
		{"move as number", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n{\"move\":3}\n", 3, record.ErrSyntax, "want a string"},
		{"move before roll", "{\"tabla\":1,\"game\":\"ray\"}\n{\"move\":\"pass\"}\n", 2, record.ErrEvent, "must roll first"},
		{"two rolls", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n{\"roll\":\"N\"}\n", 3, record.ErrEvent, "must move, not roll"},
		{"roll in star", "{\"tabla\":1,\"game\":\"star\",\"first\":\"red\"}\n{\"roll\":3}\n", 2, record.ErrEvent, "no dice"},
		{"unknown player", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\",\"by\":\"green\"}\n", 2, record.ErrEvent, "not a player"},
		{"second header", "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"N\"}\n", 3, record.ErrSecondHeader, "a second header line (a ray record begins here, at byte 38)"},
		{"second header, tabla not first", "{\"tabla\":1,\"game\":\"ray\"}\n{\"game\":\"star\",\"tabla\":1,\"first\":\"red\"}\n", 2, record.ErrSecondHeader, "a star record begins here"},
		{"second header, no game", "{\"tabla\":1,\"game\":\"ray\"}\n{\"tabla\":1}\n", 2, record.ErrSyntax, "a second header line (a record begins here, at byte 25)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := record.Replay(strings.NewReader(tc.text), "r.jsonl")
			var re *record.Error
			if !errors.As(err, &re) || !errors.Is(err, tc.kind) {
				t.Fatalf("got %v, want a %v", err, tc.kind)
			}
			if re.Line != tc.line || !strings.Contains(re.Msg, tc.msg) {
				t.Errorf("got %v, want line %d and %q", err, tc.line, tc.msg)
			}
			prefix := "r.jsonl:" + itoa(tc.line) + ": line " + itoa(tc.line) + ": "
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("%q does not start with %q", err.Error(), prefix)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestRepair(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want, cut string
	}{
		{"clean", rayGame, rayGame, ""},
		{"torn", rayGame + `{"roll":"N","t":"2026-`, rayGame, `{"roll":"N","t":"2026-`},
		{"no newline", rayGame + `{"roll":"N"}`, rayGame + "{\"roll\":\"N\"}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".jsonl")
			os.WriteFile(p, []byte(tc.text), 0o644)
			cut, err := record.Repair(p)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tc.want || string(cut) != tc.cut {
				t.Errorf("got %q cut %q", got, cut)
			}
			if _, err := record.Replay(bytes.NewReader(got), p); err != nil {
				t.Errorf("repaired record does not replay: %v", err)
			}
		})
	}
}

// TestEveryGameRoundTrip plays random games of every registered game, writes
// them with Writer, and replays them: every generated move must be accepted
// and lead to the same position.
func TestEveryGameRoundTrip(t *testing.T) {
	headers := []record.Header{
		{Game: "ray"}, {Game: "star", First: "red"}, {Game: "star", First: "white"},
		{Game: "daha"}, {Game: "gyges"}, {Game: "gyges", Variant: "advanced", First: "north"},
		{Game: "six"}, {Game: "six", Variant: "advanced"}, {Game: "six", Players: 4},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]engine.Move, 0, 2048)
	for _, h := range headers {
		if !registered(h.Game) {
			continue
		}
		for game := 0; game < 5; game++ {
			h := h
			st, err := record.NewState(&h)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w := record.NewWriter(&out)
			if err := w.WriteHeader(&h); err != nil {
				t.Fatal(err)
			}
			die := st.Info().Die
			for step := 0; step < 600 && st.Awaiting() != engine.AwaitNone; step++ {
				by := st.Info().Seats[st.ToMove()]
				if st.Awaiting() == engine.AwaitRoll {
					f := rng.IntN(len(die.Faces))
					st.Roll(f)
					w.Write(record.Line{Roll: die.Faces[f], Numeric: die.Numeric, By: by, T: time.Unix(int64(step), 0).UTC(), Source: "engine"})
					continue
				}
				moves := st.Moves(buf[:0])
				m := moves[rng.IntN(len(moves))]
				w.Write(record.Line{Move: engine.MoveString(st, m), By: by})
				st.Play(m)
			}
			g, err := record.Replay(&out, h.Game+".jsonl")
			if err != nil {
				t.Fatalf("%s game %d: %v", h.Game, game, err)
			}
			if g.State.Hash() != st.Hash() || !reflect.DeepEqual(record.Summary(g.State), record.Summary(st)) {
				t.Fatalf("%s game %d: replay ends elsewhere", h.Game, game)
			}
		}
	}
}

func registered(game string) bool {
	for _, g := range engine.Games() {
		if g == game {
			return true
		}
	}
	return false
}

func FuzzReplay(f *testing.F) {
	f.Add([]byte(rayGame))
	f.Add([]byte("{\"tabla\":1,\"game\":\"star\",\"first\":\"red\"}\n{\"move\":\"b1-d9\"}\n"))
	f.Add([]byte("{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n{\"mo"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := record.Replay(bytes.NewReader(data), "fuzz")
		if err != nil {
			var re *record.Error
			if !errors.As(err, &re) && !strings.Contains(err.Error(), "boards:") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		_ = record.Summary(g.State)
	})
}

// endless is an endless line of x after a header: a file that is not a
// record, or a damaged one.
type endless struct{ head string }

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	for i := n; i < len(p); i++ {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestLongLine(t *testing.T) {
	rd := record.NewReader(&endless{head: "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n"}, "huge.jsonl")
	for rd.Next() {
	}
	err := rd.Err()
	var re *record.Error
	if !errors.As(err, &re) || !errors.Is(err, record.ErrLong) {
		t.Fatalf("got %v, want a *record.Error wrapping ErrLong", err)
	}
	if re.Line != 3 || re.Offset != 38 {
		t.Errorf("got line %d byte %d, want line 3 byte 38", re.Line, re.Offset)
	}
	for _, want := range []string{"huge.jsonl:3:", strconv.Itoa(record.MaxLine)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to name %q", err, want)
		}
	}
}

func TestOffset(t *testing.T) {
	text := "{\"tabla\":1,\"game\":\"ray\"}\r\n{\"roll\":\"W\"}\n\n{\"move\":\"pass\"}\n"
	_, err := record.Replay(strings.NewReader(text), "gap.jsonl")
	var re *record.Error
	if !errors.As(err, &re) || re.Line != 3 || re.Offset != 39 {
		t.Fatalf("got %v (%+v), want line 3 at byte 39", err, re)
	}
	text = "{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\"}\n{\"roll\":\"N\"}\n"
	_, err = record.Replay(strings.NewReader(text), "illegal.jsonl")
	if !errors.As(err, &re) || !errors.Is(err, record.ErrEvent) || re.Line != 3 || re.Offset != 38 {
		t.Fatalf("got %v (%+v), want an illegal roll on line 3 at byte 38", err, re)
	}
}

// Board events, most of a journal, are read without allocating.
func TestOtherKindsDoNotAllocate(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("{\"tabla\":1,\"game\":\"ray\"}\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "{\"tick\":%d}\n{\"sensor\":\"a29\",\"code\":255,\"at\":%d}\n", i, i)
	}
	rd := record.NewReader(bytes.NewReader(b.Bytes()), "ticks.jsonl")
	if _, err := rd.Header(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if !rd.Next() {
			t.Fatal(rd.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("got %v allocations a line, want 0", allocs)
	}
	if k := rd.Event().Kind; k != "tick" && k != "sensor" {
		t.Errorf("kind %q", k)
	}
}

// BenchmarkReplayJournal replays a journal of board events around a few
// moves: the memory a reader takes must not grow with its lines.
func BenchmarkReplayJournal(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\",\"by\":\"red\"}\n{\"move\":\"pass\"}\n")
	for i := range 200_000 {
		fmt.Fprintf(&buf, "{\"sensor\":\"a29\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n", i*200, i*200+100)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		g, err := record.Replay(bytes.NewReader(data), "journal.jsonl")
		if err != nil || g.Other != 400_000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayRecord replays a record of only tick lines after a move.
func BenchmarkReplayRecord(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("{\"tabla\":1,\"game\":\"ray\"}\n{\"roll\":\"W\",\"by\":\"red\"}\n{\"move\":\"pass\"}\n")
	for range 400_000 {
		buf.WriteString("{\"tick\":1}\n")
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := record.Replay(bytes.NewReader(data), "ticks.jsonl"); err != nil {
			b.Fatal(err)
		}
	}
}
