package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/tabla-board/tabla/boards"
)

// Move is one move in a game's own packed encoding. Only the game that produced
// a Move can read it; each game package documents its bit layout. The zero Move
// is never a legal move of any game, so it can mark "no move".
type Move uint64

// NoMove is the zero Move: never legal in any game.
const NoMove Move = 0

// Awaiting says what a game waits for next.
type Awaiting int8

const (
	// AwaitMove: the player to move must make a move (Moves lists them).
	AwaitMove Awaiting = iota
	// AwaitRoll: the player to move must roll the die first (DAHA, RAY).
	AwaitRoll
	// AwaitNone: the game is over.
	AwaitNone
)

func (a Awaiting) String() string {
	switch a {
	case AwaitMove:
		return "move"
	case AwaitRoll:
		return "roll"
	case AwaitNone:
		return "none"
	}
	return fmt.Sprintf("Awaiting(%d)", int8(a))
}

// Status is the state of play.
type Status int8

const (
	Playing Status = iota
	Won
	Draw
)

func (s Status) String() string {
	switch s {
	case Playing:
		return "playing"
	case Won:
		return "won"
	case Draw:
		return "draw"
	}
	return fmt.Sprintf("Status(%d)", int8(s))
}

// Result is how a game stands. Winner is a side index (see Info.Sides) when
// Status is Won, and -1 otherwise.
type Result struct {
	Status Status
	Winner int
}

// Die describes a game's die. Faces are numbered 0..len(Faces)-1 and are
// equally likely; Faces[i] is the face's canonical text ("4", "N"). Numeric
// dice are written as JSON integers in game records, others as JSON strings.
type Die struct {
	Faces   []string
	Numeric bool
}

// Info is what does not change during a game.
type Info struct {
	Game    string // "daha", "star", "gyges", "ray", "six"
	Variant string // "basic" or "advanced"
	// Seats are the players in turn order ("red", "yellow", …; four-player six:
	// "black1", "red1", "black2", "red2"). Player indices index Seats.
	Seats []string
	// Sides are who can win: the seats themselves, except in four-player six
	// where they are the teams "black" and "red". SideOf maps a seat to its side.
	Sides  []string
	SideOf []int
	// Die is nil for games without dice.
	Die *Die
}

// State is a position of one game and the rules that act on it. States are
// mutable and not safe for concurrent use; Clone gives an independent copy.
//
// Play, Roll and Undo keep an internal history, so a search can walk a tree
// with no copies: every Play or Roll is undone by exactly one Undo, which
// restores the position and its Hash exactly.
type State interface {
	Info() *Info

	// ToMove is the seat that must roll or move next, -1 once the game is over.
	ToMove() int
	Awaiting() Awaiting
	Result() Result

	// Moves appends the legal moves to buf[:0] and returns it. It returns an
	// empty slice unless Awaiting is AwaitMove. When a player must pass, the
	// only move is the game's pass move. Moves allocates nothing when buf has
	// room.
	Moves(buf []Move) []Move
	// Play applies a legal move. Playing an illegal move is undefined; use
	// ParseMove or Legal to check input.
	Play(m Move)
	// Roll applies a die roll (a face index of Info().Die) when Awaiting is
	// AwaitRoll, including any consequence that follows at once (DAHA: the
	// player is eliminated when the roll leaves no legal destination).
	Roll(face int) error
	// Undo takes back the last Play or Roll. It panics when there is none.
	Undo()

	// AppendMove appends the canonical notation of m (RULES.md §6).
	AppendMove(dst []byte, m Move) []byte
	// ParseMove reads canonical notation and returns the legal move it names
	// in this position, or an error saying why it is malformed or illegal.
	ParseMove(s string) (Move, error)

	// Hash identifies the position (pieces, player to move, and whatever else
	// decides the legal moves) for transposition tables and repetition.
	Hash() uint64
	// Position exports the position in the game record's start format.
	Position() Position
	// Clone returns an independent copy (its history may be empty).
	Clone() State
	// Plies is the number of moves played since the start (passes and
	// placements included; rolls and eliminations are not plies).
	Plies() int
}

// Forgetter is implemented by every game's State: Forget drops the undo
// history (Undo then takes back only the moves played after it), so that
// a reader replaying a record of a million moves holds the position, not
// the way to it.
type Forgetter interface {
	Forget()
}

// Eliminator is implemented by games where players can be knocked out (DAHA).
type Eliminator interface {
	// Eliminated returns the eliminated seats in elimination order.
	Eliminated() []int
}

// Position is a position in the game record's `start` format (RULES.md §6):
// cell names mapped to pieces, plus the parts each game needs.
type Position struct {
	ToMove string            `json:"to_move"`
	Pieces map[string]string `json:"pieces"`
	// DAHA
	Painted  map[string]string `json:"painted,omitempty"`
	LastRoll map[string]int    `json:"last_roll,omitempty"`
	Out      []string          `json:"out,omitempty"`
	// GYGES: player → height → count (setup only). six: player → count.
	Hands map[string]any `json:"hands,omitempty"`
}

// Config says which game to set up. Zero values mean the defaults of RULES.md.
type Config struct {
	Variant string // "" or "basic", "advanced"
	First   string // star: "red"/"white"; gyges: "south"/"north"
	N       int    // star: pieces per colour
	Players int    // six: 2 or 4
	// Board is the board definition; nil means the game's default board.
	Board *boards.Board
	// Start replaces the default start position.
	Start *Position
}

// Errors that engines wrap so callers can tell kinds of failure apart.
var (
	ErrIllegal  = errors.New("illegal move")
	ErrNotation = errors.New("malformed move")
	ErrNotNow   = errors.New("not expected now")
	ErrConfig   = errors.New("bad game setup")
)

// MoveString is AppendMove as a string, for cold paths.
func MoveString(s State, m Move) string {
	return string(s.AppendMove(nil, m))
}

// Legal reports whether m is among s's legal moves.
func Legal(s State, m Move) bool {
	for _, x := range s.Moves(make([]Move, 0, 1024)) {
		if x == m {
			return true
		}
	}
	return false
}

// ParseByNotation finds the legal move whose canonical notation is text. Games
// whose notation maps one-to-one onto legal moves can implement ParseMove with
// it once the syntax is checked.
func ParseByNotation(s State, text string) (Move, error) {
	var nb [64]byte
	for _, m := range s.Moves(make([]Move, 0, 1024)) {
		if string(s.AppendMove(nb[:0], m)) == text {
			return m, nil
		}
	}
	return NoMove, fmt.Errorf("%w: %s", ErrIllegal, text)
}

// SeatIndex returns the index of name in info.Seats, or -1.
func (info *Info) SeatIndex(name string) int {
	for i, s := range info.Seats {
		if s == name {
			return i
		}
	}
	return -1
}

// RandomMover is implemented by games that can draw a uniformly random legal
// move faster than by listing them all; random playouts use it when present.
type RandomMover interface {
	// RandomMove returns a uniformly random legal move, or NoMove when no move
	// is awaited.
	RandomMove(rng *rand.Rand) Move
}
