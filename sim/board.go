package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/wiremap"
)

// SensorKind is what the virtual sensors report.
type SensorKind uint8

const (
	// Presence sensors report 255 for any piece (the default).
	Presence SensorKind = iota
	// Identifying sensors report the piece's code from the board file
	// (255 for a piece without a code).
	Identifying
)

// ParseSensorKind reads "presence" or "identifying" ("" is presence).
func ParseSensorKind(s string) (SensorKind, error) {
	switch s {
	case "", "presence":
		return Presence, nil
	case "identifying":
		return Identifying, nil
	}
	return 0, fmt.Errorf("sim: unknown sensor kind %q (want presence or identifying)", s)
}

func (k SensorKind) String() string {
	if k == Identifying {
		return "identifying"
	}
	return "presence"
}

// ActionTime is how much board time a script action takes.
const ActionTime = 200 * time.Millisecond

// BounceWindow is the time within which a bouncing sensor chatters.
const BounceWindow = 30 * time.Millisecond

// Options set up a virtual board.
type Options struct {
	// Board is the board definition: cells, wiring, codes, start layout.
	Board   *boards.Board
	Sensors SensorKind
	// Seed seeds the faults and the dice tabla rolls itself.
	Seed uint64
	// Empty starts with no piece on the board instead of Board.Start.
	Empty bool
	// DieD6, DieNSEW override the electronic dice the board reports
	// having; by default DAHA boards have a d6 and RAY boards an N/S/E/W die.
	DieD6, DieNSEW *bool
}

// Errors of actions.
var (
	ErrUnplugged = errors.New("sim: board unplugged")
	ErrClosed    = errors.New("sim: board closed")
)

type opKind uint8

const (
	opEvent    opKind = iota + 1 // a hardware event (Change, Roll, Press, Status, Fault)
	opSnapshot                   // a snapshot of codes
	opLine                       // a serial line fault, for the pty
)

// LineFault is a fault of the serial line, acted on in pty mode.
type LineFault struct {
	Kind  string // "garbage", "drop", "corrupt", "reorder", "slow", "unplug", "replug"
	Bytes int    // garbage, drop, corrupt
	On    bool   // slow
}

type op struct {
	kind   opKind
	ev     hardware.Event
	reason wire.SnapshotReason
	line   LineFault
}

type delayed struct {
	at time.Duration
	ev hardware.Event
}

// Board is a virtual sensor board. It implements hardware.Board in process
// (events on a channel) and feeds a pseudo-terminal in pty mode (ServePTY).
// Its actions may be called from any goroutine.
type Board struct {
	def    *boards.Board
	opts   Options
	info   hardware.Info
	sensor []int // cell → sensor index, -1 if none

	mu        sync.Mutex
	cond      *sync.Cond
	now       time.Duration
	pieces    []byte // per cell: identifying code of the piece on it, 0 empty
	hand      []byte // lifted pieces, most recent last
	plugged   bool
	dead      map[int]bool // sensors that never see a piece
	stuck     map[int]bool // sensors that always see one
	delayNext time.Duration
	slow      time.Duration
	pending   []delayed
	queue     []op
	qstate    []byte // sensor codes as of the queue's end
	seq       uint16
	enq, done uint64
	leds      []hardware.LED
	ledsWait  []hardware.LED // a frame set while unplugged
	onLEDs    func([]hardware.LED)
	dice      *rand.Rand
	faults    *rand.Rand
	closed    bool
	sink      sink
	events    chan hardware.Event
	stop      chan struct{}
	pumpDone  chan struct{}
	switched  chan struct{} // closed when a pty takes over from Events
}

var _ hardware.Board = (*Board)(nil)

