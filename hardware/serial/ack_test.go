package serial

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

// ackRig is a board on a net.Pipe with a fake clock and the writer's
// events on a channel: tests advance time only when the writer has armed
// its timer, and never sleep.
type ackRig struct {
	t      *testing.T
	clock  *clockwork.FakeClock
	board  *Board
	mcu    *fakeMCU
	mcus   chan *fakeMCU
	events chan writerEvent
}

func newAckRig(t *testing.T, cfg Config) *ackRig {
	t.Helper()
	r := &ackRig{t: t, clock: clockwork.NewFakeClock(), events: make(chan writerEvent, 1024)}
	cfg.Clock = r.clock
	cfg.hook = func(e writerEvent) { r.events <- e }
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = time.Hour // no watchdog unless the test wants one
	}
	cfg.HandshakeTimeout = time.Hour
	r.board, r.mcus, r.mcu = openPipe(t, cfg, make([]byte, 16))
	nextEvent(t, r.board, hardware.Snapshot)
	if ev := nextEvent(t, r.board, hardware.Status); ev.Conn != hardware.Connected {
		t.Fatalf("got %v", ev)
	}
	// The handshake's Config and the first whole LED frame are answered.
	r.expect("send", wire.TypeConfig)
	r.expect("answered", wire.TypeConfig)
	r.expect("send", wire.TypeLEDFrame)
	r.expect("answered", wire.TypeLEDFrame)
	r.expect("idle", 0)
	return r
}

// expect returns the writer's next event, which must be what on typ (0:
// any type).
func (r *ackRig) expect(what string, typ wire.Type) writerEvent {
	r.t.Helper()
	select {
	case e := <-r.events:
		if e.What != what || typ != 0 && e.Type != typ {
			r.t.Fatalf("writer: got %+v, want %s %v", e, what, typ)
		}
		return e
	case <-time.After(2 * time.Second):
		r.t.Fatalf("writer: no %s %v", what, typ)
	}
	return writerEvent{}
}

// awaitSeq returns the host frame of type typ numbered seq, skipping others.
func (m *fakeMCU) awaitSeq(typ wire.Type, seq uint16) wire.Frame {
	m.t.Helper()
	for {
		if f := m.await(typ); f.Seq == seq {
			return f
		}
	}
}

func (r *ackRig) setLED(i int, l hardware.LED) {
	r.t.Helper()
	frame := make([]hardware.LED, 16)
	frame[i] = l
	if err := r.board.SetLEDs(frame); err != nil {
		r.t.Fatal(err)
	}
}

// replyWait is the reply timeout PROTOCOL.md §5.2 gives a frame of n
// bytes at 115200 baud: 200 ms plus twice its wire time.
func replyWait(n int) time.Duration {
	return 200*time.Millisecond + 2*(time.Duration(n)*10*time.Second/115200)
}

func TestAckTimeoutIsTheSpecified(t *testing.T) {
	r := newAckRig(t, Config{})
	r.mcu.setMode(ackHold)
	r.setLED(3, hardware.LED{R: 200})
	e := r.expect("send", wire.TypeLEDFrame)
	f := r.mcu.awaitSeq(wire.TypeLEDFrame, e.Seq)
	b, err := wire.AppendFrame(nil, f.Seq, f.Msg)
	if err != nil {
		t.Fatal(err)
	}
	if want := replyWait(len(b)); e.Wait != want {
		t.Errorf("reply awaited %v, want %v (200 ms + 2 × %d bytes at 115200 baud)", e.Wait, want, len(b))
	}
	// Slow but in time: answered once, not sent again.
	r.clock.Advance(e.Wait - time.Millisecond)
	r.mcu.release()
	r.expect("answered", wire.TypeLEDFrame)
	r.expect("idle", 0)
	if st := r.board.Stats(); st.Retransmits != 0 || st.Timeouts != 0 {
		t.Errorf("stats %+v, want no retransmission", st)
	}
}

// TestAckSlowBoard: an Ack that comes after the timeout answers the
// command sent twice; the Ack of the second transmission is not a fault.
func TestAckSlowBoard(t *testing.T) {
	r := newAckRig(t, Config{})
	r.mcu.setMode(ackHold)
	r.setLED(3, hardware.LED{R: 200})
	e := r.expect("send", wire.TypeLEDFrame)
	r.clock.Advance(e.Wait)
	again := r.expect("resend", wire.TypeLEDFrame)
	if again.Seq != e.Seq {
		t.Errorf("resent as %d, want the same seq %d", again.Seq, e.Seq)
	}
	r.mcu.release()
	r.expect("answered", wire.TypeLEDFrame)
	r.expect("idle", 0)
	// The next command goes out before the second transmission's Ack
	// arrives: that Ack is no fault either.
	r.setLED(4, hardware.LED{G: 9})
	next := r.expect("send", wire.TypeLEDFrame)
	r.mcu.awaitSeq(wire.TypeLEDFrame, next.Seq)
	if late := r.mcu.release(); late.Seq != e.Seq {
		t.Fatalf("released the Ack of %d, want the late one of %d", late.Seq, e.Seq)
	}
	r.mcu.release()
	r.expect("answered", wire.TypeLEDFrame)
	r.expect("idle", 0)
	st := r.board.Stats()
	if st.Timeouts != 1 || st.Retransmits != 1 || st.StrayAcks != 0 {
		t.Errorf("stats %+v, want 1 timeout, 1 retransmission, no stray Ack", st)
	}
	drainFaults(t, r.board)
}

