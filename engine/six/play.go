package six

import (
	"math/rand/v2"

	"github.com/tabla-board/tabla/engine"
)

// Zobrist keys. Cell keys are a keyed bijective mixer of the absolute
// coordinates and the colour (the plane is unbounded, so no table); the rest
// come from a fixed-seed PCG.
var (
	cellSeed uint64
	handKeys [4][perColour + 1]uint64
	seatKeys [4]uint64
	passKey  uint64
)

func init() {
	rng := rand.New(rand.NewPCG(0x5158_2024_0006_0006, 0xf0e1_d2c3_b4a5_9687))
	cellSeed = rng.Uint64()
	for i := range handKeys {
		for j := range handKeys[i] {
			handKeys[i][j] = rng.Uint64()
		}
		seatKeys[i] = rng.Uint64()
	}
	passKey = rng.Uint64()
}

// cellKey is the Zobrist key of a hexagon (cv = colour+1) on absolute (q,r):
// splitmix64's finaliser (a bijection) of an injective packing of q, r, cv.
func cellKey(q, r int32, cv uint8) uint64 {
	x := uint64(uint32(q))<<33 ^ uint64(uint32(r))<<1 ^ uint64(cv-1) ^ cellSeed
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (s *State) computeHash() uint64 {
	var h uint64
	for i := 0; i < s.n; i++ {
		idx := int(s.tiles[i])
		q, r := s.coord(idx)
		h ^= cellKey(q, r, s.cells[idx]&3)
	}
	for i := 0; i < int(s.nSeats); i++ {
		h ^= handKeys[i][s.hand[i]]
	}
	h ^= seatKeys[s.toMove]
	if s.passes > 0 {
		h ^= passKey
	}
	return h
}

// Play applies a legal move.
func (s *State) Play(m engine.Move) {
	s.hist = append(s.hist, undo{
		move: m, hash: s.hash, offQ: s.offQ, offR: s.offR, remFrom: int32(len(s.removed)),
		toMove: s.toMove, passes: s.passes, status: s.status, winner: s.winner, ending: s.ending,
	})
	seat := s.toMove
	cv := colourOf(seat)
	dest := -1
	if s.passes > 0 {
		s.hash ^= passKey
	}
	switch m & 3 {
	case kindPass:
		s.passes++
	case kindPlace:
		s.passes = 0
		q, r := moveTo(m)
		dest = s.index(q, r)
		s.hash ^= handKeys[seat][s.hand[seat]] ^ handKeys[seat][s.hand[seat]-1] ^ cellKey(q, r, cv)
		s.hand[seat]--
		s.cells[dest] = uint8(s.n)<<2 | cv
		s.tiles[s.n] = uint16(dest)
		s.n++
		s.onTable[cv-1]++
	case kindStep:
		s.passes = 0
		fq, fr := moveFrom(m)
		tq, tr := moveTo(m)
		from := s.index(fq, fr)
		if s.advanced {
			s.split(m, from)
		}
		dest = s.index(tq, tr)
		slot := s.cells[from] >> 2
		s.cells[from] = 0
		s.cells[dest] = slot<<2 | cv
		s.tiles[slot] = uint16(dest)
		s.hash ^= cellKey(fq, fr, cv) ^ cellKey(tq, tr, cv)
	}
	if dest >= 0 {
		if lq, lr := dest&wMask, dest>>wBits; lq < margin || lq >= wSide-margin || lr < margin || lr >= wSide-margin {
			s.recentre()
			q, r := moveTo(m)
			dest = s.index(q, r)
		}
	}
	s.plies++
	s.hash ^= seatKeys[seat]
	s.toMove = (seat + 1) % s.nSeats
	s.hash ^= seatKeys[s.toMove]
	if s.passes > 0 {
		s.hash ^= passKey
	}
	s.judge(seat, dest)
}

// judge ends the game if the move just made by seat (landing on window index
// dest, -1 for a pass) decided it: the advanced 5-or-fewer rule first, then
// shapes of the mover's colour, then two passes in a row.
func (s *State) judge(seat int8, dest int) {
	if s.advanced {
		bf, rf := s.colourTotal(0) <= fewLimit, s.colourTotal(1) <= fewLimit
		if bf || rf {
			s.status, s.ending = engine.Won, ByFewer
			switch {
			case bf && rf:
				s.status, s.winner = engine.Draw, -1
			case bf:
				s.winner = int8(Red)
			default:
				s.winner = int8(Black)
			}
			return
		}
	}
	cv := colourOf(seat)
	var e Ending
	switch {
	case s.fullScan:
		e = s.anyShape(cv)
	case dest >= 0:
		e = s.shapeAt(dest, cv)
	}
	if e != NotOver {
		s.status, s.winner, s.ending = engine.Won, int8(cv-1), e
		return
	}
	if s.passes >= 2 {
		s.status, s.winner, s.ending = engine.Draw, -1, ByPasses
	}
}

// split applies the advanced rule when lifting the tile on window index from
// splits the others: every group but the kept one leaves the game.
func (s *State) split(m engine.Move, from int) {
	sc := s.sc
	var nb uint8
	for d, o := range dirI {
		if s.cells[from+o] != 0 {
			nb |= 1 << d
		}
	}
	kq, kr, hasKeep := moveKeep(m)
	if !hasKeep && (arcs[nb] <= 1 || s.joinedRound(from)) {
		return // the neighbours hang together round the lifted tile
	}
	nc := s.groupsOnTable(int(s.cells[from] >> 2))
	if nc <= 1 {
		return
	}
	var keep int8
	if hasKeep {
		keep = sc.comp[s.cells[s.index(kq, kr)]>>2]
	} else {
		best, _ := s.largest(nc)
		for keep = 0; sc.size[keep] != best; keep++ {
		}
	}
	// Remove in descending slot order, so the tile moved into a freed slot
	// (the last one) is never itself to be removed.
	for slot := s.n - 1; slot >= 0; slot-- {
		if c := sc.comp[slot]; c < 0 || c == keep {
			continue
		}
		idx := int(s.tiles[slot])
		cv := s.cells[idx] & 3
		s.removed = append(s.removed, removal{idx: uint16(idx), slot: int8(slot), cv: cv})
		q, r := s.coord(idx)
		s.hash ^= cellKey(q, r, cv)
		s.onTable[cv-1]--
		s.cells[idx] = 0
		last := s.n - 1
		if slot != last {
			li := int(s.tiles[last])
			s.tiles[slot] = uint16(li)
			s.cells[li] = uint8(slot)<<2 | s.cells[li]&3
		}
		s.n--
	}
}

// The 5×5 box of cells round a cell (dq, dr in −2…2) as a 25-bit mask:
// bit (dr+2)·5 + dq+2.
const (
	boxCol0 uint32 = 1<<0 | 1<<5 | 1<<10 | 1<<15 | 1<<20
	boxCol4        = boxCol0 << 4
	boxAll  uint32 = 1<<25 - 1
)

// joinedRound reports whether the hexagons next to window index from are
// joined to each other through hexagons of the 5×5 box round it, from
// itself left out: then lifting it splits nothing (the table is one
// group before every move). False says nothing; the caller then labels
// the groups. Most tiles of a compact table whose neighbours form several
// arcs are joined this way, at a fraction of a search over all tiles.
func (s *State) joinedRound(from int) bool {
	var occ uint32
	for dr := -2; dr <= 2; dr++ {
		row := from + dr*wSide
		for dq := -2; dq <= 2; dq++ {
			if s.cells[row+dq] != 0 {
				occ |= 1 << ((dr+2)*5 + dq + 2)
			}
		}
	}
	occ &^= 1 << 12 // the lifted tile
	// its neighbours: (1,0) (1,-1) (0,-1) (-1,0) (-1,1) (0,1)
	const around uint32 = 1<<13 | 1<<8 | 1<<7 | 1<<11 | 1<<16 | 1<<17
	nb := occ & around
	x := nb & -nb
	for {
		nx := x | (x<<1&^boxCol0|x>>1&^boxCol4|x<<5|x>>5|x>>4&^boxCol0|x<<4&^boxCol4)&occ&boxAll
		if nx == x {
			return nb&^x == 0
		}
		x = nx
	}
}

// arcs[mask] is the number of maximal runs of occupied neighbours round a
// cell (mask bit d: neighbour in direction d occupied; cyclic order).
var arcs [64]uint8

func init() {
	for m := 1; m < 64; m++ {
		if m == 63 {
			arcs[m] = 1
			continue
		}
		for d := range 6 {
			if m>>d&1 == 1 && m>>((d+5)%6)&1 == 0 {
				arcs[m]++
			}
		}
	}
}

// recentre moves the window so the group's bounding box is centred.
func (s *State) recentre() {
	minQ, maxQ, minR, maxR := wSide, 0, wSide, 0
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i])
		q, r := t&wMask, t>>wBits
		minQ, maxQ = min(minQ, q), max(maxQ, q)
		minR, maxR = min(minR, r), max(maxR, r)
	}
	s.shiftTo(s.offQ+int32((minQ+maxQ)/2-wSide/2), s.offR+int32((minR+maxR)/2-wSide/2))
}

