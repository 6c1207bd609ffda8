package star

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

func init() { engine.Register("star", New) }

// Colours (seats).
const (
	Red   = 0
	White = 1
)

var (
	seats = []string{"red", "white"}
	info  = engine.Info{Game: "star", Variant: "basic", Seats: seats, Sides: seats, SideOf: []int{0, 1}}
)

type geometry struct {
	board *boards.Board
	size  int // N+1
	n     int
	keys  []uint64   // 2 × cells, then white-to-move
	nb    [][8]int16 // the 8 neighbours of each cell, -1 off the board
	x, y  []int      // each cell's column and row, 0-based (no divisions on the hot path)
}

type undo struct {
	move   engine.Move
	at     int8 // index in the mover's piece list
	winner int8
}

// State is a STAR position.
type State struct {
	g      *geometry
	cell   []int8     // cell index → 0 empty, 1 red, 2 white
	pieces [2][]int16 // cell indices per colour
	toMove int8
	winner int8
	plies  int
	hash   uint64
	hist   []undo
	seen   []uint32 // groupAt's visited stamps
	gen    uint32
}

var _ engine.State = (*State)(nil)

// New sets up STAR. cfg.First ("red" or "white", default red) moves first
// unless cfg.Start says who is to move; cfg.N other than the board's needs a
// Start (a bare (N+1)×(N+1) grid is then made for it).
func New(cfg engine.Config) (engine.State, error) {
	if cfg.Variant != "" && cfg.Variant != "basic" {
		return nil, fmt.Errorf("%w: star has no variant %q", engine.ErrConfig, cfg.Variant)
	}
	if cfg.Players != 0 {
		return nil, fmt.Errorf("%w: star takes no players", engine.ErrConfig)
	}
	first := 0
	switch cfg.First {
	case "", "red":
	case "white":
		first = 1
	default:
		return nil, fmt.Errorf("%w: star: first must be red or white, not %q", engine.ErrConfig, cfg.First)
	}
	b := cfg.Board
	if b == nil {
		b = boards.Default("star")
		if cfg.N != 0 && cfg.N != b.Cols-1 {
			if cfg.Start == nil {
				return nil, fmt.Errorf("%w: star: n = %d needs a start position or a board file", engine.ErrConfig, cfg.N)
			}
			var err error
			if b, err = Grid(cfg.N); err != nil {
				return nil, err
			}
		}
	}
	if b.Game != "star" {
		return nil, fmt.Errorf("%w: board %s is for %s, not star", engine.ErrConfig, b.Name, b.Game)
	}
	n := b.Cols - 1
	if cfg.N != 0 && cfg.N != n {
		return nil, fmt.Errorf("%w: star: n = %d but board %s is for n = %d", engine.ErrConfig, cfg.N, b.Name, n)
	}
	if n > 62 {
		return nil, fmt.Errorf("%w: star: n = %d is too large", engine.ErrConfig, n)
	}
	g := &geometry{board: b, size: b.Cols, n: n, keys: engine.Zobrist(0x57a2, 2*len(b.Cells)+1)}
	g.x, g.y = make([]int, len(b.Cells)), make([]int, len(b.Cells))
	for i := range b.Cells {
		g.x[i], g.y[i] = i%g.size, i/g.size
	}
	g.nb = make([][8]int16, len(b.Cells))
	for i := range g.nb {
		x, y, k := i%g.size, i/g.size, 0
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dx == 0 && dy == 0 {
					continue
				}
				g.nb[i][k] = -1
				if nx, ny := x+dx, y+dy; uint(nx) < uint(g.size) && uint(ny) < uint(g.size) {
					g.nb[i][k] = int16(ny*g.size + nx)
				}
				k++
			}
		}
	}
	s := &State{g: g, cell: make([]int8, len(b.Cells)), toMove: int8(first), winner: -1, seen: make([]uint32, len(b.Cells))}
	if cfg.Start == nil {
		if len(b.Start) == 0 {
			return nil, fmt.Errorf("%w: star: board %s has no start layout; give a start position", engine.ErrConfig, b.Name)
		}
		for _, p := range b.Start {
			s.put(b.MustIndex(p.Cell), info.SeatIndex(p.Piece))
		}
	} else if err := s.setStart(cfg.Start); err != nil {
		return nil, err
	}
	for c := range s.pieces {
		s.pieces[c] = append(make([]int16, 0, n+1), s.pieces[c]...)
	}
	s.hash = s.computeHash()
	// A position may already be decided: a winning group (the player who just
	// moved, i.e. not the one to move, made it), or no move for the mover.
	switch {
	case s.largestGroup(1-int(s.toMove)) >= n-2:
		s.winner = 1 - s.toMove
	case s.largestGroup(int(s.toMove)) >= n-2:
		s.winner = s.toMove
	case !s.hasMove():
		s.winner = 1 - s.toMove
	}
	return s, nil
}