func drainFaults(t *testing.T, b *Board) {
	t.Helper()
	for {
		select {
		case ev := <-b.Events():
			if ev.Kind == hardware.Fault || ev.Kind == hardware.Status {
				t.Errorf("unexpected %v: %v", ev.Kind, ev.Err)
			}
		default:
			return
		}
	}
}

// TestAckDropped: a board that never acknowledges LED frames gets each
// sent Retries times, then a HelloRequest; it answers that, so the frame
// goes Retries times more, and then the link is declared failed the way
// the watchdog does it: Status Disconnected with ErrNoReply, and a redial.
func TestAckDropped(t *testing.T) {
	r := newAckRig(t, Config{HelloInterval: 500 * time.Millisecond})
	r.mcu.setMode(ackNone)
	r.setLED(5, hardware.LED{B: 50})
	e := r.expect("send", wire.TypeLEDFrame)
	for range 2 {
		r.clock.Advance(e.Wait)
		if got := r.expect("resend", wire.TypeLEDFrame); got.Seq != e.Seq {
			t.Fatalf("resent as %d, want %d", got.Seq, e.Seq)
		}
	}
	r.clock.Advance(e.Wait)
	p := r.expect("probe", wire.TypeHelloRequest)
	if p.Wait != 500*time.Millisecond {
		t.Errorf("Hello awaited %v, want HelloInterval", p.Wait)
	}
	// The board answers HelloRequest (it is alive) and sends a snapshot
	// after the host's Ack, as after any Hello.
	r.mcu.await(wire.TypeHelloRequest)
	h := testHello
	r.mcu.send(&h)
	r.mcu.await(wire.TypeAck)
	r.mcu.send(&wire.Snapshot{Reason: wire.ReasonConnect, Cells: make([]byte, 16)})
	r.expect("resend", wire.TypeLEDFrame)
	for range 2 {
		r.clock.Advance(e.Wait)
		r.expect("resend", wire.TypeLEDFrame)
	}
	r.clock.Advance(e.Wait)
	r.expect("give-up", wire.TypeLEDFrame)
	ev := nextEvent(t, r.board, hardware.Status)
	if ev.Conn != hardware.Disconnected || !errors.Is(ev.Err, ErrNoReply) {
		t.Fatalf("got %v %v, want Disconnected with ErrNoReply", ev.Conn, ev.Err)
	}
	if !strings.Contains(ev.Err.Error(), "LEDFrame") || !strings.Contains(ev.Err.Error(), "6 transmissions") {
		t.Errorf("unclear error: %v", ev.Err)
	}
	for range r.mcu.host {
		// until the fake board has read everything and the line closed
	}
	if n := r.mcu.got[wire.TypeLEDFrame].Load(); n != 1+6 {
		t.Errorf("the board got %d LED frames, want the first whole frame and this one 6 times", n)
	}
	st := r.board.Stats()
	if st.Probes != 1 || st.Retransmits != 5 {
		t.Errorf("stats %+v, want 1 probe and 5 retransmissions", st)
	}
}

// TestAckNoHello: a board that answers neither the command nor the
// HelloRequest is lost after Retries transmissions and HelloInterval.
func TestAckNoHello(t *testing.T) {
	r := newAckRig(t, Config{HelloInterval: 500 * time.Millisecond})
	r.mcu.setMode(ackNone)
	r.setLED(5, hardware.LED{B: 50})
	e := r.expect("send", wire.TypeLEDFrame)
	r.clock.Advance(e.Wait)
	r.expect("resend", wire.TypeLEDFrame)
	r.clock.Advance(e.Wait)
	r.expect("resend", wire.TypeLEDFrame)
	r.clock.Advance(e.Wait)
	r.expect("probe", wire.TypeHelloRequest)
	r.clock.Advance(499 * time.Millisecond)
	r.clock.Advance(time.Millisecond)
	r.expect("give-up", wire.TypeLEDFrame)
	ev := nextEvent(t, r.board, hardware.Status)
	if !errors.Is(ev.Err, ErrNoReply) || !strings.Contains(ev.Err.Error(), "no Hello") {
		t.Fatalf("got %v, want ErrNoReply naming the missing Hello", ev.Err)
	}
}

