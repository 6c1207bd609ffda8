package gyges

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/engine"
)

func appendCell(dst []byte, c Cell) []byte {
	switch {
	case c == North:
		return append(dst, 'N')
	case c == South:
		return append(dst, 'S')
	}
	return append(dst, 'a'+byte(c)%cols, '1'+byte(c)/cols)
}

// AppendMove appends the canonical notation: H@cell, from-to, from-to/cell
// or pass.
func (g *Game) AppendMove(dst []byte, m engine.Move) []byte {
	k, from, to, disp, h := Unpack(m)
	switch k {
	case KindPlace:
		dst = append(dst, '0'+byte(h), '@')
		return appendCell(dst, to)
	case KindMove:
		dst = appendCell(dst, from)
		dst = append(dst, '-')
		return appendCell(dst, to)
	case KindReplace:
		dst = appendCell(dst, from)
		dst = append(dst, '-')
		dst = appendCell(dst, to)
		dst = append(dst, '/')
		return appendCell(dst, disp)
	case KindPass:
		return append(dst, "pass"...)
	}
	return append(dst, "?"...)
}

func notationErr(s, format string, args ...any) error {
	return fmt.Errorf("%w: gyges: %q: %s", engine.ErrNotation, s, fmt.Sprintf(format, args...))
}

func illegalErr(s, format string, args ...any) error {
	return fmt.Errorf("%w: gyges: %s: %s", engine.ErrIllegal, s, fmt.Sprintf(format, args...))
}

// syntax reads canonical notation into a move without looking at the
// position.
func syntax(s string) (engine.Move, error) {
	if s == "pass" {
		return Pass, nil
	}
	if len(s) >= 2 && s[1] == '@' {
		if s[0] < '1' || s[0] > '3' {
			return 0, notationErr(s, "height %q is not 1, 2 or 3", s[:1])
		}
		c, ok := ParseCell(s[2:])
		if !ok {
			return 0, notationErr(s, "%q is not a cell (a1…f6)", s[2:])
		}
		if c >= numCells {
			return 0, notationErr(s, "a piece is placed on a cell of the board, not on goal %s", c)
		}
		return Place(int(s[0]-'0'), c), nil
	}
	dash := strings.IndexByte(s, '-')
	if dash < 0 {
		return 0, notationErr(s, "want H@cell, from-to, from-to/cell or pass")
	}
	from, ok := ParseCell(s[:dash])
	if !ok {
		return 0, notationErr(s, "%q is not a cell (a1…f6)", s[:dash])
	}
	if from >= numCells {
		return 0, notationErr(s, "a move starts on a cell of the board, not on goal %s", from)
	}
	rest := s[dash+1:]
	slash := strings.IndexByte(rest, '/')
	toText := rest
	if slash >= 0 {
		toText = rest[:slash]
	}
	to, ok := ParseCell(toText)
	if !ok {
		return 0, notationErr(s, "%q is not a cell (a1…f6, N or S)", toText)
	}
	if slash < 0 {
		return Step(from, to), nil
	}
	if to >= numCells {
		return 0, notationErr(s, "a replace lands on a piece, not on goal %s", to)
	}
	d, ok := ParseCell(rest[slash+1:])
	if !ok {
		return 0, notationErr(s, "%q is not a cell (a1…f6)", rest[slash+1:])
	}
	return Replace(from, to, d), nil
}

// ParseMove reads canonical notation and returns the legal move it names, or
// an error wrapping engine.ErrNotation (malformed) or engine.ErrIllegal (well
// formed but not legal now) that says what is wrong.
func (g *Game) ParseMove(s string) (engine.Move, error) {
	m, err := syntax(s)
	if err != nil {
		return 0, err
	}
	if g.status != engine.Playing {
		return 0, illegalErr(s, "the game is over")
	}
	var buf [512]engine.Move
	for _, x := range g.Moves(buf[:0]) {
		if x == m {
			return m, nil
		}
	}
	return 0, g.whyIllegal(s, m)
}

