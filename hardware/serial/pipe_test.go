package serial

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"go.bug.st/serial/enumerator"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

// fakeMCU is a scripted board on the far end of a net.Pipe. It answers
// Config, LEDFrame and LEDSet with an Ack as a board does, unless its
// ackMode says otherwise.
type fakeMCU struct {
	t    *testing.T
	conn net.Conn
	mu   sync.Mutex
	seq  uint16
	host chan wire.Frame // host frames, messages cloned
	mode atomic.Int32    // an ackMode
	// frozen: the board stops, as under SIGSTOP: it neither answers nor
	// reads past the next host frame, until the test ends.
	frozen atomic.Bool
	held   chan wire.Ack     // Acks kept back in ackHold mode
	got    [256]atomic.Int32 // host frames received, by type
}

type ackMode int32

const (
	ackAll  ackMode = iota // acknowledge every command at once
	ackNone                // drop every Ack
	ackLie                 // acknowledge the wrong seq
	ackHold                // keep the Acks in held until the test releases them
)

func newFakeMCU(t *testing.T, conn net.Conn) *fakeMCU {
	m := &fakeMCU{t: t, conn: conn, host: make(chan wire.Frame, 256), held: make(chan wire.Ack, 256)}
	go func() {
		defer close(m.host)
		d := wire.NewDecoder(conn)
		for {
			f, err := d.Next()
			var fe *wire.FrameError
			if errors.As(err, &fe) {
				continue
			}
			if err != nil {
				return
			}
			if m.frozen.Load() {
				<-t.Context().Done()
				return
			}
			m.got[f.Type()].Add(1)
			switch f.Type() {
			case wire.TypeConfig, wire.TypeLEDFrame, wire.TypeLEDSet:
				ack := wire.Ack{Seq: f.Seq, Ref: f.Type()}
				switch ackMode(m.mode.Load()) {
				case ackAll:
					m.reply(&ack)
				case ackLie:
					ack.Seq++
					m.reply(&ack)
				case ackHold:
					m.host <- wire.Frame{Seq: f.Seq, Msg: cloneMsg(f.Msg)}
					m.held <- ack
					continue
				}
			}
			m.host <- wire.Frame{Seq: f.Seq, Msg: cloneMsg(f.Msg)}
		}
	}()
	return m
}

func (m *fakeMCU) setMode(a ackMode) { m.mode.Store(int32(a)) }

// release sends the oldest Ack held back.
func (m *fakeMCU) release() wire.Ack {
	m.t.Helper()
	select {
	case a := <-m.held:
		m.send(&a)
		return a
	case <-time.After(2 * time.Second):
		m.t.Fatal("no Ack held back")
	}
	return wire.Ack{}
}

func cloneMsg(m wire.Message) wire.Message {
	switch m := m.(type) {
	case *wire.LEDFrame:
		return m.Clone()
	case *wire.LEDSet:
		return m.Clone()
	case *wire.Ack:
		c := *m
		return &c
	case *wire.Config:
		c := *m
		return &c
	case *wire.HelloRequest:
		c := *m
		return &c
	case *wire.SnapshotRequest:
		return &wire.SnapshotRequest{}
	}
	return m
}

func (m *fakeMCU) send(msg wire.Message) {
	m.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := wire.AppendFrame(nil, m.seq, msg)
	if err != nil {
		m.t.Error(err)
		return
	}
	m.seq++
	m.raw(b)
}

// reply sends an answer from the fake board's own goroutine, which may
// outlive the test: errors are not reported.
func (m *fakeMCU) reply(msg wire.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := wire.AppendFrame(nil, m.seq, msg)
	if err != nil {
		return
	}
	m.seq++
	m.conn.Write(b)
}

func (m *fakeMCU) raw(b []byte) {
	if _, err := m.conn.Write(b); err != nil {
		m.t.Logf("fake MCU write: %v", err)
	}
}

