//go:build linux

package companion

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
)

// fill writes a file in dir until the filesystem is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 512)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			return path
		}
	}
}

// The journal on a real filesystem that fills up: a 64 KB tmpfs is
// filled while a STAR game is played, the journal pauses (the page says
// the card is full), 25 more moves and a takeback are made on the full
// disk, space is freed, and the next moves write everything: the journal
// holds every move played, replays as it was played, and a session
// resumed from it stands at the last move. 0 moves lost. Today's code
// goes on with "no space left" in its log and resumes at the moves written
// before the disk filled.
func TestJournalFullTmpfs(t *testing.T) {
	dir := testfs.Tmpfs(t, "64k")
	clk := &fakeClock{t: time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)}
	p, s := faultySession(t, dir, &faultFS{}, clk, nil, 0) // the fault-free files: the disk itself fills
	rng := rand.New(rand.NewPCG(36, 1))
	played := playMoves(t, p, s, 3, rng)
	path := s.JournalPath()
	filler := fill(t, dir)

	// the journal's last page may hold a few more lines
	for n := 0; s.JournalProblem() == nil; n++ {
		if n == 100 {
			t.Fatalf("100 moves on a full disk, and the journal is not paused")
		}
		played = append(played, playMoves(t, p, s, 1, rng)...)
	}
	onDisk := len(played) - s.JournalProblem().Held
	played = append(played, playMoves(t, p, s, 25, rng)...)
	if err := s.Command("takeback", ""); err != nil {
		t.Fatal(err)
	}
	from, to, _ := strings.Cut(played[len(played)-1], "-")
	act(t, p, `{"lift":"`+to+`"}`)
	act(t, p, `{"place":"`+from+`"}`)
	played = played[:len(played)-1]

	st := s.StatusJSON()
	if !strings.Contains(st.JournalProblem, "Game paused: the table's memory card is full") {
		t.Errorf("the page says %q", st.JournalProblem)
	}
	if got := diskMoves(t, path); len(got) != onDisk {
		t.Errorf("on the full disk: %d moves, want the %d written before it filled", len(got), onDisk)
	}
	t.Logf("%d moves on disk when it filled, %d kept in memory, %d board events refused", onDisk, st.Unrecorded, s.JournalProblem().Refused)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	clk.add(RetryEvery)
	played = append(played, playMoves(t, p, s, 2, rng)...)
	if pr := s.JournalProblem(); pr != nil {
		t.Fatalf("space is back, and the journal is still paused: %v", pr)
	}
	if got := s.State().Moves; !slices.Equal(got, played) {
		t.Fatalf("the referee has %v, played %v", got, played)
	}
	got := diskMoves(t, path)
	if !slices.Equal(got, played) {
		t.Errorf("journal %d moves %v\nplayed   %d moves %v", len(got), got, len(played), played)
	}
	replaysAndResumes(t, s, path, dir, played)
}

// A game started on a card already full: the journal's header cannot be
// written, the session starts paused (it does not fail), the moves are
// kept, and once space is freed the journal is written whole, header
// first.
func TestJournalStartsOnFullTmpfs(t *testing.T) {
	dir := testfs.Tmpfs(t, "16k")
	filler := fill(t, dir)
	clk := &fakeClock{t: time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)}
	p, s := faultySession(t, dir, &faultFS{}, clk, nil, 0)
	if pr := s.JournalProblem(); pr == nil || pr.Kind() != "full" {
		t.Fatalf("a new game on a full disk: problem %v, want the journal paused, full", pr)
	}
	rng := rand.New(rand.NewPCG(36, 2))
	played := playMoves(t, p, s, 4, rng)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	clk.add(RetryEvery)
	played = append(played, playMoves(t, p, s, 1, rng)...)
	if pr := s.JournalProblem(); pr != nil {
		t.Fatalf("space is back, and the journal is still paused: %v", pr)
	}
	if got := diskMoves(t, s.JournalPath()); !slices.Equal(got, played) {
		t.Errorf("journal %v, played %v", got, played)
	}
	rr, err := ReplayFile(s.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Match() {
		t.Errorf("the journal replays otherwise than it was played:\n%s", rr.Diff())
	}
}

