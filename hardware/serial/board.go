package serial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/wiremap"
)

// Errors the driver reports (wrapped, in Open's error or as the Err of a
// Status Disconnected event).
var (
	// ErrWatchdog: no frame for Config.MissedHeartbeats heartbeat intervals.
	ErrWatchdog = errors.New("serial: board silent (heartbeat watchdog)")
	// ErrNoHello: the board did not say Hello within the handshake timeout.
	ErrNoHello = errors.New("serial: no Hello from the board (is it a tabla board, at the right baud rate?)")
	// ErrNoSnapshot: the board said Hello but sent no snapshot.
	ErrNoSnapshot = errors.New("serial: no snapshot from the board after the handshake")
	// ErrDisconnected: the board is not connected right now.
	ErrDisconnected = errors.New("serial: board disconnected")
	// ErrWrongBoard: the board's Hello does not match what Config.Accept
	// expects (another board model, or firmware built for another board).
	ErrWrongBoard = errors.New("serial: refusing the board")
	// ErrClosed: the Board was closed.
	ErrClosed = errors.New("serial: board closed")
	// ErrNoReply: a command went unanswered Config.Retries times and the
	// board did not answer HelloRequest either (PROTOCOL.md §5.2), or it
	// answered HelloRequest and then left the command unanswered again.
	ErrNoReply = errors.New("serial: the board does not answer commands")
)

// Config sets up a serial Board. Only Dial is required; zero values take
// the defaults in brackets.
type Config struct {
	// Dial opens the line (PortDialer for a real port).
	Dial Dialer
	// Clock drives timers [real clock].
	Clock clockwork.Clock
	// Heartbeat is the heartbeat interval asked of the board [1 s].
	Heartbeat time.Duration
	// MissedHeartbeats is how many intervals without any frame count as a
	// pulled cable [3].
	MissedHeartbeats int
	// HelloInterval is how often HelloRequest is repeated while no Hello
	// came (and SnapshotRequest while no snapshot came) [1 s].
	HelloInterval time.Duration
	// HandshakeTimeout bounds dial-to-first-snapshot; Arduino boards
	// spend up to 2 s in their bootloader after the reset on open [5 s].
	HandshakeTimeout time.Duration
	// BackoffMin and BackoffMax bound the delay between reconnection
	// attempts, doubled after each failure [100 ms, 5 s].
	BackoffMin, BackoffMax time.Duration
	// Board is the scan configuration sent after the handshake
	// [wire.DefaultConfig with HeartbeatMs from Heartbeat].
	Board *wire.Config
	// EventBuffer is the capacity of the Events channel [256].
	EventBuffer int
	// Baud is the line's rate, for the wire time of a command [115200].
	Baud int
	// ReplyTimeout is how long a command waits for its reply before it is
	// sent again, plus twice its wire time at Baud [200 ms]
	// (PROTOCOL.md §5.2).
	ReplyTimeout time.Duration
	// Retries is how many unanswered transmissions of a command make the
	// driver send HelloRequest; if no Hello comes within HelloInterval (or
	// the command stays unanswered after it) the link has failed [3].
	Retries int
	// Accept checks the board a Hello describes before it is used [any
	// board]. A board it returns an error for is refused: its events never
	// reach Events, a Fault event carries the error (wrapped in
	// ErrWrongBoard) and the driver keeps dialing until a board passes.
	Accept func(hardware.Info) error
	// Expected is the board Accept waits for. With it set, a board Accept
	// refuses at Open is no reason for Open to fail: Open returns the
	// Board disconnected, Info is Expected until a board is accepted, the
	// refusal comes first on Events (a Status Disconnected and a Fault,
	// both with the error wrapping ErrWrongBoard), and the driver dials on
	// as after a pulled cable — the right board plugged in is used at
	// once. (A daemon stays up to say which board it wants.)
	Expected *hardware.Info

	// hook, in tests, hears what the writer does.
	hook func(writerEvent)
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = time.Second
	}
	if c.MissedHeartbeats <= 0 {
		c.MissedHeartbeats = 3
	}
	if c.HelloInterval <= 0 {
		c.HelloInterval = time.Second
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 5 * time.Second
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = 100 * time.Millisecond
	}
	if c.BackoffMax < c.BackoffMin {
		c.BackoffMax = max(5*time.Second, c.BackoffMin)
	}
	if c.Board == nil {
		bc := wire.DefaultConfig
		bc.HeartbeatMs = uint16(min(c.Heartbeat/time.Millisecond, 65535))
		c.Board = &bc
	}
	if c.EventBuffer <= 0 {
		c.EventBuffer = 256
	}
	if c.Baud <= 0 {
		c.Baud = 115200
	}
	if c.ReplyTimeout <= 0 {
		c.ReplyTimeout = 200 * time.Millisecond
	}
	if c.Retries <= 0 {
		c.Retries = 3
	}
}

