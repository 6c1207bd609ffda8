//go:build !amd64 || purego

package gyges

// chainArch is what the assembly search keeps besides x.open; the Go
// search keeps nothing more.
type chainArch struct{}

// runSearch runs the chain search from s with bounce set occ.
func (x *chain) runSearch(s int, occ uint64) uint64 {
	return x.search(s, occ)
}
