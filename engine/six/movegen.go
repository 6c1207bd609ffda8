package six

import (
	"slices"
	"strconv"

	"github.com/tabla-board/tabla/engine"
)

// Move kinds (bits 0–1, see doc.go).
const (
	kindPlace = 1
	kindStep  = 2
	kindPass  = 3

	coordBias = 1 << 16
	relBias   = 64
)

// Pass is the pass move.
const Pass engine.Move = kindPass

// Cell is an absolute cell of the plane in axial coordinates.
type Cell struct{ Q, R int }

func (c Cell) String() string { return strconv.Itoa(c.Q) + "," + strconv.Itoa(c.R) }

// PlaceMove is the placement of a hexagon from hand on to.
func PlaceMove(to Cell) engine.Move { return mkPlace(int32(to.Q), int32(to.R)) }

// StepMove is the movement of the hexagon on from to to; keep names a cell of
// the group that stays on a tied advanced split (nil otherwise). The keep cell
// must be the group's canonical (byte-order smallest) cell for the Move to
// equal the one Moves lists; ParseMove canonicalises.
func StepMove(from, to Cell, keep *Cell) engine.Move {
	m := mkStep(int32(from.Q), int32(from.R), int32(to.Q), int32(to.R))
	if keep != nil {
		m = withKeep(m, int32(keep.Q), int32(keep.R))
	}
	return m
}

// DecodeMove splits a move into its parts: kind 'p' (placement), 'm'
// (movement) or 'x' (pass); from is meaningful for movements and keep only
// when hasKeep.
func DecodeMove(m engine.Move) (kind byte, from, to Cell, keep Cell, hasKeep bool) {
	tq, tr := moveTo(m)
	to = Cell{int(tq), int(tr)}
	switch m & 3 {
	case kindPlace:
		return 'p', Cell{}, to, Cell{}, false
	case kindPass:
		return 'x', Cell{}, Cell{}, Cell{}, false
	}
	fq, fr := moveFrom(m)
	from = Cell{int(fq), int(fr)}
	if kq, kr, ok := moveKeep(m); ok {
		return 'm', from, to, Cell{int(kq), int(kr)}, true
	}
	return 'm', from, to, Cell{}, false
}

func mkPlace(q, r int32) engine.Move {
	return kindPlace | engine.Move(q+coordBias)<<2 | engine.Move(r+coordBias)<<19
}

func mkStep(fq, fr, tq, tr int32) engine.Move {
	return kindStep | engine.Move(tq+coordBias)<<2 | engine.Move(tr+coordBias)<<19 |
		engine.Move(fq-tq+relBias)<<36 | engine.Move(fr-tr+relBias)<<43
}

func withKeep(m engine.Move, kq, kr int32) engine.Move {
	tq, tr := moveTo(m)
	return m | engine.Move(kq-tq+relBias)<<50 | engine.Move(kr-tr+relBias)<<57
}

func moveTo(m engine.Move) (q, r int32) {
	return int32(m>>2&0x1ffff) - coordBias, int32(m>>19&0x1ffff) - coordBias
}

func moveFrom(m engine.Move) (q, r int32) {
	tq, tr := moveTo(m)
	return tq + int32(m>>36&0x7f) - relBias, tr + int32(m>>43&0x7f) - relBias
}

func moveKeep(m engine.Move) (q, r int32, ok bool) {
	if m>>50 == 0 {
		return 0, 0, false
	}
	tq, tr := moveTo(m)
	return tq + int32(m>>50&0x7f) - relBias, tr + int32(m>>57&0x7f) - relBias, true
}

// colourOf is the colour+1 cell value of the hexagons seat moves.
func colourOf(seat int8) uint8 { return uint8(seat&1) + 1 }

// firstPlacement reports whether the black first-placement restriction
// applies: black to place and the table holds exactly red 0,0 and black 1,0.
func (s *State) firstPlacement() bool {
	if s.n != 2 || s.toMove&1 != 0 {
		return false
	}
	a, b := s.cellAt(0, 0), s.cellAt(1, 0)
	return a != 0 && a&3 == 2 && b != 0 && b&3 == 1
}

