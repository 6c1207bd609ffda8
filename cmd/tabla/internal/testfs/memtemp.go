package testfs

import (
	"os"
	"path/filepath"
)

// MemoryTemp points TMPDIR at a new folder on /dev/shm when that is a
// tmpfs this process may write, for the rest of the test binary
// (t.TempDir, os.MkdirTemp) and every process it starts (tabla daemons,
// Chromium's profiles, go build's work folders); the browser tests'
// screenshots still go to $TABLA_ARTIFACTS, by default
// /tmp/tabla-screenshots as before. A TestMain calls it
// before m.Run and calls what it returns after, which removes the folder
// and restores TMPDIR.
//
// Why (issue 41): a journal is fsynced at every move, and on the build
// machine's shared disk an fsync took tens of milliseconds when other jobs
// wrote: TestJournalCutResume, which resumes a journal cut at each of its
// 1,000-odd bytes, ran 76 s beside 12 s of CPU with its folders on disk
// and 16 s on /dev/shm. The code under test is the same (every Sync is
// still called and its error handled); only the wait for the disk is gone,
// which no test here can tell from a fast disk anyway: a process killed by
// a test leaves its writes in the page cache whether or not they were
// synced. Without a writable tmpfs at /dev/shm, or with TABLA_DISK_TEMP=1
// (to compare), it changes nothing.
func MemoryTemp() (restore func()) {
	if os.Getenv("TABLA_DISK_TEMP") == "1" || !isTmpfs("/dev/shm") {
		return func() {}
	}
	dir, err := os.MkdirTemp("/dev/shm", "tabla-test-")
	if err != nil {
		return func() {}
	}
	var undo []func()
	if os.Getenv("TABLA_ARTIFACTS") == "" {
		// the screenshots stay where the README says they go (browsertest:
		// $TABLA_ARTIFACTS, default /tmp/tabla-screenshots), kept after the run
		undo = append(undo, setenv("TABLA_ARTIFACTS", filepath.Join(os.TempDir(), "tabla-screenshots")))
	}
	undo = append(undo, setenv("TMPDIR", dir))
	return func() {
		for _, u := range undo {
			u()
		}
		os.RemoveAll(dir)
	}
}

// setenv sets k to v and returns what puts k back as it was.
func setenv(k, v string) func() {
	old, had := os.LookupEnv(k)
	os.Setenv(k, v)
	return func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	}
}
