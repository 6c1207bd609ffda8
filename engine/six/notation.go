package six

import (
	"fmt"

	"github.com/tabla-board/tabla/engine"
)

// AppendMove appends the canonical notation of m.
func (s *State) AppendMove(dst []byte, m engine.Move) []byte {
	switch m & 3 {
	case kindPass:
		return append(dst, "pass"...)
	case kindPlace:
		q, r := moveTo(m)
		return appendCell(dst, q, r)
	case kindStep:
		fq, fr := moveFrom(m)
		tq, tr := moveTo(m)
		dst = appendCell(dst, fq, fr)
		dst = append(dst, '>')
		dst = appendCell(dst, tq, tr)
		if kq, kr, ok := moveKeep(m); ok {
			dst = append(dst, '/')
			dst = appendCell(dst, kq, kr)
		}
		return dst
	}
	return append(dst, "?"...)
}

// parseInt reads a canonical integer at the start of t: "0" or an optional
// '-' and digits without a leading zero. It returns the value, the bytes
// read, what is malformed ("" if nothing) and whether the number is beyond
// ±MaxCoord (then the value is meaningless).
func parseInt(t string) (v int32, n int, bad string, far bool) {
	neg := false
	if n < len(t) && t[n] == '+' {
		return 0, 0, "a '+' sign is not canonical", false
	}
	if n < len(t) && t[n] == '-' {
		neg = true
		n++
	}
	start := n
	var x int64
	for n < len(t) && t[n] >= '0' && t[n] <= '9' {
		if x <= MaxCoord {
			x = x*10 + int64(t[n]-'0')
		}
		n++
	}
	switch {
	case n == start:
		return 0, n, "a coordinate must be an integer", false
	case t[start] == '0' && n-start > 1:
		return 0, n, "leading zeros are not canonical", false
	case neg && x == 0:
		return 0, n, "-0 is not canonical (write 0)", false
	}
	if neg {
		x = -x
	}
	if x > MaxCoord || x < -MaxCoord {
		return 0, n, "", true
	}
	return int32(x), n, "", false
}

// parsed is a move read from text, before its legality is checked.
type parsed struct {
	kind             byte // 'p', 'm', 'x'
	fq, fr, tq, tr   int32
	kq, kr           int32
	hasKeep, farCell bool
}

func parseText(text string) (p parsed, bad string) {
	if text == "pass" {
		p.kind = 'x'
		return p, ""
	}
	pos := 0
	cell := func() (q, r int32, bad string) {
		q, n, b, far := parseInt(text[pos:])
		if b != "" {
			return 0, 0, b
		}
		pos += n
		if pos >= len(text) || text[pos] != ',' {
			return 0, 0, "want a cell q,r"
		}
		pos++
		r, n, b, far2 := parseInt(text[pos:])
		if b != "" {
			return 0, 0, b
		}
		pos += n
		p.farCell = p.farCell || far || far2
		return q, r, ""
	}
	q, r, b := cell()
	if b != "" {
		return p, b
	}
	if pos == len(text) {
		p.kind, p.tq, p.tr = 'p', q, r
		return p, ""
	}
	if text[pos] != '>' {
		return p, fmt.Sprintf("unexpected %q after a cell (want '>' or the end)", text[pos:pos+1])
	}
	pos++
	p.kind, p.fq, p.fr = 'm', q, r
	if p.tq, p.tr, b = cell(); b != "" {
		return p, b
	}
	if pos == len(text) {
		return p, ""
	}
	if text[pos] != '/' {
		return p, fmt.Sprintf("unexpected %q after the destination (want '/' or the end)", text[pos:pos+1])
	}
	pos++
	if p.kq, p.kr, b = cell(); b != "" {
		return p, b
	}
	if pos != len(text) {
		return p, fmt.Sprintf("unexpected %q after the kept group's cell", text[pos:])
	}
	p.hasKeep = true
	return p, ""
}

func illegal(text, format string, args ...any) error {
	return fmt.Errorf("six: %w: %s: %s", engine.ErrIllegal, text, fmt.Sprintf(format, args...))
}

// ParseMove reads canonical notation and returns the legal move it names.
// The tied-split suffix may name any cell of the kept group. It checks the
// move directly (one group labelling for a movement), without listing all
// legal moves, except for "pass".
func (s *State) ParseMove(text string) (engine.Move, error) {
	p, bad := parseText(text)
	if bad != "" {
		return engine.NoMove, fmt.Errorf("six: %w: %q: %s (want q,r, q,r>q,r, q,r>q,r/q,r or pass)", engine.ErrNotation, text, bad)
	}
	if s.status != engine.Playing {
		return engine.NoMove, fmt.Errorf("six: %w: %w: %s: the game is over", engine.ErrIllegal, engine.ErrNotNow, text)
	}
	if p.farCell {
		return engine.NoMove, illegal(text, "a coordinate is beyond ±%d, where no move can go", MaxCoord)
	}
	seat := s.info.Seats[s.toMove]
	switch {
	case p.kind == 'x':
		if s.sc.parse == nil {
			s.sc.parse = make([]engine.Move, 0, 2048)
		}
		moves := s.Moves(s.sc.parse[:0])
		s.sc.parse = moves[:0]
		if len(moves) == 1 && moves[0] == Pass {
			return Pass, nil
		}
		return engine.NoMove, illegal(text, "%s has a legal move and may not pass", seat)
	case s.Placing() && s.hand[s.toMove] == 0:
		return engine.NoMove, illegal(text, "%s has no hexagon in hand and must pass", seat)
	case p.kind == 'p':
		return s.checkPlace(text, p)
	case s.Placing():
		return engine.NoMove, illegal(text, "hexagons are still in hand: place one (q,r) instead of moving")
	}
	return s.checkStep(text, p)
}