// cellAt returns the cell byte of absolute (q,r), 0 outside the window.
func (s *State) cellAt(q, r int32) uint8 {
	lq, lr := int64(q)-int64(s.offQ), int64(r)-int64(s.offR)
	if lq < 0 || lr < 0 || lq >= wSide || lr >= wSide {
		return 0
	}
	return s.cells[lr<<wBits|lq]
}

// inLimit reports whether window index i is within ±MaxCoord.
func (s *State) inLimit(i int) bool {
	if !s.nearEdge {
		return true
	}
	q, r := s.coord(i)
	return q >= -MaxCoord && q <= MaxCoord && r >= -MaxCoord && r <= MaxCoord
}

// Moves appends the legal moves to buf[:0].
func (s *State) Moves(buf []engine.Move) []engine.Move {
	buf = buf[:0]
	if s.status != engine.Playing {
		return buf
	}
	if s.Placing() {
		buf = s.placements(buf)
	} else {
		buf = s.movements(buf)
	}
	if len(buf) == 0 {
		buf = append(buf, Pass)
	}
	return buf
}

func (s *State) placements(buf []engine.Move) []engine.Move {
	if s.hand[s.toMove] == 0 {
		return buf
	}
	if s.firstPlacement() {
		// Touch red 0,0, not black 1,0: of 0,0's empty neighbours those at
		// distance 2 from 1,0, i.e. -1,0 0,-1 -1,1.
		for d := range 6 {
			q, r := dirQ[d], dirR[d]
			if s.cellAt(q, r) == 0 && hexDist(q-1, r) > 1 {
				buf = append(buf, mkPlace(q, r))
			}
		}
		return buf
	}
	nf := s.buildFrontier()
	for _, e := range s.sc.front[:nf] {
		if s.inLimit(int(e)) {
			q, r := s.coord(int(e))
			buf = append(buf, mkPlace(q, r))
		}
	}
	return buf
}

func hexDist(q, r int32) int32 {
	return max(abs32(q), abs32(r), abs32(q+r))
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// buildFrontier lists the empty cells touching a tile in sc.front, each
// once, and returns their number. It marks them with a fresh stamp, so that
// nothing needs clearing afterwards.
func (s *State) buildFrontier() int {
	sc := s.sc
	gen := sc.nextGen()
	nf := 0
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i])
		for _, d := range dirI {
			e := t + d
			if s.cells[e] == 0 && sc.stamp[e] != gen {
				sc.stamp[e] = gen
				sc.front[nf] = uint16(e)
				nf++
			}
		}
	}
	return nf
}

// nextGen returns a stamp no cell carries.
func (sc *scratch) nextGen() uint16 {
	sc.gen++
	if sc.gen == 0 {
		clear(sc.stamp[:])
		sc.gen = 1
	}
	return sc.gen
}

// buildAdj fills sc.adj/sc.deg with the tile graph (slots).
func (s *State) buildAdj() {
	sc := s.sc
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i])
		var k int8
		for _, d := range dirI {
			if c := s.cells[t+d]; c != 0 {
				sc.adj[i][k] = int8(c >> 2)
				k++
			}
		}
		sc.deg[i] = k
	}
}

// articulation marks in sc.cut the tiles whose removal disconnects the
// others: an iterative Hopcroft–Tarjan lowlink DFS, linear in the tiles.
// sc.adj must be built.
func (s *State) articulation() {
	sc := s.sc
	n := s.n
	for i := 0; i < n; i++ {
		sc.disc[i] = 0
		sc.cut[i] = false
	}
	if n == 0 {
		return
	}
	var time int8 = 1
	sc.disc[0], sc.low[0], sc.par[0], sc.it[0] = 1, 1, -1, 0
	sc.stack[0] = 0
	sp := 0
	rootKids := 0
	for sp >= 0 {
		v := sc.stack[sp]
		if sc.it[v] < sc.deg[v] {
			w := sc.adj[v][sc.it[v]]
			sc.it[v]++
			if sc.disc[w] == 0 {
				time++
				sc.disc[w], sc.low[w], sc.par[w], sc.it[w] = time, time, v, 0
				sp++
				sc.stack[sp] = w
				if v == 0 {
					rootKids++
				}
			} else if w != sc.par[v] && sc.disc[w] < sc.low[v] {
				sc.low[v] = sc.disc[w]
			}
			continue
		}
		sp--
		if sp >= 0 {
			p := sc.stack[sp]
			if sc.low[v] < sc.low[p] {
				sc.low[p] = sc.low[v]
			}
			if p != 0 && sc.low[v] >= sc.disc[p] {
				sc.cut[p] = true
			}
		}
	}
	sc.cut[0] = rootKids >= 2
}

