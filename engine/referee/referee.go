package referee

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
)

// DefaultSettle is how long the sensors must stay quiet (board time) before
// the referee reads the board.
const DefaultSettle = 100 * time.Millisecond

// Cell values on the referee's boards: 0 empty, 1…len(kinds) a piece kind
// (boards.Games order, plus one), unknown an occupied cell whose piece the
// sensor cannot tell.
const (
	empty   uint8 = 0
	unknown uint8 = 255
)

// Config sets a referee up.
type Config struct {
	// Board is the board definition with its wiring; nil means the game's
	// default board.
	Board *boards.Board
	// Settle is the quiet time after a change before the board is read
	// (default DefaultSettle).
	Settle time.Duration
	// TakebackDepth is how many moves a physical takeback may undo at once
	// (default: the number of seats).
	TakebackDepth int
	// Rand rolls tabla's own die on a roll-button press: a face index in
	// [0,n). Nil disables rolling by tabla.
	Rand func(n int) int
	// NewGame sets up a fresh game for the new button and for a board set
	// back to the start position. Nil disables both.
	NewGame func() (engine.State, error)
	// Source names where physical actions come from in Actions ("board" or
	// "sim"; default "board").
	Source string
	// NoFrame: the LEDs are never worked out (Frame stays dark, State
	// lists no LEDs), for a replay that compares decisions only. What the
	// referee decides does not depend on its LEDs.
	NoFrame bool
}

// ActionKind tells the referee's decisions apart.
type ActionKind uint8

const (
	// Moved: a move was accepted.
	Moved ActionKind = iota + 1
	// Rolled: a roll was applied (from the board's die, or tabla's).
	Rolled
	// TookBack: Ops journalled events (moves and rolls) were undone.
	TookBack
	// NewGame: a new game started; State() holds it.
	NewGame
	// HintWanted: the hint button was pressed; the owner may call ShowHint.
	HintWanted
)

func (k ActionKind) String() string {
	switch k {
	case Moved:
		return "move"
	case Rolled:
		return "roll"
	case TookBack:
		return "takeback"
	case NewGame:
		return "new"
	case HintWanted:
		return "hint"
	}
	return fmt.Sprintf("ActionKind(%d)", uint8(k))
}

// Action is something the referee decided; its owner journals it.
type Action struct {
	Kind   ActionKind
	At     time.Duration // board time of the event that caused it
	Seat   string        // who moved or rolled
	Move   string        // Moved: canonical notation
	Face   string        // Rolled: the die face's text
	Tabla  bool          // Rolled: tabla rolled it (not the board's die)
	Source string        // Moved, Rolled: Config.Source, or "cli" for commands
	Ops    int           // TookBack: moves and rolls undone
	Plies  int           // TookBack: moves undone
}

// Mode is what the referee is doing.
type Mode uint8

const (
	ModePlay    Mode = iota // following the game (in sync, or a move under way)
	ModeCorrect             // the board matches nothing: guiding it back
	ModeConfirm             // several readings fit: waiting for confirm
	ModeSetup               // the start position is being set up (GYGES: placements)
	ModeOver                // the game has ended
)

