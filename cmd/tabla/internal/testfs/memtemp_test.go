package testfs

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// TestMemoryTemp: with a tmpfs at /dev/shm, TMPDIR points into it, the
// screenshots keep their folder under the old TMPDIR, and restore puts both
// back and removes the folder; without one nothing changes.
func TestMemoryTemp(t *testing.T) {
	old := t.TempDir()
	t.Setenv("TMPDIR", old)
	t.Setenv("TABLA_ARTIFACTS", "")
	os.Unsetenv("TABLA_ARTIFACTS")
	restore := MemoryTemp()
	dir := os.TempDir()
	if !isTmpfs("/dev/shm") {
		restore()
		if dir != old {
			t.Fatalf("no tmpfs at /dev/shm, but TMPDIR is %s", dir)
		}
		t.Skip("no tmpfs at /dev/shm")
	}
	if filepath.Dir(dir) != "/dev/shm" || !isTmpfs(dir) {
		t.Errorf("TMPDIR %s, want a folder on the tmpfs /dev/shm", dir)
	}
	if got, want := os.Getenv("TABLA_ARTIFACTS"), filepath.Join(old, "tabla-screenshots"); got != want {
		t.Errorf("TABLA_ARTIFACTS %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	restore()
	if got := os.TempDir(); got != old {
		t.Errorf("TMPDIR after restore %s, want %s", got, old)
	}
	if v, ok := os.LookupEnv("TABLA_ARTIFACTS"); ok {
		t.Errorf("TABLA_ARTIFACTS after restore %q, want unset", v)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s after restore: %v, want it removed", dir, err)
	}
}

// TestRemoveOrphans: a folder left by a process that is gone is removed;
// one of a live process, and one named otherwise, are kept.
func TestRemoveOrphans(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	root := t.TempDir()
	gone := filepath.Join(root, "tabla-test-2147483646-1") // past pid_max
	live := filepath.Join(root, "tabla-test-"+strconv.Itoa(os.Getpid())+"-2")
	other := filepath.Join(root, "tabla-test-3")
	for _, d := range []string{gone, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeOrphans(root)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the orphan is still there: %v", err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}
