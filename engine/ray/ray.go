package ray

import (
	"fmt"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

func init() { engine.Register("ray", New) }

// Pass is the move of a walker whose step is blocked.
const Pass engine.Move = 1 << 32

// Die faces.
const (
	North = iota
	South
	East
	West
)

var (
	seats = []string{"red", "yellow", "blue", "black"}
	info  = engine.Info{Game: "ray", Variant: "basic", Seats: seats, Sides: seats,
		SideOf: []int{0, 1, 2, 3}, Die: &engine.Die{Faces: []string{"N", "S", "E", "W"}}}
)

// geometry is shared by every state on one board.
type geometry struct {
	board  *boards.Board
	step   [][4]int32 // cell → neighbour per face, -1 off the board
	target int
	keys   []uint64 // 4 seats × cells, then to-move ×4, then roll ×4
}

type undo struct {
	move   engine.Move
	from   int32 // for moves: the walker's cell before; for rolls: -2
	toMove int8
	roll   int8
	winner int8
}

// State is a RAY position.
type State struct {
	g      *geometry
	pos    [4]int32 // cell per seat, -1 when the colour is not playing
	toMove int8
	roll   int8 // -1 when a roll is due
	winner int8 // -1 while playing
	plies  int
	hash   uint64
	hist   []undo
}

var _ engine.State = (*State)(nil)

// New sets up RAY on cfg.Board (default: the 29×29 board).
func New(cfg engine.Config) (engine.State, error) {
	if cfg.Variant != "" && cfg.Variant != "basic" {
		return nil, fmt.Errorf("%w: ray has no variant %q", engine.ErrConfig, cfg.Variant)
	}
	if cfg.First != "" || cfg.N != 0 || cfg.Players != 0 {
		return nil, fmt.Errorf("%w: ray takes no first, n or players", engine.ErrConfig)
	}
	b := cfg.Board
	if b == nil {
		b = boards.Default("ray")
	}
	if b.Game != "ray" {
		return nil, fmt.Errorf("%w: board %s is for %s, not ray", engine.ErrConfig, b.Name, b.Game)
	}
	g := &geometry{board: b, target: b.Marked("target")[0]}
	g.step = make([][4]int32, len(b.Cells))
	for i, c := range b.Cells {
		col, row := int(c.X)+1, int(c.Y)+1
		for f, d := range [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
			g.step[i][f] = -1
			if j, ok := b.Index(boards.SquareName(col+d[0], row+d[1])); ok && col+d[0] >= 1 {
				g.step[i][f] = int32(j)
			}
		}
	}
	g.keys = engine.Zobrist(0x7a1, 4*len(b.Cells)+8)
	s := &State{g: g, pos: [4]int32{-1, -1, -1, -1}, roll: -1, winner: -1}
	if cfg.Start == nil {
		for _, p := range b.Start {
			s.pos[info.SeatIndex(p.Piece)] = int32(b.MustIndex(p.Cell))
		}
	} else if err := s.setStart(cfg.Start); err != nil {
		return nil, err
	}
	live := 0
	for seat, c := range s.pos {
		if c >= 0 {
			live++
			if int(c) == g.target {
				s.winner = int8(seat)
			}
		}
	}
	if live == 0 {
		return nil, fmt.Errorf("%w: ray start has no pieces", engine.ErrConfig)
	}
	if s.winner < 0 && s.pos[s.toMove] < 0 {
		s.toMove = s.next(s.toMove)
	}
	s.hash = s.computeHash()
	return s, nil
}

func (s *State) setStart(p *engine.Position) error {
	b := s.g.board
	for cell, piece := range p.Pieces {
		i, ok := b.Index(cell)
		if !ok {
			return fmt.Errorf("%w: start: no cell %q on board %s", engine.ErrConfig, cell, b.Name)
		}
		seat := info.SeatIndex(piece)
		if seat < 0 {
			return fmt.Errorf("%w: start: cell %s holds %q, want red, yellow, blue or black", engine.ErrConfig, cell, piece)
		}
		if s.pos[seat] >= 0 {
			return fmt.Errorf("%w: start: %s stands on two cells (%s and %s)", engine.ErrConfig, piece, b.Cells[s.pos[seat]].Name, cell)
		}
		s.pos[seat] = int32(i)
	}
	if p.Painted != nil || p.LastRoll != nil || p.Out != nil || p.Hands != nil {
		return fmt.Errorf("%w: start: ray positions have only to_move and pieces", engine.ErrConfig)
	}
	seat := info.SeatIndex(p.ToMove)
	if seat < 0 {
		return fmt.Errorf("%w: start: to_move %q is not a seat", engine.ErrConfig, p.ToMove)
	}
	if s.pos[seat] < 0 {
		return fmt.Errorf("%w: start: to_move %s has no piece", engine.ErrConfig, p.ToMove)
	}
	s.toMove = int8(seat)
	return nil
}

func (s *State) next(seat int8) int8 {
	for k := 1; k <= 4; k++ {
		n := (seat + int8(k)) % 4
		if s.pos[n] >= 0 {
			return n
		}
	}
	return seat
}

func (s *State) computeHash() uint64 {
	n := len(s.g.board.Cells)
	var h uint64
	for seat, c := range s.pos {
		if c >= 0 {
			h ^= s.g.keys[seat*n+int(c)]
		}
	}
	h ^= s.g.keys[4*n+int(s.toMove)]
	if s.roll >= 0 {
		h ^= s.g.keys[4*n+4+int(s.roll)]
	}
	return h
}

func (s *State) Info() *engine.Info { return &info }

func (s *State) ToMove() int {
	if s.winner >= 0 {
		return -1
	}
	return int(s.toMove)
}

func (s *State) Awaiting() engine.Awaiting {
	switch {
	case s.winner >= 0:
		return engine.AwaitNone
	case s.roll < 0:
		return engine.AwaitRoll
	}
	return engine.AwaitMove
}

func (s *State) Result() engine.Result {
	if s.winner >= 0 {
		return engine.Result{Status: engine.Won, Winner: int(s.winner)}
	}
	return engine.Result{Status: engine.Playing, Winner: -1}
}

// dest is the forced destination after the pending roll, -1 when blocked.
func (s *State) dest() int32 {
	to := s.g.step[s.pos[s.toMove]][s.roll]
	if to < 0 {
		return -1
	}
	for _, c := range s.pos {
		if c == to {
			return -1
		}
	}
	return to
}

func (s *State) Moves(buf []engine.Move) []engine.Move {
	buf = buf[:0]
	if s.Awaiting() != engine.AwaitMove {
		return buf
	}
	if to := s.dest(); to >= 0 {
		return append(buf, engine.Move(to)+1)
	}
	return append(buf, Pass)
}

func (s *State) Play(m engine.Move) {
	n := len(s.g.board.Cells)
	s.hist = append(s.hist, undo{move: m, from: s.pos[s.toMove], toMove: s.toMove, roll: s.roll, winner: s.winner})
	if m != Pass {
		to := int32(m - 1)
		s.hash ^= s.g.keys[int(s.toMove)*n+int(s.pos[s.toMove])] ^ s.g.keys[int(s.toMove)*n+int(to)]
		s.pos[s.toMove] = to
		if int(to) == s.g.target {
			s.winner = s.toMove
		}
	}
	s.hash ^= s.g.keys[4*n+4+int(s.roll)] ^ s.g.keys[4*n+int(s.toMove)]
	s.roll = -1
	s.toMove = s.next(s.toMove)
	s.hash ^= s.g.keys[4*n+int(s.toMove)]
	s.plies++
}

func (s *State) Roll(face int) error {
	if s.Awaiting() != engine.AwaitRoll {
		return fmt.Errorf("%w: ray: a roll while %s is awaited", engine.ErrNotNow, s.Awaiting())
	}
	if face < 0 || face > 3 {
		return fmt.Errorf("ray: die face %d out of range 0–3", face)
	}
	s.hist = append(s.hist, undo{from: -2, toMove: s.toMove, roll: s.roll, winner: s.winner})
	s.roll = int8(face)
	s.hash ^= s.g.keys[4*len(s.g.board.Cells)+4+face]
	return nil
}

// Forget drops the undo history (engine.Forgetter).
func (s *State) Forget() { s.hist = s.hist[:0] }

func (s *State) Undo() {
	u := s.hist[len(s.hist)-1]
	s.hist = s.hist[:len(s.hist)-1]
	if u.from != -2 {
		s.pos[u.toMove] = u.from
		s.plies--
	}
	s.toMove, s.roll, s.winner = u.toMove, u.roll, u.winner
	s.hash = s.computeHash()
}

func (s *State) AppendMove(dst []byte, m engine.Move) []byte {
	if m == Pass {
		return append(dst, "pass"...)
	}
	return append(dst, s.g.board.Cells[m-1].Name...)
}

func (s *State) ParseMove(text string) (engine.Move, error) {
	var m engine.Move
	if text == "pass" {
		m = Pass
	} else {
		i, ok := s.g.board.Index(text)
		if !ok {
			return engine.NoMove, fmt.Errorf("%w: %q is neither a cell of %s nor pass", engine.ErrNotation, text, s.g.board.Name)
		}
		m = engine.Move(i) + 1
	}
	switch s.Awaiting() {
	case engine.AwaitRoll:
		return engine.NoMove, fmt.Errorf("%w: %s must roll before moving", engine.ErrNotNow, seats[s.toMove])
	case engine.AwaitNone:
		return engine.NoMove, fmt.Errorf("%w: the game is over", engine.ErrNotNow)
	}
	var buf [1]engine.Move
	want := s.Moves(buf[:0])[0]
	if m != want {
		return engine.NoMove, fmt.Errorf("%w: %s rolled %s: the only move is %s, not %s", engine.ErrIllegal,
			seats[s.toMove], info.Die.Faces[s.roll], engine.MoveString(s, want), text)
	}
	return m, nil
}

func (s *State) Hash() uint64 { return s.hash }
func (s *State) Plies() int   { return s.plies }

func (s *State) Position() engine.Position {
	p := engine.Position{ToMove: seats[s.toMove], Pieces: map[string]string{}}
	for seat, c := range s.pos {
		if c >= 0 {
			p.Pieces[s.g.board.Cells[c].Name] = seats[seat]
		}
	}
	return p
}

func (s *State) Clone() engine.State {
	c := *s
	c.hist = nil
	return &c
}

// Cell returns the cell index of a seat's walker, -1 when it is not playing.
func (s *State) Cell(seat int) int { return int(s.pos[seat]) }

// Roll returns the pending roll's face, -1 when none.
func (s *State) PendingRoll() int { return int(s.roll) }

// Target is the target cell's index.
func (s *State) Target() int { return s.g.target }

// Step returns the cell one step from cell in a die direction, -1 off the board.
func (s *State) Step(cell, face int) int { return int(s.g.step[cell][face]) }
