//go:build !unix

package companion

import (
	"os"
	"time"
)

// DirLock is a journal folder's lock: none on this system (no flock).
type DirLock struct{}

// LockJournalDir creates the folder; this system has no flock, so two
// daemons on one folder are not stopped here.
func LockJournalDir(dir, command string, now time.Time) (*DirLock, error) {
	return &DirLock{}, os.MkdirAll(dir, 0o755)
}

// Unlock lets the folder go.
func (l *DirLock) Unlock() error { return nil }