// New returns a virtual board with the start layout set up, plugged in: its
// first events are a Snapshot and Status Connected.
func New(opts Options) (*Board, error) {
	def := opts.Board
	if def == nil {
		return nil, errors.New("sim: Options.Board is nil")
	}
	b := &Board{
		def:      def,
		opts:     opts,
		sensor:   make([]int, len(def.Cells)),
		pieces:   make([]byte, len(def.Cells)),
		plugged:  true,
		dead:     map[int]bool{},
		stuck:    map[int]bool{},
		leds:     make([]hardware.LED, def.LEDCount),
		dice:     rand.New(rand.NewPCG(opts.Seed, 0x7ab1a)),
		faults:   rand.New(rand.NewPCG(opts.Seed, 0xfa017)),
		events:   make(chan hardware.Event),
		stop:     make(chan struct{}),
		pumpDone: make(chan struct{}),
		switched: make(chan struct{}),
	}
	b.cond = sync.NewCond(&b.mu)
	for i := range b.sensor {
		b.sensor[i] = -1
	}
	for s, c := range def.Sensors {
		if c >= 0 {
			b.sensor[c] = s
		}
	}
	d6, nsew := def.Game == "daha", def.Game == "ray"
	if opts.DieD6 != nil {
		d6 = *opts.DieD6
	}
	if opts.DieNSEW != nil {
		nsew = *opts.DieNSEW
	}
	b.info = hardware.Info{
		Name: "sim/" + def.Name, Sensors: len(def.Sensors), LEDs: def.LEDCount,
		Identifying: opts.Sensors == Identifying, DieD6: d6, DieNSEW: nsew, Buttons: true,
		Protocol: "sim",
	}
	if !opts.Empty {
		for _, p := range def.Start {
			c, ok := def.Index(p.Cell)
			if !ok {
				return nil, fmt.Errorf("sim: start cell %q not on board %s", p.Cell, def.Name)
			}
			b.pieces[c] = b.codeOf(p.Piece)
		}
	}
	b.qstate = b.sensedAll()
	b.sink = &chanSink{b: b}
	b.enqueue(op{kind: opSnapshot, ev: hardware.Event{Kind: hardware.Snapshot, Codes: slices.Clone(b.qstate)}, reason: wire.ReasonConnect})
	b.enqueue(op{kind: opEvent, ev: hardware.Event{Kind: hardware.Status, Conn: hardware.Connected}})
	go b.pump()
	return b, nil
}

// Def returns the board definition.
func (b *Board) Def() *boards.Board { return b.def }

func (b *Board) codeOf(piece string) byte {
	if c, ok := b.def.CodeOf(piece); ok {
		return c
	}
	return hardware.Occupied
}

// sensed is what sensor s reads; b.mu held.
func (b *Board) sensed(s int) byte {
	switch {
	case b.dead[s]:
		return hardware.Empty
	case b.stuck[s]:
		return hardware.Occupied
	}
	c := b.pieces[b.def.Sensors[s]]
	if c != 0 && b.opts.Sensors == Presence {
		return hardware.Occupied
	}
	return c
}

func (b *Board) sensedAll() []byte {
	out := make([]byte, len(b.def.Sensors))
	for s := range out {
		out[s] = b.sensed(s)
	}
	return out
}

// Info describes the virtual board.
func (b *Board) Info() hardware.Info { return b.info }

// Events delivers the board's events in process. In pty mode it delivers
// nothing (the pty carries them) until the board is closed.
func (b *Board) Events() <-chan hardware.Event { return b.events }

// Now returns the board's virtual clock.
func (b *Board) Now() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.now
}

// Truth returns what every sensor reads now (index = sensor index): the
// physical truth, whatever the line delivered.
func (b *Board) Truth() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sensedAll()
}

// Pieces returns the identifying code of the piece on every cell (index =
// cell index), 0 for empty cells.
func (b *Board) Pieces() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.pieces)
}

// Hand returns how many lifted pieces are waiting to be placed.
func (b *Board) Hand() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.hand)
}

// Plugged reports whether the cable is in.
func (b *Board) Plugged() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.plugged
}

func (b *Board) cell(name string) (int, error) {
	c, ok := b.def.Index(name)
	if !ok {
		return 0, fmt.Errorf("sim: no cell %q on board %s", name, b.def.Name)
	}
	return c, nil
}

