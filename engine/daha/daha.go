package daha

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

func init() { engine.Register("daha", New) }

// Colour is a player: a seat index into Info().Seats, in turn order.
type Colour int8

const (
	Red Colour = iota
	Yellow
	Blue
	Black

	// NoColour marks an empty or unpainted cell.
	NoColour Colour = -1
)

const numColours = 4

var colourNames = [numColours]string{"red", "yellow", "blue", "black"}

func (c Colour) String() string {
	if c >= 0 && c < numColours {
		return colourNames[c]
	}
	return fmt.Sprintf("Colour(%d)", int8(c))
}

func colourOf(name string) (Colour, bool) {
	for i, n := range colourNames {
		if n == name {
			return Colour(i), true
		}
	}
	return NoColour, false
}

var info = &engine.Info{
	Game:    "daha",
	Variant: "basic",
	Seats:   []string{"red", "yellow", "blue", "black"},
	Sides:   []string{"red", "yellow", "blue", "black"},
	SideOf:  []int{0, 1, 2, 3},
	Die:     &engine.Die{Faces: []string{"1", "2", "3", "4", "5", "6"}, Numeric: true},
}

// Move layout (engine.Move, a uint64):
//
//	bits 0–5   destination cell index (board order)
//	bits 6–8   the roll k, 1–6 (never 0, so a Move is never engine.NoMove)
//	bit  9     the move paints its destination (k equals the mover's previous roll)
//	bits 10–11 the mover's colour
//
// Only the destination names the move; the other fields describe the
// position it was generated in, for display and for Play.
const (
	moveDestMask  = 0x3f
	moveRollShift = 6
	movePaintBit  = 1 << 9
	moveSeatShift = 10
)

// Dest is the destination cell index of m.
func Dest(m engine.Move) int { return int(m & moveDestMask) }

// RollOf is the roll m was made with.
func RollOf(m engine.Move) int { return int(m>>moveRollShift) & 7 }

// Paints reports whether m paints its destination.
func Paints(m engine.Move) bool { return m&movePaintBit != 0 }

// Mover is the colour that makes m.
func Mover(m engine.Move) Colour { return Colour(m>>moveSeatShift) & 3 }

// State is a DAHA position with its history. It implements engine.State and
// engine.Eliminator.
type State struct {
	g *graph

	pos     [numColours]int8   // cell of each colour's piece, -1 when it has none
	occ     uint64             // cells holding a piece
	paint   [numColours]uint64 // cells painted in each colour
	painted uint64             // union of paint
	last    [numColours]int8   // previous roll followed by a move, 0 for none
	out     [numColours]int8   // eliminated colours in order
	nOut    int8
	live    uint8 // bit c: colour c has a piece in play
	toMove  int8  // -1 once over
	winner  int8  // -1 unless over
	roll    int8  // 0: a roll is due; 1–6: a move with this roll is due
	dests   uint64
	plies   int
	hash    uint64
	// altGen, when set (by tests and benchmarks only), replaces graph.dests.
	altGen func(c, k int, blocked uint64) uint64

	hist []undo
}

// undo is one history entry: enough to take back a Roll or a Play.
type undo struct {
	hash     uint64
	dests    uint64 // dests before a Play
	seat     int8   // the mover or the eliminated colour
	from, to int8   // Play: piece cells; elimination: from is the lost cell
	roll     int8   // Play: the roll it used
	prevLast int8   // last[seat] before
	isRoll   bool
	elim     bool // the roll eliminated seat
	newPaint bool // the move painted a fresh cell
}

var (
	_ engine.State       = (*State)(nil)
	_ engine.Eliminator  = (*State)(nil)
	_ engine.RandomMover = (*State)(nil)
)

// New sets up a game of DAHA. Only the basic variant exists. A colour without
// a start cell on the board (or without a piece in cfg.Start, and not out)
// does not take part: turn order skips it and it is never eliminated.
func New(cfg engine.Config) (engine.State, error) {
	return newState(cfg)
}

