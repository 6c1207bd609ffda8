//go:build unix

package companion

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// DirLock is a journal folder's lock, held while its file is open.
type DirLock struct {
	f *os.File
}

// LockJournalDir locks the journal folder dir (created if missing) for
// this process, or returns a *LockedError naming the process that holds
// it. command says what holds it ("tabla run"), now when it took it.
func LockJournalDir(dir, command string, now time.Time) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("companion: journal folder: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("companion: the journal folder's lock %s: %w", path, err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		e := &LockedError{Dir: dir}
		if b, rerr := io.ReadAll(io.LimitReader(f, 4096)); rerr == nil {
			e.parseHolder(b)
		}
		f.Close()
		return nil, e
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("companion: locking the journal folder (%s): %w", path, err)
	}
	// who holds it: a failure to say so (a full card) does not stop the
	// lock from holding
	b, _ := json.Marshal(lockHolder{PID: os.Getpid(), Since: now.UTC().Truncate(time.Second), Command: command})
	if f.Truncate(0) == nil {
		f.WriteAt(append(b, '\n'), 0)
	}
	return &DirLock{f: f}, nil
}

// Unlock lets the folder go.
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