// shiftTo moves the window to offset (oq, or), keeping every tile.
func (s *State) shiftTo(oq, or int32) {
	delta := int(s.offR-or)*wSide + int(s.offQ-oq)
	var vals [maxTiles]uint8
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i])
		vals[i] = s.cells[t]
		s.cells[t] = 0
	}
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i]) + delta
		s.tiles[i] = uint16(t)
		s.cells[t] = vals[i]
	}
	s.setOffset(oq, or)
}

// Forget drops the undo history and the removals only it refers to
// (engine.Forgetter).
func (s *State) Forget() { s.hist, s.removed = s.hist[:0], s.removed[:0] }

// Undo takes back the last move.
func (s *State) Undo() {
	u := s.hist[len(s.hist)-1]
	s.hist = s.hist[:len(s.hist)-1]
	if u.offQ != s.offQ || u.offR != s.offR {
		s.shiftTo(u.offQ, u.offR)
	}
	m := u.move
	switch m & 3 {
	case kindPlace:
		q, r := moveTo(m)
		idx := s.index(q, r)
		s.cells[idx] = 0
		s.n--
		s.hand[u.toMove]++
		s.onTable[colourOf(u.toMove)-1]--
	case kindStep:
		fq, fr := moveFrom(m)
		tq, tr := moveTo(m)
		from, dest := s.index(fq, fr), s.index(tq, tr)
		v := s.cells[dest]
		s.cells[dest] = 0
		s.cells[from] = v
		s.tiles[v>>2] = uint16(from)
		for k := len(s.removed) - 1; k >= int(u.remFrom); k-- {
			x := s.removed[k]
			if int(x.slot) != s.n {
				li := int(s.tiles[x.slot])
				s.tiles[s.n] = uint16(li)
				s.cells[li] = uint8(s.n)<<2 | s.cells[li]&3
			}
			s.tiles[x.slot] = x.idx
			s.cells[x.idx] = uint8(x.slot)<<2 | x.cv
			s.onTable[x.cv-1]++
			s.n++
		}
		s.removed = s.removed[:u.remFrom]
	}
	s.hash, s.toMove, s.passes = u.hash, u.toMove, u.passes
	s.status, s.winner, s.ending = u.status, u.winner, u.ending
	s.plies--
}