func newState(cfg engine.Config) (*State, error) {
	if cfg.Variant != "" && cfg.Variant != "basic" {
		return nil, fmt.Errorf("daha: %w: variant %q (daha has only basic)", engine.ErrConfig, cfg.Variant)
	}
	if cfg.First != "" {
		return nil, fmt.Errorf("daha: %w: first %q: daha always starts with red", engine.ErrConfig, cfg.First)
	}
	if cfg.N != 0 {
		return nil, fmt.Errorf("daha: %w: n is a star setting", engine.ErrConfig)
	}
	if cfg.Players != 0 {
		return nil, fmt.Errorf("daha: %w: players is a six setting", engine.ErrConfig)
	}
	b := cfg.Board
	if b == nil {
		b = defBoard()
	}
	g, err := graphFor(b)
	if err != nil {
		return nil, err
	}
	s := &State{g: g, toMove: -1, winner: -1, hist: make([]undo, 0, 64)}
	for c := range s.pos {
		s.pos[c] = -1
	}
	if cfg.Start != nil {
		if err := s.load(cfg.Start); err != nil {
			return nil, err
		}
	} else {
		for c, cell := range g.start {
			if cell >= 0 {
				s.pos[c] = cell
				s.occ |= 1 << uint(cell)
				s.live |= 1 << uint(c)
			}
		}
		if s.live == 0 {
			return nil, fmt.Errorf("daha: %w: board %s has no start cells", engine.ErrConfig, b.Name)
		}
		s.toMove = int8(bits.TrailingZeros8(s.live))
	}
	if bits.OnesCount8(s.live) == 1 {
		s.winner = int8(bits.TrailingZeros8(s.live))
		s.toMove = -1
	}
	s.hash = s.computeHash()
	return s, nil
}

// Info describes DAHA: four seats red, yellow, blue, black and a six-sided die
// whose face f reads f+1.
func (s *State) Info() *engine.Info { return info }

// ToMove is the colour that must roll or move, -1 once the game is over.
func (s *State) ToMove() int { return int(s.toMove) }

// Awaiting says whether a roll or a move is due, or none once over.
func (s *State) Awaiting() engine.Awaiting {
	switch {
	case s.winner >= 0:
		return engine.AwaitNone
	case s.roll == 0:
		return engine.AwaitRoll
	}
	return engine.AwaitMove
}

// Result: won by the last colour standing; DAHA has no draws.
func (s *State) Result() engine.Result {
	if s.winner >= 0 {
		return engine.Result{Status: engine.Won, Winner: int(s.winner)}
	}
	return engine.Result{Status: engine.Playing, Winner: -1}
}

// Eliminated returns the eliminated colours in elimination order, those of
// the start position's out list first.
func (s *State) Eliminated() []int {
	out := make([]int, s.nOut)
	for i := range out {
		out[i] = int(s.out[i])
	}
	return out
}

// Plies counts the moves played since the start (not rolls, not eliminations).
func (s *State) Plies() int { return s.plies }

// Hash is the Zobrist hash of the position.
func (s *State) Hash() uint64 { return s.hash }

// Board is the board the game is played on.
func (s *State) Board() *boards.Board { return s.g.board }

// PieceCell is the cell of c's piece, or -1 when c has none (out, or not
// playing).
func (s *State) PieceCell(c Colour) int { return int(s.pos[c]) }

// PaintAt is the colour a cell is painted in, or NoColour.
func (s *State) PaintAt(cell int) Colour {
	bit := uint64(1) << uint(cell)
	for c := range s.paint {
		if s.paint[c]&bit != 0 {
			return Colour(c)
		}
	}
	return NoColour
}

// LastRoll is c's previous roll that was followed by a move, 0 for none. A
// move with the same roll paints.
func (s *State) LastRoll(c Colour) int { return int(s.last[c]) }

// Rolled is the roll awaiting a move, 0 when none is.
func (s *State) Rolled() int { return int(s.roll) }

// Destinations is the set of legal destination cells (bit i: cell i), zero
// unless a move is due.
func (s *State) Destinations() uint64 { return s.dests }

// blocked is the set of cells seat p may not enter: pieces (its own cell
// included, so no path returns to it) and paint of other colours.
func (s *State) blocked(p int) uint64 {
	return s.occ | (s.painted &^ s.paint[p])
}

// gen computes the destinations of p's piece for roll k.
func (s *State) gen(p, k int) uint64 {
	if s.altGen != nil {
		return s.altGen(int(s.pos[p]), k, s.blocked(p))
	}
	return s.g.dests(int(s.pos[p]), k, s.blocked(p))
}

// DestinationsFor computes the destinations c's piece would have with roll
// k (1–6) in the current position, whatever is due. It allocates nothing.
func (s *State) DestinationsFor(c Colour, k int) uint64 {
	if c < 0 || c >= numColours || s.pos[c] < 0 || k < 1 || k > maxRoll {
		return 0
	}
	return s.gen(int(c), k)
}

