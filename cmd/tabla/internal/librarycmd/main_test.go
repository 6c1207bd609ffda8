package librarycmd

import (
	"os"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
)

// browserParallel is how many of the pages' tests in Chromium (each with
// its own library, server and browser) run at once unless go test's
// -parallel says otherwise (testfs.Parallel). They wait on the pages about
// as long as they compute (the analyses under the race detector, the
// browser): one after the other they took 109 s of wall clock on an idle
// machine (BENCHMARKS.md, "Issue 41").
const browserParallel = 3

// TestMain runs the tests with their temporary folders in memory
// (testfs.MemoryTemp): the journals' fsync at every move waits for no disk.
func TestMain(m *testing.M) {
	testfs.Parallel(browserParallel)
	os.Exit(testfs.RunInMemory(m))
}
