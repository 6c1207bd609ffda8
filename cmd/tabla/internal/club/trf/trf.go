// Package trf reads and writes a tournament in FIDE's Tournament Report
// File (TRF-2016) as pairing programs exchange it: the player lines (001)
// with their fixed columns and one cell per round, the planned number of
// rounds (XXR) and the first seat of round 1 (XXC).
//
// A player line's columns (1-based): 1–3 "001", 5–8 the start number,
// 10 sex, 11–13 title, 15–47 name, 49–52 rating, 54–56 federation,
// 58–68 FIDE id, 70–79 birth date, 81–84 points, 86–89 rank, then from
// column 92 one cell of 8 characters every 10 columns: the opponent's
// start number in 4 columns ("0000" none), a space, the colour (w the
// first seat, b the second, - none), a space, the result.
//
// Results of a game: 1 win, = draw, 0 loss, + and - won and lost by
// forfeit, W D L played but not rated. Without an opponent: U the
// pairing-allocated bye (1 point), F a full-point bye, H a half-point
// bye, Z a zero-point bye, - absent. A blank cell is a round not played.
//
// Read checks what the pairing relies on and names the line and column
// of the first fault: start numbers 1..n each once, every opponent's
// cell pointing back with the other colour and the matching result, and
// the points column equal to the results.
package trf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Errors that a ParseError wraps: what is wrong.
var (
	ErrSyntax   = errors.New("malformed field")
	ErrConflict = errors.New("inconsistent with another line")
)

// ParseError says where (line and 1-based column) and what.
type ParseError struct {
	Line, Column int
	Msg          string
	Err          error // ErrSyntax or ErrConflict
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("trf: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Tournament is what a TRF says of a tournament.
type Tournament struct {
	Name string // the 012 line, as written
	// Rounds is the planned number of rounds (XXR); 0 when not given.
	Rounds int
	// FirstSeat is player 1's seat in round 1 (XXC white1/black1): 'w',
	// 'b', or 0 when not given.
	FirstSeat byte
	Players   []Player // by start number: Players[i].ID == i+1
}

// Player is one 001 line.
type Player struct {
	ID     int
	Sex    string // column 10
	Title  string // columns 11–13
	Name   string
	Rating int
	Fed    string // columns 54–56
	FideID string // columns 58–68
	Birth  string // columns 70–79
	Points float64
	Rank   int
	Cells  []Cell // one per round so far
	Line   int    // where it was read (0 if not read)
}

// Cell is one player's round.
type Cell struct {
	Opponent int  // start number, 0 for none
	Colour   byte // 'w', 'b' or '-'
	Result   byte // see the package comment; ' ' for a round not played
}

// Played reports whether the cell is a game over the board that counts
// as a meeting (not a forfeit, not a bye).
func (c Cell) Played() bool {
	return c.Opponent != 0 && strings.IndexByte("1=0WDL", c.Result) >= 0
}

// PairingBye reports whether the cell is a bye that bars a second
// pairing-allocated bye: U, F, or a forfeit win without an opponent.
func (c Cell) PairingBye() bool {
	return c.Opponent == 0 && (c.Result == 'U' || c.Result == 'F' || c.Result == '+')
}

// Score is the cell's points: 1 a win, ½ a draw, 0 otherwise.
func (c Cell) Score() float64 {
	switch c.Result {
	case '1', '+', 'W', 'U', 'F':
		return 1
	case '=', 'D', 'H':
		return 0.5
	}
	return 0
}

// opposite is the result the opponent's cell must show.
var opposite = map[byte]byte{'1': '0', '0': '1', '=': '=', '+': '-', '-': '+', 'W': 'L', 'L': 'W', 'D': 'D'}

// Read reads a TRF.
func Read(r io.Reader) (*Tournament, error) {
	t := &Tournament{}
	byID := map[int]*Player{}
	var order []*Player
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "001"):
			p, err := readPlayer(line, n)
			if err != nil {
				return nil, err
			}
			if q := byID[p.ID]; q != nil {
				return nil, &ParseError{n, 5, fmt.Sprintf("start number %d again (first on line %d)", p.ID, q.Line), ErrConflict}
			}
			byID[p.ID] = p
			order = append(order, p)
		case strings.HasPrefix(line, "012"):
			t.Name = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "XXR"):
			f := strings.Fields(line[3:])
			v, err := 0, error(nil)
			if len(f) == 1 {
				v, err = strconv.Atoi(f[0])
			}
			if len(f) != 1 || err != nil || v < 1 || v > 99 {
				return nil, &ParseError{n, 5, fmt.Sprintf("XXR wants the number of rounds 1..99, not %q", strings.TrimSpace(line[3:])), ErrSyntax}
			}
			t.Rounds = v
		case strings.HasPrefix(line, "XXC"):
			f := strings.Fields(line[3:])
			switch {
			case len(f) >= 1 && f[0] == "white1":
				t.FirstSeat = 'w'
			case len(f) >= 1 && f[0] == "black1":
				t.FirstSeat = 'b'
			default:
				return nil, &ParseError{n, 5, fmt.Sprintf("XXC wants white1 or black1, not %q", strings.TrimSpace(line[3:])), ErrSyntax}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trf: line %d: %w", n+1, err)
	}
	if len(order) == 0 {
		return nil, &ParseError{n, 1, "no player lines (001)", ErrSyntax}
	}
	t.Players = make([]Player, len(order))
	for _, p := range order {
		if p.ID > len(order) {
			return nil, &ParseError{p.Line, 5, fmt.Sprintf("start number %d, but there are %d players: start numbers are 1..%d", p.ID, len(order), len(order)), ErrConflict}
		}
		t.Players[p.ID-1] = *p
	}
	return t, t.check()
}