func (s *State) nextLive(p int) int8 {
	for i := 1; i <= numColours; i++ {
		q := (p + i) % numColours
		if s.live>>uint(q)&1 != 0 {
			return int8(q)
		}
	}
	return -1
}

// moveTo is the move to cell d in the current position (a move is due).
func (s *State) moveTo(d int) engine.Move {
	p := s.toMove
	m := engine.Move(s.roll)<<moveRollShift | engine.Move(p)<<moveSeatShift | engine.Move(d)
	if s.last[p] == s.roll {
		m |= movePaintBit
	}
	return m
}

// Moves lists the legal destinations, in board order, when a move is due.
func (s *State) Moves(buf []engine.Move) []engine.Move {
	buf = buf[:0]
	if s.roll == 0 || s.winner >= 0 {
		return buf
	}
	base := s.moveTo(0)
	for d := s.dests; d != 0; d &= d - 1 {
		buf = append(buf, base|engine.Move(bits.TrailingZeros64(d)))
	}
	return buf
}

// RandomMove returns a uniformly random legal move, or engine.NoMove when no
// move is due. It allocates nothing.
func (s *State) RandomMove(rng *rand.Rand) engine.Move {
	if s.roll == 0 || s.winner >= 0 {
		return engine.NoMove
	}
	return s.moveTo(s.randomDest(rng))
}

// randomDest draws one of the destinations (a move is due).
func (s *State) randomDest(rng *rand.Rand) int {
	d := s.dests
	for i := rng.IntN(bits.OnesCount64(d)); i > 0; i-- {
		d &= d - 1
	}
	return bits.TrailingZeros64(d)
}

// Play moves the piece to m's destination, paints it when the roll repeats
// the mover's previous one, and passes the turn.
func (s *State) Play(m engine.Move) {
	p := int(s.toMove)
	to := Dest(m)
	s.hist = append(s.hist, undo{hash: s.hash, dests: s.dests, seat: int8(p), from: s.pos[p], to: int8(to), roll: s.roll, prevLast: s.last[p]})
	s.hist[len(s.hist)-1].newPaint = s.move(to)
}

// move is Play to cell to without the history entry; it reports whether
// the move painted a fresh cell.
func (s *State) move(to int) (newPaint bool) {
	p := int(s.toMove)
	from := int(s.pos[p])
	k := s.roll
	h := s.hash ^ keys.piece[p][from] ^ keys.piece[p][to] ^ keys.roll[k]
	s.pos[p] = int8(to)
	s.occ ^= 1<<uint(from) | 1<<uint(to)
	if s.last[p] == k {
		if bit := uint64(1) << uint(to); s.paint[p]&bit == 0 {
			s.paint[p] |= bit
			s.painted |= bit
			h ^= keys.paint[p][to]
			newPaint = true
		}
	} else {
		h ^= keys.last[p][s.last[p]] ^ keys.last[p][k]
		s.last[p] = k
	}
	s.roll = 0
	s.dests = 0
	next := s.nextLive(p)
	h ^= keys.side[p] ^ keys.side[next]
	s.toMove = next
	s.hash = h
	s.plies++
	return newPaint
}

// Roll applies die face f (value f+1) for the player to move. When the roll
// leaves no destination the player is eliminated at once and the turn passes
// (or the last colour standing wins). Errors: engine.ErrNotNow when no roll
// is due, engine.ErrNotation for a face outside 0–5.
func (s *State) Roll(face int) error {
	switch s.Awaiting() {
	case engine.AwaitNone:
		return fmt.Errorf("daha: %w: the game is over", engine.ErrNotNow)
	case engine.AwaitMove:
		return fmt.Errorf("daha: %w: %s must move with the %d rolled", engine.ErrNotNow, Colour(s.toMove), s.roll)
	}
	if face < 0 || face >= maxRoll {
		return fmt.Errorf("daha: %w: die face %d out of range 0–5 (values 1–6)", engine.ErrNotation, face)
	}
	p := int(s.toMove)
	s.hist = append(s.hist, undo{hash: s.hash, seat: int8(p), isRoll: true, from: s.pos[p], prevLast: s.last[p]})
	s.hist[len(s.hist)-1].elim = s.throw(face + 1)
	return nil
}

