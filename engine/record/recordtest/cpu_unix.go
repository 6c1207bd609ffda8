//go:build unix

package recordtest

import (
	"syscall"
	"time"
)

// Usage returns the CPU time (user and system) the process has used so
// far, and its peak resident memory in bytes.
func Usage() (cpu time.Duration, peak int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) * 1024 // Linux: KiB (int32 on 32-bit ARM)
}
