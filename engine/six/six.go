package six

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

func init() { engine.Register("six", New) }

// Window geometry (see doc.go).
const (
	wBits  = 7
	wSide  = 1 << wBits // window side
	wMask  = wSide - 1
	wCells = wSide * wSide
	margin = 8 // tiles stay in [margin, wSide-margin) in both local coordinates

	maxTiles  = 42
	perColour = 21 // hexagons of each colour in the set
	fewLimit  = 5  // advanced rule: 5 or fewer of a colour loses

	// MaxCoord bounds |q| and |r| of every cell the engine accepts or
	// generates (17-bit fields of the Move layout).
	MaxCoord = 1<<16 - 1
)

// Colour is a hexagon colour; it is also the side index (Info.Sides).
type Colour int8

const (
	Black Colour = 0
	Red   Colour = 1
)

func (c Colour) String() string {
	switch c {
	case Black:
		return "black"
	case Red:
		return "red"
	}
	return "Colour(" + strconv.Itoa(int(c)) + ")"
}

// Ending says how a finished game ended.
type Ending int8

const (
	NotOver    Ending = iota
	ByLine            // six in a row
	ByTriangle        // rows of 3, 2, 1
	ByRing            // the six neighbours of one cell
	ByFewer           // advanced rule: a side down to 5 or fewer
	ByPasses          // two consecutive passes
)

func (e Ending) String() string {
	switch e {
	case NotOver:
		return "not over"
	case ByLine:
		return "line"
	case ByTriangle:
		return "triangle"
	case ByRing:
		return "ring"
	case ByFewer:
		return "five or fewer"
	case ByPasses:
		return "double pass"
	}
	return "Ending(" + strconv.Itoa(int(e)) + ")"
}

// Neighbour directions in cyclic order around a cell: (1,0) (1,-1) (0,-1)
// (-1,0) (-1,1) (0,1); consecutive ones (and the last with the first) are
// neighbours of each other.
var (
	dirQ = [6]int32{1, 1, 0, -1, -1, 0}
	dirR = [6]int32{0, -1, -1, 0, 1, 1}
	dirI = [6]int{1, 1 - wSide, -wSide, -1, wSide - 1, wSide}
)

type undo struct {
	move       engine.Move
	hash       uint64
	offQ, offR int32
	remFrom    int32 // len(State.removed) before the move
	toMove     int8
	passes     int8
	status     engine.Status
	winner     int8
	ending     Ending
}

// removal is one tile taken off by an advanced split, for Undo.
type removal struct {
	idx  uint16 // window index at removal time
	slot int8
	cv   uint8 // colour+1
}

// scratch is per-State working memory of the move generator; it is not
// copied by Clone and holds no position information between calls.
type scratch struct {
	stamp [wCells]uint16 // frontier cells seen in the current pass carry gen
	gen   uint16
	seen  [wCells]uint8 // per-group destination dedupe (cleared after use)
	front [maxTiles * 6]uint16
	adj   [maxTiles][6]int8
	deg   [maxTiles]int8
	disc  [maxTiles]int8
	low   [maxTiles]int8
	par   [maxTiles]int8
	it    [maxTiles]int8
	stack [maxTiles]int8
	cut   [maxTiles]bool
	comp  [maxTiles]int8
	size  [maxTiles]int8
	queue [maxTiles]int8
	pos   [wCells]uint8        // frontier cell → index in destE/destM/destN
	destE [256]uint16          // candidate destinations: window index
	destM [256]engine.Move     // candidate destinations: toPart
	destN [256]uint8           // candidate destinations: adjacent tiles
	kdest [maxTiles * 6]uint16 // destinations next to a kept group
	parse []engine.Move        // ParseMove's buffer for "pass"
	legal []engine.Move        // Legal's buffer for the pass
}

// State is a six position with its history. It implements engine.State.
type State struct {
	info     *engine.Info
	advanced bool
	nSeats   int8

	cells      [wCells]uint8 // 0 empty, else slot<<2 | colour+1
	tiles      [maxTiles]uint16
	n          int
	offQ, offR int32
	nearEdge   bool // the window reaches beyond ±MaxCoord

	onTable [2]int8
	hand    [4]int8

	toMove   int8 // next seat, kept after the end for Position
	passes   int8 // consecutive passes just played
	status   engine.Status
	winner   int8
	ending   Ending
	plies    int
	hash     uint64
	fullScan bool // the start held a shape: scan the whole table after moves

	hist    []undo
	removed []removal
	sc      *scratch
}

