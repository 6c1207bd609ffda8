//go:build !linux

package testfs

// isTmpfs: only Linux's /dev/shm is used.
func isTmpfs(string) bool { return false }

func freeBytes(string) uint64 { return 0 }
