package boards

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

//go:embed data/*.board
var builtin embed.FS

// Kind is a board's geometry.
type Kind string

const (
	Square Kind = "square" // a COLS×ROWS grid named a1…, orthogonally adjacent
	Hex    Kind = "hex"    // a hexagonal region of axial cells "q,r"
	Graph  Kind = "graph"  // explicit cells and adjacency
)

// Special sensor codes shared by every board.
const (
	CodeEmpty    byte = 0   // nothing on the cell
	CodeOccupied byte = 255 // a piece whose kind the sensor cannot tell
)

// Board is a board definition: geometry, start layout and wiring.
type Board struct {
	Name  string // e.g. "gyges"
	Game  string // the game it is for
	Title string
	File  string // where it was read from ("builtin:gyges.board" for embedded ones)

	Kind       Kind
	Cols, Rows int // Square
	Radius     int // Hex: max(|q|,|r|,|q+r|) ≤ Radius
	// Pitch is the real distance, in mm, of one unit of the cell coordinates:
	// between neighbouring cell centres on square and hex grids, between DAHA's
	// rings. "pitch MM" in the file, else DefaultPitch of the game.
	Pitch float64

	// Cells in board order: square grids row by row from a1, hex regions row by
	// row from the lowest r, graphs in declaration order, goals last.
	Cells []Cell
	index map[string]int

	// Params are game parameters ("n" for STAR).
	Params map[string]string
	// Start is the start layout in file order.
	Start []Placement

	// Sensors maps a sensor index to a cell index.
	Sensors []int
	// LEDs maps a cell index to an LED index, -1 for a cell without LED.
	LEDs []int
	// LEDCount is the number of LEDs on the strip (max LED index + 1).
	LEDCount int
	// Codes maps sensor codes to piece kinds (CodeEmpty and CodeOccupied are
	// implicit and never listed).
	Codes map[byte]string
}

// Cell is one place a piece can stand.
type Cell struct {
	Name string
	X, Y float64 // drawing coordinates, y upwards
	Adj  []int   // neighbours (cell indices)
	Goal bool    // a goal beyond the grid (GYGES N and S)
	Mark string  // a label such as "target" (RAY's centre)
	Q, R int     // axial coordinates on hex boards
}

// Placement is one piece of a start layout.
type Placement struct {
	Cell  string
	Piece string
}

// Index returns the index of the named cell.
func (b *Board) Index(name string) (int, bool) {
	i, ok := b.index[name]
	return i, ok
}

// MustIndex is Index for names known to exist; it panics otherwise.
func (b *Board) MustIndex(name string) int {
	i, ok := b.index[name]
	if !ok {
		panic("boards: no cell " + name + " on " + b.Name)
	}
	return i
}

// Param returns an integer game parameter, or def when absent.
func (b *Board) Param(key string, def int) int {
	v, ok := b.Params[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

// Marked returns the cells carrying a mark, in board order.
func (b *Board) Marked(mark string) []int {
	var out []int
	for i, c := range b.Cells {
		if c.Mark == mark {
			out = append(out, i)
		}
	}
	return out
}

// CodeOf returns the sensor code an identifying sensor reports for a piece.
func (b *Board) CodeOf(piece string) (byte, bool) {
	for c, p := range b.Codes {
		if p == piece {
			return c, true
		}
	}
	return 0, false
}

// Builtin returns the names of the embedded boards, sorted.
func Builtin() []string {
	ents, _ := builtin.ReadDir("data")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".board"))
	}
	sort.Strings(names)
	return names
}

// Default returns the default board of a game (its builtin board of the same
// name). It panics if the embedded file is broken, which tests rule out.
func Default(game string) *Board {
	b, err := Lookup(game)
	if err != nil {
		panic(err)
	}
	return b
}

// Lookup returns a builtin board by name.
func Lookup(name string) (*Board, error) {
	data, err := builtin.ReadFile("data/" + name + ".board")
	if err != nil {
		return nil, fmt.Errorf("boards: no builtin board %q (have %s)", name, strings.Join(Builtin(), ", "))
	}
	return Parse("builtin:"+name+".board", data)
}