var _ engine.State = (*State)(nil)

// New sets up a game of six (registered as "six").
func New(cfg engine.Config) (engine.State, error) {
	s, err := newState(cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func newState(cfg engine.Config) (*State, error) {
	s := &State{sc: new(scratch), winner: -1}
	switch cfg.Variant {
	case "", "basic":
	case "advanced":
		s.advanced = true
	default:
		return nil, fmt.Errorf("six: %w: variant %q (want basic or advanced)", engine.ErrConfig, cfg.Variant)
	}
	info := &engine.Info{Game: "six", Variant: "basic", Sides: []string{"black", "red"}}
	if s.advanced {
		info.Variant = "advanced"
	}
	switch cfg.Players {
	case 0, 2:
		s.nSeats = 2
		info.Seats = []string{"black", "red"}
		info.SideOf = []int{0, 1}
	case 4:
		s.nSeats = 4
		info.Seats = []string{"black1", "red1", "black2", "red2"}
		info.SideOf = []int{0, 1, 0, 1}
	default:
		return nil, fmt.Errorf("six: %w: players %d (want 2 or 4)", engine.ErrConfig, cfg.Players)
	}
	s.info = info
	if cfg.First != "" {
		return nil, fmt.Errorf("six: %w: six has no \"first\" (black moves first; a start's to_move decides)", engine.ErrConfig)
	}
	if cfg.N != 0 {
		return nil, fmt.Errorf("six: %w: six has no \"n\"", engine.ErrConfig)
	}
	board := cfg.Board
	if board == nil {
		board = boards.Default("six")
	}
	if board.Game != "six" {
		return nil, fmt.Errorf("six: %w: board %q is for %q, not six", engine.ErrConfig, board.Name, board.Game)
	}

	var cellsQ, cellsR []int32
	var cols []uint8
	addPiece := func(where, cell, piece string) error {
		q, r, ok := parseCellName(cell)
		if !ok {
			return fmt.Errorf("six: %w: %s: bad cell %q (want canonical q,r with |q|,|r| ≤ %d)", engine.ErrConfig, where, cell, MaxCoord)
		}
		var cv uint8
		switch piece {
		case "black":
			cv = 1
		case "red":
			cv = 2
		default:
			return fmt.Errorf("six: %w: %s: cell %s: unknown piece %q (want black or red)", engine.ErrConfig, where, cell, piece)
		}
		cellsQ, cellsR, cols = append(cellsQ, q), append(cellsR, r), append(cols, cv)
		return nil
	}
	if cfg.Start == nil {
		for _, pl := range board.Start {
			if err := addPiece("board "+board.Name+" start", pl.Cell, pl.Piece); err != nil {
				return nil, err
			}
		}
	} else {
		names := make([]string, 0, len(cfg.Start.Pieces))
		for c := range cfg.Start.Pieces {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			if err := addPiece("start.pieces", c, cfg.Start.Pieces[c]); err != nil {
				return nil, err
			}
		}
	}
	if err := s.setTiles(cellsQ, cellsR, cols); err != nil {
		return nil, err
	}

	if cfg.Start == nil {
		for c := 0; c < 2; c++ {
			left := perColour - int(s.onTable[c])
			if left < 0 {
				return nil, fmt.Errorf("six: %w: board %s start holds %d %s hexagons (the set has %d)", engine.ErrConfig, board.Name, s.onTable[c], Colour(c), perColour)
			}
			if s.nSeats == 2 {
				s.hand[c] = int8(left)
			} else {
				s.hand[c] = int8((left + 1) / 2)
				s.hand[c+2] = int8(left / 2)
			}
		}
		s.toMove = 0
	} else {
		if err := s.setStartRest(cfg.Start); err != nil {
			return nil, err
		}
	}
	s.hash = s.computeHash()
	s.fullScan = s.anyShape(1) != NotOver || s.anyShape(2) != NotOver
	return s, nil
}

// setTiles puts the given tiles on an empty window, centred, and checks that
// they are distinct and edge-connected.
func (s *State) setTiles(qs, rs []int32, cvs []uint8) error {
	if len(qs) > maxTiles {
		return fmt.Errorf("six: %w: %d hexagons on the table (the set has %d)", engine.ErrConfig, len(qs), maxTiles)
	}
	if len(qs) > 0 {
		minQ, maxQ, minR, maxR := qs[0], qs[0], rs[0], rs[0]
		for i := range qs {
			minQ, maxQ = min(minQ, qs[i]), max(maxQ, qs[i])
			minR, maxR = min(minR, rs[i]), max(maxR, rs[i])
		}
		if maxQ-minQ >= maxTiles || maxR-minR >= maxTiles {
			return fmt.Errorf("six: %w: the hexagons on the table are not one edge-connected group", engine.ErrConfig)
		}
		s.setOffset((minQ+maxQ)/2-wSide/2, (minR+maxR)/2-wSide/2)
	} else {
		s.setOffset(-wSide/2, -wSide/2)
	}
	for i := range qs {
		idx := s.index(qs[i], rs[i])
		if s.cells[idx] != 0 {
			return fmt.Errorf("six: %w: cell %d,%d given twice", engine.ErrConfig, qs[i], rs[i])
		}
		s.cells[idx] = uint8(s.n)<<2 | cvs[i]
		s.tiles[s.n] = uint16(idx)
		s.n++
		s.onTable[cvs[i]-1]++
	}
	if s.n > 0 {
		for c := 0; c < 2; c++ {
			if s.onTable[c] > perColour {
				return fmt.Errorf("six: %w: %d %s hexagons on the table (the set has %d)", engine.ErrConfig, s.onTable[c], Colour(c), perColour)
			}
		}
		if got := s.reach(-1, int(s.tiles[0]), nil); got != s.n {
			return fmt.Errorf("six: %w: the hexagons on the table are not one edge-connected group (%d of %d reachable from %s)", engine.ErrConfig, got, s.n, s.cellName(int(s.tiles[0])))
		}
	}
	return nil
}

func (s *State) setStartRest(p *engine.Position) error {
	seat := s.info.SeatIndex(p.ToMove)
	if seat < 0 {
		return fmt.Errorf("six: %w: start.to_move %q is not a seat (want one of %v)", engine.ErrConfig, p.ToMove, s.info.Seats)
	}
	s.toMove = int8(seat)
	for name, v := range p.Hands {
		i := s.info.SeatIndex(name)
		if i < 0 {
			return fmt.Errorf("six: %w: start.hands: %q is not a seat (want one of %v)", engine.ErrConfig, name, s.info.Seats)
		}
		n, ok := handCount(v)
		if !ok {
			return fmt.Errorf("six: %w: start.hands.%s: %v is not a whole number", engine.ErrConfig, name, v)
		}
		limit := perColour
		if s.nSeats == 4 {
			limit = perColour / 2
		}
		if n < 0 || n > int64(limit) {
			return fmt.Errorf("six: %w: start.hands.%s: %d is out of range 0…%d", engine.ErrConfig, name, n, limit)
		}
		s.hand[i] = int8(n)
	}
	for c := 0; c < 2; c++ {
		if tot := s.colourTotal(c); tot > perColour {
			return fmt.Errorf("six: %w: start: %d %s hexagons on the table and in hand (the set has %d)", engine.ErrConfig, tot, Colour(c), perColour)
		}
	}
	return nil
}

func handCount(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1e9 {
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// colourTotal counts the hexagons of colour c (0 black, 1 red) on the table
// and in hand.
func (s *State) colourTotal(c int) int {
	t := int(s.onTable[c]) + int(s.hand[c])
	if s.nSeats == 4 {
		t += int(s.hand[c+2])
	}
	return t
}

func (s *State) setOffset(q, r int32) {
	s.offQ, s.offR = q, r
	s.nearEdge = q < -MaxCoord || r < -MaxCoord || q+wSide-1 > MaxCoord || r+wSide-1 > MaxCoord
}

// index is the window index of absolute cell (q,r), which must be in the window.
func (s *State) index(q, r int32) int {
	return int(r-s.offR)<<wBits | int(q-s.offQ)
}

// coord is the absolute cell of window index i.
func (s *State) coord(i int) (q, r int32) {
	return int32(i&wMask) + s.offQ, int32(i>>wBits) + s.offR
}

func (s *State) cellName(i int) string {
	q, r := s.coord(i)
	return strconv.Itoa(int(q)) + "," + strconv.Itoa(int(r))
}

// reach counts the tiles reachable from window index start without passing
// through window index skip (-1: none). If label is non-nil, label[slot] is
// set to 1 for reached tiles (others untouched).
func (s *State) reach(skip, start int, label []int8) int {
	sc := s.sc
	var seen [maxTiles]bool
	q := sc.queue[:0]
	sl := int8(s.cells[start] >> 2)
	seen[sl] = true
	q = append(q, sl)
	for h := 0; h < len(q); h++ {
		i := int(s.tiles[q[h]])
		for _, d := range dirI {
			j := i + d
			c := s.cells[j]
			if c == 0 || j == skip || seen[c>>2] {
				continue
			}
			seen[c>>2] = true
			q = append(q, int8(c>>2))
		}
	}
	if label != nil {
		for _, x := range q {
			label[x] = 1
		}
	}
	return len(q)
}

func (s *State) Info() *engine.Info { return s.info }

func (s *State) ToMove() int {
	if s.status != engine.Playing {
		return -1
	}
	return int(s.toMove)
}

func (s *State) Awaiting() engine.Awaiting {
	if s.status != engine.Playing {
		return engine.AwaitNone
	}
	return engine.AwaitMove
}

func (s *State) Result() engine.Result {
	return engine.Result{Status: s.status, Winner: int(s.winner)}
}

// Ending says how the game ended (NotOver while it is being played).
func (s *State) Ending() Ending { return s.ending }

// Roll is never due in six.
func (s *State) Roll(face int) error {
	return fmt.Errorf("six: %w: six has no dice", engine.ErrNotNow)
}

func (s *State) Plies() int { return s.plies }

func (s *State) Hash() uint64 { return s.hash }

// Placing reports whether the game is in the placement phase (some hexagon
// is still in a hand).
func (s *State) Placing() bool {
	return s.hand[0]|s.hand[1]|s.hand[2]|s.hand[3] != 0
}

// At returns the colour of the hexagon on cell (q,r) and whether there is one.
func (s *State) At(q, r int) (Colour, bool) {
	lq, lr := int64(q)-int64(s.offQ), int64(r)-int64(s.offR)
	if lq < 0 || lr < 0 || lq >= wSide || lr >= wSide {
		return 0, false
	}
	c := s.cells[lr<<wBits|lq]
	if c == 0 {
		return 0, false
	}
	return Colour(c&3 - 1), true
}

// LastRemoved calls f with the cell of every hexagon the last move took off
// the board (the advanced rule's split), in the order they were taken; it
// calls nothing after a placement, a pass or a movement that split nothing,
// or when no move has been played.
func (s *State) LastRemoved(f func(q, r int)) {
	if len(s.hist) == 0 {
		return
	}
	u := &s.hist[len(s.hist)-1]
	for _, x := range s.removed[u.remFrom:] {
		f(int(x.idx&wMask)+int(u.offQ), int(x.idx>>wBits)+int(u.offR))
	}
}

// Hand returns the number of hexagons in the hand of seat.
func (s *State) Hand(seat int) int { return int(s.hand[seat]) }

func (s *State) Position() engine.Position {
	p := engine.Position{
		ToMove: s.info.Seats[s.toMove],
		Pieces: make(map[string]string, s.n),
		Hands:  make(map[string]any, s.nSeats),
	}
	for i := 0; i < s.n; i++ {
		idx := int(s.tiles[i])
		p.Pieces[s.cellName(idx)] = Colour(s.cells[idx]&3 - 1).String()
	}
	for i := 0; i < int(s.nSeats); i++ {
		p.Hands[s.info.Seats[i]] = int(s.hand[i])
	}
	return p
}

func (s *State) Clone() engine.State {
	c := new(State)
	*c = *s
	c.sc = new(scratch)
	c.hist = append([]undo(nil), s.hist...)
	c.removed = append([]removal(nil), s.removed...)
	return c
}

// parseCellName reads a canonical "q,r" with |q|,|r| ≤ MaxCoord.
func parseCellName(t string) (q, r int32, ok bool) {
	q, n, bad, far := parseInt(t)
	if bad != "" || far || n >= len(t) || t[n] != ',' {
		return 0, 0, false
	}
	r, m, bad, far := parseInt(t[n+1:])
	if bad != "" || far || n+1+m != len(t) {
		return 0, 0, false
	}
	return q, r, true
}
