package gyges

import (
	"fmt"
	"math/bits"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

func init() {
	engine.Register("gyges", New)
}

// Seats (and sides): south sits at row 1 and aims for goal N, north sits at
// row 6 and aims for goal S.
const (
	SouthSeat = 0
	NorthSeat = 1
)

var seatNames = [2]string{"south", "north"}

// Cell is a place on the board: 0..35 are the grid cells a1, b1, …, f6 (row
// by row from a1), North and South the two goals.
type Cell int8

const (
	North  Cell = numCells     // goal N, beyond row 6: south's target
	South  Cell = numCells + 1 // goal S, beyond row 1: north's target
	NoCell Cell = -1
)

func (c Cell) String() string {
	switch {
	case c == North:
		return "N"
	case c == South:
		return "S"
	case c >= 0 && c < numCells:
		return string([]byte{'a' + byte(c)%cols, '1' + byte(c)/cols})
	}
	return fmt.Sprintf("Cell(%d)", int8(c))
}

// Row is the cell's 1-based row (0 for the goals).
func (c Cell) Row() int {
	if c < 0 || c >= numCells {
		return 0
	}
	return int(c)/cols + 1
}

// ParseCell reads a cell name: a1…f6, N or S.
func ParseCell(s string) (Cell, bool) {
	switch {
	case s == "N":
		return North, true
	case s == "S":
		return South, true
	case len(s) == 2 && s[0] >= 'a' && s[0] < 'a'+cols && s[1] >= '1' && s[1] < '1'+rows:
		return Cell(int(s[1]-'1')*cols + int(s[0]-'a')), true
	}
	return NoCell, false
}

// Kind is what a move does.
type Kind uint8

const (
	KindPlace   Kind = 1 // setup: a piece from hand onto the home row, H@cell
	KindMove    Kind = 2 // a bounce chain ending on an empty cell or the goal, from-to
	KindReplace Kind = 3 // advanced: the chain ends on a piece, which is put elsewhere, from-to/cell
	KindPass    Kind = 4 // no legal move
)

func (k Kind) String() string {
	switch k {
	case KindPlace:
		return "place"
	case KindMove:
		return "move"
	case KindReplace:
		return "replace"
	case KindPass:
		return "pass"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Move bit layout (see doc.go):
//
//	bits  0–5   to: placement cell, or the end of the chain (a grid cell, North, South)
//	bits  6–11  from: the start cell of the chain
//	bits 12–17  the displaced piece's new cell (replace)
//	bits 18–19  the placed piece's height (placement)
//	bits 20–22  Kind
const (
	toShift   = 0
	fromShift = 6
	dispShift = 12
	hShift    = 18
	kindShift = 20
)

// Pass is the pass move.
const Pass = engine.Move(KindPass) << kindShift

// Place is the placement of a piece of height h on cell c.
func Place(h int, c Cell) engine.Move {
	return engine.Move(KindPlace)<<kindShift | engine.Move(h)<<hShift | engine.Move(c)<<toShift
}

// Step is the chain move from one cell to another (or to a goal).
func Step(from, to Cell) engine.Move {
	return engine.Move(KindMove)<<kindShift | engine.Move(from)<<fromShift | engine.Move(to)<<toShift
}

// Replace is the advanced move whose chain ends on the piece at to; that piece
// goes to disp.
func Replace(from, to, disp Cell) engine.Move {
	return engine.Move(KindReplace)<<kindShift | engine.Move(from)<<fromShift | engine.Move(to)<<toShift | engine.Move(disp)<<dispShift
}

// Unpack reads a move: its kind, cells and placed height. Fields a kind does
// not use are NoCell or 0.
func Unpack(m engine.Move) (k Kind, from, to, disp Cell, height int) {
	k = Kind(m >> kindShift & 7)
	from, to, disp = NoCell, NoCell, NoCell
	switch k {
	case KindPlace:
		to, height = Cell(m>>toShift&63), int(m>>hShift&3)
	case KindMove:
		from, to = Cell(m>>fromShift&63), Cell(m>>toShift&63)
	case KindReplace:
		from, to, disp = Cell(m>>fromShift&63), Cell(m>>toShift&63), Cell(m>>dispShift&63)
	}
	return
}

// undo is one history entry: the move and what it cannot restore by itself.
type undo struct {
	m      engine.Move
	hash   uint64
	toMove int8
	passes uint8
	status engine.Status
	winner int8
}

// Game is a GYGES position and its rules. It implements engine.State.
type Game struct {
	t        *tables
	info     *engine.Info
	advanced bool
	first    int8

	h    [numCells + 2]uint8 // piece height per cell (goals included), 0 empty
	occ  uint64              // bit c set when h[c] != 0
	hand [2][4]uint8         // hand[player][height]
	inH  [2]uint8            // pieces in each hand

	toMove int8
	passes uint8 // consecutive passes just played
	status engine.Status
	winner int8
	plies  int
	hash   uint64
	hist   []undo

	x chain // the move searches' state (searcher)
}

var _ engine.State = (*Game)(nil)

// New sets up a game of GYGES (RULES.md §3). cfg.Variant is "", "basic" or
// "advanced"; cfg.First is "", "south" or "north"; cfg.Start, when given,
// replaces the start (an empty board and full hands).
func New(cfg engine.Config) (engine.State, error) {
	g, err := NewGame(cfg)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// NewGame is New returning the concrete type.
func NewGame(cfg engine.Config) (*Game, error) {
	g := &Game{winner: -1}
	switch cfg.Variant {
	case "", "basic":
	case "advanced":
		g.advanced = true
	default:
		return nil, fmt.Errorf("%w: gyges: unknown variant %q (want basic or advanced)", engine.ErrConfig, cfg.Variant)
	}
	switch cfg.First {
	case "", "south":
	case "north":
		g.first = NorthSeat
	default:
		return nil, fmt.Errorf("%w: gyges: first %q is not a player (want south or north)", engine.ErrConfig, cfg.First)
	}
	if cfg.N != 0 {
		return nil, fmt.Errorf("%w: gyges: n is a star setting", engine.ErrConfig)
	}
	if cfg.Players != 0 && cfg.Players != 2 {
		return nil, fmt.Errorf("%w: gyges: %d players (gyges has 2)", engine.ErrConfig, cfg.Players)
	}
	b := cfg.Board
	if b == nil {
		b = boards.Default("gyges")
	}
	t, err := tablesFor(b)
	if err != nil {
		return nil, err
	}
	g.t = t
	variant := "basic"
	if g.advanced {
		variant = "advanced"
	}
	g.info = &engine.Info{Game: "gyges", Variant: variant,
		Seats: []string{"south", "north"}, Sides: []string{"south", "north"}, SideOf: []int{0, 1}}
	g.hist = make([]undo, 0, 256)

	start := cfg.Start
	if start == nil && len(b.Start) > 0 {
		// A board file's start layout is a position after the setup.
		pos := engine.Position{ToMove: seatNames[g.first], Pieces: map[string]string{}}
		for _, pl := range b.Start {
			pos.Pieces[pl.Cell] = pl.Piece
		}
		start = &pos
	}
	if start == nil {
		g.toMove = g.first
		for p := 0; p < 2; p++ {
			for h := 1; h <= 3; h++ {
				g.hand[p][h] = 2
			}
			g.inH[p] = 6
		}
	} else if err := g.load(start); err != nil {
		return nil, err
	}
	g.hash = g.computeHash()
	return g, nil
}

func (g *Game) Info() *engine.Info { return g.info }

// Advanced reports whether the advanced variant (replace) is in force.
func (g *Game) Advanced() bool { return g.advanced }

// Height returns the height of the piece on c, 0 when empty.
func (g *Game) Height(c Cell) int {
	if c < 0 || int(c) >= len(g.h) {
		return 0
	}
	return int(g.h[c])
}

// InHand returns how many pieces of height h player p holds (setup only).
func (g *Game) InHand(p, h int) int { return int(g.hand[p&1][h&3]) }

// Setup reports whether the game is still in the setup phase.
func (g *Game) Setup() bool { return g.inH[0]|g.inH[1] != 0 }

func (g *Game) ToMove() int {
	if g.status != engine.Playing {
		return -1
	}
	return int(g.toMove)
}

func (g *Game) Awaiting() engine.Awaiting {
	if g.status != engine.Playing {
		return engine.AwaitNone
	}
	return engine.AwaitMove
}

func (g *Game) Result() engine.Result {
	return engine.Result{Status: g.status, Winner: int(g.winner)}
}

func (g *Game) Plies() int { return g.plies }

func (g *Game) Hash() uint64 { return g.hash }

func (g *Game) Clone() engine.State {
	c := *g
	c.hist = make([]undo, 0, 64)
	return &c
}

// Play applies a legal move.
func (g *Game) Play(m engine.Move) {
	g.hist = append(g.hist, undo{m: m, hash: g.hash, toMove: g.toMove, passes: g.passes, status: g.status, winner: g.winner})
	p := int(g.toMove)
	g.plies++
	to := Cell(m >> toShift & 63)
	switch Kind(m >> kindShift & 7) {
	case KindPlace:
		h := uint8(m >> hShift & 3)
		g.h[to] = h
		g.occ |= 1 << to
		n := g.hand[p][h]
		g.hand[p][h] = n - 1
		g.inH[p]--
		g.hash ^= zPiece[to][h] ^ zHand[p][h][n] ^ zHand[p][h][n-1]
		g.passes = 0
		// Alternate; if the other hand is empty the same player places
		// again; after the last piece the first player moves.
		next := int8(p ^ 1)
		if g.inH[next] == 0 {
			next = int8(p)
			if g.inH[p] == 0 {
				next = g.first
			}
		}
		if next != g.toMove {
			g.hash ^= zNorth
			g.toMove = next
		}
		return
	case KindMove:
		from := Cell(m >> fromShift & 63)
		h := g.h[from]
		g.h[from], g.h[to] = 0, h
		g.occ = g.occ&^(1<<from) | 1<<to
		g.hash ^= zPiece[from][h] ^ zPiece[to][h]
		if to >= numCells {
			g.status, g.winner = engine.Won, int8(p)
		}
		g.passes = 0
	case KindReplace:
		from, disp := Cell(m>>fromShift&63), Cell(m>>dispShift&63)
		h, hd := g.h[from], g.h[to]
		g.h[from] = 0
		g.h[to] = h
		g.h[disp] = hd
		g.occ = g.occ&^(1<<from) | 1<<disp
		g.hash ^= zPiece[from][h] ^ zPiece[to][h] ^ zPiece[to][hd] ^ zPiece[disp][hd]
		g.passes = 0
	case KindPass:
		g.passes++
		if g.passes >= 2 {
			g.status = engine.Draw
		}
	}
	g.toMove ^= 1
	g.hash ^= zNorth
}

// Forget drops the undo history (engine.Forgetter).
func (g *Game) Forget() { g.hist = g.hist[:0] }

// Undo takes back the last move.
func (g *Game) Undo() {
	n := len(g.hist)
	if n == 0 {
		panic("gyges: Undo with no move to take back")
	}
	u := g.hist[n-1]
	g.hist = g.hist[:n-1]
	m := u.m
	to := Cell(m >> toShift & 63)
	switch Kind(m >> kindShift & 7) {
	case KindPlace:
		h := g.h[to]
		g.h[to] = 0
		g.occ &^= 1 << to
		p := u.toMove
		g.hand[p][h]++
		g.inH[p]++
	case KindMove:
		from := Cell(m >> fromShift & 63)
		g.h[from], g.h[to] = g.h[to], 0
		g.occ = g.occ&^(1<<to) | 1<<from
	case KindReplace:
		from, disp := Cell(m>>fromShift&63), Cell(m>>dispShift&63)
		h, hd := g.h[to], g.h[disp]
		g.h[disp] = 0
		g.h[from] = h
		g.h[to] = hd
		g.occ = g.occ&^(1<<disp) | 1<<from
	}
	g.hash, g.toMove, g.passes, g.status, g.winner = u.hash, u.toMove, u.passes, u.status, u.winner
	g.plies--
}

// Zobrist keys from a fixed-seed splitmix64 sequence.
var (
	zPiece [numCells + 2][4]uint64
	zHand  [2][4][3]uint64 // zHand[p][h][0] is 0: an empty slot adds nothing
	zNorth uint64
)

func init() {
	x := uint64(0x6779676573) // "gyges"
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for c := range zPiece {
		for h := 1; h <= 3; h++ {
			zPiece[c][h] = next()
		}
	}
	for p := range zHand {
		for h := 1; h <= 3; h++ {
			for n := 1; n < 3; n++ {
				zHand[p][h][n] = next()
			}
		}
	}
	zNorth = next()
}

func (g *Game) computeHash() uint64 {
	var z uint64
	for c, h := range g.h {
		z ^= zPiece[c][h]
	}
	for p := range g.hand {
		for h := 1; h <= 3; h++ {
			z ^= zHand[p][h][g.hand[p][h]]
		}
	}
	if g.toMove == NorthSeat {
		z ^= zNorth
	}
	return z
}

// nearestRow is player p's nearest row (0-based) holding a piece in occ, -1
// when occ holds none.
func nearestRow(p int, occ uint64) int {
	occ &= boardMask
	if occ == 0 {
		return -1
	}
	if p == SouthSeat {
		return bits.TrailingZeros64(occ) / cols
	}
	return (bits.Len64(occ) - 1) / cols
}

// Roll always fails: GYGES has no dice.
func (g *Game) Roll(face int) error {
	return fmt.Errorf("%w: gyges: there is no die to roll", engine.ErrNotNow)
}