func (s *State) movements(buf []engine.Move) []engine.Move {
	sc := s.sc
	cv := colourOf(s.toMove)
	// One pass over the tiles' neighbours: the tile graph, and the
	// candidate destinations in a dense list with their number of adjacent
	// tiles (destN) and the destination-dependent part of their encoding
	// (destM, filled below).
	gen := sc.nextGen()
	nd := 0
	for i := 0; i < s.n; i++ {
		t := int(s.tiles[i])
		var k int8
		for _, d := range dirI {
			e := t + d
			if c := s.cells[e]; c != 0 {
				sc.adj[i][k] = int8(c >> 2)
				k++
				continue
			}
			if sc.stamp[e] != gen {
				sc.stamp[e] = gen
				sc.pos[e] = uint8(nd)
				sc.destE[nd] = uint16(e)
				sc.destN[nd] = 0
				nd++
			}
			sc.destN[sc.pos[e]]++
		}
		sc.deg[i] = k
	}
	s.articulation()
	for k, e := range sc.destE[:nd] {
		sc.destM[k] = s.toPart(int(e))
	}
	for slot := 0; slot < s.n; slot++ {
		t := int(s.tiles[slot])
		if s.cells[t]&3 != cv {
			continue
		}
		if sc.cut[slot] {
			if s.advanced {
				buf = s.splitMoves(buf, slot)
			}
			continue
		}
		// Lifting t: frontier cells touching only t drop out.
		for _, d := range dirI {
			if s.cells[t+d] == 0 {
				sc.destN[sc.pos[t+d]]--
			}
		}
		fp := fromPart(t)
		buf = slices.Grow(buf, nd)
		n := len(buf)
		out := buf[:n+nd]
		if !s.nearEdge {
			for k, cnt := range sc.destN[:nd] {
				out[n] = sc.destM[k] + fp
				n += int((cnt + 7) >> 3) // 1 when cnt ≥ 1 (cnt ≤ 6)
			}
		} else {
			for k, cnt := range sc.destN[:nd] {
				if cnt != 0 && s.inLimit(int(sc.destE[k])) {
					out[n] = sc.destM[k] + fp
					n++
				}
			}
		}
		buf = out[:n]
		for _, d := range dirI {
			if s.cells[t+d] == 0 {
				sc.destN[sc.pos[t+d]]++
			}
		}
	}
	return buf
}

// toPart and fromPart split a movement's encoding into a part that depends
// on the destination (window index e) and one that depends on the origin
// (window index t): mkStep(from, to) == toPart(to) + fromPart(from). The
// relative fields are differences of window coordinates, each in 0…127, so
// the sum carries nothing across fields (toPart alone may wrap around).
func (s *State) toPart(e int) engine.Move {
	q, r := s.coord(e)
	return kindStep | engine.Move(q+coordBias)<<2 | engine.Move(r+coordBias)<<19 -
		(engine.Move(e&wMask)<<36 + engine.Move(e>>wBits)<<43)
}

func fromPart(t int) engine.Move {
	return engine.Move(t&wMask+relBias)<<36 + engine.Move(t>>wBits+relBias)<<43
}

// groups labels the groups the other tiles form once slot lift is lifted:
// sc.comp[slot] is the group (the lifted tile gets -1), sc.size the sizes.
// It returns the number of groups. sc.adj must be built.
func (s *State) groups(lift int) int {
	sc := s.sc
	for i := 0; i < s.n; i++ {
		sc.comp[i] = -2
	}
	sc.comp[lift] = -1
	nc := int8(0)
	for i := 0; i < s.n; i++ {
		if sc.comp[i] != -2 {
			continue
		}
		q := sc.queue[:0]
		q = append(q, int8(i))
		sc.comp[i] = nc
		for h := 0; h < len(q); h++ {
			v := q[h]
			for _, w := range sc.adj[v][:sc.deg[v]] {
				if sc.comp[w] == -2 {
					sc.comp[w] = nc
					q = append(q, w)
				}
			}
		}
		sc.size[nc] = int8(len(q))
		nc++
	}
	return int(nc)
}

