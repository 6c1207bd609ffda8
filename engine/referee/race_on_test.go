//go:build race

package referee

// raceEnabled: the test binary runs under the race detector, which makes the
// noisy harness five to ten times slower.
const raceEnabled = true
