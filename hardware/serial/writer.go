package serial

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

// The writer keeps at most one command outstanding (PROTOCOL.md §5.2:
// stop-and-wait, since a board receives into one small buffer and may not
// listen while it drives its LEDs). A command is sent again, with the same
// seq, when no reply came within Config.ReplyTimeout plus twice its wire
// time, or at once when the board reports a bad frame. After Config.Retries
// unanswered transmissions the writer sends HelloRequest: no Hello within
// Config.HelloInterval, or a command still unanswered after the Hello,
// fails the link with ErrNoReply, which ends the session like the
// watchdog does (Status Disconnected, then a redial).
//
// LEDs are never queued: when no command is outstanding the writer diffs
// the newest frame wanted against what the board has acknowledged and sends
// the first partial frame of the difference, so a frame set while another
// is on its way supersedes it, however often SetLEDs is called.

// A ctl is an instruction to the writer.
type ctl struct {
	msg     wire.Message
	raw     bool // msg expects no tracked reply: write it at once
	leds    bool // after the handshake: LED frames may go out, all unknown
	restart bool // the board restarted: drop the outstanding command and the queue
}

type replyKind uint8

const (
	replyAck replyKind = iota + 1
	replySnapshot
	replyHello
	replyError
)

// A reply is what the board sent that may answer a command.
type reply struct {
	kind replyKind
	seq  uint16    // Ack or Error: the host frame it answers
	typ  wire.Type // ... and its type
	code wire.ErrorCode
}

// writerEvent is what the test hook hears.
type writerEvent struct {
	What string // "send", "resend", "answered", "stray", "probe", "give-up", "idle" (LEDs shown)
	Type wire.Type
	Seq  uint16
	Wait time.Duration // for send/resend/probe: how long the reply is awaited
}

type writer struct {
	s     *session
	clock clockwork.Clock
	seq   uint16
	maxRX atomic.Int32
	wbuf  []byte
	queue []wire.Message // commands waiting, in order

	out      outstanding
	echoes   []echo // answered commands sent more than once: their late Acks
	timer    clockwork.Timer
	deadline time.Time

	// LEDs: what the board shows as far as its Acks say (unknown[i]: not
	// known), and the frame wanted when the outstanding LED frame was made.
	ledsOK  bool
	dirty   bool
	sent    []hardware.LED
	unknown []bool
	want    []hardware.LED
	enc     ledEncoder
}

// echo is a command answered while copies of it were still on their way:
// Acks of those copies may follow.
type echo struct {
	seq   uint16
	typ   wire.Type
	extra int
}

// maxEchoes bounds the answered commands whose late Acks are remembered.
const maxEchoes = 8

// outstanding is the command waiting for its reply.
type outstanding struct {
	active  bool
	typ     wire.Type
	seq     uint16
	frame   []byte
	fails   int  // transmissions left unanswered since the last Hello
	sends   int  // transmissions in all
	probing bool // HelloRequest sent, waiting for Hello
	rescued bool // a Hello answered a probe for this command already
	leds    bool
	cover   []wire.Range // the LEDs an LED command sets
}

func (w *writer) init(s *session) {
	w.s, w.clock = s, s.b.clock
	w.wbuf = make([]byte, 0, wire.MaxFrameLen)
}

func (w *writer) hook(what string, typ wire.Type, seq uint16, wait time.Duration) {
	if h := w.s.b.cfg.hook; h != nil {
		h(writerEvent{What: what, Type: typ, Seq: seq, Wait: wait})
	}
}

func (s *session) writeLoop() {
	defer s.wg.Done()
	w := &s.w
	defer func() {
		if w.timer != nil {
			w.timer.Stop()
		}
	}()
	for {
		if !w.out.active {
			w.next()
		}
		var timeout <-chan time.Time
		if w.out.active && w.timer != nil {
			timeout = w.timer.Chan()
		}
		select {
		case <-s.dead:
			return
		case c := <-s.ctl:
			w.control(c)
		case <-s.b.ledKick:
			w.dirty = true
		case r := <-s.replies:
			w.answer(r)
		case <-timeout:
			if w.clock.Now().Before(w.deadline) {
				continue // a stale tick of a stopped timer
			}
			w.expired()
		}
		if s.isDead() {
			return
		}
	}
}

