// Package testfs holds the file-system helpers that tests of several
// packages share: the repository's root (testdata and the outside cases
// beside the checkout are found from it), a small tmpfs that fills up
// (a full memory card), MemoryTemp, which a TestMain calls to keep a
// test binary's temporary folders in memory, and Parallel, with which a
// TestMain lets more of its waiting tests run at once.
package testfs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Root is the folder holding go.mod, found from the test's folder up.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// Tmpfs mounts a tmpfs of size (mount's notation: "64k") on a new folder,
// unmounted at the test's end (lazily: a reader still in the folder, such
// as a library's background index, does not keep it). Without the right
// to mount it skips on a laptop and fails in CI (CI set), which runs as
// root.
func Tmpfs(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		msg := "mount -t tmpfs -o size=" + size + " tmpfs " + dir + ": " + err.Error() + ": " + strings.TrimSpace(string(out))
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI runs this test as root: it must be able to mount a tmpfs)", msg)
		}
		t.Skipf("%s: run as root to test a full filesystem", msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "--lazy", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}
