//go:build !unix

package recordtest

import "time"

// Usage is not measured on this system.
func Usage() (cpu time.Duration, peak int64) { return 0, 0 }