// await returns the next host frame of type typ, skipping others.
func (m *fakeMCU) await(typ wire.Type) wire.Frame {
	m.t.Helper()
	timeout := time.After(2 * time.Second)
	for {
		select {
		case f, ok := <-m.host:
			if !ok {
				m.t.Fatalf("line closed waiting for %v", typ)
			}
			if f.Type() == typ {
				return f
			}
		case <-timeout:
			m.t.Fatalf("no %v from the host", typ)
		}
	}
}

var testHello = wire.Hello{Major: 1, Minor: 0, Abilities: wire.AbilityDieD6 | wire.AbilityButtons, Buttons: 0x1F,
	Cells: 16, LEDs: 16, MaxRX: 64, Vendor: "test", Model: "pipe"}

// handshake answers the host's HelloRequest and Ack with a snapshot.
func (m *fakeMCU) handshake(cells []byte) {
	m.t.Helper()
	m.await(wire.TypeHelloRequest)
	h := testHello
	m.send(&h)
	ack := m.await(wire.TypeAck)
	if a := ack.Msg.(*wire.Ack); a.Ref != wire.TypeHello {
		m.t.Fatalf("ack of %v", a.Ref)
	}
	m.send(&wire.Snapshot{Reason: wire.ReasonConnect, Cells: cells})
}

type pipeRig struct {
	t     *testing.T
	mcus  chan *fakeMCU
	board *Board
}

func pipeDialer(t *testing.T, mcus chan *fakeMCU) Dialer {
	return func(ctx context.Context) (ioRWC, error) {
		host, dev := net.Pipe()
		mcus <- newFakeMCU(t, dev)
		return host, nil
	}
}

func nextEvent(t *testing.T, b *Board, kinds ...hardware.EventKind) hardware.Event {
	t.Helper()
	timeout := time.After(2 * time.Second)
	for {
		select {
		case ev, ok := <-b.Events():
			if !ok {
				t.Fatal("events closed")
			}
			for _, k := range kinds {
				if ev.Kind == k {
					return ev
				}
			}
		case <-timeout:
			t.Fatalf("no %v event", kinds)
		}
	}
}

func openPipe(t *testing.T, cfg Config, cells []byte) (*Board, chan *fakeMCU, *fakeMCU) {
	t.Helper()
	mcus := make(chan *fakeMCU, 4)
	cfg.Dial = func(ctx context.Context) (ioRWC, error) {
		host, dev := net.Pipe()
		mcus <- newFakeMCU(t, dev)
		return host, nil
	}
	type res struct {
		b   *Board
		err error
	}
	done := make(chan res, 1)
	go func() {
		b, err := Open(context.Background(), cfg)
		done <- res{b, err}
	}()
	m := <-mcus
	m.handshake(cells)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { r.b.Close() })
	return r.b, mcus, m
}

func TestPipeGarbageBecomesFaults(t *testing.T) {
	b, _, m := openPipe(t, Config{Heartbeat: time.Hour}, make([]byte, 16))
	// The board has acknowledged the first LED frame (so that the garbage
	// below cannot land on that Ack).
	m.await(wire.TypeLEDFrame)
	if ev := nextEvent(t, b, hardware.Snapshot); len(ev.Codes) != 16 {
		t.Fatalf("snapshot %v", ev)
	}
	m.send(&wire.CellChange{Time: 10, Changes: []wire.Change{{Cell: 3, Code: 255}}})
	if ev := nextEvent(t, b, hardware.Change); ev.Sensor != 3 || ev.Code != 255 || ev.At != 10*time.Millisecond {
		t.Fatalf("change %v at %v", ev, ev.At)
	}
	// Garbage ended by a delimiter: one bad frame, nothing lost.
	m.raw([]byte{0x13, 0x37, 0xFF, 0x42, 0x00})
	fault := nextEvent(t, b, hardware.Fault, hardware.Change)
	var fe *wire.FrameError
	if !errors.As(fault.Err, &fe) {
		t.Fatalf("got %v, want a frame error", fault)
	}
	if fe.Offset == 0 {
		t.Errorf("fault without a stream offset: %v", fe)
	}
	m.send(&wire.CellChange{Time: 20, Changes: []wire.Change{{Cell: 4, Code: 255}}})
	if ev := nextEvent(t, b, hardware.Change); ev.Sensor != 4 {
		t.Fatalf("after garbage: %v", ev)
	}
	// Garbage glued to a frame destroys it: the next frame shows the gap,
	// the driver asks for a snapshot and drops changes until it comes.
	m.raw([]byte{0x55, 0x66})
	m.send(&wire.CellChange{Time: 30, Changes: []wire.Change{{Cell: 5, Code: 255}}})
	m.send(&wire.CellChange{Time: 40, Changes: []wire.Change{{Cell: 6, Code: 255}}})
	nextEvent(t, b, hardware.Fault)
	m.await(wire.TypeSnapshotRequest)
	truth := make([]byte, 16)
	truth[3], truth[4], truth[5], truth[6] = 255, 255, 255, 255
	m.send(&wire.Snapshot{Reason: wire.ReasonRequest, Cells: truth})
	ev := nextEvent(t, b, hardware.Snapshot, hardware.Change)
	if ev.Kind != hardware.Snapshot || !bytes.Equal(ev.Codes, truth) {
		t.Fatalf("got %v %v, want the resync snapshot and no change", ev, ev.Codes)
	}
	if st := b.Stats(); st.Gaps != 1 || st.Dropped != 1 || st.BadFrames != 2 {
		t.Errorf("stats %+v", st)
	}
}