// Open reads a board: a builtin name, or a path to a board file.
func Open(nameOrPath string) (*Board, error) {
	if !strings.ContainsAny(nameOrPath, "/\\.") {
		return Lookup(nameOrPath)
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("boards: %w", err)
	}
	return Parse(nameOrPath, data)
}

// ErrInvalid is wrapped by every error about a board file's content.
var ErrInvalid = errors.New("invalid board file")

// ParseError says where a board file is wrong.
type ParseError struct {
	File string
	Line int // 1-based; 0 when the problem is the file as a whole
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("boards: %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("boards: %s:%d: %s", e.File, e.Line, e.Msg)
}

func (e *ParseError) Unwrap() error { return ErrInvalid }

// Games lists the games a board can be for, and their piece kinds.
var Games = map[string][]string{
	"daha":  {"red", "yellow", "blue", "black"},
	"star":  {"red", "white"},
	"gyges": {"1", "2", "3"},
	"ray":   {"red", "yellow", "blue", "black"},
	"six":   {"red", "black"},
}

// DefaultPitch is each game's pitch in mm when a board file gives none: pieces
// of about two thirds of it fit, and the boards other than RAY and six fit
// on one A3 sheet (see boards/sheet).
var DefaultPitch = map[string]float64{"daha": 40, "star": 20, "gyges": 40, "ray": 20, "six": 22}

type parser struct {
	b    *Board
	file string
	line int

	adjLines            map[int]int // cell → line of its adj directive
	explicitS           map[int]int // sensor index → line
	sensorMode, ledMode string
	sensorLine, ledLine int
	explicitLED         map[int]int
	startLines          []int
	errs                []error
}

func (p *parser) errf(format string, args ...any) error {
	return &ParseError{File: p.file, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a board file. The format is line-oriented: a directive and its
// words, '#' starts a comment. See doc.go for the directives.
func Parse(file string, data []byte) (*Board, error) {
	b := &Board{File: file, index: map[string]int{}, Params: map[string]string{}, Codes: map[byte]string{}}
	p := &parser{b: b, file: file, adjLines: map[int]int{}, explicitS: map[int]int{}, explicitLED: map[int]int{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	type deferred struct {
		line  int
		words []string
	}
	var later []deferred
	for sc.Scan() {
		p.line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		words := strings.Fields(text)
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "board", "game", "title", "grid", "cell", "param", "pitch":
			if err := p.header(words); err != nil {
				return nil, err
			}
		case "goal", "adj", "mark", "start", "sensors", "sensor", "leds", "led", "code":
			later = append(later, deferred{p.line, words})
		default:
			return nil, p.errf("unknown directive %q", words[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: file, Line: p.line + 1, Msg: err.Error()}
	}
	p.line = 0
	if b.Name == "" {
		return nil, p.errf("missing \"board NAME\"")
	}
	if b.Game == "" {
		return nil, p.errf("missing \"game GAME\"")
	}
	if b.Kind == "" {
		return nil, p.errf("missing \"grid square COLS ROWS\", \"grid hex RADIUS\" or \"cell\" lines")
	}
	if b.Pitch == 0 {
		b.Pitch = DefaultPitch[b.Game]
	}
	// Goals first (they add cells), then the rest in file order.
	for _, d := range later {
		if d.words[0] == "goal" {
			p.line = d.line
			if err := p.goal(d.words); err != nil {
				return nil, err
			}
		}
	}
	for _, d := range later {
		p.line = d.line
		var err error
		switch d.words[0] {
		case "adj":
			err = p.adj(d.words)
		case "mark":
			err = p.mark(d.words)
		case "start":
			err = p.start(d.words)
		case "sensors", "leds":
			err = p.mode(d.words)
		case "sensor":
			err = p.sensor(d.words)
		case "led":
			err = p.led(d.words)
		case "code":
			err = p.code(d.words)
		}
		if err != nil {
			return nil, err
		}
	}
	p.line = 0
	if err := p.finish(); err != nil {
		return nil, err
	}
	return b, nil
}

func (p *parser) header(w []string) error {
	b := p.b
	switch w[0] {
	case "board":
		if len(w) != 2 {
			return p.errf("want \"board NAME\"")
		}
		if b.Name != "" {
			return p.errf("board named twice")
		}
		b.Name = w[1]
	case "game":
		if len(w) != 2 {
			return p.errf("want \"game GAME\"")
		}
		if _, ok := Games[w[1]]; !ok {
			return p.errf("unknown game %q (want daha, star, gyges, ray or six)", w[1])
		}
		b.Game = w[1]
	case "title":
		b.Title = strings.Join(w[1:], " ")
	case "pitch":
		if len(w) != 2 {
			return p.errf("want \"pitch MM\"")
		}
		if b.Pitch != 0 {
			return p.errf("pitch given twice")
		}
		mm, err := strconv.ParseFloat(w[1], 64)
		if err != nil || !(mm >= 5 && mm <= 500) {
			return p.errf("bad pitch %q (want millimetres, 5–500)", w[1])
		}
		b.Pitch = mm
	case "param":
		if len(w) != 3 {
			return p.errf("want \"param KEY VALUE\"")
		}
		b.Params[w[1]] = w[2]
	case "grid":
		if b.Kind != "" {
			return p.errf("a board has one grid (already %s)", b.Kind)
		}
		if len(w) < 2 {
			return p.errf("want \"grid square COLS ROWS\" or \"grid hex RADIUS\"")
		}
		switch w[1] {
		case "square":
			if len(w) != 4 {
				return p.errf("want \"grid square COLS ROWS\"")
			}
			cols, err1 := strconv.Atoi(w[2])
			rows, err2 := strconv.Atoi(w[3])
			if err1 != nil || err2 != nil || cols < 1 || rows < 1 || cols*rows > 4096 {
				return p.errf("bad grid size %q×%q (at most 4096 cells)", w[2], w[3])
			}
			b.Kind, b.Cols, b.Rows = Square, cols, rows
			for r := 1; r <= rows; r++ {
				for c := 1; c <= cols; c++ {
					p.addCell(Cell{Name: SquareName(c, r), X: float64(c - 1), Y: float64(r - 1)})
				}
			}
			for r := 1; r <= rows; r++ {
				for c := 1; c <= cols; c++ {
					i := (r-1)*cols + c - 1
					if c > 1 {
						link(b, i, i-1)
					}
					if r > 1 {
						link(b, i, i-cols)
					}
				}
			}
		case "hex":
			if len(w) != 3 {
				return p.errf("want \"grid hex RADIUS\"")
			}
			rad, err := strconv.Atoi(w[2])
			if err != nil || rad < 0 || rad > 36 {
				return p.errf("bad hex radius %q", w[2])
			}
			b.Kind, b.Radius = Hex, rad
			for r := -rad; r <= rad; r++ {
				for q := -rad; q <= rad; q++ {
					if abs(q) > rad || abs(q+r) > rad {
						continue
					}
					x, y := HexXY(q, r)
					p.addCell(Cell{Name: HexName(q, r), X: x, Y: y, Q: q, R: r})
				}
			}
			for i := range b.Cells {
				c := b.Cells[i]
				for _, d := range HexDirs {
					if j, ok := b.index[HexName(c.Q+d[0], c.R+d[1])]; ok && j > i {
						link(b, i, j)
					}
				}
			}
		default:
			return p.errf("unknown grid kind %q (want square or hex)", w[1])
		}
	case "cell":
		if b.Kind != "" && b.Kind != Graph {
			return p.errf("\"cell\" lines belong to graph boards, this one has a %s grid", b.Kind)
		}
		if len(w) != 4 {
			return p.errf("want \"cell NAME X Y\"")
		}
		x, err1 := strconv.ParseFloat(w[2], 64)
		y, err2 := strconv.ParseFloat(w[3], 64)
		if err1 != nil || err2 != nil || math.IsNaN(x) || math.IsNaN(y) {
			return p.errf("bad coordinates %q %q", w[2], w[3])
		}
		if _, dup := b.index[w[1]]; dup {
			return p.errf("cell %s declared twice", w[1])
		}
		b.Kind = Graph
		p.addCell(Cell{Name: w[1], X: x, Y: y})
	}
	return nil
}

func (p *parser) addCell(c Cell) {
	p.b.index[c.Name] = len(p.b.Cells)
	p.b.Cells = append(p.b.Cells, c)
}

func link(b *Board, i, j int) {
	b.Cells[i].Adj = append(b.Cells[i].Adj, j)
	b.Cells[j].Adj = append(b.Cells[j].Adj, i)
}

func (p *parser) cell(name string) (int, error) {
	i, ok := p.b.index[name]
	if !ok {
		return 0, p.errf("unknown cell %q", name)
	}
	return i, nil
}

func (p *parser) goal(w []string) error {
	b := p.b
	if len(w) < 5 {
		return p.errf("want \"goal NAME X Y CELL...\"")
	}
	if _, dup := b.index[w[1]]; dup {
		return p.errf("goal %s: a cell of that name exists already", w[1])
	}
	x, err1 := strconv.ParseFloat(w[2], 64)
	y, err2 := strconv.ParseFloat(w[3], 64)
	if err1 != nil || err2 != nil {
		return p.errf("bad coordinates %q %q", w[2], w[3])
	}
	var adj []int
	for _, n := range w[4:] {
		j, err := p.cell(n)
		if err != nil {
			return err
		}
		adj = append(adj, j)
	}
	p.addCell(Cell{Name: w[1], X: x, Y: y, Goal: true})
	g := len(b.Cells) - 1
	for _, j := range adj {
		link(b, g, j)
	}
	return nil
}

func (p *parser) adj(w []string) error {
	b := p.b
	if b.Kind != Graph {
		return p.errf("\"adj\" lines belong to graph boards; a %s grid has its adjacency built in", b.Kind)
	}
	if len(w) < 2 {
		return p.errf("want \"adj CELL NEIGHBOUR...\"")
	}
	i, err := p.cell(w[1])
	if err != nil {
		return err
	}
	if prev, ok := p.adjLines[i]; ok {
		return p.errf("adjacency of %s given twice (first on line %d)", w[1], prev)
	}
	p.adjLines[i] = p.line
	seen := map[int]bool{}
	for _, n := range w[2:] {
		j, err := p.cell(n)
		if err != nil {
			return err
		}
		if j == i {
			return p.errf("cell %s cannot neighbour itself", n)
		}
		if seen[j] {
			return p.errf("neighbour %s listed twice", n)
		}
		seen[j] = true
		if !contains(b.Cells[i].Adj, j) {
			b.Cells[i].Adj = append(b.Cells[i].Adj, j)
		}
	}
	return nil
}

func (p *parser) mark(w []string) error {
	if len(w) != 3 {
		return p.errf("want \"mark CELL LABEL\"")
	}
	i, err := p.cell(w[1])
	if err != nil {
		return err
	}
	p.b.Cells[i].Mark = w[2]
	return nil
}

func (p *parser) start(w []string) error {
	if len(w) != 3 {
		return p.errf("want \"start CELL PIECE\"")
	}
	i, ok := p.b.index[w[1]]
	if !ok {
		return p.errf("start cell %q is not on the board", w[1])
	}
	if p.b.Cells[i].Goal {
		return p.errf("start cell %s is a goal", w[1])
	}
	if !contains(Games[p.b.Game], w[2]) {
		return p.errf("unknown piece %q for %s (want %s)", w[2], p.b.Game, strings.Join(Games[p.b.Game], ", "))
	}
	for k, s := range p.b.Start {
		if s.Cell == w[1] {
			return p.errf("start cell %s used twice (first on line %d)", w[1], p.startLines[k])
		}
	}
	p.b.Start = append(p.b.Start, Placement{w[1], w[2]})
	p.startLines = append(p.startLines, p.line)
	return nil
}

func (p *parser) mode(w []string) error {
	if len(w) != 2 {
		return p.errf("want \"%s rows|serpentine|none\"", w[0])
	}
	switch w[1] {
	case "rows", "serpentine", "none":
	default:
		return p.errf("unknown %s order %q (want rows, serpentine or none)", w[0], w[1])
	}
	if w[0] == "sensors" {
		if w[1] == "none" {
			return p.errf("a board needs sensors")
		}
		p.sensorMode, p.sensorLine = w[1], p.line
	} else {
		p.ledMode, p.ledLine = w[1], p.line
	}
	return nil
}

func (p *parser) sensor(w []string) error {
	if len(w) != 3 {
		return p.errf("want \"sensor INDEX CELL\"")
	}
	n, err := strconv.Atoi(w[1])
	if err != nil || n < 0 || n > 65535 {
		return p.errf("bad sensor index %q", w[1])
	}
	c, err := p.cell(w[2])
	if err != nil {
		return err
	}
	if prev, ok := p.explicitS[n]; ok {
		return p.errf("duplicate sensor %d (first on line %d)", n, prev)
	}
	p.explicitS[n] = p.line
	for len(p.b.Sensors) <= n {
		p.b.Sensors = append(p.b.Sensors, -1)
	}
	for s, cc := range p.b.Sensors {
		if cc == c {
			return p.errf("cell %s already has sensor %d", w[2], s)
		}
	}
	p.b.Sensors[n] = c
	return nil
}

func (p *parser) led(w []string) error {
	if len(w) != 3 {
		return p.errf("want \"led CELL INDEX\"")
	}
	c, err := p.cell(w[1])
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(w[2])
	if err != nil || n < 0 || n > 65535 {
		return p.errf("bad LED index %q", w[2])
	}
	if prev, ok := p.explicitLED[c]; ok {
		return p.errf("cell %s has an LED already (line %d)", w[1], prev)
	}
	p.explicitLED[c] = n
	return nil
}

func (p *parser) code(w []string) error {
	if len(w) != 3 {
		return p.errf("want \"code VALUE PIECE\"")
	}
	v, err := strconv.Atoi(w[1])
	if err != nil || v < 1 || v > 254 {
		return p.errf("bad sensor code %q (want 1–254; 0 is empty, 255 occupied)", w[1])
	}
	if !contains(Games[p.b.Game], w[2]) {
		return p.errf("unknown piece %q for %s", w[2], p.b.Game)
	}
	if old, ok := p.b.Codes[byte(v)]; ok {
		return p.errf("code %d already means %s", v, old)
	}
	if c, ok := p.b.CodeOf(w[2]); ok {
		return p.errf("piece %s already has code %d", w[2], c)
	}
	p.b.Codes[byte(v)] = w[2]
	return nil
}

// order returns cell indices in strip order: rows, or serpentine on grids.
func (b *Board) order(mode string) []int {
	var out []int
	if mode == "serpentine" && (b.Kind == Square || b.Kind == Hex) {
		// group non-goal cells by row, alternate direction
		var rows [][]int
		last := math.NaN()
		for i, c := range b.Cells {
			if c.Goal {
				continue
			}
			if c.Y != last {
				rows = append(rows, nil)
				last = c.Y
			}
			rows[len(rows)-1] = append(rows[len(rows)-1], i)
		}
		for k, r := range rows {
			if k%2 == 1 {
				for i := len(r) - 1; i >= 0; i-- {
					out = append(out, r[i])
				}
			} else {
				out = append(out, r...)
			}
		}
		for i, c := range b.Cells {
			if c.Goal {
				out = append(out, i)
			}
		}
		return out
	}
	for i := range b.Cells {
		out = append(out, i)
	}
	return out
}

func (p *parser) finish() error {
	b := p.b
	// Graph adjacency must be symmetric.
	if b.Kind == Graph {
		for i, c := range b.Cells {
			for _, j := range c.Adj {
				if !contains(b.Cells[j].Adj, i) {
					p.line = p.adjLines[i]
					if p.line == 0 {
						p.line = p.adjLines[j]
					}
					return p.errf("asymmetric edge: %s lists %s, but %s does not list %s", c.Name, b.Cells[j].Name, b.Cells[j].Name, c.Name)
				}
			}
		}
	}
	// Sensors: explicit list, or an order.
	if len(p.explicitS) > 0 {
		if p.sensorMode != "" {
			p.line = p.sensorLine
			return p.errf("give either \"sensors %s\" or \"sensor\" lines, not both", p.sensorMode)
		}
		for s, c := range b.Sensors {
			if c < 0 {
				return p.errf("sensor indices must be contiguous from 0: sensor %d is missing", s)
			}
		}
	} else {
		mode := p.sensorMode
		if mode == "" {
			mode = "rows"
		}
		b.Sensors = b.order(mode)
	}
	if len(b.Sensors) > 4096 {
		return p.errf("%d sensors: at most 4096", len(b.Sensors))
	}
	// LEDs.
	b.LEDs = make([]int, len(b.Cells))
	for i := range b.LEDs {
		b.LEDs[i] = -1
	}
	if len(p.explicitLED) > 0 {
		if p.ledMode != "" {
			p.line = p.ledLine
			return p.errf("give either \"leds %s\" or \"led\" lines, not both", p.ledMode)
		}
		used := map[int]int{}
		for c, n := range p.explicitLED {
			if other, dup := used[n]; dup {
				return p.errf("LED %d is given to both %s and %s", n, b.Cells[other].Name, b.Cells[c].Name)
			}
			used[n] = c
			b.LEDs[c] = n
		}
	} else if p.ledMode != "none" {
		mode := p.ledMode
		if mode == "" {
			mode = "serpentine"
		}
		for k, c := range b.order(mode) {
			b.LEDs[c] = k
		}
	}
	for _, n := range b.LEDs {
		if n+1 > b.LEDCount {
			b.LEDCount = n + 1
		}
	}
	return p.gameChecks()
}

// gameChecks enforces what each game needs of its board.
func (p *parser) gameChecks() error {
	b := p.b
	count := map[string]int{}
	for _, s := range b.Start {
		count[s.Piece]++
	}
	switch b.Game {
	case "star":
		if b.Kind != Square || b.Cols != b.Rows {
			return p.errf("star needs a square (N+1)×(N+1) grid")
		}
		n := b.Param("n", b.Cols-1)
		if n != b.Cols-1 {
			return p.errf("star: param n = %d does not fit a %d×%d grid (want n = %d)", n, b.Cols, b.Rows, b.Cols-1)
		}
		if n < 3 {
			return p.errf("star: n must be at least 3")
		}
		if len(b.Start) > 0 {
			for _, col := range []string{"red", "white"} {
				if count[col] != n {
					return p.errf("star: %s has %d start pieces, want n = %d", col, count[col], n)
				}
				if g := b.largestGroup8(col); g >= n-2 {
					return p.errf("star: %s starts with a connected group of %d (N−2 = %d would win at once)", col, g, n-2)
				}
			}
		}
	case "gyges":
		if b.Kind != Square || b.Cols != 6 || b.Rows != 6 {
			return p.errf("gyges needs a 6×6 grid")
		}
		for _, g := range []string{"N", "S"} {
			if i, ok := b.index[g]; !ok || !b.Cells[i].Goal {
				return p.errf("gyges needs goals N and S")
			}
		}
	case "ray":
		if b.Kind != Square {
			return p.errf("ray needs a square grid")
		}
		if len(b.Marked("target")) != 1 {
			return p.errf("ray needs exactly one \"mark CELL target\"")
		}
	case "daha":
		if len(b.Cells) > 64 {
			return p.errf("daha boards have at most 64 cells")
		}
	case "six":
		if b.Kind != Hex {
			return p.errf("six needs a hex grid")
		}
	}
	if b.Game == "daha" || b.Game == "ray" {
		for _, pc := range Games[b.Game] {
			if count[pc] > 1 {
				return p.errf("%s: %s has %d start pieces, want at most one", b.Game, pc, count[pc])
			}
		}
	}
	return nil
}

// largestGroup8 is the size of the largest 8-connected group of one colour in
// a square grid's start layout.
func (b *Board) largestGroup8(colour string) int {
	occ := map[[2]int]bool{}
	for _, s := range b.Start {
		if s.Piece == colour {
			c := b.Cells[b.index[s.Cell]]
			occ[[2]int{int(c.X), int(c.Y)}] = true
		}
	}
	seen := map[[2]int]bool{}
	best := 0
	for start := range occ {
		if seen[start] {
			continue
		}
		n := 0
		stack := [][2]int{start}
		seen[start] = true
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n++
			for dx := -1; dx <= 1; dx++ {
				for dy := -1; dy <= 1; dy++ {
					nb := [2]int{c[0] + dx, c[1] + dy}
					if occ[nb] && !seen[nb] {
						seen[nb] = true
						stack = append(stack, nb)
					}
				}
			}
		}
		if n > best {
			best = n
		}
	}
	return best
}

// SquareName names a grid cell: column 1 is "a", 27 is "aa"; row as a number.
func SquareName(col, row int) string {
	return ColumnName(col) + strconv.Itoa(row)
}

// ColumnName names a 1-based column: a…z, aa, ab, ….
func ColumnName(col int) string {
	var b []byte
	for col > 0 {
		col--
		b = append([]byte{byte('a' + col%26)}, b...)
		col /= 26
	}
	return string(b)
}

// ParseSquare reads a grid cell name into 1-based column and row.
func ParseSquare(name string) (col, row int, ok bool) {
	i := 0
	for i < len(name) && name[i] >= 'a' && name[i] <= 'z' {
		col = col*26 + int(name[i]-'a'+1)
		i++
	}
	if i == 0 || i == len(name) || name[i] == '0' || i > 3 {
		return 0, 0, false
	}
	r, err := strconv.Atoi(name[i:])
	if err != nil || r < 1 || strconv.Itoa(r) != name[i:] {
		return 0, 0, false
	}
	return col, r, true
}

// HexDirs are the six axial neighbour offsets.
var HexDirs = [6][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}}

// HexName names an axial cell "q,r".
func HexName(q, r int) string { return strconv.Itoa(q) + "," + strconv.Itoa(r) }

// HexXY gives drawing coordinates (pointy-top hexagons, unit spacing, y up).
func HexXY(q, r int) (float64, float64) {
	return float64(q) + float64(r)/2, float64(r) * math.Sqrt(3) / 2
}

// WriteTo writes the board in its file format (the default wiring expanded).
func (b *Board) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "board %s\ngame %s\n", b.Name, b.Game)
	if b.Title != "" {
		fmt.Fprintf(&buf, "title %s\n", b.Title)
	}
	if b.Pitch > 0 {
		fmt.Fprintf(&buf, "pitch %g\n", b.Pitch)
	}
	keys := make([]string, 0, len(b.Params))
	for k := range b.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&buf, "param %s %s\n", k, b.Params[k])
	}
	switch b.Kind {
	case Square:
		fmt.Fprintf(&buf, "grid square %d %d\n", b.Cols, b.Rows)
	case Hex:
		fmt.Fprintf(&buf, "grid hex %d\n", b.Radius)
	case Graph:
		for _, c := range b.Cells {
			if !c.Goal {
				fmt.Fprintf(&buf, "cell %s %g %g\n", c.Name, c.X, c.Y)
			}
		}
		for _, c := range b.Cells {
			if c.Goal {
				continue
			}
			fmt.Fprintf(&buf, "adj %s", c.Name)
			for _, j := range c.Adj {
				if !b.Cells[j].Goal {
					fmt.Fprintf(&buf, " %s", b.Cells[j].Name)
				}
			}
			buf.WriteByte('\n')
		}
	}
	for _, c := range b.Cells {
		if c.Goal {
			fmt.Fprintf(&buf, "goal %s %g %g", c.Name, c.X, c.Y)
			for _, j := range c.Adj {
				fmt.Fprintf(&buf, " %s", b.Cells[j].Name)
			}
			buf.WriteByte('\n')
		}
	}
	for _, c := range b.Cells {
		if c.Mark != "" {
			fmt.Fprintf(&buf, "mark %s %s\n", c.Name, c.Mark)
		}
	}
	for _, s := range b.Start {
		fmt.Fprintf(&buf, "start %s %s\n", s.Cell, s.Piece)
	}
	for s, c := range b.Sensors {
		fmt.Fprintf(&buf, "sensor %d %s\n", s, b.Cells[c].Name)
	}
	for c, n := range b.LEDs {
		if n >= 0 {
			fmt.Fprintf(&buf, "led %s %d\n", b.Cells[c].Name, n)
		}
	}
	codes := make([]int, 0, len(b.Codes))
	for c := range b.Codes {
		codes = append(codes, int(c))
	}
	sort.Ints(codes)
	for _, c := range codes {
		fmt.Fprintf(&buf, "code %d %s\n", c, b.Codes[byte(c)])
	}
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
