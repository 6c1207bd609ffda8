package companion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/record"
)

// journalHeader is the header line of a star journal as CreateJournal
// writes it.
func journalHeader(t *testing.T, game string) []byte {
	t.Helper()
	h := record.Header{Tabla: record.Version, Game: game}
	if game == "star" {
		h.First = "red"
	}
	meta, _ := json.Marshal(metaWrap{&Meta{Board: game, SettleMs: 100, Takeback: 2, Source: "sim"}})
	h.Meta = meta
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// journalAt names a journal of game started at minute m of a fixed day.
func journalAt(dir, game string, m int) string {
	return filepath.Join(dir, JournalName(game, time.Date(2026, 11, 1, 10, m, 0, 0, time.UTC)))
}

// openLogged opens a session on dir on a fake star board, logging to a
// buffer; a failure to start fails the test.
func openLogged(t *testing.T, dir string) (*Session, *bytes.Buffer) {
	t.Helper()
	var logged bytes.Buffer
	s, err := Open(Options{Header: record.Header{Game: "star", First: "red"}, HW: newFake("star"), JournalDir: dir, Seed: 1,
		Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatalf("the session does not start: %v\nlog:\n%s", err, logged.String())
	}
	t.Cleanup(func() { s.Close() })
	return s, &logged
}

// Every kind of file that cannot be read as a game is moved into
// unreadable/ with its bytes, the log says which file, where it went, the
// line and byte and what was wrong, and a new game starts.
func TestUnreadableJournalMovedAside(t *testing.T) {
	hdr := func(t *testing.T) []byte { return journalHeader(t, "star") }
	binary := make([]byte, 600)
	for i := range binary {
		binary[i] = byte(i*151 + i/7)
	}
	for _, tc := range []struct {
		name  string
		data  func(t *testing.T) []byte
		line  int
		byteF func(t *testing.T) int // the byte offset logged
		why   string
	}{
		{"empty", func(*testing.T) []byte { return nil }, 1, nil, "empty file"},
		{"torn header", func(t *testing.T) []byte { return hdr(t)[:40] }, 1, nil, "torn header: 40 bytes"},
		{"header without its closing brace", func(t *testing.T) []byte { h := hdr(t); return h[:len(h)-2] }, 1, nil, "torn header"},
		{"text", func(*testing.T) []byte { return []byte("hello, board\nsecond line\n") }, 1, nil, "not valid JSON"},
		{"binary", func(*testing.T) []byte { return binary }, 1, nil, "not valid JSON"},
		{"foreign JSON", func(*testing.T) []byte { return []byte(`{"name":"tabla","version":3}` + "\n") }, 1, nil, "header: unknown field"},
		{"JSON array", func(*testing.T) []byte { return []byte("[1,2,3]\n") }, 1, nil, "not a JSON object"},
		{"a game record, not a journal", func(*testing.T) []byte {
			return []byte(`{"tabla":1,"game":"star","first":"red"}` + "\n" + `{"move":"b1-f3"}` + "\n")
		}, 1, nil, "no companion meta"},
		{"another game's journal", func(t *testing.T) []byte { return journalHeader(t, "ray") }, 1, nil, "a ray game in a file named for star"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := journalAt(dir, "star", 1)
			data := tc.data(t)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, logged := openLogged(t, dir)
			if s.Resumed() != "" || s.JournalPath() == path || len(s.State().Moves) != 0 {
				t.Fatalf("resumed %q, journal %s, moves %v: want a new game", s.Resumed(), s.JournalPath(), s.State().Moves)
			}
			aside := filepath.Join(dir, UnreadableDir, filepath.Base(path))
			kept, err := os.ReadFile(aside)
			if err != nil || !bytes.Equal(kept, data) {
				t.Fatalf("moved aside: %q (err %v), want the file's %d bytes unchanged", kept, err, len(data))
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("still in the journal directory (%v)", err)
			}
			off := 0
			if tc.byteF != nil {
				off = tc.byteF(t)
			}
			l := logged.String()
			for _, want := range []string{"level=WARN", "moved aside", "file=" + path, "moved_to=" + aside,
				fmt.Sprintf("line=%d byte=%d", tc.line, off), tc.why} {
				if !strings.Contains(l, want) {
					t.Errorf("log lacks %q:\n%s", want, l)
				}
			}
			// and the next start does not trip over anything
			s.Close()
			s2, _ := openLogged(t, dir)
			if s2.Resumed() != s.JournalPath() {
				t.Errorf("second start resumed %q, want the new game %s", s2.Resumed(), s.JournalPath())
			}
		})
	}
}

// A journal named like one but that is a directory is moved aside too.
func TestUnreadableJournalDirectory(t *testing.T) {
	dir := t.TempDir()
	path := journalAt(dir, "star", 1)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	s, logged := openLogged(t, dir)
	if s.Resumed() != "" {
		t.Errorf("resumed %q", s.Resumed())
	}
	if fi, err := os.Stat(filepath.Join(dir, UnreadableDir, filepath.Base(path))); err != nil || !fi.IsDir() {
		t.Errorf("not moved aside: %v", err)
	}
	if !strings.Contains(logged.String(), "cannot be read") {
		t.Errorf("log:\n%s", logged.String())
	}
}

// The newest journal is unreadable, an older one holds an unfinished game:
// the unreadable one is moved aside and the older game resumed. A finished
// newest game means a new game, and nothing is moved.
func TestUnreadableNewestThenOlderGame(t *testing.T) {
	dir := t.TempDir()
	older := journalAt(dir, "star", 1)
	os.WriteFile(older, append(journalHeader(t, "star"), `{"move":"b1-f3","by":"red"}`+"\n"...), 0o644)
	newer := journalAt(dir, "star", 2)
	os.WriteFile(newer, journalHeader(t, "star")[:17], 0o644)
	// a name taken in unreadable/ already: the file gets a suffix
	os.MkdirAll(filepath.Join(dir, UnreadableDir), 0o755)
	taken := filepath.Join(dir, UnreadableDir, filepath.Base(newer))
	os.WriteFile(taken, []byte("an earlier one"), 0o644)
	s, logged := openLogged(t, dir)
	if s.Resumed() != older || !slices.Equal(s.State().Moves, []string{"b1-f3"}) {
		t.Fatalf("resumed %q with %v, want %s with b1-f3\nlog:\n%s", s.Resumed(), s.State().Moves, older, logged.String())
	}
	if b, _ := os.ReadFile(taken); string(b) != "an earlier one" {
		t.Errorf("the file already aside was overwritten: %q", b)
	}
	if b, err := os.ReadFile(taken + ".1"); err != nil || !bytes.Equal(b, journalHeader(t, "star")[:17]) {
		t.Errorf("moved to %s.1: %q %v", taken, b, err)
	}
	if !strings.Contains(logged.String(), "moved_to="+taken+".1") {
		t.Errorf("log:\n%s", logged.String())
	}

	// a newest game that was abandoned: a new game, nothing moved
	dir = t.TempDir()
	os.WriteFile(journalAt(dir, "star", 1), append(journalHeader(t, "star"), `{"move":"b1-f3","by":"red"}`+"\n"...), 0o644)
	ended := journalAt(dir, "star", 2)
	os.WriteFile(ended, append(journalHeader(t, "star"), `{"end":"new"}`+"\n"...), 0o644)
	s, logged = openLogged(t, dir)
	if s.Resumed() != "" {
		t.Errorf("resumed %q after an abandoned game", s.Resumed())
	}
	if _, err := os.Stat(filepath.Join(dir, UnreadableDir)); !errors.Is(err, os.ErrNotExist) || strings.Contains(logged.String(), "moved aside") {
		t.Errorf("something was moved aside (%v):\n%s", err, logged.String())
	}
}

// A torn last line of a good journal is repaired, not moved aside: every
// whole line is kept, and a last line missing only its newline gets one.
func TestTornLastLineRepaired(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
		moves      []string
	}{
		{"torn", `{"move":"d13-h1`, []string{"b1-f3"}},
		{"whole but no newline", `{"move":"d13-h11","by":"white"}`, []string{"b1-f3", "d13-h11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := journalAt(dir, "star", 1)
			os.WriteFile(path, append(journalHeader(t, "star"), `{"move":"b1-f3","by":"red"}`+"\n"+tc.tail...), 0o644)
			s, logged := openLogged(t, dir)
			if s.Resumed() != path || !slices.Equal(s.State().Moves, tc.moves) {
				t.Fatalf("resumed %q with %v, want %s with %v\nlog:\n%s", s.Resumed(), s.State().Moves, path, tc.moves, logged.String())
			}
			if _, err := os.Stat(filepath.Join(dir, UnreadableDir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("unreadable/ made for a good journal")
			}
		})
	}
}

// A file that cannot be moved aside (unreadable/ is taken by a file) is
// skipped with an error logged: start-up still goes on.
func TestUnreadableCannotMove(t *testing.T) {
	dir := t.TempDir()
	path := journalAt(dir, "star", 1)
	os.WriteFile(path, []byte("junk\n"), 0o644)
	os.WriteFile(filepath.Join(dir, UnreadableDir), []byte("in the way"), 0o644)
	s, logged := openLogged(t, dir)
	if s.Resumed() != "" {
		t.Errorf("resumed %q", s.Resumed())
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "junk\n" {
		t.Errorf("the file changed: %q %v", b, err)
	}
	if l := logged.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "could not be moved aside") {
		t.Errorf("log:\n%s", l)
	}
}

// A journal whose header is good is read as far as it is readable: from
// the first line that is not (blank lines, a CRLF line, garbage, an
// illegal move, a line over record.MaxLine) the tail is cut and kept in
// unreadable/ as NAME.tail-from-line-N, the log says where and why, and the
// game goes on from the moves before.
func TestJournalBadTailCut(t *testing.T) {
	move := `{"move":"b1-f3","by":"red"}` + "\n"
	for _, tc := range []struct {
		name, tail, why string
	}{
		{"blank lines", "\n\n\n", "empty line"},
		{"a CRLF line", "\r\n", "empty line"},
		{"garbage", "\x00\x01garbage\n", "not valid JSON"},
		{"garbage, then a good move", "\x00\x01garbage\n" + `{"move":"d13-h11","by":"white"}` + "\n", "not valid JSON"},
		{"an illegal move", `{"move":"b1-b2"}` + "\n", "illegal move: b1-b2"},
		{"an illegal move with no newline", `{"move":"b1-b2"}`, "illegal move: b1-b2"},
		{"a line over the limit", `{"fault":"` + strings.Repeat("x", record.MaxLine) + `"}` + "\n", "longer than"},
		{"a second header", `{"tabla":1,"game":"star","first":"red","meta":{"names":"another evening"}}` + "\n" + `{"move":"d13-h11","by":"white"}` + "\n", "a second header line (a star record begins here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := journalAt(dir, "star", 1)
			good := append(journalHeader(t, "star"), move...)
			if err := os.WriteFile(path, append(bytes.Clone(good), tc.tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			s, logged := openLogged(t, dir)
			if s.Resumed() != path || !slices.Equal(s.State().Moves, []string{"b1-f3"}) {
				t.Fatalf("resumed %q with moves %v, want %s with b1-f3\nlog:\n%s", s.Resumed(), s.State().Moves, path, logged)
			}
			data, err := os.ReadFile(path)
			if err != nil || !bytes.HasPrefix(data, good) || !bytes.HasPrefix(data[len(good):], []byte(`{"resume":`)) {
				t.Errorf("journal now %q, want the readable prefix and a resume line", data[:min(len(data), 300)])
			}
			aside := filepath.Join(dir, UnreadableDir, filepath.Base(path)+".tail-from-line-3")
			if kept, err := os.ReadFile(aside); err != nil || string(kept) != tc.tail {
				t.Errorf("tail kept: %q (%v), want %q", kept[:min(len(kept), 100)], err, tc.tail[:min(len(tc.tail), 100)])
			}
			l := logged.String()
			for _, want := range []string{"level=WARN", "file=" + path, fmt.Sprintf("line=3 byte=%d", len(good)), tc.why, "moved_to=" + aside} {
				if !strings.Contains(l, want) {
					t.Errorf("log lacks %q:\n%s", want, l[:min(len(l), 2000)])
				}
			}
			// the game goes on, and the next start resumes it whole
			s.Close()
			s2, logged2 := openLogged(t, dir)
			if s2.Resumed() != path || !slices.Equal(s2.State().Moves, []string{"b1-f3"}) || strings.Contains(logged2.String(), "WARN") {
				t.Errorf("second start resumed %q with %v:\n%s", s2.Resumed(), s2.State().Moves, logged2)
			}
		})
	}
}

// A damaged board event (a snapshot, tick or sensor line that is not valid
// JSON) is skipped on resuming: the moves after it count, the line is kept
// in unreadable/ as NAME.line-N and taken out of the journal, the log says
// where and why, and the next start resumes the same game without a word.
// Any other damaged line still ends the readable prefix (TestJournalBadTailCut).
func TestResumeSkipsDamagedBoardEvent(t *testing.T) {
	snapshot := `{"snapshot":"00ff000000ff000000ff0000","at":12}`
	moves := []string{`{"move":"b1-f3","by":"red"}`, `{"tick":40}`, `{"move":"d13-h11","by":"white"}`}
	for _, tc := range []struct {
		name, damaged string
	}{
		{"a snapshot, its brace", "[" + snapshot[1:]},
		{"a snapshot, a control byte", strings.Replace(snapshot, "0000ff", "00\x01ff", 1)},
		{"a tick", `{"tick":3x}`},
		{"a sensor change", `{"sensor":"c3,"code":1,"at":20}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := journalAt(dir, "star", 1)
			head := append(journalHeader(t, "star"), `{"conn":"connected","at":0}`+"\n"...)
			rest := []byte(strings.Join(moves, "\n") + "\n")
			data := slices.Concat(head, []byte(tc.damaged+"\n"), rest)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, logged := openLogged(t, dir)
			if s.Resumed() != path || !slices.Equal(s.State().Moves, []string{"b1-f3", "d13-h11"}) {
				t.Fatalf("resumed %q with moves %v, want %s with b1-f3 d13-h11\nlog:\n%s", s.Resumed(), s.State().Moves, path, logged)
			}
			now, err := os.ReadFile(path)
			want := slices.Concat(head, rest)
			if err != nil || !bytes.HasPrefix(now, want) || !bytes.HasPrefix(now[len(want):], []byte(`{"resume":`)) {
				t.Errorf("journal now %q, want it without the damaged line, and a resume line", now[:min(len(now), 400)])
			}
			aside := filepath.Join(dir, UnreadableDir, filepath.Base(path)+".line-3")
			if kept, err := os.ReadFile(aside); err != nil || string(kept) != tc.damaged+"\n" {
				t.Errorf("line kept: %q (%v), want %q", kept, err, tc.damaged+"\n")
			}
			if tails, _ := filepath.Glob(filepath.Join(dir, UnreadableDir, "*tail*")); len(tails) > 0 {
				t.Errorf("a tail was cut: %v", tails)
			}
			l := logged.String()
			for _, want := range []string{"level=WARN", "damaged board event", "file=" + path, fmt.Sprintf("line=3 byte=%d", len(head)), "not valid JSON", "moved_to=" + aside} {
				if !strings.Contains(l, want) {
					t.Errorf("log lacks %q:\n%s", want, l[:min(len(l), 2000)])
				}
			}
			s.Close()
			s2, logged2 := openLogged(t, dir)
			if s2.Resumed() != path || !slices.Equal(s2.State().Moves, []string{"b1-f3", "d13-h11"}) || strings.Contains(logged2.String(), "WARN") {
				t.Errorf("second start resumed %q with %v:\n%s", s2.Resumed(), s2.State().Moves, logged2)
			}
			if _, err := record.Replay(bytes.NewReader(mustRead(t, path)), path); err != nil {
				t.Errorf("the journal is not a readable record now: %v", err)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Discard removes the journal a failed start began (its header alone),
// never a resumed one.
func TestDiscard(t *testing.T) {
	dir := t.TempDir()
	s, _ := openLogged(t, dir)
	path := s.JournalPath()
	if err := s.Discard(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the new journal is still there (%v)", err)
	}
	older := journalAt(dir, "star", 1)
	os.WriteFile(older, append(journalHeader(t, "star"), `{"move":"b1-f3","by":"red"}`+"\n"...), 0o644)
	s2, _ := openLogged(t, dir)
	if s2.Resumed() != older {
		t.Fatalf("resumed %q, want %s", s2.Resumed(), older)
	}
	if err := s2.Discard(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(older); err != nil {
		t.Fatalf("the resumed journal was removed: %v", err)
	}
}

// rewriteUndoneWhole is what takeback did before, with the whole journal
// in memory: the oracle for rewriteUndone.
func rewriteUndoneWhole(data []byte, ops int) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	left := ops
	for i := len(lines) - 1; i > 0 && left > 0; i-- {
		l := lines[i]
		if bytes.HasPrefix(l, []byte(`{"move":`)) || bytes.HasPrefix(l, []byte(`{"roll":`)) {
			body := bytes.TrimRight(l, "\n")
			lines[i] = append(append([]byte(`{"undone":`), body...), "}\n"...)
			left--
		}
	}
	return bytes.Join(lines, nil)
}

// A takeback rewrites the journal line by line, as it did whole.
func TestRewriteUndone(t *testing.T) {
	kinds := []string{`{"move":"b1-f3","by":"red"}`, `{"roll":"4"}`, `{"tick":200}`, `{"sensor":"a1","code":0,"at":1}`,
		`{"fault":"` + strings.Repeat("x", 100<<10) + `"}`, `{}`, `{"mo`, `{"undone":{"move":"a1-a2"}}`}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var b bytes.Buffer
		b.WriteString(`{"move":"header-like"}` + "\n")
		for range rng.IntN(40) {
			b.WriteString(kinds[rng.IntN(len(kinds))] + "\n")
		}
		if rng.IntN(3) == 0 {
			b.WriteString(kinds[rng.IntN(2)]) // no final newline
		}
		ops := rng.IntN(5)
		want := rewriteUndoneWhole(bytes.Clone(b.Bytes()), ops)
		var got bytes.Buffer
		if err := rewriteUndone(bytes.NewReader(b.Bytes()), &got, ops); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("case %d, ops %d:\ngot  %q\nwant %q", i, ops, got.Bytes()[:min(got.Len(), 400)], want[:min(len(want), 400)])
		}
	}
}