func (s *State) checkPlace(text string, p parsed) (engine.Move, error) {
	seat := s.info.Seats[s.toMove]
	switch {
	case !s.Placing():
		return engine.NoMove, illegal(text, "all hexagons are on the table: move one (q,r>q,r)")
	case s.cellAt(p.tq, p.tr) != 0:
		return engine.NoMove, illegal(text, "cell %d,%d is occupied", p.tq, p.tr)
	case s.firstPlacement():
		if hexDist(p.tq, p.tr) != 1 || hexDist(p.tq-1, p.tr) <= 1 {
			return engine.NoMove, illegal(text, "%s's first hexagon must touch red 0,0 and not black 1,0 (-1,0, 0,-1 or -1,1)", seat)
		}
		return mkPlace(p.tq, p.tr), nil
	}
	for d := range 6 {
		if s.cellAt(p.tq+dirQ[d], p.tr+dirR[d]) != 0 {
			return mkPlace(p.tq, p.tr), nil
		}
	}
	return engine.NoMove, illegal(text, "cell %d,%d touches no hexagon", p.tq, p.tr)
}

func (s *State) checkStep(text string, p parsed) (engine.Move, error) {
	sc := s.sc
	seat := s.info.Seats[s.toMove]
	col := Colour(s.toMove & 1)
	fc := s.cellAt(p.fq, p.fr)
	switch {
	case fc == 0:
		return engine.NoMove, illegal(text, "no hexagon on %d,%d", p.fq, p.fr)
	case Colour(fc&3-1) != col:
		return engine.NoMove, illegal(text, "%s moves %s hexagons, and %d,%d is %s", seat, col, p.fq, p.fr, Colour(fc&3-1))
	case p.fq == p.tq && p.fr == p.tr:
		return engine.NoMove, illegal(text, "the hexagon must go to a different cell")
	}
	s.buildAdj()
	nc := s.groups(int(fc >> 2))
	best, ties := s.largest(nc)
	split := nc > 1
	if tc := s.cellAt(p.tq, p.tr); tc != 0 {
		if split && s.advanced && sc.size[sc.comp[tc>>2]] != best {
			return engine.NoMove, illegal(text, "cell %d,%d is freed by a removed group but touches no hexagon that stays", p.tq, p.tr)
		}
		return engine.NoMove, illegal(text, "cell %d,%d is occupied", p.tq, p.tr)
	}
	if split && !s.advanced {
		return engine.NoMove, illegal(text, "lifting %d,%d would split the other hexagons into %d groups", p.fq, p.fr, nc)
	}
	// The group that stays: the only one, the largest, or the one named.
	keep := int8(-1)
	switch {
	case ties > 1 && !p.hasKeep:
		return engine.NoMove, illegal(text, "lifting %d,%d splits the others into tied largest groups: name the one that stays with /q,r (one of %s)", p.fq, p.fr, s.keepChoices(nc, best))
	case ties > 1:
		kc := s.cellAt(p.kq, p.kr)
		if kc == 0 || kc == fc {
			return engine.NoMove, illegal(text, "no hexagon of a remaining group on %d,%d", p.kq, p.kr)
		}
		if keep = sc.comp[kc>>2]; sc.size[keep] != best {
			return engine.NoMove, illegal(text, "%d,%d is not in a largest group, which alone may stay", p.kq, p.kr)
		}
	case p.hasKeep:
		return engine.NoMove, illegal(text, "lifting %d,%d leaves no tie for the largest group: drop the /%d,%d suffix", p.fq, p.fr, p.kq, p.kr)
	default:
		for k := int8(0); int(k) < nc; k++ {
			if sc.size[k] == best {
				keep = k
			}
		}
	}
	touches := false
	for d := range 6 {
		if c := s.cellAt(p.tq+dirQ[d], p.tr+dirR[d]); c != 0 && c != fc && sc.comp[c>>2] == keep {
			touches = true
		}
	}
	switch {
	case !touches && ties > 1:
		return engine.NoMove, illegal(text, "cell %d,%d touches no hexagon of the kept group", p.tq, p.tr)
	case !touches && split:
		return engine.NoMove, illegal(text, "cell %d,%d touches no hexagon that stays once %d,%d is lifted", p.tq, p.tr, p.fq, p.fr)
	case !touches:
		return engine.NoMove, illegal(text, "cell %d,%d touches no other hexagon", p.tq, p.tr)
	}
	m := mkStep(p.fq, p.fr, p.tq, p.tr)
	if ties > 1 {
		kq, kr := s.canonicalCell(keep)
		m = withKeep(m, kq, kr)
	}
	return m, nil
}

// keepChoices lists the canonical cells of the largest groups (sc.comp).
func (s *State) keepChoices(nc int, best int8) string {
	out := ""
	for k := int8(0); int(k) < nc; k++ {
		if s.sc.size[k] == best {
			if out != "" {
				out += ", "
			}
			q, r := s.canonicalCell(k)
			out += string(appendCell(nil, q, r))
		}
	}
	return out
}