// groupsOnTable is groups read from the cells instead of sc.adj (which it
// neither needs nor builds): the same labels, sizes and number of groups,
// as it visits the tiles and their neighbours in the same order.
func (s *State) groupsOnTable(lift int) int {
	sc := s.sc
	for i := 0; i < s.n; i++ {
		sc.comp[i] = -2
	}
	sc.comp[lift] = -1
	nc := int8(0)
	for i := 0; i < s.n; i++ {
		if sc.comp[i] != -2 {
			continue
		}
		q := sc.queue[:0]
		q = append(q, int8(i))
		sc.comp[i] = nc
		for h := 0; h < len(q); h++ {
			t := int(s.tiles[q[h]])
			for _, d := range dirI {
				if c := s.cells[t+d]; c != 0 && sc.comp[c>>2] == -2 {
					sc.comp[c>>2] = nc
					q = append(q, int8(c>>2))
				}
			}
		}
		sc.size[nc] = int8(len(q))
		nc++
	}
	return int(nc)
}

// largest returns the size of the largest group and how many groups have it.
func (s *State) largest(nc int) (size int8, ties int) {
	for k := 0; k < nc; k++ {
		switch sz := s.sc.size[k]; {
		case sz > size:
			size, ties = sz, 1
		case sz == size:
			ties++
		}
	}
	return size, ties
}

// splitMoves lists the moves of the articulation tile in slot lift under the
// advanced rule: one set of destinations per largest group that may stay.
func (s *State) splitMoves(buf []engine.Move, lift int) []engine.Move {
	sc := s.sc
	nc := s.groups(lift)
	best, ties := s.largest(nc)
	fq, fr := s.coord(int(s.tiles[lift]))
	for k := int8(0); int(k) < nc; k++ {
		if sc.size[k] != best {
			continue
		}
		var kq, kr int32
		if ties > 1 {
			kq, kr = s.canonicalCell(k)
		}
		nd := 0
		for i := 0; i < s.n; i++ {
			if sc.comp[i] != k {
				continue
			}
			t := int(s.tiles[i])
			for _, d := range dirI {
				// Cells of removed groups never touch the kept group (they
				// would belong to it), and the lifted tile's own cell is
				// occupied here: only truly empty cells qualify.
				e := t + d
				if s.cells[e] == 0 && sc.seen[e] == 0 {
					sc.seen[e] = 1
					sc.kdest[nd] = uint16(e)
					nd++
				}
			}
		}
		for _, e := range sc.kdest[:nd] {
			sc.seen[e] = 0
			if !s.inLimit(int(e)) {
				continue
			}
			q, r := s.coord(int(e))
			m := mkStep(fq, fr, q, r)
			if ties > 1 {
				m = withKeep(m, kq, kr)
			}
			buf = append(buf, m)
		}
	}
	return buf
}

// canonicalCell returns the byte-order smallest "q,r" of group k (sc.comp).
func (s *State) canonicalCell(k int8) (int32, int32) {
	var bq, br int32
	found := false
	for i := 0; i < s.n; i++ {
		if s.sc.comp[i] != k {
			continue
		}
		q, r := s.coord(int(s.tiles[i]))
		if !found || cellLess(q, r, bq, br) {
			bq, br, found = q, r, true
		}
	}
	return bq, br
}

// cellLess compares the notations "q,r" of two cells byte by byte.
func cellLess(aq, ar, bq, br int32) bool {
	var ab, bb [24]byte
	a := appendCell(ab[:0], aq, ar)
	b := appendCell(bb[:0], bq, br)
	return string(a) < string(b)
}

func appendCell(dst []byte, q, r int32) []byte {
	dst = strconv.AppendInt(dst, int64(q), 10)
	dst = append(dst, ',')
	return strconv.AppendInt(dst, int64(r), 10)
}