// check: opponents point back, points add up.
func (t *Tournament) check() error {
	for i := range t.Players {
		p := &t.Players[i]
		sum := 0.0
		for k, c := range p.Cells {
			col := cellColumn(k)
			sum += c.Score()
			if c.Opponent == 0 {
				continue
			}
			if c.Opponent > len(t.Players) || c.Opponent == p.ID {
				return &ParseError{p.Line, col, fmt.Sprintf("round %d: no opponent %d", k+1, c.Opponent), ErrConflict}
			}
			q := &t.Players[c.Opponent-1]
			if k >= len(q.Cells) || q.Cells[k].Opponent != p.ID {
				return &ParseError{p.Line, col, fmt.Sprintf("round %d: player %d meets %d, but %d's line (line %d) does not say so", k+1, p.ID, c.Opponent, c.Opponent, q.Line), ErrConflict}
			}
			o := q.Cells[k]
			if o.Colour == c.Colour {
				return &ParseError{p.Line, col + 5, fmt.Sprintf("round %d: players %d and %d both have colour %c", k+1, p.ID, q.ID, c.Colour), ErrConflict}
			}
			if opposite[c.Result] != o.Result {
				return &ParseError{p.Line, col + 7, fmt.Sprintf("round %d: result %c against %d, whose line (line %d) says %c", k+1, c.Result, q.ID, q.Line, o.Result), ErrConflict}
			}
		}
		if math.Abs(sum-p.Points) > 1e-9 {
			return &ParseError{p.Line, 81, fmt.Sprintf("player %d has %s points, the results add up to %s", p.ID, formatPoints(p.Points), formatPoints(sum)), ErrConflict}
		}
	}
	return nil
}

// cellColumn is the 1-based column where round k's (0-based) cell begins.
func cellColumn(k int) int { return 92 + 10*k }

// field is line's columns from..to (1-based, inclusive), cut short by
// the line's end.
func field(line string, from, to int) string {
	if from > len(line) {
		return ""
	}
	return line[from-1 : min(to, len(line))]
}

func readPlayer(line string, n int) (*Player, error) {
	p := &Player{Line: n}
	num := func(from, to int, what string, dst *int) error {
		s := strings.TrimSpace(field(line, from, to))
		if s == "" {
			return nil
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return &ParseError{n, from, fmt.Sprintf("%s %q in columns %d-%d is not a number", what, s, from, to), ErrSyntax}
		}
		*dst = v
		return nil
	}
	if err := num(5, 8, "start number", &p.ID); err != nil {
		return nil, err
	}
	if p.ID < 1 {
		return nil, &ParseError{n, 5, "no start number in columns 5-8", ErrSyntax}
	}
	if err := num(49, 52, "rating", &p.Rating); err != nil {
		return nil, err
	}
	if err := num(86, 89, "rank", &p.Rank); err != nil {
		return nil, err
	}
	p.Sex = strings.TrimSpace(field(line, 10, 10))
	p.Title = strings.TrimSpace(field(line, 11, 13))
	p.Name = strings.TrimSpace(field(line, 15, 47))
	p.Fed = strings.TrimSpace(field(line, 54, 56))
	p.FideID = strings.TrimSpace(field(line, 58, 68))
	p.Birth = strings.TrimSpace(field(line, 70, 79))
	pts := strings.TrimSpace(field(line, 81, 84))
	if pts != "" {
		v, err := strconv.ParseFloat(pts, 64)
		if err != nil || v < 0 || v*2 != math.Trunc(v*2) {
			return nil, &ParseError{n, 81, fmt.Sprintf("points %q in columns 81-84 are not a number of half points", pts), ErrSyntax}
		}
		p.Points = v
	}
	for k := 0; cellColumn(k) <= len(line); k++ {
		col := cellColumn(k)
		raw := field(line, col, col+7)
		if strings.TrimSpace(raw) == "" {
			p.Cells = append(p.Cells, Cell{Colour: '-', Result: ' '})
			continue
		}
		c, err := readCell(raw, n, col, k)
		if err != nil {
			return nil, err
		}
		p.Cells = append(p.Cells, c)
	}
	return p, nil
}

