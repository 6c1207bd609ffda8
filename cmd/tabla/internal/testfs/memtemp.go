package testfs

import (
	"os"
)

// MemoryTemp points TMPDIR at a new folder on /dev/shm when that is a
// tmpfs this process may write, for the rest of the test binary
// (t.TempDir, os.MkdirTemp) and every process it starts (tabla daemons,
// Chromium's profiles, go build's work folders). A TestMain calls it
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
// synced. Without a writable tmpfs at /dev/shm it changes nothing.
func MemoryTemp() (restore func()) {
	if !isTmpfs("/dev/shm") {
		return func() {}
	}
	dir, err := os.MkdirTemp("/dev/shm", "tabla-test-")
	if err != nil {
		return func() {}
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}
}