// Stats counts what happened on the line since Open.
type Stats struct {
	Frames     uint64 // good frames received
	BadFrames  uint64 // frames that failed to decode
	Gaps       uint64 // sequence gaps (each triggers a snapshot request)
	Dropped    uint64 // cell changes dropped while waiting for a snapshot
	Connects   uint64 // successful handshakes
	LEDFrames  uint64 // LEDFrame/LEDSet frames sent
	LEDBytes   uint64 // their bytes on the wire
	BoardFault uint64 // Error messages from the board

	Commands    uint64 // commands answered (Ack, Snapshot, or an Error refusing them)
	Timeouts    uint64 // commands that waited a whole ReplyTimeout in vain
	Retransmits uint64 // commands sent again (after a timeout or a bad-frame Error)
	StrayAcks   uint64 // Acks for no outstanding command (wrong seq or type)
	Probes      uint64 // HelloRequests sent because a command went unanswered
}

// Board is a sensor board on a serial line. It implements hardware.Board.
type Board struct {
	cfg    Config
	clock  clockwork.Clock
	events chan hardware.Event

	closing   chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	ledKick   chan struct{}

	mu    sync.Mutex
	info  hardware.Info
	want  []hardware.LED // the frame to show
	sess  *session       // nil while disconnected
	stats Stats
}

var _ hardware.Board = (*Board)(nil)

// Open connects to a board: it dials, waits for the handshake and the first
// snapshot, and returns the Board, which from then on reconnects by itself
// until Close. ctx bounds the first connection only. A board that
// Config.Accept refuses fails Open unless Config.Expected is set.
func Open(ctx context.Context, cfg Config) (*Board, error) {
	if cfg.Dial == nil {
		return nil, errors.New("serial: Config.Dial is nil")
	}
	cfg.defaults()
	b := &Board{
		cfg:     cfg,
		clock:   cfg.Clock,
		events:  make(chan hardware.Event, cfg.EventBuffer),
		closing: make(chan struct{}),
		done:    make(chan struct{}),
		ledKick: make(chan struct{}, 1),
	}
	s, err := b.connect(ctx)
	if err != nil {
		if !errors.Is(err, ErrWrongBoard) || cfg.Expected == nil {
			return nil, err
		}
		b.info = *cfg.Expected
	}
	go b.run(s, err)
	return b, nil
}

// OpenPath opens the board on a device path ("" or "auto": the first known
// USB board) with default settings.
func OpenPath(ctx context.Context, path string) (*Board, error) {
	return Open(ctx, Config{Dial: PortDialer(path, 0, nil)})
}

// Info describes the board as its last Hello did.
func (b *Board) Info() hardware.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info
}

// Events delivers what the board senses; see hardware.Board.
func (b *Board) Events() <-chan hardware.Event { return b.events }

// Stats returns the line counters.
func (b *Board) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// SetLEDs shows a frame, sending only what changed. A frame longer than the
// board's LED count is an error; a shorter one leaves the rest dark.
func (b *Board) SetLEDs(frame []hardware.LED) error {
	b.mu.Lock()
	if len(frame) > b.info.LEDs {
		n := b.info.LEDs
		b.mu.Unlock()
		return fmt.Errorf("serial: frame of %d LEDs for a board with %d", len(frame), n)
	}
	b.want = slices.Grow(b.want[:0], b.info.LEDs)[:b.info.LEDs]
	clear(b.want[copy(b.want, frame):])
	b.mu.Unlock()
	select {
	case <-b.closing:
		return ErrClosed
	default:
	}
	select {
	case b.ledKick <- struct{}{}:
	default:
	}
	return nil
}

// RequestSnapshot asks the board for a Snapshot event. While disconnected it
// returns ErrDisconnected (a Snapshot comes with the reconnection anyway).
func (b *Board) RequestSnapshot() error {
	b.mu.Lock()
	s := b.sess
	b.mu.Unlock()
	if s == nil {
		return ErrDisconnected
	}
	s.command(&wire.SnapshotRequest{})
	return nil
}

// Close stops the driver, closes the port and then the Events channel.
func (b *Board) Close() error {
	b.closeOnce.Do(func() { close(b.closing) })
	<-b.done
	return nil
}