// enqueue appends an op for the pump; b.mu held.
func (b *Board) enqueue(o op) {
	if b.closed {
		return
	}
	switch o.kind {
	case opEvent:
		if o.ev.Kind == hardware.Change {
			b.qstate[o.ev.Sensor] = o.ev.Code
		}
		if o.ev.Kind != hardware.Status {
			o.ev.Seq = b.seq
			b.seq++
		}
	case opSnapshot:
		o.ev.Seq = b.seq
		b.seq++
	}
	b.queue = append(b.queue, o)
	b.enq++
	b.cond.Broadcast()
}

// emit sends an event now or after the pending delay; b.mu held.
func (b *Board) emit(ev hardware.Event) {
	if !b.plugged {
		return
	}
	d := b.delayNext + b.slow
	b.delayNext = 0
	if d > 0 || len(b.pending) > 0 {
		// A late event holds back the ones after it: the line is a queue.
		at := max(ev.At, b.now) + d
		if n := len(b.pending); n > 0 {
			at = max(at, b.pending[n-1].at)
		}
		b.pending = append(b.pending, delayed{at, ev})
		b.release()
		return
	}
	b.enqueue(op{kind: opEvent, ev: ev})
}

// release queues delayed events that are due; b.mu held.
func (b *Board) release() {
	for len(b.pending) > 0 && b.pending[0].at <= b.now {
		p := b.pending[0]
		b.pending = b.pending[1:]
		b.enqueue(op{kind: opEvent, ev: p.ev})
	}
}

// set puts code on cell c and emits the sensor change it causes at time at;
// b.mu held.
func (b *Board) set(c int, code byte, at time.Duration) {
	s := b.sensor[c]
	old := byte(0)
	if s >= 0 {
		old = b.sensed(s)
	}
	b.pieces[c] = code
	if s < 0 {
		return
	}
	if now := b.sensed(s); now != old {
		b.emit(hardware.Event{Kind: hardware.Change, At: at, Sensor: s, Code: now})
	}
}

func (b *Board) act(f func() error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	return f()
}

// Lift takes the piece on cell into the hand.
func (b *Board) Lift(cell string) error {
	return b.act(func() error {
		c, err := b.cell(cell)
		if err != nil {
			return err
		}
		if b.pieces[c] == 0 {
			return fmt.Errorf("sim: lift %s: the cell is empty", cell)
		}
		b.hand = append(b.hand, b.pieces[c])
		b.set(c, 0, b.now)
		return nil
	})
}

// Remove takes the piece on cell off the board for good.
func (b *Board) Remove(cell string) error {
	return b.act(func() error {
		c, err := b.cell(cell)
		if err != nil {
			return err
		}
		if b.pieces[c] == 0 {
			return fmt.Errorf("sim: remove %s: the cell is empty", cell)
		}
		b.set(c, 0, b.now)
		return nil
	})
}

// Place puts a piece on cell: the most recently lifted one when piece is
// "", else a new piece of that kind (a colour or a GYGES height).
func (b *Board) Place(cell, piece string) error {
	return b.act(func() error {
		c, err := b.cell(cell)
		if err != nil {
			return err
		}
		if b.pieces[c] != 0 {
			return fmt.Errorf("sim: place on %s: the cell is occupied", cell)
		}
		var code byte
		if piece == "" {
			if len(b.hand) == 0 {
				return fmt.Errorf("sim: place on %s: no lifted piece in hand (name one with \"piece\")", cell)
			}
			code = b.hand[len(b.hand)-1]
			b.hand = b.hand[:len(b.hand)-1]
		} else {
			if !slices.Contains(boards.Games[b.def.Game], piece) {
				return fmt.Errorf("sim: place on %s: unknown %s piece %q (want %v)", cell, b.def.Game, piece, boards.Games[b.def.Game])
			}
			code = b.codeOf(piece)
		}
		b.set(c, code, b.now)
		return nil
	})
}

