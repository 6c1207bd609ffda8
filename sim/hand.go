package sim

import "slices"

// HandPieces returns the identifying codes of the lifted pieces waiting to be
// placed, most recent last (for the simulator page).
func (b *Board) HandPieces() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.hand)
}