func (b *Board) emit(ev hardware.Event) bool {
	select {
	case b.events <- ev:
		return true
	case <-b.closing:
		return false
	}
}

func (b *Board) count(f func(*Stats)) {
	b.mu.Lock()
	f(&b.stats)
	b.mu.Unlock()
}

// run serves sessions and reconnects until Close. It starts with s, or
// without a session (s nil) after the first connection failed with err.
func (b *Board) run(s *session, err error) {
	defer close(b.done)
	defer close(b.events)
	for {
		if s != nil {
			err = b.serve(s)
			s.close()
			b.mu.Lock()
			b.sess = nil
			b.mu.Unlock()
		}
		if errors.Is(err, ErrClosed) {
			return
		}
		if !b.emit(hardware.Event{Kind: hardware.Status, Conn: hardware.Disconnected, Err: err}) {
			return
		}
		delay := b.cfg.BackoffMin
		announced, lastErr := false, ""
		if errors.Is(err, ErrWrongBoard) {
			lastErr = err.Error()
			if !b.emit(hardware.Event{Kind: hardware.Fault, Err: err}) {
				return
			}
		}
		for s = nil; s == nil; {
			select {
			case <-b.closing:
				return
			case <-b.clock.After(delay):
			}
			if !announced {
				announced = true
				b.emit(hardware.Event{Kind: hardware.Status, Conn: hardware.Reconnecting})
			}
			var err error
			s, err = b.connect(context.Background())
			if errors.Is(err, ErrClosed) {
				return
			}
			if err != nil && (errors.Is(err, wire.ErrIncompatible) || errors.Is(err, ErrWrongBoard)) && err.Error() != lastErr {
				lastErr = err.Error()
				b.emit(hardware.Event{Kind: hardware.Fault, Err: err})
			}
			delay = min(2*delay, b.cfg.BackoffMax)
		}
	}
}

// serve watches a live session until it dies or the board closes. The
// watchdog fires MissedHeartbeats heartbeat intervals after the last frame
// received, not at the next tick after that (PROTOCOL.md §5.3: 3 s by
// default).
func (b *Board) serve(s *session) error {
	limit := time.Duration(b.cfg.MissedHeartbeats) * b.cfg.Heartbeat
	t := b.clock.NewTimer(max(limit-b.clock.Since(s.lastRx()), 0))
	defer t.Stop()
	for {
		select {
		case <-b.closing:
			return ErrClosed
		case <-s.dead:
			return s.err
		case <-t.Chan():
			quiet := b.clock.Since(s.lastRx())
			if quiet >= limit {
				s.fail(fmt.Errorf("%w: no frame for %v", ErrWatchdog, quiet))
				continue
			}
			t.Reset(limit - quiet)
		}
	}
}

// connect dials and shakes hands; the session it returns has delivered its
// first Snapshot.
func (b *Board) connect(ctx context.Context) (*session, error) {
	port, err := b.cfg.Dial(ctx)
	if err != nil {
		return nil, err
	}
	s := newSession(b, port)
	s.start()
	s.raw(&wire.HelloRequest{Major: wire.VersionMajor, Minor: wire.VersionMinor})
	tick := b.clock.NewTicker(b.cfg.HelloInterval)
	defer tick.Stop()
	deadline := b.clock.NewTimer(b.cfg.HandshakeTimeout)
	defer deadline.Stop()
	fail := func(err error) (*session, error) {
		s.fail(err)
		s.close()
		return nil, s.err
	}
	for {
		select {
		case <-s.ready:
			b.mu.Lock()
			b.sess = s
			b.mu.Unlock()
			return s, nil
		case <-s.dead:
			s.close()
			return nil, s.err
		case <-tick.Chan():
			if !s.gotHello.Load() {
				s.raw(&wire.HelloRequest{Major: wire.VersionMajor, Minor: wire.VersionMinor})
			} else {
				s.command(&wire.SnapshotRequest{}) // after Config, one command at a time
			}
		case <-deadline.Chan():
			if s.gotHello.Load() {
				return fail(ErrNoSnapshot)
			}
			return fail(ErrNoHello)
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-b.closing:
			return fail(ErrClosed)
		}
	}
}