// Slide moves the piece on cells[0] to the last cell, crossing the cells in
// between: each empty one sees it come and go within the action.
func (b *Board) Slide(cells ...string) error {
	return b.act(func() error {
		if len(cells) < 2 {
			return errors.New("sim: slide needs at least two cells")
		}
		idx := make([]int, len(cells))
		for i, n := range cells {
			c, err := b.cell(n)
			if err != nil {
				return err
			}
			idx[i] = c
		}
		from, to := idx[0], idx[len(idx)-1]
		code := b.pieces[from]
		if code == 0 {
			return fmt.Errorf("sim: slide from %s: the cell is empty", cells[0])
		}
		if b.pieces[to] != 0 && to != from {
			return fmt.Errorf("sim: slide to %s: the cell is occupied", cells[len(cells)-1])
		}
		step := ActionTime / time.Duration(2*len(idx))
		at := b.now
		b.set(from, 0, at)
		for _, c := range idx[1 : len(idx)-1] {
			if b.pieces[c] != 0 {
				continue // the piece passes over an occupied cell
			}
			at += step
			b.set(c, code, at)
			at += step
			b.set(c, 0, at)
		}
		b.set(to, code, at+step)
		return nil
	})
}

// Bounce makes the sensor under cell chatter: times extra off/on pairs
// (on/off for an empty cell) within BounceWindow.
func (b *Board) Bounce(cell string, times int) error {
	return b.act(func() error {
		c, err := b.cell(cell)
		if err != nil {
			return err
		}
		s := b.sensor[c]
		if s < 0 || times <= 0 {
			return nil
		}
		steady := b.sensed(s)
		flip := hardware.Occupied
		if steady != 0 {
			flip = 0
		}
		step := BounceWindow / time.Duration(2*times)
		for k := 0; k < times; k++ {
			b.emit(hardware.Event{Kind: hardware.Change, At: b.now + time.Duration(2*k)*step, Sensor: s, Code: flip})
			b.emit(hardware.Event{Kind: hardware.Change, At: b.now + time.Duration(2*k+1)*step, Sensor: s, Code: steady})
		}
		return nil
	})
}

// Dead makes the sensor under cell blind (it reads empty) or heals it.
func (b *Board) Dead(cell string, dead bool) error {
	return b.sensorFault(cell, b.dead, dead)
}

// Stuck makes the sensor under cell read occupied whatever is on it, or
// heals it.
func (b *Board) Stuck(cell string, stuck bool) error {
	return b.sensorFault(cell, b.stuck, stuck)
}

func (b *Board) sensorFault(cell string, m map[int]bool, on bool) error {
	return b.act(func() error {
		c, err := b.cell(cell)
		if err != nil {
			return err
		}
		s := b.sensor[c]
		if s < 0 {
			return fmt.Errorf("sim: cell %s has no sensor", cell)
		}
		old := b.sensed(s)
		m[s] = on
		if now := b.sensed(s); now != old {
			b.emit(hardware.Event{Kind: hardware.Change, At: b.now, Sensor: s, Code: now})
		}
		return nil
	})
}

// Roll reports a throw of the board's electronic die: "1".."6" or "N",
// "E", "S", "W"; "" throws the board's own die at random.
func (b *Board) Roll(face string) error {
	return b.act(func() error {
		if face == "" {
			face = b.randomFace(b.info.DieNSEW && !b.info.DieD6, b.faults)
		}
		if _, _, err := wiremap.Roll(face); err != nil {
			return fmt.Errorf("sim: roll: %w", err)
		}
		b.emit(hardware.Event{Kind: hardware.Roll, At: b.now, Face: face})
		return nil
	})
}

func (b *Board) randomFace(nsew bool, r *rand.Rand) string {
	if nsew {
		return wiremap.Face(wire.DieNSEW, uint8(1+r.IntN(4)))
	}
	return wiremap.Face(wire.DieD6, uint8(1+r.IntN(6)))
}

