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
// The tied-split suffix may name any cell of the kept group.
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
	moves := s.Moves(make([]engine.Move, 0, 2048))
	seat := s.info.Seats[s.toMove]
	mustPass := len(moves) == 1 && moves[0] == Pass
	if p.kind == 'x' {
		if mustPass {
			return Pass, nil
		}
		return engine.NoMove, illegal(text, "%s has a legal move and may not pass", seat)
	}
	if mustPass {
		switch {
		case s.Placing() && s.hand[s.toMove] == 0:
			return engine.NoMove, illegal(text, "%s has no hexagon in hand and must pass", seat)
		default:
			return engine.NoMove, illegal(text, "%s has no legal move and must pass", seat)
		}
	}
	if p.kind == 'p' {
		m := mkPlace(p.tq, p.tr)
		for _, x := range moves {
			if x == m {
				return m, nil
			}
		}
		return engine.NoMove, s.whyNotPlace(text, p)
	}
	if s.Placing() {
		return engine.NoMove, illegal(text, "hexagons are still in hand: place one (q,r) instead of moving")
	}
	base := mkStep(p.fq, p.fr, p.tq, p.tr)
	var cands []engine.Move
	for _, x := range moves {
		if x&(1<<50-1) == base {
			cands = append(cands, x)
		}
	}
	if len(cands) == 0 {
		return engine.NoMove, s.whyNotStep(text, p)
	}
	_, _, _, _, tied := DecodeMove(cands[0])
	switch {
	case !tied && p.hasKeep:
		return engine.NoMove, illegal(text, "lifting %d,%d leaves no tie for the largest group: drop the /%d,%d suffix", p.fq, p.fr, p.kq, p.kr)
	case !tied:
		return cands[0], nil
	case !p.hasKeep:
		return engine.NoMove, illegal(text, "lifting %d,%d splits the others into tied largest groups: name the one that stays with /q,r (one of %s)", p.fq, p.fr, s.keepChoices(cands))
	}
	// The suffix may name any cell of the kept group.
	from := s.index(p.fq, p.fr)
	s.buildAdj()
	s.groups(int(s.cells[from] >> 2))
	kc := s.cellAt(p.kq, p.kr)
	if kc == 0 || s.index(p.kq, p.kr) == from {
		return engine.NoMove, illegal(text, "no hexagon of a remaining group on %d,%d", p.kq, p.kr)
	}
	g := s.sc.comp[kc>>2]
	for _, x := range cands {
		kq, kr, _ := moveKeep(x)
		if s.sc.comp[s.cells[s.index(kq, kr)]>>2] == g {
			return x, nil
		}
	}
	return engine.NoMove, illegal(text, "%d,%d is not in a largest group (one of %s stays)", p.kq, p.kr, s.keepChoices(cands))
}

func (s *State) keepChoices(cands []engine.Move) string {
	out := ""
	for i, x := range cands {
		kq, kr, _ := moveKeep(x)
		if i > 0 {
			out += ", "
		}
		out += string(appendCell(nil, kq, kr))
	}
	return out
}

func (s *State) whyNotPlace(text string, p parsed) error {
	seat := s.info.Seats[s.toMove]
	if !s.Placing() {
		return illegal(text, "all hexagons are on the table: move one (q,r>q,r)")
	}
	if s.cellAt(p.tq, p.tr) != 0 {
		return illegal(text, "cell %d,%d is occupied", p.tq, p.tr)
	}
	if s.firstPlacement() {
		return illegal(text, "%s's first hexagon must touch red 0,0 and not black 1,0 (-1,0, 0,-1 or -1,1)", seat)
	}
	return illegal(text, "cell %d,%d touches no hexagon", p.tq, p.tr)
}

func (s *State) whyNotStep(text string, p parsed) error {
	seat := s.info.Seats[s.toMove]
	col := Colour(s.toMove & 1)
	fc := s.cellAt(p.fq, p.fr)
	switch {
	case fc == 0:
		return illegal(text, "no hexagon on %d,%d", p.fq, p.fr)
	case Colour(fc&3-1) != col:
		return illegal(text, "%s moves %s hexagons, and %d,%d is %s", seat, col, p.fq, p.fr, Colour(fc&3-1))
	case p.fq == p.tq && p.fr == p.tr:
		return illegal(text, "the hexagon must go to a different cell")
	case s.cellAt(p.tq, p.tr) != 0:
		return illegal(text, "cell %d,%d is occupied", p.tq, p.tr)
	}
	s.buildAdj()
	if nc := s.groups(int(fc >> 2)); nc > 1 && !s.advanced {
		return illegal(text, "lifting %d,%d would split the other hexagons into %d groups", p.fq, p.fr, nc)
	}
	if s.advanced {
		return illegal(text, "cell %d,%d touches no hexagon that stays once %d,%d is lifted", p.tq, p.tr, p.fq, p.fr)
	}
	return illegal(text, "cell %d,%d touches no other hexagon", p.tq, p.tr)
}
