package six

import "github.com/tabla-board/tabla/engine"

// Legal reports whether m is one of the moves Moves lists in this
// position, without listing them: a placement is checked on its cell, a
// movement on its origin (is it a cut tile?) and its destination. Alpha-beta
// uses it to try its table's move and killers before it lists a node's
// moves (search's legalChecker); a move of another position (a killer, a
// table entry of a colliding hash) is checked as strictly as any.
func (s *State) Legal(m engine.Move) bool {
	if s.status != engine.Playing {
		return false
	}
	switch m & 3 {
	case kindPass:
		if m != Pass {
			return false
		}
		if s.sc.legal == nil {
			s.sc.legal = make([]engine.Move, 0, 256)
		}
		s.sc.legal = s.Moves(s.sc.legal[:0])
		return len(s.sc.legal) == 1 && s.sc.legal[0] == Pass
	case kindPlace:
		q, r := moveTo(m)
		if m != mkPlace(q, r) || !s.Placing() {
			return false
		}
		return s.legalPlace(q, r)
	case kindStep:
		if s.Placing() {
			return false
		}
		return s.legalStep(m)
	}
	return false
}

// local returns the window index of absolute (q, r) when it lies at least
// one cell inside the window (so that its neighbours are in it too).
func (s *State) local(q, r int32) (int, bool) {
	lq, lr := int64(q)-int64(s.offQ), int64(r)-int64(s.offR)
	if lq < 1 || lr < 1 || lq >= wSide-1 || lr >= wSide-1 {
		return 0, false
	}
	return int(lr)<<wBits | int(lq), true
}

// legalPlace: is placing on (q, r) one of placements' moves?
func (s *State) legalPlace(q, r int32) bool {
	if s.hand[s.toMove] == 0 {
		return false
	}
	if s.firstPlacement() {
		for d := range 6 {
			if q == dirQ[d] && r == dirR[d] {
				return s.cellAt(q, r) == 0 && hexDist(q-1, r) > 1
			}
		}
		return false
	}
	e, ok := s.local(q, r)
	if !ok || s.cells[e] != 0 || !s.inLimit(e) {
		return false
	}
	for _, d := range dirI {
		if s.cells[e+d] != 0 {
			return true
		}
	}
	return false
}

// legalStep: is the movement m one of movements' moves?
func (s *State) legalStep(m engine.Move) bool {
	fq, fr := moveFrom(m)
	tq, tr := moveTo(m)
	kq, kr, hasKeep := moveKeep(m)
	want := mkStep(fq, fr, tq, tr)
	if hasKeep {
		want = withKeep(want, kq, kr)
	}
	if m != want {
		return false
	}
	from, ok := s.local(fq, fr)
	if !ok || s.cells[from]&3 != colourOf(s.toMove) {
		return false
	}
	dest, ok := s.local(tq, tr)
	if !ok || s.cells[dest] != 0 || !s.inLimit(dest) {
		return false
	}
	slot := int(s.cells[from] >> 2)
	var nb uint8
	for d, o := range dirI {
		if s.cells[from+o] != 0 {
			nb |= 1 << d
		}
	}
	cut := false
	if arcs[nb] > 1 && !s.joinedRound(from) {
		// The neighbours do not hang together round the lifted tile: ask
		// the articulation search movements asks.
		s.buildAdj()
		s.articulation()
		cut = s.sc.cut[slot]
	}
	if !cut {
		if hasKeep {
			return false
		}
		// The destination touches a tile other than the lifted one.
		for _, d := range dirI {
			if e := dest + d; e != from && s.cells[e] != 0 {
				return true
			}
		}
		return false
	}
	if !s.advanced {
		return false
	}
	// An advanced split: the destination touches a largest group that may
	// stay, named by keep when several tie (splitMoves).
	sc := s.sc
	nc := s.groups(slot)
	best, ties := s.largest(nc)
	if hasKeep != (ties > 1) {
		return false
	}
	keep := int8(-1)
	if hasKeep {
		k, ok := s.local(kq, kr)
		if !ok || s.cells[k] == 0 {
			return false
		}
		keep = sc.comp[s.cells[k]>>2]
		if keep < 0 || sc.size[keep] != best {
			return false
		}
		if cq, cr := s.canonicalCell(keep); cq != kq || cr != kr {
			return false
		}
	}
	for _, d := range dirI {
		v := s.cells[dest+d]
		if v == 0 {
			continue
		}
		c := sc.comp[v>>2]
		if c >= 0 && sc.size[c] == best && (keep < 0 || c == keep) {
			return true
		}
	}
	return false
}