// Grid makes a bare STAR board for any n (no start layout).
func Grid(n int) (*boards.Board, error) {
	if n < 3 || n > 62 {
		return nil, fmt.Errorf("%w: star: n = %d out of range 3–62", engine.ErrConfig, n)
	}
	text := fmt.Sprintf("board star-%d\ngame star\nparam n %d\ngrid square %d %d\ncode 1 red\ncode 2 white\n", n, n, n+1, n+1)
	return boards.Parse(fmt.Sprintf("star-%d", n), []byte(text))
}

func (s *State) put(i, colour int) {
	s.cell[i] = int8(colour + 1)
	s.pieces[colour] = append(s.pieces[colour], int16(i))
}

func (s *State) setStart(p *engine.Position) error {
	b := s.g.board
	if p.Painted != nil || p.LastRoll != nil || p.Out != nil || p.Hands != nil {
		return fmt.Errorf("%w: start: star positions have only to_move and pieces", engine.ErrConfig)
	}
	// In sorted order, so that piece lists (and so move order) and the first
	// error reported are the same on every run.
	for _, cell := range slices.Sorted(maps.Keys(p.Pieces)) {
		piece := p.Pieces[cell]
		i, ok := b.Index(cell)
		if !ok {
			return fmt.Errorf("%w: start: no cell %q on a %d×%d star board", engine.ErrConfig, cell, b.Cols, b.Rows)
		}
		c := info.SeatIndex(piece)
		if c < 0 {
			return fmt.Errorf("%w: start: cell %s holds %q, want red or white", engine.ErrConfig, cell, piece)
		}
		s.put(i, c)
	}
	for c, name := range seats {
		if len(s.pieces[c]) != s.g.n {
			return fmt.Errorf("%w: start: %s has %d pieces, want n = %d", engine.ErrConfig, name, len(s.pieces[c]), s.g.n)
		}
	}
	seat := info.SeatIndex(p.ToMove)
	if seat < 0 {
		return fmt.Errorf("%w: start: to_move %q is not red or white", engine.ErrConfig, p.ToMove)
	}
	s.toMove = int8(seat)
	return nil
}

func (s *State) computeHash() uint64 {
	var h uint64
	for i, v := range s.cell {
		if v != 0 {
			h ^= s.g.keys[int(v-1)*len(s.cell)+i]
		}
	}
	if s.toMove == White {
		h ^= s.g.keys[2*len(s.cell)]
	}
	return h
}

func (s *State) xy(i int) (int, int) { return i % s.g.size, i / s.g.size }

// target returns the reflection of a through p, or -1 when off the board.
func (s *State) target(a, p int) int {
	ax, ay := s.xy(a)
	px, py := s.xy(p)
	x, y := 2*px-ax, 2*py-ay
	if x < 0 || y < 0 || x >= s.g.size || y >= s.g.size {
		return -1
	}
	return y*s.g.size + x
}

func (s *State) hasMove() bool {
	size := s.g.size
	gx, gy := s.g.x, s.g.y
	own := s.pieces[s.toMove]
	// Usually the first few pairs already give a move: no tables up front.
	for _, a := range own {
		ax, ay := gx[a], gy[a]
		for _, p := range own {
			x, y := 2*gx[p]-ax, 2*gy[p]-ay
			if uint(x) < uint(size) && uint(y) < uint(size) && a != p && s.cell[y*size+x] == 0 {
				return true
			}
		}
	}
	return false
}

func (s *State) Info() *engine.Info { return &info }

func (s *State) ToMove() int {
	if s.winner >= 0 {
		return -1
	}
	return int(s.toMove)
}