var modeNames = [...]string{"play", "correct", "confirm", "setup", "over"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

type change struct {
	cell     int32
	old, new uint8
}

// op is one applied engine event.
type op struct {
	roll  bool
	move  engine.Move
	face  int
	text  string
	seat  int
	diff  []change // expected board changes it made
	seq   uint64   // event sequence number when it was applied
	since uint64   // the referee's lastAcc before it
	at    time.Duration
	note  note // the cells its notation names
	// chosen: confirmed by a person (the confirm button, a command): the
	// hand is done, the move is never revised
	chosen bool
	// was: the moves from the same position it revised, oldest first (the
	// rests of a hand counting the piece on; at most maxWas)
	was []engine.Move
	// chain: when it revised several moves (a deeper revision), the moves
	// recorded after the last of was, which it replaced too: the other
	// player's move it read as a rest, which the hand may prove real
	chain []engine.Move
	// chainWas: the moves the chain's last move had revised in turn (its
	// was: a rest the hand was read as going on from may have been the
	// real move)
	chainWas []engine.Move
	// chainAfter: the move of was the chain followed
	chainAfter engine.Move
	// asked: its revisions the referee asked about (the board showed them
	// settled, as a rest of the hand: revisionsThen reads them as was)
	asked []engine.Move
	// first: the event sequence number when its first reading was recorded
	// (kept when it is revised: the next player may have begun to move
	// before the hand's last reading was taken)
	first uint64
	// lone: recorded unasked with the move before it revised, as the one
	// reading of the board (a revision and the next player's move): the
	// hand may still have been under way, so revisionsThen reads the two
	// back to the revised move's earlier readings
	lone bool
	// alts: the same position named otherwise, as the move before this
	// one revised and then a move (texts): one to the game with this one
	// when it was taken, each may be the past the hands made, whose last
	// move they may still revise (lookAlikePast; at most maxAlts)
	alts [][2]string
}

// maxWas bounds an op's list of the moves it revised.
const maxWas = 8

// note is what a move's notation says about cells.
type note struct {
	from, to, extra int  // -1 when absent
	place           bool // a piece from outside the board
	pass            bool
}

// posCache holds the legal moves of one position, their notation and,
// lazily, their expected-board changes.
type posCache struct {
	ready bool
	seat  int
	moves []engine.Move
	texts []string
	notes []note
	diffs [][]change
	done  []bool

	// mayFit's index (fitting): the moves whose destination is each
	// sensed cell, and the others (a pass, a replace, a placement off the
	// sensors, a destination without a sensor); picked is fitting's scratch
	indexed bool
	byTo    [][]int32
	always  []int32
	picked  []int32
}

type traceEv struct {
	seq  uint64
	at   time.Duration // when the sensor first showed the change
	cell int32
	v    uint8 // the reading from then on
}

// empty: the change emptied the cell.
func (t traceEv) empty() bool { return t.v == empty }

type candKind uint8

const (
	candCurrent candKind = iota
	candMove
	candTakeback
	candRevise
	candNew // the board shows the start position
)

type candidate struct {
	kind     candKind
	idx      int // move index in its cache
	text     string
	note     note
	plies    int    // takeback depth
	depth    int    // revisions: how many of the last moves it replaces
	then     string // revisions: the next player's move after it (GYGES)
	evidence int
	cells    []int // key cells, for confirm display
	ask      bool  // never taken without confirmation
	// displacedFirst: a GYGES revision to a replace whose displaced piece
	// went where the revised move put its piece (the hand set it down
	// first); followed on by revisionsThen, never asked for alone
	displacedFirst bool
	// altPast: a revision of the last move as a look-alike past names it
	// (lookAlikePast); only ever asked
	altPast bool
}

// Referee turns board events into moves and LED frames. It is pure: time
// comes from event timestamps and Tick, randomness from Config.Rand. It is
// not safe for concurrent use.
type Referee struct {
	cfg    Config
	b      *boards.Board
	st     engine.State
	info   *engine.Info
	kinds  []string
	kindOf map[string]uint8
	code   [256]uint8
	ncell  int

	hasSensor []bool
	// sensorWords has, for each eight cells from 0 on, the high bit of the
	// byte of each cell with a sensor (mismatch's mask)
	sensorWords []uint64
	sensed      []uint8
	infer       []uint8
	hand        []uint8
	known       bool
	fresh       bool // no snapshot read since the game was installed
	conn        Link

	cur    []uint8 // expected board now
	start  []uint8 // expected board of a new game (nil: none)
	offb   int     // pieces of the position that stand off the physical board
	ops    []op
	cache  posCache
	prev   posCache // the position before the last move (for revisions)
	prevOK bool
	deep   posCache // scratch: a position further back (deep revisions)
	altPos posCache // scratch: the position before a look-alike past's last move
	// altBoard: scratch, the board of altPos's position
	altBoard []uint8

	pending    bool
	lastChange time.Duration
	now        time.Duration
	seq        uint64
	lastAcc    uint64      // seq at the last applied op
	raw        [][]segment // raw readings not yet debounced, per cell
	rawCells   []uint64    // a bit for each cell that raw may hold readings of
	stable     []uint8     // debounced readings
	touched    []uint64    // seq of each cell's last debounced change
	trace      []traceEv   // debounced changes in seq order
	ident      bool        // the sensors tell pieces apart
	board3     []uint8     // scratch: a board after one move (afterDiff)

	mode   Mode
	inSync bool
	// takenBack: the number of the last move a takeback undid, while the
	// board has not been brought back in line since (0: none).
	takenBack int
	synced    bool  // the board has matched the game since it started
	progress  []int // indices of legal moves the board is under way to
	confirm   []candidate
	proposal  int
	hint      note
	hintText  string
	message   string
	lastRoll  string
	rollBy    string

	actions []Action
	version uint64

	// fixpoint: the last recognise ended with the board judged (asked or
	// nothing to do), not after its last round's move; lastRead: the state
	// after the last settled reading that ended so (settleNow skips the
	// next one when nothing changed since). alwaysEvaluate turns the skip
	// off (tests compare the two).
	fixpoint       bool
	lastRead       readMark
	alwaysEvaluate bool
	skipped        int // settled readings skipped

	buf       []engine.Move
	buf2      []engine.Move // the moves after a revision (GYGES composites)
	board2    []uint8
	board4    []uint8 // scratch: the board a next move is played from (nextBoard)
	board5    []uint8 // scratch: a move's board as recorded (changedBetween)
	scratch   []uint8
	lit       []litCell
	litAt     []int32   // each cell's place in lit, -1 if it is not lit (render)
	litSorted []litCell // render's scratch
	// scratch for the mismatch of candidates, revisionsAt and evaluate, and
	// revisionsAt's board as it stands
	misCand, misRev, misEval []int
	nowRev                   []uint8
	cands                    []candidate // candidates' scratch
	frame                    []Light
}

// Errors of the command methods.
var (
	ErrNoMove     = errors.New("referee: no move to take back")
	ErrNoNewGame  = errors.New("referee: no way to set up a new game")
	ErrNotRolling = errors.New("referee: no roll is due")
	ErrNoDie      = errors.New("referee: tabla has no die to roll")
	ErrNoChoice   = errors.New("referee: nothing to choose")
)

// New returns a referee for a game in progress (usually just set up). It
// takes st over; the referee plays, rolls and undoes on it.
func New(st engine.State, cfg Config) (*Referee, error) {
	info := st.Info()
	if cfg.Board == nil {
		cfg.Board = boards.Default(info.Game)
	}
	if cfg.Board.Game != info.Game {
		return nil, fmt.Errorf("referee: board %s is for %s, not %s", cfg.Board.Name, cfg.Board.Game, info.Game)
	}
	if cfg.Settle <= 0 {
		cfg.Settle = DefaultSettle
	}
	if cfg.TakebackDepth <= 0 {
		cfg.TakebackDepth = len(info.Seats)
	}
	if cfg.Source == "" {
		cfg.Source = "board"
	}
	b := cfg.Board
	r := &Referee{cfg: cfg, b: b, info: info, kinds: boards.Games[info.Game], kindOf: map[string]uint8{},
		ncell: len(b.Cells), conn: Connected, buf: make([]engine.Move, 0, 4096)}
	for i, k := range r.kinds {
		r.kindOf[k] = uint8(i + 1)
	}
	for i := range r.code {
		r.code[i] = unknown
	}
	r.code[CodeEmpty] = empty
	for c, k := range b.Codes {
		if v, ok := r.kindOf[k]; ok {
			r.code[c] = v
			r.ident = true
		}
	}
	r.hasSensor = make([]bool, r.ncell)
	for _, c := range b.Sensors {
		if c >= 0 && c < r.ncell {
			r.hasSensor[c] = true
		}
	}
	r.sensorWords = make([]uint64, r.ncell/8)
	for c := range len(r.sensorWords) * 8 {
		if r.hasSensor[c] {
			r.sensorWords[c/8] |= 0x80 << (8 * (c % 8))
		}
	}
	r.sensed = make([]uint8, r.ncell)
	r.infer = make([]uint8, r.ncell)
	r.cur = make([]uint8, r.ncell)
	r.scratch = make([]uint8, r.ncell)
	r.touched = make([]uint64, r.ncell)
	r.raw = make([][]segment, r.ncell)
	r.rawCells = make([]uint64, (r.ncell+63)/64)
	r.stable = make([]uint8, r.ncell)
	r.frame = make([]Light, b.LEDCount)
	r.setState(st)
	return r, nil
}

// setState installs a game (new or resumed).
func (r *Referee) setState(st engine.State) {
	r.takenBack = 0
	r.install(st)
	r.autoPass()
	r.evaluate()
}

// seed takes the first snapshot of a game installed before the board was
// known (a start, a resume after a power cut) as read against the position:
// cells that show what the position holds are untouched, every other cell
// was touched — so a move made while tabla was down is recognised.
func (r *Referee) seed(codes []byte) {
	r.fresh = false
	for s, code := range codes {
		if s >= len(r.b.Sensors) || r.b.Sensors[s] < 0 {
			continue
		}
		c, v := r.b.Sensors[s], r.code[code]
		want := r.cur[c]
		if want != empty && v != empty && matches(v, want) {
			want = v
		}
		r.sensed[c], r.stable[c], r.infer[c] = want, want, r.cur[c]
	}
}

func (r *Referee) install(st engine.State) {
	r.fresh = !r.known
	r.st = st
	r.ops = r.ops[:0]
	r.offb = r.toBoard(st.Position(), r.cur)
	if r.cfg.NewGame != nil {
		if fresh, err := r.cfg.NewGame(); err == nil {
			r.start = make([]uint8, r.ncell)
			r.toBoard(fresh.Position(), r.start)
		}
	}
	r.cache.ready, r.prevOK = false, false
	r.synced = false
	r.confirm, r.hint, r.hintText = nil, note{}, ""
	r.lastRoll, r.rollBy = "", ""
	r.lastAcc = r.seq
}

// Resume installs a game replayed from a journal, with history: moves
// replayed there can be taken back here. texts are the canonical texts of
// the applied moves and rolls in order (from record.Game.Applied).
func (r *Referee) Resume(st engine.State, applied []Applied) {
	r.install(st)
	// Rebuild the op log by undoing and redoing, so takebacks know the diffs.
	n := len(applied)
	for i := 0; i < n; i++ {
		st.Undo()
	}
	board := make([]uint8, r.ncell)
	r.toBoard(st.Position(), board)
	for _, a := range applied {
		o := op{roll: a.Roll, move: a.Move, face: a.Face, text: a.Text, seat: a.Seat}
		if a.Roll {
			st.Roll(a.Face)
		} else {
			st.Play(a.Move)
		}
		next := make([]uint8, r.ncell)
		r.toBoard(st.Position(), next)
		o.diff = diffBoards(board, next)
		board = next
		r.ops = append(r.ops, o)
		if a.Roll {
			r.lastRoll, r.rollBy = a.Text, r.info.Seats[a.Seat]
		}
	}
	r.cache.ready, r.prevOK = false, false
	r.lastAcc = r.seq
	r.autoPass()
	r.evaluate()
	r.bump()
}

// Applied is one move or roll of a resumed game (record.Applied's fields).
type Applied struct {
	Roll bool
	Move engine.Move
	Face int
	Text string
	Seat int
}

// State returns the engine state (owned by the referee: read only).
func (r *Referee) Game() engine.State { return r.st }

// Board returns the board definition.
func (r *Referee) Board() *boards.Board { return r.b }

// Version counts changes of what State reports; equal versions mean an
// equal state.
func (r *Referee) Version() uint64 { return r.version }

// Actions returns and forgets the decisions taken since the last call.
func (r *Referee) Actions() []Action {
	a := r.actions
	r.actions = nil
	return a
}

// Pending reports whether changes wait to settle, and when they will.
func (r *Referee) Pending() (bool, time.Duration) {
	return r.pending, r.lastChange + r.cfg.Settle
}

// toBoard writes a position's pieces into dst and returns how many stand on
// cells the board does not have.
func (r *Referee) toBoard(p engine.Position, dst []uint8) int {
	clear(dst)
	off := 0
	for name, piece := range p.Pieces {
		c, ok := r.b.Index(name)
		if !ok {
			off++
			continue
		}
		v := r.kindOf[piece]
		if v == 0 {
			v = unknown
		}
		dst[c] = v
	}
	return off
}

func diffBoards(a, b []uint8) []change {
	var d []change
	for i := range a {
		if a[i] != b[i] {
			d = append(d, change{int32(i), a[i], b[i]})
		}
	}
	return d
}

// matches reports whether a sensed value fits an expected one: equal, or a
// presence-only reading of any piece.
func matches(sensed, want uint8) bool {
	return sensed == want || (sensed == unknown && want != empty)
}

// Handle feeds one board event.
func (r *Referee) Handle(ev Input) {
	if ev.At > r.now {
		r.now = ev.At
	}
	switch ev.Kind {
	case SensorChange:
		if r.pending && ev.At-r.lastChange >= r.cfg.Settle {
			r.settle()
		}
		if ev.Sensor < 0 || ev.Sensor >= len(r.b.Sensors) || r.b.Sensors[ev.Sensor] < 0 {
			r.note("sensor %d is not wired to a cell", ev.Sensor)
			return
		}
		r.sense(r.b.Sensors[ev.Sensor], r.code[ev.Code])
		r.pending, r.lastChange = true, ev.At
		if r.mode == ModeConfirm || r.hintText != "" {
			// a disambiguating action, or the board moves on from the hint
			r.hintText, r.hint = "", note{}
			r.bump()
		}
	case SensorSnapshot:
		r.pending = false
		if r.fresh {
			r.seed(ev.Codes)
		}
		// A snapshot tells no order: the cells it empties are read first,
		// as a hand lifts a piece before it puts one down (the order the
		// evidence rules look at).
		for pass := 0; pass < 2; pass++ {
			for s, code := range ev.Codes {
				if s < len(r.b.Sensors) && r.b.Sensors[s] >= 0 && (r.code[code] == empty) == (pass == 0) {
					r.sense(r.b.Sensors[s], r.code[code])
				}
			}
		}
		r.known = true
		r.conn = Connected
		r.settleNow()
	case DieRoll:
		r.flush()
		face := -1
		if d := r.info.Die; d != nil {
			for i, f := range d.Faces {
				if f == ev.Face {
					face = i
				}
			}
		}
		if face < 0 {
			r.note("the die shows %q, not a face of %s's die", ev.Face, r.info.Game)
			return
		}
		if err := r.roll(face, false, r.cfg.Source); err != nil {
			r.note("roll %s ignored: %v", ev.Face, err)
		}
	case ButtonPress:
		r.flush()
		r.press(ev.Button)
	case LinkStatus:
		r.conn = ev.Link
		if ev.Link != Connected {
			r.known = false
			r.pending = false
		}
		r.bump()
	case BoardFault:
		r.note("board fault: %v", ev.Err)
	}
}

// Tick tells the referee that board time now has been reached with no new
// event; it reads the board if the last changes have settled. It reports
// whether it did.
func (r *Referee) Tick(now time.Duration) bool {
	if now > r.now {
		r.now = now
	}
	if r.pending && now-r.lastChange >= r.cfg.Settle {
		r.settle()
		return true
	}
	return false
}

// flush reads the board at once if changes are pending (a press or roll says
// the person is done).
func (r *Referee) flush() {
	if r.pending {
		r.settle()
	}
}

func (r *Referee) note(format string, args ...any) {
	r.message = fmt.Sprintf(format, args...)
	r.bump()
}

func (r *Referee) bump() { r.version++ }

// sense records a new reading of cell c.
//
// Readings are debounced for evidence (see debounce): a glitch — a sensor
// that chatters, a piece bumped and settled back within the settle window —
// changes nothing that recognition looks at, since touched and the trace
// hold debounced readings only. sensed is the raw reading.
func (r *Referee) sense(c int, v uint8) {
	old := r.sensed[c]
	if old == v {
		return
	}
	r.seq++
	r.raw[c] = append(r.raw[c], segment{v: v, at: r.now, seq: r.seq})
	r.rawCells[c/64] |= 1 << (c % 64)
	if len(r.raw[c]) > 64 { // a sensor that never settles
		r.debounce(c, r.now)
	}
	r.sensed[c] = v
	switch {
	case v == empty:
		if old != empty {
			r.hand = append(r.hand, r.infer[c])
		}
		r.infer[c] = empty
	case v != unknown:
		r.infer[c] = v
		r.takeFromHand(v)
	case old == empty && len(r.hand) > 0:
		r.infer[c] = r.hand[len(r.hand)-1]
		r.hand = r.hand[:len(r.hand)-1]
	case old == empty:
		r.infer[c] = unknown
	}
}

// segment is a raw reading of a cell from a moment on, until the next.
type segment struct {
	v   uint8
	at  time.Duration
	seq uint64
}

// debounce turns cell c's raw readings since the last debounced one into
// debounced changes. A reading that lasted the settle window (or the latest,
// which the board shows now) is real; the readings shorter than that between
// two real ones are glitches. When the two real readings differ, the change
// is dated to the first moment the sensor showed the new reading among the
// glitches: a piece lifted at t whose sensor bounces, or chatters while it
// is in the air, was lifted at t. When they are equal nothing happened.
func (r *Referee) debounce(c int, now time.Duration) {
	segs := r.raw[c]
	if len(segs) == 0 {
		return
	}
	prev, run := r.stable[c], 0
	for i, sg := range segs {
		end := now
		if i+1 < len(segs) {
			end = segs[i+1].at
		}
		if end-sg.at < r.cfg.Settle && i+1 < len(segs) {
			continue // a glitch, unless it begins the next real reading
		}
		if sg.v != prev {
			first := sg
			for _, g := range segs[run:i] {
				if g.v == sg.v {
					first = g
					break
				}
			}
			r.stable[c] = sg.v
			r.touched[c] = first.seq
			ev := traceEv{first.seq, first.at, int32(c), sg.v}
			k := len(r.trace)
			for k > 0 && r.trace[k-1].seq > ev.seq {
				k--
			}
			r.trace = slices.Insert(r.trace, k, ev)
			prev = sg.v
		}
		run = i + 1
	}
	if len(r.trace) > 8192 {
		r.trace = append(r.trace[:0], r.trace[4096:]...)
	}
	r.raw[c] = segs[:0]
}

// commitAll debounces every cell: the board is being read. (Only the cells
// with raw readings have anything to debounce; they are taken in cell
// order, as a loop over every cell would.)
func (r *Referee) commitAll() {
	for k, w := range r.rawCells {
		for ; w != 0; w &= w - 1 {
			if c := 64*k + bits.TrailingZeros64(w); len(r.raw[c]) > 0 {
				r.debounce(c, r.now)
			}
		}
		r.rawCells[k] = 0
	}
}

func (r *Referee) takeFromHand(v uint8) {
	for i := len(r.hand) - 1; i >= 0; i-- {
		if r.hand[i] == v {
			r.hand = append(r.hand[:i], r.hand[i+1:]...)
			return
		}
	}
	if len(r.hand) > 0 {
		r.hand = r.hand[:len(r.hand)-1]
	}
}

func (r *Referee) settle() {
	r.pending = false
	r.settleNow()
}

func (r *Referee) settleNow() {
	// Nothing happened since the board was last read and judged to a
	// standstill (a sensor that reports the reading it already had, again
	// and again): reading it again would decide, show and light the same.
	quiet := r.known && !r.alwaysEvaluate && r.lastRead == (readMark{r.version, r.seq, r.conn, true})
	r.commitAll()
	if r.known && !quiet {
		r.fixpoint = false
		r.evaluate()
	} else if quiet {
		r.skipped++
	}
	r.bump()
	r.lastRead = readMark{}
	if r.known && (quiet || r.fixpoint) {
		r.lastRead = readMark{r.version, r.seq, r.conn, true}
	}
}

// readMark says when the board was last read to a standstill: the version
// and sensor sequence after it, and the link then.
type readMark struct {
	version, seq uint64
	conn         Link
	ok           bool
}

// ensure fills the move cache of the current position.
func (r *Referee) ensure() *posCache {
	c := &r.cache
	if c.ready {
		return c
	}
	r.fill(c)
	return c
}

func (r *Referee) fill(c *posCache) {
	c.ready = true
	c.indexed = false
	c.seat = r.st.ToMove()
	c.moves = c.moves[:0]
	c.texts = c.texts[:0]
	c.notes = c.notes[:0]
	c.diffs = c.diffs[:0]
	c.done = c.done[:0]
	if r.st.Awaiting() != engine.AwaitMove {
		return
	}
	r.buf = r.st.Moves(r.buf[:0])
	moverCell := -1
	if g := r.info.Game; (g == "daha" || g == "ray") && c.seat >= 0 {
		want := r.kindOf[r.info.Seats[c.seat]]
		for i, v := range r.cur {
			if v == want {
				moverCell = i
				break
			}
		}
	}
	var nb [64]byte
	for _, m := range r.buf {
		text := string(r.st.AppendMove(nb[:0], m))
		c.moves = append(c.moves, m)
		c.texts = append(c.texts, text)
		c.notes = append(c.notes, r.parse(text, moverCell))
		c.diffs = append(c.diffs, nil)
		c.done = append(c.done, false)
	}
}

// diff returns the expected-board changes of move i of c, computing them
// on the engine state, which must be at c's position.
func (r *Referee) diff(c *posCache, i int) []change {
	if c.done[i] {
		return c.diffs[i]
	}
	if d, ok := r.relocation(c.notes[i]); ok {
		c.diffs[i], c.done[i] = d, true
		return d
	}
	c.diffs[i] = r.playedDiff(c.moves[i])
	c.done[i] = true
	return c.diffs[i]
}

// playedDiff plays m on the engine and reads the board changes off its
// position: right for every move of every game, and the slow way.
func (r *Referee) playedDiff(m engine.Move) []change {
	r.st.Play(m)
	r.toBoard(r.st.Position(), r.scratch)
	r.st.Undo()
	return diffBoards(r.cur, r.scratch)
}

// relocation is the quick way for the moves that only carry pieces: a
// piece from one cell to an empty one (STAR, DAHA, RAY, GYGES), and a GYGES
// replace (the mover onto the landing cell, the displaced piece onto
// another, or onto the mover's cell). six moves (placements, split-off
// groups) and anything unexpected take the slow way; a test holds the two
// equal on every legal move of random games.
func (r *Referee) relocation(n note) ([]change, bool) { return r.relocationOn(r.cur, n) }

// relocationOn is relocation from the board base (the engine's position).
func (r *Referee) relocationOn(base []uint8, n note) ([]change, bool) {
	if r.info.Game == "six" || n.pass || n.place || n.from < 0 || n.to < 0 || n.from == n.to {
		return nil, false
	}
	x, y := base[n.from], base[n.to]
	if x == empty {
		return nil, false
	}
	var d []change
	switch {
	case n.extra < 0:
		if y != empty {
			return nil, false
		}
		d = []change{{int32(n.from), x, empty}, {int32(n.to), empty, x}}
	case y == empty:
		return nil, false
	case n.extra == n.from:
		if x != y {
			d = []change{{int32(n.from), x, y}, {int32(n.to), y, x}}
		}
	case base[n.extra] != empty:
		return nil, false
	default:
		d = []change{{int32(n.from), x, empty}, {int32(n.to), y, x}, {int32(n.extra), empty, y}}
	}
	d = slices.DeleteFunc(d, func(ch change) bool { return ch.old == ch.new })
	slices.SortFunc(d, func(a, b change) int { return int(a.cell - b.cell) })
	return d, true
}

// nextBoard writes to dst the board after m (its notation read as n)
// played from the engine's position, whose board is base: the quick way
// when the move only carries pieces, else the engine's position.
func (r *Referee) nextBoard(base []uint8, m engine.Move, n note, dst []uint8) {
	if d, ok := r.relocationOn(base, n); ok {
		copy(dst, base)
		applyDiff(dst, d, false)
		return
	}
	r.st.Play(m)
	r.toBoard(r.st.Position(), dst)
	r.st.Undo()
}

// parse reads the cells a move's notation names.
func (r *Referee) parse(text string, moverCell int) note {
	n := note{from: -1, to: -1, extra: -1}
	if text == "pass" {
		n.pass = true
		return n
	}
	idx := func(s string) int {
		i, ok := r.b.Index(s)
		if !ok {
			return -1
		}
		return i
	}
	switch r.info.Game {
	case "star":
		a, b, _ := strings.Cut(text, "-")
		n.from, n.to = idx(a), idx(b)
	case "gyges":
		if _, c, ok := strings.Cut(text, "@"); ok {
			n.to, n.place = idx(c), true
			return n
		}
		a, rest, _ := strings.Cut(text, "-")
		b, d, hasD := strings.Cut(rest, "/")
		n.from, n.to = idx(a), idx(b)
		if hasD {
			n.extra = idx(d)
		}
	case "six":
		before, _, _ := strings.Cut(text, "/")
		if a, b, ok := strings.Cut(before, ">"); ok {
			n.from, n.to = idx(a), idx(b)
		} else {
			n.to, n.place = idx(before), true
		}
	default: // daha, ray: the destination; the piece is the mover's
		n.from, n.to = moverCell, idx(text)
	}
	return n
}

// autoPass plays a forced move that leaves the board as it is (a pass):
// nobody can show it on the board.
func (r *Referee) autoPass() {
	for i := 0; i < 4 && r.st.Awaiting() == engine.AwaitMove; i++ {
		c := r.ensure()
		if len(c.moves) != 1 || len(r.diff(c, 0)) != 0 {
			return
		}
		r.apply(c, 0, r.now, r.cfg.Source)
	}
}

// apply plays move i of the current cache.
func (r *Referee) apply(c *posCache, i int, at time.Duration, source string) {
	d := r.diff(c, i)
	seat := r.st.ToMove()
	// keep this position's cache for revisions
	r.prev, r.cache = r.cache, r.prev
	r.prevOK = true
	r.cache.ready = false
	r.st.Play(r.prev.moves[i])
	r.ops = append(r.ops, op{move: r.prev.moves[i], text: r.prev.texts[i], seat: seat, diff: d, seq: r.seq, first: r.seq, since: r.lastAcc, at: at, note: r.prev.notes[i]})
	r.takenBack = 0
	applyDiff(r.cur, d, false)
	r.offb = r.toBoard(r.st.Position(), r.scratch) // paint and off-board count
	copy(r.cur, r.scratch)
	r.lastAcc = r.seq
	r.hintText, r.hint = "", note{}
	r.message = ""
	r.actions = append(r.actions, Action{Kind: Moved, At: at, Seat: r.info.Seats[seat], Move: r.prev.texts[i], Source: source})
	r.bump()
}

func applyDiff(b []uint8, d []change, reverse bool) {
	for _, ch := range d {
		if reverse {
			b[ch.cell] = ch.old
		} else {
			b[ch.cell] = ch.new
		}
	}
}

// roll applies a die face.
func (r *Referee) roll(face int, tabla bool, source string) error {
	if r.st.Awaiting() != engine.AwaitRoll {
		if r.st.Awaiting() == engine.AwaitNone {
			return fmt.Errorf("the game is over")
		}
		return fmt.Errorf("%s must move, not roll", r.info.Seats[r.st.ToMove()])
	}
	seat := r.st.ToMove()
	if err := r.st.Roll(face); err != nil {
		return err
	}
	before := append([]uint8(nil), r.cur...)
	r.offb = r.toBoard(r.st.Position(), r.cur)
	text := r.info.Die.Faces[face]
	r.ops = append(r.ops, op{roll: true, face: face, text: text, seat: seat, diff: diffBoards(before, r.cur), seq: r.seq, at: r.now})
	r.takenBack = 0
	r.lastRoll, r.rollBy = text, r.info.Seats[seat]
	r.cache.ready, r.prevOK = false, false
	r.message = ""
	r.actions = append(r.actions, Action{Kind: Rolled, At: r.now, Seat: r.info.Seats[seat], Face: text, Tabla: tabla, Source: source})
	if len(r.ops[len(r.ops)-1].diff) != 0 {
		r.message = r.info.Seats[seat] + " has no move and is out: take the piece off the board"
	}
	r.autoPass()
	r.evaluate()
	r.bump()
	return nil
}

func (r *Referee) press(b Button) {
	var err error
	switch b {
	case RollButton:
		err = r.RollDie(r.now, r.cfg.Source)
	case TakebackButton:
		if r.mode == ModeConfirm && len(r.confirm) == 1 && r.confirm[0].kind == candTakeback {
			err = r.Choose(0, r.now) // the board shows a takeback: the button says so
			break
		}
		if r.mode == ModeConfirm {
			r.proposal = (r.proposal + 1) % len(r.confirm)
			r.bump()
			return
		}
		err = r.Takeback(r.now)
	case ConfirmButton:
		if r.mode == ModeConfirm {
			err = r.Choose(r.proposal, r.now)
		}
	case HintButton:
		if r.st.Awaiting() == engine.AwaitMove {
			r.actions = append(r.actions, Action{Kind: HintWanted, At: r.now})
		}
	case NewButton:
		err = r.NewGame(r.now)
	}
	if err != nil {
		r.note("%s: %v", b, err)
	}
}

// RollDie rolls tabla's die (the roll button, or a command).
func (r *Referee) RollDie(at time.Duration, source string) error {
	r.flush()
	if r.cfg.Rand == nil || r.info.Die == nil {
		return ErrNoDie
	}
	if r.st.Awaiting() != engine.AwaitRoll {
		return ErrNotRolling
	}
	r.stamp(at)
	return r.roll(r.cfg.Rand(len(r.info.Die.Faces)), true, source)
}

func (r *Referee) stamp(at time.Duration) {
	if at > r.now {
		r.now = at
	}
}

// Takeback undoes the last move (and the rolls after it); the board is then
// guided back to the position before it.
func (r *Referee) Takeback(at time.Duration) error {
	r.flush()
	r.stamp(at)
	if !r.undo(1) {
		return ErrNoMove
	}
	r.evaluate()
	return nil
}

// undo takes back the last plies moves and every roll after the earliest.
func (r *Referee) undo(plies int) bool {
	n, moves := 0, 0
	for i := len(r.ops) - 1; i >= 0 && moves < plies; i-- {
		n++
		if !r.ops[i].roll {
			moves++
		}
	}
	if moves < plies {
		return false
	}
	r.takenBack = 0
	for _, o := range r.ops {
		if !o.roll {
			r.takenBack++ // the number of the last move, undone below
		}
	}
	for k := 0; k < n; k++ {
		o := r.ops[len(r.ops)-1]
		r.ops = r.ops[:len(r.ops)-1]
		r.st.Undo()
		applyDiff(r.cur, o.diff, true)
	}
	r.offb = r.toBoard(r.st.Position(), r.cur)
	r.lastRoll, r.rollBy = "", ""
	if k := len(r.ops) - 1; k >= 0 && r.ops[k].roll { // a roll still to move on
		r.lastRoll, r.rollBy = r.ops[k].text, r.info.Seats[r.ops[k].seat]
	}
	r.cache.ready, r.prevOK = false, false
	r.confirm = nil
	r.hintText, r.hint = "", note{}
	r.lastAcc = r.seq
	r.actions = append(r.actions, Action{Kind: TookBack, At: r.now, Ops: n, Plies: plies})
	r.bump()
	return true
}

// NewGame abandons the game and starts a new one from the start position;
// the board is guided to it.
func (r *Referee) NewGame(at time.Duration) error {
	r.flush()
	r.stamp(at)
	if r.cfg.NewGame == nil {
		return ErrNoNewGame
	}
	st, err := r.cfg.NewGame()
	if err != nil {
		return err
	}
	r.setState(st)
	r.actions = append(r.actions, Action{Kind: NewGame, At: r.now})
	r.bump()
	return nil
}

// Choose accepts candidate i of a pending confirmation.
func (r *Referee) Choose(i int, at time.Duration) error {
	r.stamp(at)
	if r.mode != ModeConfirm || i < 0 || i >= len(r.confirm) {
		return ErrNoChoice
	}
	c := r.confirm[i]
	r.confirm = nil
	from := len(r.ops) // the ops the choice adds start here
	if c.kind == candRevise {
		from -= c.depth
	}
	r.take(c, r.cfg.Source)
	if c.kind == candCurrent {
		from = len(r.ops) - 1
	}
	if c.kind == candMove || c.kind == candRevise || c.kind == candCurrent {
		for k := max(from, 0); k < len(r.ops); k++ {
			r.ops[k].chosen = true
		}
	}
	r.evaluate()
	return nil
}

// ShowHint lights a suggested move (canonical notation) until the board
// changes.
func (r *Referee) ShowHint(move string) error {
	if r.st.Awaiting() != engine.AwaitMove {
		return ErrNotRolling
	}
	c := r.ensure()
	for i, t := range c.texts {
		if t == move {
			r.hint, r.hintText = c.notes[i], move
			var m []int
			if r.known {
				m = r.mismatch(nil, r.cur)
			}
			r.render(m) // light it now, not at the next board event
			r.bump()
			return nil
		}
	}
	return fmt.Errorf("referee: hint %q is not a legal move", move)
}

// take carries a chosen candidate out.
func (r *Referee) take(c candidate, source string) {
	switch c.kind {
	case candMove:
		r.apply(&r.cache, c.idx, r.now, source)
	case candTakeback:
		r.undo(c.plies)
	case candNew:
		if err := r.NewGame(r.now); err != nil {
			r.note("new game: %v", err)
		}
		return
	case candRevise:
		// the revised move's evidence began where the replaced one's did
		if c.depth > 0 {
			first := &r.ops[len(r.ops)-c.depth]
			since, seq1 := first.since, first.first
			was := append(slices.Clone(first.was), first.move)
			if len(was) > maxWas {
				was = was[len(was)-maxWas:]
			}
			var chain, chainWas []engine.Move
			var chainAfter engine.Move
			lone := false
			switch {
			case c.depth > 1 && c.then == "":
				for _, o := range r.ops[len(r.ops)-c.depth+1:] {
					chain = append(chain, o.move)
				}
				chainWas = slices.Clone(r.ops[len(r.ops)-1].was)
				chainAfter = first.move
			case c.depth == 1 && c.then == "":
				// the hand going on again: the chain stays what it was,
				// and so does a lone reading (its two moves are read back
				// together should the hand go on further)
				chain, chainWas, chainAfter = first.chain, first.chainWas, first.chainAfter
				lone = first.lone
			}
			defer func(n int) {
				if n < len(r.ops) {
					o := &r.ops[n]
					o.since, o.was, o.chain, o.chainWas, o.chainAfter = since, was, chain, chainWas, chainAfter
					o.first = seq1
					o.lone = o.lone || lone
				}
			}(len(r.ops) - c.depth)
		}
		if c.depth == 1 && c.then == "" {
			saved := r.prev // the position before the last move, with its moves
			r.prev = posCache{}
			r.undo(1)
			r.cache = saved
			r.apply(&r.cache, c.idx, r.now, source)
			break
		}
		// the chain of moves a deeper revision replaced, to remember what
		// the moves played back in its place were read as before
		var oldChain, oldChainWas []engine.Move
		var oldSince uint64
		if c.depth > 0 {
			f := &r.ops[len(r.ops)-c.depth]
			oldChain, oldChainWas, oldSince = f.chain, f.chainWas, f.since
			r.undo(c.depth)
		}
		first, _, _ := strings.Cut(c.text, ";")
		moves := []string{first}
		if c.then != "" {
			moves = append(moves, strings.Split(c.then, ";")...)
		}
		n0 := len(r.ops)
		since0 := r.lastAcc // where the evidence of the moves played begins
		if c.depth > 0 {
			since0 = oldSince
		}
		for _, mv := range moves {
			pc := r.ensure()
			for i, t := range pc.texts {
				if t == mv {
					r.apply(pc, i, r.now, source)
					break
				}
			}
		}
		r.thenSince(n0, since0)
		r.chainRead(n0, len(moves), oldChain, oldChainWas, oldSince)
	}
	r.autoPass()
}

// thenSince gives the moves a revision played back after its first (ops
// n0+1 …) their evidence from where their pieces were first lifted since
// since (the replaced moves' evidence began): the next player's hand may
// have begun before the reading it followed was taken (a displaced piece
// set down first, read as the last mover's going on).
func (r *Referee) thenSince(n0 int, since uint64) {
	for j := n0 + 1; j < len(r.ops); j++ {
		o := &r.ops[j]
		lift := o.since
		for _, t := range r.trace {
			if t.seq > since && t.seq < lift && t.empty() && (int(t.cell) == o.note.from || o.note.extra >= 0 && int(t.cell) == o.note.to) {
				lift = t.seq
				break
			}
		}
		if lift > since && lift < o.since {
			o.since = lift - 1
		}
	}
}

// chainRead gives the moves a revision played back after its first (ops
// n0+1 … n0+n-1), where they stand in place of the chain of moves a deeper
// revision had replaced (chain, its last move's earlier readings
// chainWas), that chain's moves as their was: a move the hand was seen
// resting on, which revisionsThen reads back when the hand goes on — with
// their evidence from where the chain's began (since).
func (r *Referee) chainRead(n0, n int, chain, chainWas []engine.Move, since uint64) {
	if len(r.ops) != n0+n {
		return // (a move not found: nothing is read back)
	}
	for j := 1; j < n && j-1 < len(chain); j++ {
		o := &r.ops[n0+j]
		// from the same position: the moves before it are the chain's
		if j >= 2 && r.ops[n0+j-1].move != chain[j-2] {
			return
		}
		alts := []engine.Move{chain[j-1]}
		if j == len(chain) {
			alts = append(alts, chainWas...)
		}
		for _, m := range alts {
			if m != o.move && !slices.Contains(o.was, m) && len(o.was) < maxWas {
				o.was = append(o.was, m)
				o.since = min(o.since, since)
			}
		}
	}
}

// History returns the moves and rolls applied so far, for Resume.
func (r *Referee) History() []Applied {
	out := make([]Applied, len(r.ops))
	for i, o := range r.ops {
		out[i] = Applied{Roll: o.roll, Move: o.move, Face: o.face, Text: o.text, Seat: o.seat}
	}
	return out
}