// The kept moves written, on request, to another folder (issue 36 item
// 1): the card fills during a STAR game, the moves made meanwhile (a
// takeback among them) wait in memory, and the command "spare" (the
// page's button, POST /api/spare) writes the journal to the spare folder
// — the bytes on the card, then the moves kept — and the game goes on
// there without space being freed: the spare journal holds every move
// played, replays as played, and a session resumed from the spare folder
// stands at the last move; the card's copy is renamed so that it is not
// resumed. Before that, the command is refused in words without a spare
// folder and while the journal is written.
func TestJournalSpareFolderTmpfs(t *testing.T) {
	dir := testfs.Tmpfs(t, "64k")
	spare := filepath.Join(testfs.Tmpfs(t, "1m"), "spare")
	clk := &fakeClock{t: time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC)}
	p, s := faultySession(t, dir, &faultFS{}, clk, nil, 0)
	rng := rand.New(rand.NewPCG(36, 4))
	played := playMoves(t, p, s, 3, rng)
	if err := s.Command("spare", ""); !errors.Is(err, ErrNoSpare) {
		t.Errorf("spare without a spare folder: %v, want ErrNoSpare", err)
	}
	s.mu.Lock()
	s.opts.SpareJournalDir = spare
	s.mu.Unlock()
	if err := s.Command("spare", ""); !errors.Is(err, ErrNotPaused) {
		t.Errorf("spare while the journal is written: %v, want ErrNotPaused", err)
	}
	path := s.JournalPath()
	fill(t, dir)
	for n := 0; s.JournalProblem() == nil; n++ {
		if n == 100 {
			t.Fatalf("100 moves on a full disk, and the journal is not paused")
		}
		played = append(played, playMoves(t, p, s, 1, rng)...)
	}
	played = append(played, playMoves(t, p, s, 10, rng)...)
	if err := s.Command("takeback", ""); err != nil {
		t.Fatal(err)
	}
	from, to, _ := strings.Cut(played[len(played)-1], "-")
	act(t, p, `{"lift":"`+to+`"}`)
	act(t, p, `{"place":"`+from+`"}`)
	played = played[:len(played)-1]
	held := s.JournalProblem().Held

	if err := s.Command("spare", ""); err != nil {
		t.Fatalf("spare: %v", err)
	}
	if pr := s.JournalProblem(); pr != nil {
		t.Fatalf("written to the spare folder, and still paused: %v", pr)
	}
	moved := s.JournalPath()
	if moved != filepath.Join(spare, filepath.Base(path)) {
		t.Errorf("the journal is %s, want it in %s", moved, spare)
	}
	if got := diskMoves(t, moved); !slices.Equal(got, played) {
		t.Errorf("the spare journal: %d moves %v\nplayed %d moves %v", len(got), got, len(played), played)
	}
	if _, err := os.Stat(path + ".moved"); err != nil {
		t.Errorf("the card's copy: %v, want it renamed .moved", err)
	}
	t.Logf("%d decisions held in memory written to the spare folder with the card's %d moves", held, len(played))
	played = append(played, playMoves(t, p, s, 2, rng)...) // on the spare folder, the card still full
	if got := diskMoves(t, moved); !slices.Equal(got, played) {
		t.Errorf("after 2 more moves: %v, want %v", got, played)
	}
	if err := s.Command("spare", ""); !errors.Is(err, ErrNotPaused) {
		t.Errorf("spare again: %v, want ErrNotPaused", err)
	}
	if u, err := FindUnfinished(dir, "star", nil); err == nil {
		t.Errorf("the card's folder still resumes %s", u.Path)
	}
	replaysAndResumes(t, s, moved, spare, played)
}