// whyIllegal explains why a well-formed move is not legal now.
func (g *Game) whyIllegal(s string, m engine.Move) error {
	k, from, to, disp, h := Unpack(m)
	p := int(g.toMove)
	who := seatNames[p]
	setup := g.Setup()
	homeRow := 1
	if p == NorthSeat {
		homeRow = rows
	}
	switch {
	case k == KindPlace && !setup:
		return illegalErr(s, "the setup is over: no pieces in hand")
	case k == KindPlace && g.hand[p][h] == 0:
		return illegalErr(s, "%s has no piece of height %d in hand", who, h)
	case k == KindPlace && to.Row() != homeRow:
		return illegalErr(s, "%s places on their home row (row %d) only", who, homeRow)
	case k == KindPlace:
		return illegalErr(s, "%s is occupied", to)
	case setup:
		return illegalErr(s, "setup: %s must place a piece from hand (H@cell)", who)
	case k == KindPass:
		return illegalErr(s, "%s has a legal move, so cannot pass", who)
	case k == KindReplace && !g.advanced:
		return illegalErr(s, "replace (from-to/cell) is only played in the advanced variant")
	case g.h[from] == 0:
		return illegalErr(s, "no piece on %s", from)
	}
	if r := g.movableRow(); r >= 0 && from.Row() != r+1 {
		return illegalErr(s, "%s must move a piece from row %d (the nearest row with a legal move)", who, r+1)
	}
	target := North
	if p == NorthSeat {
		target = South
	}
	ends, lands := g.outcomes(p, from)
	switch {
	case to == from:
		return illegalErr(s, "a piece never comes back to rest where it started")
	case to >= numCells && to != target:
		return illegalErr(s, "%s's target is goal %s, a piece never enters its own goal", who, target)
	case k == KindMove && g.h[to] != 0:
		if g.advanced {
			return illegalErr(s, "%s is occupied: a move ends on an empty cell or the goal (replace is from-to/cell)", to)
		}
		return illegalErr(s, "%s is occupied: a move ends on an empty cell or the goal", to)
	case k == KindMove && ends&(1<<to) == 0:
		return illegalErr(s, "no chain from %s ends on %s", from, to)
	case k == KindReplace && g.h[to] == 0:
		return illegalErr(s, "replace needs a piece on %s", to)
	case k == KindReplace && lands&(1<<to) == 0:
		return illegalErr(s, "no chain from %s lands on the piece on %s", from, to)
	case k == KindReplace && disp >= numCells:
		return illegalErr(s, "a displaced piece never goes to a goal")
	case k == KindReplace && disp != from && g.h[disp] != 0:
		return illegalErr(s, "%s is occupied", disp)
	case k == KindReplace:
		opp := seatNames[p^1]
		after := g.occ &^ (1 << from) & boardMask
		return illegalErr(s, "%s is behind %s's nearest row (row %d)", disp, opp, nearestRow(p^1, after)+1)
	}
	return illegalErr(s, "not a legal move now")
}

// Position exports the position in the game record's start format. During
// the setup it includes the hands. After a win the winning piece stands on
// its goal, which New reads back as a won game.
func (g *Game) Position() engine.Position {
	pos := engine.Position{ToMove: seatNames[g.toMove], Pieces: map[string]string{}}
	for c, h := range g.h {
		if h != 0 {
			pos.Pieces[Cell(c).String()] = strconv.Itoa(int(h))
		}
	}
	if g.Setup() {
		pos.Hands = map[string]any{}
		for p, name := range seatNames {
			hand := map[string]int{}
			for h := 1; h <= 3; h++ {
				hand[strconv.Itoa(h)] = int(g.hand[p][h])
			}
			pos.Hands[name] = hand
		}
	}
	return pos
}

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: gyges: start: %s", engine.ErrConfig, fmt.Sprintf(format, args...))
}