type ioRWC = io.ReadWriteCloser

func TestPipeVersionMismatch(t *testing.T) {
	mcus := make(chan *fakeMCU, 1)
	cfg := Config{Dial: func(ctx context.Context) (ioRWC, error) {
		host, dev := net.Pipe()
		mcus <- newFakeMCU(t, dev)
		return host, nil
	}}
	go func() {
		m := <-mcus
		m.await(wire.TypeHelloRequest)
		m.send(&wire.Hello{Major: 2, Minor: 1})
	}()
	_, err := Open(context.Background(), cfg)
	if !errors.Is(err, wire.ErrIncompatible) {
		t.Fatalf("got %v, want ErrIncompatible", err)
	}
	if !strings.Contains(err.Error(), "2.1") || !strings.Contains(err.Error(), "update the host software") {
		t.Errorf("unclear error: %v", err)
	}
}

func TestPipeNoHello(t *testing.T) {
	mcus := make(chan *fakeMCU, 8)
	cfg := Config{HelloInterval: 10 * time.Millisecond, HandshakeTimeout: 100 * time.Millisecond,
		Dial: func(ctx context.Context) (ioRWC, error) {
			host, dev := net.Pipe()
			mcus <- newFakeMCU(t, dev)
			return host, nil
		}}
	_, err := Open(context.Background(), cfg)
	if !errors.Is(err, ErrNoHello) {
		t.Fatalf("got %v, want ErrNoHello", err)
	}
	m := <-mcus
	n := 0
	for f := range m.host {
		if f.Type() == wire.TypeHelloRequest {
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d HelloRequests, want it repeated", n)
	}
}

func TestPipeWatchdogAndReconnect(t *testing.T) {
	b, mcus, m := openPipe(t, Config{Heartbeat: 20 * time.Millisecond, MissedHeartbeats: 3, BackoffMin: time.Millisecond}, make([]byte, 16))
	nextEvent(t, b, hardware.Snapshot)
	if ev := nextEvent(t, b, hardware.Status); ev.Conn != hardware.Connected {
		t.Fatalf("got %v", ev)
	}
	cfgMsg := m.await(wire.TypeConfig).Msg.(*wire.Config)
	if cfgMsg.HeartbeatMs != 20 {
		t.Errorf("heartbeat asked %d ms", cfgMsg.HeartbeatMs)
	}
	// The board goes silent: the watchdog declares it gone.
	ev := nextEvent(t, b, hardware.Status)
	if ev.Conn != hardware.Disconnected || !errors.Is(ev.Err, ErrWatchdog) {
		t.Fatalf("got %v, want disconnected by the watchdog", ev)
	}
	if err := b.RequestSnapshot(); err == nil {
		// racing with the reconnection is fine; no assertion
	}
	b.SetLEDs([]hardware.LED{{R: 9}, {G: 9}}) // while disconnected
	m2 := <-mcus
	cells := make([]byte, 16)
	cells[7] = 255
	m2.handshake(cells)
	snap := nextEvent(t, b, hardware.Snapshot)
	if snap.Codes[7] != 255 {
		t.Fatalf("resync snapshot %v", snap.Codes)
	}
	if ev := nextEvent(t, b, hardware.Status); ev.Conn != hardware.Connected {
		t.Fatalf("got %v", ev)
	}
	// The frame set while disconnected arrives in full.
	f := m2.await(wire.TypeLEDFrame).Msg.(*wire.LEDFrame)
	if f.Start != 0 || len(f.Colors) != 16 || f.Colors[0] != (wire.Color{R: 9}) || f.Colors[1] != (wire.Color{G: 9}) {
		t.Errorf("frame on reconnection %+v", f)
	}
}

func TestBackoffDoublesOnFakeClock(t *testing.T) {
	clock := clockwork.NewFakeClock()
	mcus := make(chan *fakeMCU, 1)
	attempts := make(chan time.Time, 16)
	fail := false
	idle := make(chan struct{}, 16)
	cfg := Config{Clock: clock, Heartbeat: time.Second,
		hook: func(e writerEvent) {
			if e.What == "idle" {
				idle <- struct{}{}
			}
		}, MissedHeartbeats: 2, BackoffMin: 100 * time.Millisecond, BackoffMax: 400 * time.Millisecond,
		HandshakeTimeout: time.Hour, HelloInterval: time.Hour,
		Dial: func(ctx context.Context) (ioRWC, error) {
			if fail {
				attempts <- clock.Now()
				return nil, errors.New("no such device")
			}
			fail = true
			host, dev := net.Pipe()
			mcus <- newFakeMCU(t, dev)
			return host, nil
		}}
	done := make(chan *Board, 1)
	go func() {
		b, err := Open(context.Background(), cfg)
		if err != nil {
			t.Error(err)
		}
		done <- b
	}()
	m := <-mcus
	m.handshake(make([]byte, 16))
	b := <-done
	defer b.Close()
	<-idle // the handshake's commands are answered: no timer but the watchdog's
	ctx := context.Background()
	start := clock.Now()
	// Silence: after two heartbeat ticks the watchdog fires.
	for range 3 {
		clock.BlockUntilContext(ctx, 1)
		clock.Advance(time.Second)
	}
	for ev := nextEvent(t, b, hardware.Status); ev.Conn != hardware.Disconnected; ev = nextEvent(t, b, hardware.Status) {
	}
	var got []time.Duration
	prev := time.Duration(0)
	for range 5 {
		clock.BlockUntilContext(ctx, 1)
		clock.Advance(50 * time.Millisecond)
		for {
			select {
			case at := <-attempts:
				d := at.Sub(start)
				got = append(got, d-prev)
				prev = d
			default:
				clock.BlockUntilContext(ctx, 1)
				clock.Advance(50 * time.Millisecond)
				continue
			}
			break
		}
	}
	// Delays between attempts: 100 ms after the drop, then 200, 400, 400.
	want := []time.Duration{200, 400, 400, 400}
	for i, w := range want {
		if got[i+1] != w*time.Millisecond {
			t.Errorf("delays %v, want ... %v", got, want)
			break
		}
	}
}

func TestMatchPortIgnoresCase(t *testing.T) {
	ports := []*enumerator.PortDetails{
		{Name: "/dev/ttyS0"},
		{Name: "/dev/ttyUSB0", IsUSB: true, VID: "1a86", PID: "7523"},
		{Name: "/dev/ttyACM0", IsUSB: true, VID: "2341", PID: "0043"},
	}
	got, err := matchPort(ports, []USBID{{"2341", "0043"}, {"1A86", "7523"}})
	if err != nil || got != "/dev/ttyACM0" {
		t.Errorf("got %q %v", got, err)
	}
	got, err = matchPort(ports, []USBID{{"1A86", "7523"}})
	if err != nil || got != "/dev/ttyUSB0" {
		t.Errorf("lower-case ids: got %q %v", got, err)
	}
	// The tabla RP2040 firmware on the Pico's USB port (usb_cdc.c).
	pico := append(ports, &enumerator.PortDetails{Name: "/dev/ttyACM1", IsUSB: true, VID: "1209", PID: "0001"})
	got, err = matchPort(pico[:1:1], KnownUSB)
	if err == nil {
		t.Errorf("no known port: got %q", got)
	}
	got, err = matchPort(append(pico[:1:1], pico[3]), KnownUSB)
	if err != nil || got != "/dev/ttyACM1" {
		t.Errorf("the RP2040 on USB: got %q %v", got, err)
	}
	_, err = matchPort(ports[:1], KnownUSB)
	if !errors.Is(err, ErrNoPort) || !strings.Contains(err.Error(), "/dev/ttyS0") {
		t.Errorf("got %v", err)
	}
}

// TestPipeWrongBoardRefused: a board whose Hello Config.Accept refuses is
// never used — no snapshot or change of it reaches Events, a Fault says
// why — and the right board on the next dial is accepted.
func TestPipeWrongBoardRefused(t *testing.T) {
	accept := func(info hardware.Info) error {
		if info.Sensors != 16 {
			return fmt.Errorf("the board says %d sensors, the board file has 16", info.Sensors)
		}
		return nil
	}
	b, mcus, m := openPipe(t, Config{Heartbeat: 20 * time.Millisecond, MissedHeartbeats: 3, BackoffMin: time.Millisecond, Accept: accept}, make([]byte, 16))
	nextEvent(t, b, hardware.Snapshot)
	nextEvent(t, b, hardware.Status)
	m.conn.Close() // unplugged

	// A board of 841 cells is plugged in instead.
	wrong := <-mcus
	wrong.await(wire.TypeHelloRequest)
	h := testHello
	h.Cells, h.LEDs = 841, 841
	wrong.send(&h)
	wrong.send(&wire.Snapshot{Reason: wire.ReasonConnect, Cells: make([]byte, 841)})
	wrong.send(&wire.CellChange{Time: 5, Changes: []wire.Change{{Cell: 3, Code: 255}}})
	var fault hardware.Event
	for fault.Kind != hardware.Fault {
		ev := nextEvent(t, b, hardware.Fault, hardware.Snapshot, hardware.Change, hardware.Status)
		if ev.Kind == hardware.Snapshot || ev.Kind == hardware.Change || ev.Conn == hardware.Connected {
			t.Fatalf("the refused board reached Events: %v", ev)
		}
		fault = ev
	}
	if !errors.Is(fault.Err, ErrWrongBoard) || !strings.Contains(fault.Err.Error(), "the board says 841 sensors, the board file has 16") {
		t.Fatalf("fault %v, want ErrWrongBoard naming the sizes", fault.Err)
	}
	for f := range wrong.host {
		if f.Type() == wire.TypeAck || f.Type() == wire.TypeConfig || f.Type() == wire.TypeLEDFrame {
			t.Errorf("the refused board was sent %v", f.Type())
		}
	}

	// The driver keeps dialing; the right board is accepted.
	var right *fakeMCU
	for right == nil {
		next := <-mcus
		select {
		case f, ok := <-next.host:
			if ok && f.Type() == wire.TypeHelloRequest {
				right = next
				continue
			}
		case <-time.After(2 * time.Second):
			t.Fatal("no HelloRequest after the refusal")
		}
	}
	h = testHello
	right.send(&h)
	right.await(wire.TypeAck)
	cells := make([]byte, 16)
	cells[2] = 255
	right.send(&wire.Snapshot{Reason: wire.ReasonConnect, Cells: cells})
	if ev := nextEvent(t, b, hardware.Snapshot, hardware.Change); ev.Kind != hardware.Snapshot || ev.Codes[2] != 255 {
		t.Fatalf("got %v, want the right board's snapshot", ev)
	}
	right.send(&wire.CellChange{Time: 9, Changes: []wire.Change{{Cell: 4, Code: 255}}})
	if ev := nextEvent(t, b, hardware.Change); ev.Sensor != 4 {
		t.Fatalf("got %v, want the right board's change", ev)
	}
}