// TablaRoll draws a die face for a roll tabla makes itself (after a roll
// button press) from the board's seeded generator, so scripted games are
// reproducible: "1".."6", or "N", "E", "S", "W" when nsew.
func (b *Board) TablaRoll(nsew bool) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.randomFace(nsew, b.dice)
}

// Press presses a board button.
func (b *Board) Press(bt hardware.Button) error {
	return b.act(func() error {
		b.emit(hardware.Event{Kind: hardware.Press, At: b.now, Button: bt})
		return nil
	})
}

// Advance lets board time pass, releasing delayed events that fall due.
func (b *Board) Advance(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.now += d
	b.release()
}

// Delay holds the next event back for d of board time.
func (b *Board) Delay(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.delayNext = d
}

// Slow makes every following event d late (0 ends it); in pty mode the
// line also trickles frames out a few bytes at a time.
func (b *Board) Slow(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.slow = d
	b.enqueue(op{kind: opLine, line: LineFault{Kind: "slow", On: d > 0}})
}

// Line injects a fault of the serial line (pty mode): "garbage" writes n
// random bytes, "drop" removes n bytes from the next event's frame,
// "corrupt" damages n bytes of it, "reorder" swaps the next two events. In
// process only "reorder" has an effect.
func (b *Board) Line(kind string, n int) error {
	switch kind {
	case "garbage", "drop", "corrupt", "reorder":
	default:
		return fmt.Errorf("sim: unknown line fault %q", kind)
	}
	return b.act(func() error {
		b.enqueue(op{kind: opLine, line: LineFault{Kind: kind, Bytes: n}})
		return nil
	})
}

// Unplug pulls the cable: a Status Disconnected event, then nothing until
// Replug; pieces may still move.
func (b *Board) Unplug() error {
	return b.act(func() error {
		if !b.plugged {
			return nil
		}
		b.release()
		b.enqueue(op{kind: opEvent, ev: hardware.Event{Kind: hardware.Status, At: b.now, Conn: hardware.Disconnected, Err: ErrUnplugged}})
		b.enqueue(op{kind: opLine, line: LineFault{Kind: "unplug"}})
		b.plugged = false
		b.pending = nil
		return nil
	})
}

// Replug plugs the cable back: a Snapshot of the truth, then Status
// Connected; a frame set while unplugged is shown.
func (b *Board) Replug() error {
	return b.act(func() error {
		if b.plugged {
			return nil
		}
		b.plugged = true
		b.qstate = b.sensedAll()
		b.enqueue(op{kind: opLine, line: LineFault{Kind: "replug"}})
		b.enqueue(op{kind: opSnapshot, ev: hardware.Event{Kind: hardware.Snapshot, At: b.now, Codes: slices.Clone(b.qstate)}, reason: wire.ReasonConnect})
		b.enqueue(op{kind: opEvent, ev: hardware.Event{Kind: hardware.Status, At: b.now, Conn: hardware.Connected}})
		if b.ledsWait != nil {
			b.setLEDs(b.ledsWait)
			b.ledsWait = nil
		}
		return nil
	})
}

// SetLEDs shows a frame (len at most Info().LEDs; missing LEDs are dark).
// While unplugged the frame waits for Replug.
func (b *Board) SetLEDs(frame []hardware.LED) error {
	if len(frame) > b.info.LEDs {
		return fmt.Errorf("sim: frame of %d LEDs for a board with %d", len(frame), b.info.LEDs)
	}
	return b.act(func() error {
		f := make([]hardware.LED, b.info.LEDs)
		copy(f, frame)
		if !b.plugged {
			b.ledsWait = f
			return nil
		}
		b.setLEDs(f)
		return nil
	})
}

// setLEDs shows f; b.mu held.
func (b *Board) setLEDs(f []hardware.LED) {
	copy(b.leds, f)
	if b.onLEDs != nil {
		b.onLEDs(slices.Clone(b.leds))
	}
}