func (w *writer) control(c ctl) {
	switch {
	case c.restart:
		w.out.active = false
		w.queue = w.queue[:0]
	case c.leds:
		w.ledsOK, w.dirty = true, true
		w.forget()
	case c.raw:
		w.write(c.msg)
	case c.msg != nil:
		if c.msg.Type() == wire.TypeSnapshotRequest && w.snapshotAsked() {
			return // the Snapshot on its way answers this one too
		}
		w.queue = append(w.queue, c.msg)
	}
}

func (w *writer) snapshotAsked() bool {
	if w.out.active && w.out.typ == wire.TypeSnapshotRequest {
		return true
	}
	return slices.ContainsFunc(w.queue, func(m wire.Message) bool { return m.Type() == wire.TypeSnapshotRequest })
}

// forget marks every LED as unknown (next makes them so): the next frames
// set them all.
func (w *writer) forget() {
	w.sent = w.sent[:0]
	w.unknown = w.unknown[:0]
}

// write sends a frame that waits for no reply.
func (w *writer) write(m wire.Message) {
	s := w.s
	var err error
	w.wbuf, err = wire.AppendFrame(w.wbuf[:0], w.seq, m)
	if err != nil {
		s.emit(hardware.Event{Kind: hardware.Fault, Err: fmt.Errorf("serial: encoding %v: %w", m.Type(), err)})
		return
	}
	w.seq++
	if _, err := s.port.Write(w.wbuf); err != nil {
		s.fail(fmt.Errorf("serial: write: %w", err))
	}
}

// next starts the next command: the queue first, then LEDs.
func (w *writer) next() {
	s := w.s
	if len(w.queue) > 0 {
		m := w.queue[0]
		w.queue = slices.Delete(w.queue, 0, 1)
		var err error
		w.wbuf, err = wire.AppendFrame(w.wbuf[:0], w.seq, m)
		if err != nil {
			s.emit(hardware.Event{Kind: hardware.Fault, Err: fmt.Errorf("serial: encoding %v: %w", m.Type(), err)})
			return
		}
		w.begin(m.Type(), false)
		return
	}
	if !w.ledsOK || !w.dirty {
		return
	}
	b := s.b
	b.mu.Lock()
	n := b.info.LEDs
	if len(b.want) != n {
		b.want = slices.Grow(b.want[:0], n)[:n]
		clear(b.want)
	}
	w.want = append(w.want[:0], b.want...)
	b.mu.Unlock()
	if len(w.sent) != n {
		w.sent = slices.Grow(w.sent[:0], n)[:n]
		w.unknown = slices.Grow(w.unknown[:0], n)[:n]
		for i := range w.unknown {
			w.unknown[i] = true
		}
	}
	var m wire.Message
	var err error
	w.wbuf, m, err = w.enc.appendNext(w.wbuf[:0], &w.seq, w.sent, w.unknown, w.want, int(w.maxRX.Load()))
	if err != nil {
		s.emit(hardware.Event{Kind: hardware.Fault, Err: fmt.Errorf("serial: encoding LEDs: %w", err)})
		w.dirty = false
		return
	}
	if m == nil {
		w.dirty = false // the board shows the newest frame
		w.hook("idle", 0, 0, 0)
		return
	}
	w.seq-- // begin numbers the frame
	w.out.cover = w.out.cover[:0]
	switch m := m.(type) {
	case *wire.LEDFrame:
		w.out.cover = append(w.out.cover, wire.Range{Start: m.Start, Count: uint16(len(m.Colors))})
	case *wire.LEDSet:
		w.out.cover = append(w.out.cover, m.Ranges...)
	}
	b.count(func(st *Stats) { st.LEDFrames++; st.LEDBytes += uint64(len(w.wbuf)) })
	w.begin(m.Type(), true)
}

// begin makes the frame in wbuf (numbered w.seq) the outstanding command
// and sends it.
func (w *writer) begin(typ wire.Type, leds bool) {
	cover := w.out.cover
	w.out = outstanding{active: true, typ: typ, seq: w.seq, leds: leds,
		frame: append(w.out.frame[:0], w.wbuf...), cover: cover}
	w.seq++
	w.transmit("send")
}

// transmit (re)sends the outstanding command and arms its timer.
func (w *writer) transmit(what string) {
	wait := w.s.b.cfg.ReplyTimeout + 2*wireTime(len(w.out.frame), w.s.b.cfg.Baud)
	w.out.sends++
	w.arm(wait)
	w.hook(what, w.out.typ, w.out.seq, wait)
	if _, err := w.s.port.Write(w.out.frame); err != nil {
		w.s.fail(fmt.Errorf("serial: write: %w", err))
	}
}

