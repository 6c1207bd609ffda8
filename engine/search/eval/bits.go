package eval

import "math/bits"

func bitIndex(x uint64) int { return bits.TrailingZeros64(x) }
func popcount(x uint64) int { return bits.OnesCount64(x) }