// updateLEDs applies a change from the wire; b.mu not held.
func (b *Board) updateLEDs(f func(leds []hardware.LED)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(b.leds)
	if b.onLEDs != nil {
		b.onLEDs(slices.Clone(b.leds))
	}
}

// OnLEDs registers a function called with every frame the board shows
// (for the browser page). It is called with the board locked: it must not
// call the board.
func (b *Board) OnLEDs(f func([]hardware.LED)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onLEDs = f
}

// LEDs returns the frame the board shows.
func (b *Board) LEDs() []hardware.LED {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.leds)
}

// Lit returns the names of the cells whose LED is lit, in board order.
func (b *Board) Lit() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for c, l := range b.def.LEDs {
		if l >= 0 && l < len(b.leds) && b.leds[l].Lit() {
			out = append(out, b.def.Cells[c].Name)
		}
	}
	return out
}

// RequestSnapshot queues a Snapshot event consistent with the events
// delivered before it.
func (b *Board) RequestSnapshot() error {
	return b.act(func() error {
		if !b.plugged {
			return ErrUnplugged
		}
		b.enqueue(op{kind: opSnapshot, ev: hardware.Event{Kind: hardware.Snapshot, At: b.now, Codes: slices.Clone(b.qstate)}, reason: wire.ReasonRequest})
		return nil
	})
}

// Flush waits until every event so far has been handed over: received
// from Events (in process) or written to the pty. A consumer that reads
// Events in one loop has then seen them all.
func (b *Board) Flush(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.done < b.enq && !b.closed {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.cond.Wait()
	}
	if b.closed {
		return ErrClosed
	}
	return nil
}

// Close stops the board and closes Events.
func (b *Board) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.pumpDone
		return nil
	}
	b.closed = true
	close(b.stop)
	b.cond.Broadcast()
	b.mu.Unlock()
	<-b.pumpDone
	return nil
}

// A sink takes the board's ops in order: the Events channel, or a pty.
type sink interface {
	deliver(o op) bool // false: stop
	close()
}

// setSink switches the pump to another sink.
func (b *Board) setSink(s sink) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sink = s
	select {
	case <-b.switched:
	default:
		close(b.switched)
	}
}

func (b *Board) pump() {
	defer close(b.pumpDone)
	defer close(b.events)
	for {
		b.mu.Lock()
		for len(b.queue) == 0 && !b.closed {
			b.cond.Wait()
		}
		if b.closed {
			s := b.sink
			b.mu.Unlock()
			s.close()
			return
		}
		o := b.queue[0]
		b.queue = b.queue[1:]
		s := b.sink
		b.mu.Unlock()
		ok := s.deliver(o)
		b.mu.Lock()
		b.done++
		b.cond.Broadcast()
		b.mu.Unlock()
		if !ok {
			return
		}
	}
}

// chanSink delivers to the Events channel.
type chanSink struct {
	b    *Board
	held *hardware.Event // reorder: the event waiting for the next one
	swap bool
}

func (c *chanSink) send(ev hardware.Event) bool {
	select {
	case c.b.events <- ev:
		return true
	case <-c.b.switched:
		return true // a pty took over: nobody reads Events
	case <-c.b.stop:
		return false
	}
}

func (c *chanSink) deliver(o op) bool {
	switch o.kind {
	case opLine:
		if o.line.Kind == "reorder" {
			c.swap = true
		}
		return true
	case opSnapshot:
		return c.send(o.ev)
	}
	ev := o.ev
	if ev.Kind == hardware.Status {
		if c.held != nil {
			h := *c.held
			c.held = nil
			if !c.send(h) {
				return false
			}
		}
		return c.send(ev)
	}
	if c.swap {
		c.swap = false
		c.held = &ev
		return true
	}
	if !c.send(ev) {
		return false
	}
	if c.held != nil {
		h := *c.held
		c.held = nil
		return c.send(h)
	}
	return true
}

func (c *chanSink) close() {}
