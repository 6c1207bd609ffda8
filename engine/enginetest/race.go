//go:build race

package enginetest

// Race is true when the race detector is on.
const Race = true