func readCell(raw string, n, col, k int) (Cell, error) {
	raw += strings.Repeat(" ", 8-len(raw))
	var c Cell
	opp := strings.TrimSpace(raw[:4])
	if opp != "" {
		v, err := strconv.Atoi(opp)
		if err != nil || v < 0 {
			return c, &ParseError{n, col, fmt.Sprintf("round %d: opponent %q is not a start number", k+1, opp), ErrSyntax}
		}
		c.Opponent = v
	}
	if raw[4] != ' ' || raw[6] != ' ' {
		return c, &ParseError{n, col, fmt.Sprintf("round %d: cell %q is not \"NNNN C R\"", k+1, raw), ErrSyntax}
	}
	c.Colour, c.Result = raw[5], raw[7]
	switch {
	case c.Opponent != 0 && c.Colour != 'w' && c.Colour != 'b':
		return c, &ParseError{n, col + 5, fmt.Sprintf("round %d: colour %q against %d; w or b", k+1, c.Colour, c.Opponent), ErrSyntax}
	case c.Opponent != 0 && strings.IndexByte("10=+-WDL", c.Result) < 0:
		return c, &ParseError{n, col + 7, fmt.Sprintf("round %d: result %q of a game; one of 1 = 0 + - W D L", k+1, c.Result), ErrSyntax}
	case c.Opponent == 0 && c.Colour != '-' && c.Colour != ' ':
		return c, &ParseError{n, col + 5, fmt.Sprintf("round %d: colour %q without an opponent; -", k+1, c.Colour), ErrSyntax}
	case c.Opponent == 0 && strings.IndexByte("UFHZ-+", c.Result) < 0:
		return c, &ParseError{n, col + 7, fmt.Sprintf("round %d: result %q without an opponent; one of U F H Z -", k+1, c.Result), ErrSyntax}
	}
	c.Colour = map[bool]byte{true: '-', false: c.Colour}[c.Opponent == 0]
	return c, nil
}

// Write writes the tournament in the layout Read reads (and pairing
// programs such as bbpPairings read): 012, XXR, XXC, then the player
// lines with the points column computed from the cells.
func Write(w io.Writer, t *Tournament) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "012 %s\n", t.Name)
	if t.Rounds > 0 {
		fmt.Fprintf(bw, "XXR %d\n", t.Rounds)
	}
	if t.FirstSeat != 0 {
		fmt.Fprintf(bw, "XXC %s1\n", map[byte]string{'w': "white", 'b': "black"}[t.FirstSeat])
	}
	for i := range t.Players {
		p := &t.Players[i]
		sum := 0.0
		for _, c := range p.Cells {
			sum += c.Score()
		}
		line := []byte(strings.Repeat(" ", 89))
		put := func(from, to int, s string, right bool) {
			width := to - from + 1
			if len(s) > width {
				s = s[:width]
			}
			if right {
				s = strings.Repeat(" ", width-len(s)) + s
			}
			copy(line[from-1:], s)
		}
		put(1, 3, "001", false)
		put(5, 8, strconv.Itoa(p.ID), true)
		put(10, 10, p.Sex, false)
		put(11, 13, p.Title, true)
		put(15, 47, p.Name, false)
		if p.Rating > 0 {
			put(49, 52, strconv.Itoa(p.Rating), true)
		}
		put(54, 56, p.Fed, false)
		put(58, 68, p.FideID, true)
		put(70, 79, p.Birth, false)
		put(81, 84, formatPoints(sum), true)
		if p.Rank > 0 {
			put(86, 89, strconv.Itoa(p.Rank), true)
		}
		bw.Write(line)
		for _, c := range p.Cells {
			if c.Result == ' ' {
				bw.WriteString("          ")
				continue
			}
			opp := fmt.Sprintf("%4d", c.Opponent)
			if c.Opponent == 0 {
				opp = "0000"
			}
			fmt.Fprintf(bw, "  %s %c %c", opp, c.Colour, c.Result)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

func formatPoints(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
