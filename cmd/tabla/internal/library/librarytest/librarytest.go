// Package librarytest writes game libraries for tests: random legal games
// of every game, a game with a missed win, and files that are not game
// records (torn, empty, binary, foreign).
package librarytest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// Headers are a game of each of the five.
var Headers = []record.Header{
	{Game: "daha"},
	{Game: "star", First: "red"},
	{Game: "gyges"},
	{Game: "ray"},
	{Game: "six", Players: 2},
}

// Random returns a random legal game: the header, then rolls and moves
// (each move timed a minute after the previous from start) until the game
// ends or plies moves are made.
func Random(h record.Header, seed uint64, plies int, start time.Time) ([]byte, error) {
	return random(h, seed, plies, start, nil)
}

// TimedHeader is the header of Timed's game: players' names, an event
// and a round, a time control.
var TimedHeader = record.Header{Game: "star", First: "red",
	Names: map[string]string{"red": "Ayşe Yılmaz", "white": "Mehmet Öz"}, Event: "Kadıköy club night", Round: "3",
	Clock: clock.Controls{"": {Base: time.Minute, Inc: 2 * time.Second}}}

// TimedMS is the time Timed's n-th move (from 1) took: n seconds and n
// tenths.
func TimedMS(n int) int64 { return int64(n) * 1100 }

// Timed returns a random STAR game of plies moves with TimedHeader's
// names, event and clock, each move's line keeping the time it took
// (TimedMS).
func Timed(plies int) ([]byte, error) {
	return random(TimedHeader, 7, plies, time.Date(2026, 3, 9, 19, 0, 0, 0, time.UTC), TimedMS)
}

func random(h record.Header, seed uint64, plies int, start time.Time, ms func(n int) int64) ([]byte, error) {
	h.Tabla = record.Version
	st, err := record.NewState(&h)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x7ab1a))
	var b bytes.Buffer
	w := record.NewWriter(&b)
	if err := w.WriteHeader(&h); err != nil {
		return nil, err
	}
	info := st.Info()
	t := start
	for n := 0; n < plies; {
		switch st.Awaiting() {
		case engine.AwaitNone:
			return b.Bytes(), nil
		case engine.AwaitRoll:
			face := rng.IntN(len(info.Die.Faces))
			if err := st.Roll(face); err != nil {
				return nil, err
			}
			if err := w.Write(record.Line{Roll: info.Die.Faces[face], Numeric: info.Die.Numeric}); err != nil {
				return nil, err
			}
		default:
			moves := st.Moves(nil)
			m := moves[rng.IntN(len(moves))]
			text := engine.MoveString(st, m)
			st.Play(m)
			t = t.Add(time.Minute)
			l := record.Line{Move: text, T: t}
			if ms != nil {
				l.MS, l.Timed = ms(n+1), true
			}
			if err := w.Write(l); err != nil {
				return nil, err
			}
			n++
		}
	}
	return b.Bytes(), nil
}

// MissedWin is a STAR game where red can win at once and does not.
func MissedWin() ([]byte, error) {
	const head = `{"tabla":1,"game":"star","first":"red","start":{"to_move":"red","pieces":{"a1":"red","b1":"red","c1":"red","a2":"red","b2":"red","c2":"red","a3":"red","b3":"red","c3":"red","b5":"red","e9":"red","g12":"red","k11":"white","l11":"white","m11":"white","k12":"white","l12":"white","m12":"white","k13":"white","l13":"white","m13":"white","l9":"white","f6":"white","h6":"white"}}}` + "\n"
	g, err := record.Replay(bytes.NewReader([]byte(head)), "missed-win")
	if err != nil {
		return nil, err
	}
	st := g.State
	for _, m := range st.Moves(nil) {
		st.Play(m)
		quiet := st.Awaiting() == engine.AwaitMove
		st.Undo()
		if quiet {
			return []byte(head + `{"move":"` + engine.MoveString(st, m) + `","t":"2026-03-01T18:00:00Z"}` + "\n"), nil
		}
	}
	return nil, fmt.Errorf("librarytest: no quiet move")
}

// Good names the readable games WriteLibrary writes, by file name.
var Good = []string{"daha.jsonl", "star.jsonl", "gyges.jsonl", "ray.jsonl", "six.jsonl", "star-missed-win.jsonl"}

// Bad names the files WriteLibrary writes that are not game records, with
// the line the library must name.
var Bad = map[string]int{"torn.jsonl": 4, "empty.jsonl": 1, "binary.jsonl": 1, "foreign.jsonl": 1}

// WriteLibrary writes a random game of each of the five games (plies moves
// at most), the missed-win game, the bad files of Bad, and files the
// library must skip (notes.txt, a hidden folder).
func WriteLibrary(dir string, plies int) error {
	start := time.Date(2026, 3, 1, 18, 0, 0, 0, time.UTC)
	for i, h := range Headers {
		rec, err := Random(h, uint64(i+1), plies, start.Add(time.Duration(i)*24*time.Hour))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, h.Game+".jsonl"), rec, 0o644); err != nil {
			return err
		}
	}
	mw, err := MissedWin()
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"star-missed-win.jsonl": mw,
		"torn.jsonl":            []byte(`{"tabla":1,"game":"star","first":"red"}` + "\n" + `{"move":"b1-f3"}` + "\n" + `{"move":"l13-h11"}` + "\n" + `{"move":"k5-`),
		"empty.jsonl":           nil,
		"binary.jsonl":          {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0xff, 0xfe, 0},
		"foreign.jsonl":         []byte(`{"name":"shopping","items":["milk","bread"]}` + "\n"),
		"notes.txt":             []byte("not a record, not listed\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	hidden := filepath.Join(dir, ".hidden")
	if err := os.MkdirAll(hidden, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(hidden, "skipped.jsonl"), []byte("garbage\n"), 0o644)
}

// WriteMany writes n random games, the five games in turn, of up to 8 to
// 400 moves (some end, most do not), a day apart: a library to look at.
func WriteMany(dir string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	start := time.Date(2026, 1, 10, 19, 30, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		h := Headers[i%len(Headers)]
		rec, err := Random(h, seed+uint64(i), 8+rng.IntN(393), start.Add(time.Duration(i)*24*time.Hour))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%03d.jsonl", h.Game, i)), rec, 0o644); err != nil {
			return err
		}
	}
	return nil
}
