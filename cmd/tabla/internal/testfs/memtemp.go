package testfs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// RunInMemory is a TestMain's body for a package whose tests only need
// MemoryTemp around them: it runs m with the temporary folders in memory
// and returns m.Run's exit code (os.Exit(testfs.RunInMemory(m))).
func RunInMemory(m *testing.M) int {
	restore := MemoryTemp()
	defer restore()
	return m.Run()
}

// minShmFree is the room /dev/shm must have for the folders to go there (a
// container's /dev/shm is often 64 MB; a record of a million moves alone
// takes tens of MB): with less they stay on disk.
const minShmFree = 2 << 30

// removeOrphans removes the folders that test binaries killed before
// their end (a timeout, a kill) left on /dev/shm: each is named for the
// process that made it, and one whose process is gone is an orphan. (They
// hold memory until removed.)
func removeOrphans(root string) {
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "tabla-test-")
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 {
			continue // an older folder's name: left alone
		}
		if _, err := os.Stat("/proc/" + pid); os.IsNotExist(err) {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

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
	if os.Getenv("TABLA_DISK_TEMP") == "1" || !isTmpfs("/dev/shm") || freeBytes("/dev/shm") < minShmFree {
		return func() {}
	}
	removeOrphans("/dev/shm")
	dir, err := os.MkdirTemp("/dev/shm", "tabla-test-"+strconv.Itoa(os.Getpid())+"-")
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