func (w *writer) arm(d time.Duration) {
	w.deadline = w.clock.Now().Add(d)
	if w.timer == nil {
		w.timer = w.clock.NewTimer(d)
		return
	}
	w.timer.Stop()
	w.timer.Reset(d)
}

// wireTime is how long n bytes take on a line of baud bits per second, 8N1.
func wireTime(n, baud int) time.Duration {
	return time.Duration(n) * 10 * time.Second / time.Duration(baud)
}

// answer matches a reply with the outstanding command.
func (w *writer) answer(r reply) {
	o := &w.out
	switch r.kind {
	case replyHello:
		if o.active && o.probing {
			o.probing, o.rescued, o.fails = false, true, 0
			w.s.b.count(func(st *Stats) { st.Retransmits++ })
			w.transmit("resend")
		}
	case replySnapshot:
		if o.active && o.typ == wire.TypeSnapshotRequest {
			w.done()
		}
	case replyAck:
		if o.active && r.seq == o.seq && r.typ == o.typ && o.typ != wire.TypeSnapshotRequest {
			w.done()
			return
		}
		for i := range w.echoes {
			if e := &w.echoes[i]; e.seq == r.seq && e.typ == r.typ && e.extra > 0 {
				e.extra-- // a later Ack of a command sent twice and answered
				return
			}
		}
		// An Ack that answers nothing we sent, or lies.
		w.s.b.count(func(st *Stats) { st.StrayAcks++ })
		w.hook("stray", r.typ, r.seq, 0)
		w.s.emit(hardware.Event{Kind: hardware.Fault, Err: fmt.Errorf("serial: the board acknowledged host frame %d (%v), %s",
			r.seq, r.typ, w.awaiting())})
	case replyError:
		switch {
		case r.code == wire.ErrCodeBadFrame && r.typ == 0:
			// A host frame arrived damaged: send the command again at
			// once instead of waiting (§5.2).
			if o.active && !o.probing {
				w.failed()
			}
		case o.active && r.seq == o.seq && r.typ == o.typ:
			// The board refuses the command (the Fault event says why):
			// answered; an LED frame it refused is not sent again.
			w.done()
		}
	}
}

func (w *writer) awaiting() string {
	if !w.out.active {
		return "with no command outstanding"
	}
	return fmt.Sprintf("while waiting for the reply to %d (%v)", w.out.seq, w.out.typ)
}

// done completes the outstanding command.
func (w *writer) done() {
	o := &w.out
	if o.leds {
		for _, r := range o.cover {
			for i := int(r.Start); i < int(r.Start)+int(r.Count) && i < len(w.sent); i++ {
				w.sent[i], w.unknown[i] = w.want[i], false
			}
		}
		w.dirty = true // the newest frame may differ still
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	if o.sends > 1 {
		if len(w.echoes) == maxEchoes {
			w.echoes = slices.Delete(w.echoes, 0, 1)
		}
		w.echoes = append(w.echoes, echo{o.seq, o.typ, o.sends - 1})
	}
	o.active = false
	w.s.b.count(func(st *Stats) { st.Commands++ })
	w.hook("answered", o.typ, o.seq, 0)
}

// expired: the reply did not come in time.
func (w *writer) expired() {
	o := &w.out
	if o.probing {
		w.giveUp("and no Hello answered HelloRequest")
		return
	}
	w.s.b.count(func(st *Stats) { st.Timeouts++ })
	w.failed()
}

// failed counts an unanswered transmission and decides what comes next.
func (w *writer) failed() {
	o := &w.out
	o.fails++
	if o.fails < w.s.b.cfg.Retries {
		w.s.b.count(func(st *Stats) { st.Retransmits++ })
		w.transmit("resend")
		return
	}
	if o.rescued {
		w.giveUp("although the board answered HelloRequest")
		return
	}
	o.probing = true
	w.s.b.count(func(st *Stats) { st.Probes++ })
	w.arm(w.s.b.cfg.HelloInterval)
	w.hook("probe", wire.TypeHelloRequest, w.seq, w.s.b.cfg.HelloInterval)
	w.write(&wire.HelloRequest{Major: wire.VersionMajor, Minor: wire.VersionMinor})
}

func (w *writer) giveUp(why string) {
	o := &w.out
	w.hook("give-up", o.typ, o.seq, 0)
	w.s.fail(fmt.Errorf("%w: %v (host frame %d) unanswered after %d transmissions, %s",
		ErrNoReply, o.typ, o.seq, o.sends, why))
}
