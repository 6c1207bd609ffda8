package engine

// Zobrist returns n pseudo-random 64-bit keys from a fixed seed, the same on
// every run and machine, for games' position hashes.
func Zobrist(seed uint64, n int) []uint64 {
	keys := make([]uint64, n)
	x := seed
	for i := range keys {
		// splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		keys[i] = z ^ (z >> 31)
	}
	return keys
}