// Shape patterns round a cell d: disk19 lists the offsets of the 19 cells
// within distance 2, triMasks the 12 placements of a triangle through d and
// ringMasks the 6 rings through d, as bitmasks over disk19.
var (
	diskQ, diskR [19]int32
	disk19       [19]int
	triMasks     [12]uint32
	ringMasks    [6]uint32
	// diskOuter lists the disk's 12 cells at distance 2; nbDisk[nb] is the
	// disk mask of the neighbours in nb (bit k: direction k of dirI) and
	// of the centre; shapeNear[nb] tells whether some triangle or ring
	// through the centre has all its cells next to it in nb.
	diskOuter [12]int
	nbDisk    [64]uint32
	shapeNear [64]bool
)

func init() {
	k := 0
	bit := func(q, r int32) uint32 {
		for i := range disk19 {
			if diskQ[i] == q && diskR[i] == r {
				return 1 << i
			}
		}
		panic("six: shape cell outside the radius-2 disk")
	}
	for r := int32(-2); r <= 2; r++ {
		for q := int32(-2); q <= 2; q++ {
			if hexDist(q, r) <= 2 {
				diskQ[k], diskR[k], disk19[k] = q, r, int(r)*wSide+int(q)
				k++
			}
		}
	}
	tris := [2][6][2]int32{
		{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {0, 2}},
		{{0, 0}, {1, 0}, {2, 0}, {1, -1}, {2, -1}, {2, -2}},
	}
	k = 0
	for _, t := range tris {
		for _, p := range t {
			var m uint32
			for _, c := range t {
				m |= bit(c[0]-p[0], c[1]-p[1])
			}
			triMasks[k] = m
			k++
		}
	}
	for c := range 6 {
		var m uint32
		for d := range 6 {
			m |= bit(dirQ[c]+dirQ[d], dirR[c]+dirR[d])
		}
		ringMasks[c] = m
	}
	k = 0
	for i := range disk19 {
		if hexDist(diskQ[i], diskR[i]) == 2 {
			diskOuter[k] = i
			k++
		}
	}
	for nb := range nbDisk {
		m := bit(0, 0)
		for d := range 6 {
			if nb>>d&1 == 1 {
				m |= bit(dirQ[d], dirR[d])
			}
		}
		nbDisk[nb] = m
	}
	inner := nbDisk[63]
	for nb := range shapeNear {
		for _, t := range append(triMasks[:], ringMasks[:]...) {
			if t&inner&^nbDisk[nb] == 0 {
				shapeNear[nb] = true
			}
		}
	}
}

