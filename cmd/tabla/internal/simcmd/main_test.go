package simcmd

import (
	"os"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
)

// browserParallel is how many of the tests that call t.Parallel (the
// pages' tests in Chromium) run at once unless go test's -parallel says
// otherwise (testfs.Parallel): they wait on the page, the simulator's
// settle window and the browser far more than they compute — one after
// the other they took 80 s of wall clock for under 40 s of CPU
// (BENCHMARKS.md, "Issue 41").
const browserParallel = 4

// TestMain runs the tests with their temporary folders in memory
// (testfs.MemoryTemp): the journals' fsync at every move waits for no disk.
func TestMain(m *testing.M) {
	testfs.Parallel(browserParallel)
	os.Exit(testfs.RunInMemory(m))
}