// TestAckLying: Acks of the wrong seq answer nothing: each is a Fault, the
// command is sent again, and in the end the link fails.
func TestAckLying(t *testing.T) {
	r := newAckRig(t, Config{HelloInterval: 500 * time.Millisecond})
	r.mcu.setMode(ackLie)
	r.setLED(5, hardware.LED{B: 50})
	e := r.expect("send", wire.TypeLEDFrame)
	r.expect("stray", wire.TypeLEDFrame)
	ev := nextEvent(t, r.board, hardware.Fault)
	if want := fmt.Sprintf("acknowledged host frame %d (LEDFrame), while waiting for the reply to %d (LEDFrame)", e.Seq+1, e.Seq); !strings.Contains(ev.Err.Error(), want) {
		t.Errorf("fault %v, want it to say %q", ev.Err, want)
	}
	r.clock.Advance(e.Wait)
	r.expect("resend", wire.TypeLEDFrame)
	r.expect("stray", wire.TypeLEDFrame)
	r.clock.Advance(e.Wait)
	r.expect("resend", wire.TypeLEDFrame)
	r.expect("stray", wire.TypeLEDFrame)
	r.clock.Advance(e.Wait)
	r.expect("probe", wire.TypeHelloRequest)
	r.clock.Advance(500 * time.Millisecond)
	r.expect("give-up", wire.TypeLEDFrame)
	if st := r.board.Stats(); st.StrayAcks != 3 || st.Commands != 2 {
		t.Errorf("stats %+v, want 3 stray Acks and only the handshake's 2 commands answered", st)
	}
}

// TestAckCoalescesLEDs: while an LED frame waits for its Ack, any number
// of newer frames make one update, with the newest colours.
func TestAckCoalescesLEDs(t *testing.T) {
	r := newAckRig(t, Config{})
	r.mcu.setMode(ackHold)
	r.setLED(1, hardware.LED{R: 1})
	first := r.expect("send", wire.TypeLEDFrame)
	r.mcu.awaitSeq(wire.TypeLEDFrame, first.Seq) // and holds its Ack
	for i := range 1000 {
		frame := make([]hardware.LED, 16)
		frame[1] = hardware.LED{R: 1}
		frame[9] = hardware.LED{G: uint8(i)}
		if err := r.board.SetLEDs(frame); err != nil {
			t.Fatal(err)
		}
	}
	r.mcu.setMode(ackAll)
	r.mcu.release()
	r.expect("answered", wire.TypeLEDFrame)
	second := r.expect("send", wire.TypeLEDFrame)
	r.expect("answered", wire.TypeLEDFrame)
	r.expect("idle", 0)
	if l := r.mcu.awaitSeq(wire.TypeLEDFrame, second.Seq).Msg.(*wire.LEDFrame); l.Start != 9 || len(l.Colors) != 1 || l.Colors[0] != (wire.Color{G: 231}) {
		t.Errorf("second frame %+v, want LED 9 at the newest colour (0, 231, 0)", l)
	}
	if st := r.board.Stats(); st.LEDFrames != 3 {
		t.Errorf("%d LED frames sent in all, want 3 (the first whole frame and two updates)", st.LEDFrames)
	}
}

// TestAckBadFrameResendsAtOnce: an Error bad-frame from the board makes
// the writer send the outstanding command again without waiting.
func TestAckBadFrameResendsAtOnce(t *testing.T) {
	r := newAckRig(t, Config{})
	r.mcu.setMode(ackHold)
	r.setLED(2, hardware.LED{R: 2})
	e := r.expect("send", wire.TypeLEDFrame)
	r.mcu.send(&wire.Error{Code: wire.ErrCodeBadFrame, Detail: wire.BadFrameCRC})
	if got := r.expect("resend", wire.TypeLEDFrame); got.Seq != e.Seq {
		t.Errorf("resent %d, want %d", got.Seq, e.Seq)
	}
	r.mcu.release()
	r.expect("answered", wire.TypeLEDFrame)
}

// TestWatchdogAtDeadline: a board that stops (SIGSTOP: it neither reads
// nor writes, so the host's writes block) is declared gone exactly
// MissedHeartbeats × Heartbeat after its last frame: 3 s by default, not
// at the next heartbeat tick after that.
func TestWatchdogAtDeadline(t *testing.T) {
	r := newAckRig(t, Config{Heartbeat: time.Second, MissedHeartbeats: 3})
	ctx := context.Background()
	// The last frame: a button press, seen by the consumer.
	r.clock.BlockUntilContext(ctx, 1) // the watchdog's timer
	r.mcu.send(&wire.Button{Time: 1, Button: 1})
	nextEvent(t, r.board, hardware.Press)
	last := r.clock.Now()
	r.mcu.frozen.Store(true)
	r.setLED(0, hardware.LED{R: 1}) // the writer blocks on the stopped board
	r.expect("send", wire.TypeLEDFrame)
	r.clock.Advance(2999 * time.Millisecond)
	r.clock.Advance(time.Millisecond)
	ev := nextEvent(t, r.board, hardware.Status)
	if ev.Conn != hardware.Disconnected || !errors.Is(ev.Err, ErrWatchdog) {
		t.Fatalf("got %v %v, want Disconnected by the watchdog", ev.Conn, ev.Err)
	}
	if got := r.clock.Since(last); got != 3*time.Second || !strings.Contains(ev.Err.Error(), "no frame for 3s") {
		t.Errorf("declared gone after %v of silence (%v), want 3s", got, ev.Err)
	}
}
