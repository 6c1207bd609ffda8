package companion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
		{"garbage in the middle", func(t *testing.T) []byte {
			return append(hdr(t), `{"move":"b1-f3","by":"red"}`+"\n"+"\x00\x01garbage\n"+`{"move":"d13-h11","by":"white"}`+"\n"...)
		}, 3, func(t *testing.T) int { return len(hdr(t)) + len(`{"move":"b1-f3","by":"red"}`+"\n") }, "not valid JSON"},
		{"illegal move", func(t *testing.T) []byte { return append(hdr(t), `{"move":"b1-b2"}`+"\n"...) }, 2,
			func(t *testing.T) int { return len(hdr(t)) }, "illegal move: b1-b2"},
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