// A session is one connection: a reader goroutine decoding frames into
// events and a writer goroutine owning the host's sequence number and the
// one command outstanding (writer.go).
type session struct {
	b    *Board
	port io.ReadWriteCloser
	dec  *wire.Decoder

	ctl      chan ctl
	replies  chan reply
	dead     chan struct{}
	err      error
	deadOnce sync.Once
	ready    chan struct{}
	gotHello atomic.Bool
	rx       atomic.Int64 // clock time of the last good frame, UnixNano
	wg       sync.WaitGroup

	// reader state
	hello     bool
	haveSeq   bool
	lastSeq   uint16
	syncing   bool
	connected bool
	state     []byte
	bclock    wiremap.Clock

	// writer state
	w writer
}

func newSession(b *Board, port io.ReadWriteCloser) *session {
	s := &session{
		b: b, port: port, dec: wire.NewDecoder(port),
		ctl:     make(chan ctl, 32),
		replies: make(chan reply, 32),
		dead:    make(chan struct{}),
		ready:   make(chan struct{}),
	}
	s.w.init(s)
	s.touch()
	return s
}

func (s *session) start() {
	s.wg.Add(2)
	go s.readLoop()
	go s.writeLoop()
}

func (s *session) touch()            { s.rx.Store(s.b.clock.Now().UnixNano()) }
func (s *session) lastRx() time.Time { return time.Unix(0, s.rx.Load()) }

func (s *session) fail(err error) {
	s.deadOnce.Do(func() {
		s.err = err
		close(s.dead)
		s.port.Close()
	})
}

// close ends the session and waits for its goroutines.
func (s *session) close() {
	s.fail(ErrClosed)
	s.wg.Wait()
}

func (s *session) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// raw sends a frame that is not a command waiting for its reply: an Ack,
// or the handshake's requests, which connect repeats itself.
func (s *session) raw(m wire.Message) { s.post(ctl{msg: m, raw: true}) }

// command queues a command; the writer sends it when no other is
// outstanding and sends it again until the board answers.
func (s *session) command(m wire.Message) { s.post(ctl{msg: m}) }

func (s *session) post(c ctl) {
	select {
	case s.ctl <- c:
	case <-s.dead:
	}
}

// reply tells the writer what the board answered.
func (s *session) reply(r reply) {
	select {
	case s.replies <- r:
	case <-s.dead:
	}
}

func (s *session) readLoop() {
	defer s.wg.Done()
	for {
		if s.isDead() {
			return
		}
		f, err := s.dec.Next()
		if err != nil {
			var fe *wire.FrameError
			switch {
			case errors.As(err, &fe):
				s.badFrame(fe)
			case errors.Is(err, io.EOF):
				s.fail(fmt.Errorf("serial: line closed: %w", err))
				return
			case unplugged(err):
				s.fail(fmt.Errorf("serial: read: %w", err))
				return
			}
			continue
		}
		s.touch()
		s.handle(f)
		s.touch() // the consumer may have kept us waiting
	}
}

func (s *session) emit(ev hardware.Event) {
	if !s.isDead() {
		s.b.emit(ev)
	}
}

func (s *session) badFrame(fe *wire.FrameError) {
	s.b.count(func(st *Stats) { st.BadFrames++ })
	s.emit(hardware.Event{Kind: hardware.Fault, Err: fe})
	if !s.hello || !fe.HasHeader() {
		return // the next good frame shows the gap
	}
	s.checkSeq(fe.Seq)
	if !errors.Is(fe.Err, wire.ErrUnknownType) {
		s.resync() // a frame of ours whose content is lost
	}
}

// checkSeq notes a board frame's sequence number and asks for a snapshot
// after a gap.
func (s *session) checkSeq(seq uint16) {
	if s.haveSeq && seq != s.lastSeq+1 {
		s.b.count(func(st *Stats) { st.Gaps++ })
		s.resync()
	}
	s.lastSeq, s.haveSeq = seq, true
}

func (s *session) resync() {
	s.syncing = true
	s.command(&wire.SnapshotRequest{})
}