// throw is Roll of value k (a roll is due) without the history entry; it
// reports whether the roll eliminated the player.
func (s *State) throw(k int) (elim bool) {
	p := int(s.toMove)
	d := s.gen(p, k)
	if d != 0 {
		s.roll = int8(k)
		s.dests = d
		s.hash ^= keys.roll[k]
		return false
	}
	// Eliminated: the piece leaves, the paint stays.
	h := s.hash ^ keys.piece[p][s.pos[p]] ^ keys.last[p][s.last[p]] ^ keys.out[p] ^ keys.side[p]
	s.drop(p)
	if s.toMove >= 0 {
		h ^= keys.side[s.toMove]
	}
	s.hash = h
	return true
}

// drop eliminates p (to move, its roll left it nowhere to go) and passes
// the turn or ends the game; it leaves the hash alone.
func (s *State) drop(p int) {
	s.occ &^= 1 << uint(s.pos[p])
	s.pos[p] = -1
	s.last[p] = 0
	s.out[s.nOut] = int8(p)
	s.nOut++
	s.live &^= 1 << uint(p)
	if bits.OnesCount8(s.live) == 1 {
		s.winner = int8(bits.TrailingZeros8(s.live))
		s.toMove = -1
	} else {
		s.toMove = s.nextLive(p)
	}
}

// Forget drops the undo history (engine.Forgetter).
func (s *State) Forget() { s.hist = s.hist[:0] }

// Undo takes back the last Play or Roll (an elimination included).
func (s *State) Undo() {
	if len(s.hist) == 0 {
		panic("daha: Undo with no history")
	}
	u := s.hist[len(s.hist)-1]
	s.hist = s.hist[:len(s.hist)-1]
	p := int(u.seat)
	s.hash = u.hash
	s.toMove = u.seat
	if u.isRoll {
		s.roll, s.dests = 0, 0
		if u.elim {
			s.pos[p] = u.from
			s.occ |= 1 << uint(u.from)
			s.last[p] = u.prevLast
			s.nOut--
			s.live |= 1 << uint(p)
			s.winner = -1
		}
		return
	}
	s.pos[p] = u.from
	s.occ ^= 1<<uint(u.from) | 1<<uint(u.to)
	if u.newPaint {
		bit := uint64(1) << uint(u.to)
		s.paint[p] &^= bit
		s.painted &^= bit
	}
	s.last[p] = u.prevLast
	s.roll = u.roll
	s.dests = u.dests
	s.plies--
}

// AppendMove appends m's destination cell name.
func (s *State) AppendMove(dst []byte, m engine.Move) []byte {
	d := Dest(m)
	if m == engine.NoMove || d >= s.g.n {
		return append(dst, '?')
	}
	return append(dst, s.g.names[d]...)
}

// ParseMove reads a destination cell name and returns the legal move to it.
func (s *State) ParseMove(text string) (engine.Move, error) {
	switch s.Awaiting() {
	case engine.AwaitNone:
		return engine.NoMove, fmt.Errorf("daha: %w: move %q: the game is over", engine.ErrNotNow, text)
	case engine.AwaitRoll:
		return engine.NoMove, fmt.Errorf("daha: %w: move %q: %s must roll first", engine.ErrNotNow, text, Colour(s.toMove))
	}
	c, ok := s.g.index[text]
	if !ok {
		return engine.NoMove, fmt.Errorf("daha: %w: %q is not a cell of board %s", engine.ErrNotation, text, s.g.board.Name)
	}
	if s.dests>>uint(c)&1 != 0 {
		return s.moveTo(c), nil
	}
	p := int(s.toMove)
	bit := uint64(1) << uint(c)
	why := fmt.Sprintf("no path of exactly %d steps from %s reaches it", s.roll, s.g.names[s.pos[p]])
	switch {
	case c == int(s.pos[p]):
		why = "the piece may not come back to its own cell"
	case s.occ&bit != 0:
		for q := range s.pos {
			if int(s.pos[q]) == c {
				why = "occupied by " + Colour(q).String()
			}
		}
	case s.painted&^s.paint[p]&bit != 0:
		why = "painted " + s.PaintAt(c).String()
	}
	return engine.NoMove, fmt.Errorf("daha: %w %s: %s", engine.ErrIllegal, text, why)
}

// Clone returns an independent copy, history included.
func (s *State) Clone() engine.State {
	c := *s
	c.hist = append(make([]undo, 0, max(cap(s.hist), 64)), s.hist...)
	return &c
}