func (s *State) Awaiting() engine.Awaiting {
	if s.winner >= 0 {
		return engine.AwaitNone
	}
	return engine.AwaitMove
}

func (s *State) Result() engine.Result {
	if s.winner >= 0 {
		return engine.Result{Status: engine.Won, Winner: int(s.winner)}
	}
	return engine.Result{Status: engine.Playing, Winner: -1}
}

// Moves lists every reflection onto an empty cell. Different pivots can give
// the same from-to (collinear pivots cannot: A' = 2P − A fixes P), so the list
// has no duplicates.
func (s *State) Moves(buf []engine.Move) []engine.Move {
	buf = buf[:0]
	if s.winner >= 0 {
		return buf
	}
	size := s.g.size
	own := s.pieces[s.toMove]
	var xs, ys [64]int
	gx, gy := s.g.x, s.g.y
	for k, p := range own {
		xs[k], ys[k] = gx[p], gy[p]
	}
	n := len(own)
	for i := 0; i < n; i++ {
		ax, ay := xs[i], ys[i]
		from := engine.Move(own[i]) + 1
		for j := 0; j < n; j++ {
			x, y := 2*xs[j]-ax, 2*ys[j]-ay
			if uint(x) >= uint(size) || uint(y) >= uint(size) || i == j {
				continue
			}
			t := y*size + x
			if s.cell[t] == 0 {
				buf = append(buf, from|(engine.Move(t)+1)<<16)
			}
		}
	}
	return buf
}

func split(m engine.Move) (from, to int) { return int(m&0xffff) - 1, int(m>>16&0xffff) - 1 }

func (s *State) Play(m engine.Move) {
	from, to := split(m)
	c := int(s.toMove)
	own := s.pieces[c]
	at := 0
	for own[at] != int16(from) {
		at++
	}
	s.hist = append(s.hist, undo{move: m, at: int8(at), winner: s.winner})
	own[at] = int16(to)
	s.cell[from], s.cell[to] = 0, int8(c+1)
	nc := len(s.cell)
	s.hash ^= s.g.keys[c*nc+from] ^ s.g.keys[c*nc+to] ^ s.g.keys[2*nc]
	s.toMove ^= 1
	s.plies++
	if s.groupAt(to, c) >= s.g.n-2 {
		s.winner = int8(c)
	} else if !s.hasMove() {
		s.winner = int8(c)
	}
}

// Forget drops the undo history (engine.Forgetter).
func (s *State) Forget() { s.hist = s.hist[:0] }

func (s *State) Undo() {
	u := s.hist[len(s.hist)-1]
	s.hist = s.hist[:len(s.hist)-1]
	from, to := split(u.move)
	s.toMove ^= 1
	c := int(s.toMove)
	s.pieces[c][u.at] = int16(from)
	s.cell[to], s.cell[from] = 0, int8(c+1)
	nc := len(s.cell)
	s.hash ^= s.g.keys[c*nc+from] ^ s.g.keys[c*nc+to] ^ s.g.keys[2*nc]
	s.winner = u.winner
	s.plies--
}

// groupAt counts the 8-connected group of colour c containing cell i. The
// visited marks are generation stamps, so nothing is cleared between calls.
func (s *State) groupAt(i, c int) int {
	var stackArr [64]int16
	s.gen++
	if s.gen == 0 {
		clear(s.seen)
		s.gen = 1
	}
	gen, seen, nb := s.gen, s.seen, s.g.nb
	stack := append(stackArr[:0], int16(i))
	seen[i] = gen
	n := 0
	want := int8(c + 1)
	for len(stack) > 0 {
		k := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		n++
		for _, j := range nb[k] {
			if j >= 0 && seen[j] != gen && s.cell[j] == want {
				seen[j] = gen
				stack = append(stack, j)
			}
		}
	}
	return n
}

func (s *State) largestGroup(c int) int {
	best := 0
	for _, p := range s.pieces[c] {
		if g := s.groupAt(int(p), c); g > best {
			best = g
		}
	}
	return best
}

// LargestGroup is the size of colour c's largest 8-connected group.
func (s *State) LargestGroup(c int) int { return s.largestGroup(c) }

// N is the number of pieces per colour.
func (s *State) N() int { return s.g.n }

