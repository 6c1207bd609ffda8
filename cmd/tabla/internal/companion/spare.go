package companion

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The spare folder: a journal that cannot be written where it is (the
// card is full, read-only) is written, on request, to another folder —
// a USB stick, another filesystem — and goes on there: the bytes already
// on the card are copied, the moves kept in memory written after them,
// and the games that follow are journalled there too. The request is the
// command "spare" (POST /api/spare from a paired phone, the page's button
// while the game is paused); the folder is the daemon's --spare-journal
// (config spare_journal), so that no phone names a path.

// ErrNoSpare: the spare command without a spare folder.
var ErrNoSpare = errors.New("companion: no spare journal folder is set (tabla run --spare-journal DIR, or spare_journal in the config)")

// ErrNotPaused: the spare command while the journal is written.
var ErrNotPaused = errors.New("companion: the journal is written where it is: nothing to move to the spare folder")

// MoveTo writes the journal to the folder dir and goes on there: the
// bytes known to be on disk are copied to dir/NAME (through a synced
// temporary file renamed, never over an existing file), then the lines
// kept in memory are written after them. The old file is renamed
// NAME.moved when its folder lets it, so that a restart does not resume
// its shorter game from it. It returns the new path; an error after the
// copy leaves the journal there, paused as before.
func (j *Journal) MoveTo(dir string) (string, error) {
	if j == nil || j.closed {
		return "", errors.New("companion: no journal to move")
	}
	old := j.path
	to := filepath.Join(dir, filepath.Base(old))
	if filepath.Clean(to) == filepath.Clean(old) {
		return old, fmt.Errorf("companion: the spare folder %s is the journal's own", dir)
	}
	if _, err := os.Lstat(to); err == nil {
		return old, fmt.Errorf("companion: %s exists already: not written over", to)
	}
	if j.failed == nil {
		if err := j.commit(); err != nil {
			j.fail(err)
		}
	}
	if err := copyPrefix(old, to, j.good); err != nil {
		return old, fmt.Errorf("companion: writing the journal to %s: %w", dir, err)
	}
	if j.f != nil {
		j.f.Close()
	}
	j.f, j.path, j.written = nil, to, 0
	f, err := j.openFile(to, os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		j.f = f
		if j.failed == nil {
			j.failed, j.failedAt = errMoving, time.Now() // flush cuts back to good first
		}
	}
	if os.Rename(old, old+".moved") == nil {
		syncDir(filepath.Dir(old))
	}
	if err != nil {
		return to, j.fail(err)
	}
	return to, j.flush()
}

var errMoving = errors.New("moving to the spare folder")

// copyPrefix copies the first n bytes of from to a new file to, synced.
func copyPrefix(from, to string, n int64) error {
	dir := filepath.Dir(to)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(to)+".*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if n > 0 {
		src, err := os.Open(from)
		if err != nil {
			return err
		}
		defer src.Close()
		if _, err := io.CopyN(tmp, src, n); err != nil {
			return fmt.Errorf("reading the %d bytes on disk of %s: %w", n, from, err)
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s exists already: not written over", to)
	}
	if err := os.Rename(tmp.Name(), to); err != nil {
		return err
	}
	done = true
	syncDir(dir)
	return nil
}

// MoveJournals writes the paused journals (the game's, and those of games
// left for a new one while paused) to the spare folder and goes on there,
// new games included. It returns where each went.
func (s *Session) MoveJournals() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.moveJournalsLocked()
}

func (s *Session) moveJournalsLocked() ([]string, error) {
	dir := s.opts.SpareJournalDir
	if dir == "" {
		return nil, ErrNoSpare
	}
	if !s.journalPausedLocked() {
		return nil, ErrNotPaused
	}
	if s.spareLock == nil {
		l, err := LockJournalDir(dir, "tabla (spare journal folder)", time.Now())
		if err != nil {
			return nil, err
		}
		s.spareLock = l
	}
	var moved []string
	var errs []error
	for _, j := range append(s.retired, s.journal) {
		if !j.Paused() {
			continue
		}
		from := j.Path()
		to, err := j.MoveTo(dir)
		if to != from {
			moved = append(moved, to)
			s.log.Warn("journal written to the spare folder: it goes on there", "from", from, "to", to, "err", err)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(moved) > 0 {
		s.opts.JournalDir = dir // the games that follow are journalled there
	}
	s.journalRetryLocked(false)
	return moved, errors.Join(errs...)
}
