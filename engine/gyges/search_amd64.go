//go:build amd64 && gygesasm && !purego

package gyges

// chainArch is what chainSearch keeps per piece besides x.open: the address
// of the piece's paths (group.ps), valid for the cells in x.known. An
// address, not a pointer: the paths are kept alive by x.t.
type chainArch struct {
	ps [numCells]uintptr
}

// chainSearch is chain.search from cell c with no boundary crossed yet and
// the pieces of bounce to land on, in assembly (search_amd64.s): the same
// depth-first search, with an explicit stack instead of recursion and the
// outcomes kept in a register. It reads and extends x.open and x.known as
// search does and returns the outcomes (x.ends is not touched).
//
//go:noescape
func chainSearch(x *chain, c int, bounce uint64) uint64

// runSearch runs the chain search from s with bounce set occ.
func (x *chain) runSearch(s int, occ uint64) uint64 {
	return chainSearch(x, s, occ)
}
