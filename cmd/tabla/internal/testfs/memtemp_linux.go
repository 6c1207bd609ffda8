package testfs

import "syscall"

// isTmpfs reports whether dir is on a tmpfs (statfs's TMPFS_MAGIC).
func isTmpfs(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && int64(st.Type) == 0x01021994
}

// freeBytes is the room left on dir's filesystem for an unprivileged
// writer (0 when it cannot tell).
func freeBytes(dir string) uint64 {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return 0
	}
	return st.Bavail * uint64(st.Bsize)
}
