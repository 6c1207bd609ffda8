package librarycmd

import (
	"os"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/internal/testfs"
)

// TestMain runs the tests with their temporary folders in memory
// (testfs.MemoryTemp): the journals' fsync at every move waits for no disk.
func TestMain(m *testing.M) { os.Exit(testfs.RunInMemory(m)) }