// load sets the game up from a start position, checking it.
func (g *Game) load(pos *engine.Position) error {
	switch pos.ToMove {
	case "south":
		g.toMove = SouthSeat
	case "north":
		g.toMove = NorthSeat
	default:
		return configErr("to_move %q is not a player (want south or north)", pos.ToMove)
	}
	names := make([]string, 0, len(pos.Pieces))
	for name := range pos.Pieces {
		names = append(names, name)
	}
	sort.Strings(names)
	var count [4]int
	var goal Cell = NoCell
	for _, name := range names {
		c, ok := ParseCell(name)
		if !ok {
			return configErr("pieces: unknown cell %q", name)
		}
		v := pos.Pieces[name]
		if len(v) != 1 || v[0] < '1' || v[0] > '3' {
			return configErr("pieces: %s holds %q, want a height \"1\", \"2\" or \"3\"", name, v)
		}
		h := v[0] - '0'
		if c >= numCells {
			if goal != NoCell {
				return configErr("pieces: both goals hold a piece")
			}
			goal = c
		}
		g.h[c] = h
		g.occ |= 1 << c
		count[h]++
	}
	players := make([]string, 0, len(pos.Hands))
	for name := range pos.Hands {
		players = append(players, name)
	}
	sort.Strings(players)
	for _, name := range players {
		p := -1
		for i, s := range seatNames {
			if s == name {
				p = i
			}
		}
		if p < 0 {
			return configErr("hands: %q is not a player (want south or north)", name)
		}
		hand, err := readHand(pos.Hands[name])
		if err != nil {
			return configErr("hands: %s: %v", name, err)
		}
		for key, n := range hand {
			if len(key) != 1 || key[0] < '1' || key[0] > '3' {
				return configErr("hands: %s: %q is not a height (want \"1\", \"2\" or \"3\")", name, key)
			}
			if n < 0 || n > 2 {
				return configErr("hands: %s: %d pieces of height %s (a hand holds 0 to 2 of each)", name, n, key)
			}
			h := key[0] - '0'
			g.hand[p][h] = uint8(n)
			g.inH[p] += uint8(n)
			count[h] += n
		}
	}
	for h := 1; h <= 3; h++ {
		if count[h] > 4 {
			return configErr("pieces: %d pieces of height %d on the board and in hand (the game has 4)", count[h], h)
		}
	}
	if g.Setup() {
		if goal != NoCell {
			return configErr("pieces: a piece on goal %s while pieces are still in hand", goal)
		}
		for p := 0; p < 2; p++ {
			home := rowMask[0]
			if p == NorthSeat {
				home = rowMask[rows-1]
			}
			if free := bits.OnesCount64(home &^ g.occ); int(g.inH[p]) > free {
				return configErr("hands: %s holds %d pieces but their home row has %d empty cells", seatNames[p], g.inH[p], free)
			}
		}
		if g.inH[g.toMove] == 0 {
			return configErr("to_move: %s has nothing in hand during the setup (%s places)", seatNames[g.toMove], seatNames[g.toMove^1])
		}
	}
	switch goal {
	case North:
		g.status, g.winner = engine.Won, SouthSeat
	case South:
		g.status, g.winner = engine.Won, NorthSeat
	}
	return nil
}

// readHand reads one player's hand: height → count, as Go maps or decoded
// JSON.
func readHand(v any) (map[string]int, error) {
	switch hand := v.(type) {
	case map[string]int:
		return hand, nil
	case map[string]any:
		out := make(map[string]int, len(hand))
		for k, x := range hand {
			n, ok := integer(x)
			if !ok {
				return nil, fmt.Errorf("height %s: count %v is not an integer", k, x)
			}
			out[k] = n
		}
		return out, nil
	case map[string]float64:
		out := make(map[string]int, len(hand))
		for k, x := range hand {
			n, ok := integer(x)
			if !ok {
				return nil, fmt.Errorf("height %s: count %v is not an integer", k, x)
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("want an object height → count, got %T", v)
}

func integer(x any) (int, bool) {
	switch n := x.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1e6 {
			return 0, false
		}
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}