// shapeAt looks for a winning shape of colour cv (colour+1) through window
// index d, which holds a hexagon of that colour.
//
// Why shapes through the destination suffice: a move changes the mover's
// hexagons only by taking one off its cell (the lifted one), by taking groups
// off (advanced splits) and by putting one on the destination. Taking
// hexagons off never completes a shape, so a shape present after the move
// that avoids the destination was present before it, made of the same
// colour. A shape of a colour can only appear through a move of that colour
// (the opponent never adds hexagons of it), and such a move ends the game at
// once; so, while the game is being played, no shape is on the table unless
// the start position held one, and then the engine scans the whole table
// (State.fullScan). The shape of the opponent's colour never counts.
//
// Every shape has six hexagons, each touching another of the shape (of a
// triangle or a ring, two others): with fewer than six of the colour on
// the table, or d touching none of them, there is none; with d touching
// one only, just a line along it; and a triangle or ring only where d's
// neighbours of the colour hold the shape's cells next to d (shapeNear).
func (s *State) shapeAt(d int, cv uint8) Ending {
	if s.onTable[cv-1] < 6 {
		return NotOver
	}
	var nb uint8 // bit k: the neighbour in direction k (dirI) has colour cv
	for k, o := range dirI {
		if s.cells[d+o]&3 == cv {
			nb |= 1 << k
		}
	}
	if nb == 0 {
		return NotOver
	}
	// the three lines through d, each with its two directions' bits
	for _, l := range [3]struct {
		step int
		dirs uint8
	}{{1, 1<<0 | 1<<3}, {wSide, 1<<5 | 1<<2}, {1 - wSide, 1<<1 | 1<<4}} {
		if nb&l.dirs == 0 {
			continue
		}
		step := l.step
		n := 1
		for e := d + step; s.cells[e]&3 == cv; e += step {
			n++
		}
		for e := d - step; s.cells[e]&3 == cv; e -= step {
			n++
		}
		if n >= 6 {
			return ByLine
		}
	}
	if !shapeNear[nb] {
		return NotOver
	}
	m := nbDisk[nb]
	for _, i := range diskOuter {
		if s.cells[d+disk19[i]]&3 == cv {
			m |= 1 << i
		}
	}
	for _, t := range triMasks {
		if m&t == t {
			return ByTriangle
		}
	}
	for _, t := range ringMasks {
		if m&t == t {
			return ByRing
		}
	}
	return NotOver
}

// anyShape scans the whole table for a shape of colour cv.
func (s *State) anyShape(cv uint8) Ending {
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i])
		if s.cells[t]&3 == cv {
			if e := s.shapeAt(t, cv); e != NotOver {
				return e
			}
		}
	}
	return NotOver
}
