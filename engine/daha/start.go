package daha

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/tabla-board/tabla/engine"
)

// zobrist holds the hash keys. A key of 0 stands for "nothing" (no last
// roll, a roll due) so that updates can XOR unconditionally.
type zobrist struct {
	piece [numColours][64]uint64
	paint [numColours][64]uint64
	side  [numColours]uint64
	roll  [maxRoll + 1]uint64 // roll[0] = 0: a roll is due
	last  [numColours][maxRoll + 1]uint64
	out   [numColours]uint64
}

var keys = func() *zobrist {
	z := &zobrist{}
	x := uint64(0x0da4a0da4a0da4a0) // fixed seed: hashes are stable across runs
	next := func() uint64 {         // splitmix64
		x += 0x9e3779b97f4a7c15
		v := x
		v = (v ^ v>>30) * 0xbf58476d1ce4e5b9
		v = (v ^ v>>27) * 0x94d049bb133111eb
		return v ^ v>>31
	}
	for c := 0; c < numColours; c++ {
		for i := 0; i < 64; i++ {
			z.piece[c][i] = next()
			z.paint[c][i] = next()
		}
		z.side[c] = next()
		z.out[c] = next()
		for k := 1; k <= maxRoll; k++ {
			z.last[c][k] = next()
		}
	}
	for k := 1; k <= maxRoll; k++ {
		z.roll[k] = next()
	}
	return z
}()

// computeHash hashes the position from scratch (setup, and tests of the
// incremental updates).
func (s *State) computeHash() uint64 {
	var h uint64
	for c := 0; c < numColours; c++ {
		if s.pos[c] >= 0 {
			h ^= keys.piece[c][s.pos[c]]
		}
		for m := s.paint[c]; m != 0; m &= m - 1 {
			h ^= keys.paint[c][bits.TrailingZeros64(m)]
		}
		h ^= keys.last[c][s.last[c]]
	}
	for _, c := range s.out[:s.nOut] {
		h ^= keys.out[c]
	}
	if s.toMove >= 0 {
		h ^= keys.side[s.toMove]
	}
	return h ^ keys.roll[s.roll]
}

// load sets the position from a record's start object. A start always
// begins with a roll due.
func (s *State) load(p *engine.Position) error {
	g := s.g
	errf := func(format string, args ...any) error {
		return fmt.Errorf("daha: %w: start: "+format, append([]any{engine.ErrConfig}, args...)...)
	}
	colour := func(field, name string) (Colour, error) {
		c, ok := colourOf(name)
		if !ok {
			return NoColour, errf("%s: unknown colour %q (want red, yellow, blue or black)", field, name)
		}
		return c, nil
	}
	cell := func(field, name string) (int, error) {
		i, ok := g.index[name]
		if !ok {
			return 0, errf("%s: unknown cell %q on board %s", field, name, g.board.Name)
		}
		return i, nil
	}
	if p.Hands != nil {
		return errf("hands: daha has no pieces in hand")
	}
	for _, name := range sortedKeys(p.Pieces) {
		i, err := cell("pieces", name)
		if err != nil {
			return err
		}
		c, err := colour("pieces."+name, p.Pieces[name])
		if err != nil {
			return err
		}
		if s.pos[c] >= 0 {
			return errf("pieces: %s is on both %s and %s", c, g.names[s.pos[c]], name)
		}
		s.pos[c] = int8(i)
		s.occ |= 1 << uint(i)
		s.live |= 1 << uint(c)
	}
	for _, name := range p.Out {
		c, err := colour("out", name)
		if err != nil {
			return err
		}
		if s.pos[c] >= 0 {
			return errf("out: %s is out but has a piece on %s", c, g.names[s.pos[c]])
		}
		for _, o := range s.out[:s.nOut] {
			if Colour(o) == c {
				return errf("out: %s listed twice", c)
			}
		}
		s.out[s.nOut] = int8(c)
		s.nOut++
	}
	for _, name := range sortedKeys(p.Painted) {
		i, err := cell("painted", name)
		if err != nil {
			return err
		}
		c, err := colour("painted."+name, p.Painted[name])
		if err != nil {
			return err
		}
		bit := uint64(1) << uint(i)
		for q := range s.pos {
			if Colour(q) != c && int(s.pos[q]) == i {
				return errf("painted.%s: %s's piece stands on a cell painted %s, which it could never have entered", name, Colour(q), c)
			}
		}
		s.paint[c] |= bit
		s.painted |= bit
	}
	for _, name := range sortedKeys(p.LastRoll) {
		c, err := colour("last_roll", name)
		if err != nil {
			return err
		}
		v := p.LastRoll[name]
		if v < 1 || v > maxRoll {
			return errf("last_roll.%s: %d is not a die value 1–6", name, v)
		}
		if s.pos[c] < 0 {
			return errf("last_roll.%s: %s has no piece in play", name, c)
		}
		s.last[c] = int8(v)
	}
	switch bits.OnesCount8(s.live) {
	case 0:
		return errf("pieces: no piece on the board")
	case 1:
		// Already won; to_move, if given, only has to name a seat.
		if p.ToMove != "" {
			if _, err := colour("to_move", p.ToMove); err != nil {
				return err
			}
		}
		return nil
	}
	if p.ToMove == "" {
		return errf("to_move: missing")
	}
	c, err := colour("to_move", p.ToMove)
	if err != nil {
		return err
	}
	if s.pos[c] < 0 {
		return errf("to_move: %s has no piece in play", c)
	}
	s.toMove = int8(c)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Position exports the position in the record's start format. The pending
// roll, when a move is due, is not part of it: a start begins with a roll
// due. last_roll lists only colours in play that have one; to_move is empty
// once the game is over.
func (s *State) Position() engine.Position {
	p := engine.Position{Pieces: map[string]string{}}
	for c, cell := range s.pos {
		if cell >= 0 {
			p.Pieces[s.g.names[cell]] = Colour(c).String()
		}
	}
	for c := range s.paint {
		for m := s.paint[c]; m != 0; m &= m - 1 {
			if p.Painted == nil {
				p.Painted = map[string]string{}
			}
			p.Painted[s.g.names[bits.TrailingZeros64(m)]] = Colour(c).String()
		}
		if s.last[c] != 0 {
			if p.LastRoll == nil {
				p.LastRoll = map[string]int{}
			}
			p.LastRoll[Colour(c).String()] = int(s.last[c])
		}
	}
	for _, c := range s.out[:s.nOut] {
		p.Out = append(p.Out, Colour(c).String())
	}
	if s.toMove >= 0 {
		p.ToMove = Colour(s.toMove).String()
	}
	return p
}
