package testfs

import "syscall"

// isTmpfs reports whether dir is on a tmpfs (statfs's TMPFS_MAGIC).
func isTmpfs(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && int64(st.Type) == 0x01021994
}