// Board is the board definition in use.
func (s *State) Board() *boards.Board { return s.g.board }

func (s *State) Roll(int) error {
	return fmt.Errorf("%w: star has no dice", engine.ErrNotNow)
}

func (s *State) AppendMove(dst []byte, m engine.Move) []byte {
	from, to := split(m)
	dst = append(dst, s.g.board.Cells[from].Name...)
	dst = append(dst, '-')
	return append(dst, s.g.board.Cells[to].Name...)
}

func (s *State) ParseMove(text string) (engine.Move, error) {
	a, b, ok := strings.Cut(text, "-")
	if !ok {
		return engine.NoMove, fmt.Errorf("%w: %q: want from-to, e.g. b1-d9", engine.ErrNotation, text)
	}
	from, ok1 := s.g.board.Index(a)
	to, ok2 := s.g.board.Index(b)
	if !ok1 || !ok2 {
		return engine.NoMove, fmt.Errorf("%w: %q: no such cell on a %d×%d board", engine.ErrNotation, text, s.g.size, s.g.size)
	}
	if s.winner >= 0 {
		return engine.NoMove, fmt.Errorf("%w: the game is over", engine.ErrNotNow)
	}
	mover := seats[s.toMove]
	switch {
	case s.cell[from] != s.toMove+1:
		return engine.NoMove, fmt.Errorf("%w: %s: %s has no %s piece", engine.ErrIllegal, text, a, mover)
	case s.cell[to] != 0:
		return engine.NoMove, fmt.Errorf("%w: %s: %s is not empty", engine.ErrIllegal, text, b)
	}
	fx, fy := s.xy(from)
	tx, ty := s.xy(to)
	if (fx+tx)%2 != 0 || (fy+ty)%2 != 0 {
		return engine.NoMove, fmt.Errorf("%w: %s: no cell lies midway between %s and %s", engine.ErrIllegal, text, a, b)
	}
	pivot := (fy+ty)/2*s.g.size + (fx+tx)/2
	if pivot == from || s.cell[pivot] != s.toMove+1 {
		return engine.NoMove, fmt.Errorf("%w: %s: the pivot %s is not a %s piece", engine.ErrIllegal, text, s.g.board.Cells[pivot].Name, mover)
	}
	return engine.Move(from) + 1 | (engine.Move(to)+1)<<16, nil
}

func (s *State) Hash() uint64 { return s.hash }
func (s *State) Plies() int   { return s.plies }

func (s *State) Position() engine.Position {
	p := engine.Position{ToMove: seats[s.toMove], Pieces: map[string]string{}}
	for i, v := range s.cell {
		if v != 0 {
			p.Pieces[s.g.board.Cells[i].Name] = seats[v-1]
		}
	}
	return p
}

func (s *State) Clone() engine.State {
	c := *s
	c.cell = append([]int8(nil), s.cell...)
	c.seen = make([]uint32, len(s.seen))
	for k := range c.pieces {
		c.pieces[k] = append(make([]int16, 0, cap(s.pieces[k])), s.pieces[k]...)
	}
	c.hist = nil
	return &c
}

// RandomMove draws a uniformly random legal move: each legal move is exactly
// one ordered (piece, pivot) pair, so rejection sampling over pairs is uniform
// over moves. After a run of misses it falls back to listing the moves.
func (s *State) RandomMove(rng *rand.Rand) engine.Move {
	if s.winner >= 0 {
		return engine.NoMove
	}
	size := s.g.size
	own := s.pieces[s.toMove]
	n := len(own)
	for try := 0; try < 64; try++ {
		k := rng.IntN(n * n)
		i, j := k/n, k%n
		if i == j {
			continue
		}
		a, p := int(own[i]), int(own[j])
		x, y := 2*s.g.x[p]-s.g.x[a], 2*s.g.y[p]-s.g.y[a]
		if uint(x) >= uint(size) || uint(y) >= uint(size) {
			continue
		}
		if t := y*size + x; s.cell[t] == 0 {
			return engine.Move(a) + 1 | (engine.Move(t)+1)<<16
		}
	}
	var buf [64 * 63]engine.Move
	moves := s.Moves(buf[:0])
	return moves[rng.IntN(len(moves))]
}