// handle turns one good frame into events.
func (s *session) handle(f wire.Frame) {
	s.b.count(func(st *Stats) { st.Frames++ })
	if h, ok := f.Msg.(*wire.Hello); ok {
		s.onHello(f.Seq, h)
		return
	}
	if !s.hello {
		return // a board that has not said Hello yet: noise from before
	}
	if m, ok := f.Msg.(*wire.Snapshot); ok {
		s.lastSeq, s.haveSeq = f.Seq, true
		s.onSnapshot(f.Seq, m)
		s.reply(reply{kind: replySnapshot})
		return
	}
	s.checkSeq(f.Seq)
	switch m := f.Msg.(type) {
	case *wire.CellChange:
		at := s.bclock.At(m.Time)
		if s.syncing {
			s.b.count(func(st *Stats) { st.Dropped += uint64(len(m.Changes)) })
			return
		}
		for _, c := range m.Changes {
			if int(c.Cell) >= len(s.state) {
				s.emit(hardware.Event{Kind: hardware.Fault, At: at, Seq: f.Seq,
					Err: fmt.Errorf("serial: change of cell %d on a board of %d cells", c.Cell, len(s.state))})
				continue
			}
			if s.state[c.Cell] == c.Code {
				continue
			}
			s.state[c.Cell] = c.Code
			s.emit(hardware.Event{Kind: hardware.Change, At: at, Seq: f.Seq, Sensor: int(c.Cell), Code: c.Code})
		}
	case *wire.Roll:
		s.emit(hardware.Event{Kind: hardware.Roll, At: s.bclock.At(m.Time), Seq: f.Seq, Face: wiremap.Face(m.Die, m.Value)})
	case *wire.Button:
		at := s.bclock.At(m.Time)
		if bt, ok := wiremap.Button(m.Button); ok {
			s.emit(hardware.Event{Kind: hardware.Press, At: at, Seq: f.Seq, Button: bt})
		} else {
			s.emit(hardware.Event{Kind: hardware.Fault, At: at, Seq: f.Seq, Err: fmt.Errorf("serial: unknown button %d", m.Button)})
		}
	case *wire.Heartbeat:
		s.bclock.At(m.Time)
	case *wire.Error:
		s.b.count(func(st *Stats) { st.BoardFault++ })
		e := *m
		s.emit(hardware.Event{Kind: hardware.Fault, Seq: f.Seq, Err: &e})
		if m.Code == wire.ErrCodeOverflow {
			s.resync()
		}
		s.reply(reply{kind: replyError, code: m.Code, seq: m.Seq, typ: m.Ref})
	case *wire.Ack:
		s.reply(reply{kind: replyAck, seq: m.Seq, typ: m.Ref})
	default:
		s.emit(hardware.Event{Kind: hardware.Fault, Seq: f.Seq, Err: fmt.Errorf("serial: board sent a host message %v", f.Type())})
	}
}

func (s *session) onHello(seq uint16, h *wire.Hello) {
	if err := h.CheckVersion(); err != nil {
		s.fail(fmt.Errorf("serial: refusing the board: %w", err))
		return
	}
	info := wiremap.Info(h)
	if accept := s.b.cfg.Accept; accept != nil {
		if err := accept(info); err != nil {
			s.fail(fmt.Errorf("%w: %w", ErrWrongBoard, err))
			return
		}
	}
	restarted := !s.hello || !s.haveSeq || seq != s.lastSeq+1
	s.hello = true
	s.lastSeq, s.haveSeq = seq, true
	s.raw(&wire.Ack{Seq: seq, Ref: wire.TypeHello})
	if !restarted {
		// The board repeats Hello until it sees our Ack, or answers our
		// HelloRequest: it is alive, and sends a Snapshot after the Ack.
		s.syncing = true
		s.reply(reply{kind: replyHello})
		return
	}
	s.bclock.Reset()
	s.syncing = true
	s.state = make([]byte, info.Sensors)
	s.w.maxRX.Store(int32(h.MaxRX))
	s.b.mu.Lock()
	s.b.info = info
	s.b.mu.Unlock()
	s.gotHello.Store(true)
	// The board lost what it was told: forget the command outstanding,
	// then send the configuration and every LED again.
	s.post(ctl{restart: true})
	s.command(s.b.cfg.Board)
	s.post(ctl{leds: true})
}

func (s *session) onSnapshot(seq uint16, m *wire.Snapshot) {
	at := s.bclock.At(m.Time)
	if len(m.Cells) != len(s.state) {
		s.emit(hardware.Event{Kind: hardware.Fault, At: at, Seq: seq,
			Err: fmt.Errorf("serial: snapshot of %d cells from a board that announced %d", len(m.Cells), len(s.state))})
		s.state = make([]byte, len(m.Cells))
	}
	copy(s.state, m.Cells)
	s.syncing = false
	if !s.connected {
		// Counted before any event of the new connection is out: whoever
		// saw its Snapshot reads the reconnection in Stats.
		s.b.count(func(st *Stats) { st.Connects++ })
	}
	s.emit(hardware.Event{Kind: hardware.Snapshot, At: at, Seq: seq, Codes: slices.Clone(m.Cells)})
	if !s.connected {
		s.connected = true
		s.emit(hardware.Event{Kind: hardware.Status, At: at, Conn: hardware.Connected})
		close(s.ready)
	}
}
