//go:build unix

package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/wiremap"
)

// HelloRepeat is how often the virtual board repeats Hello until the host
// acknowledges it, as a real board does.
const HelloRepeat = time.Second

// PTYMaxRX is the largest frame body the virtual board accepts; kept small
// so that hosts exercise splitting LED frames.
const PTYMaxRX = 512

// PTY serves a virtual board on a pseudo-terminal speaking the wire
// protocol, exactly as a microcontroller on USB would. Its Path is a
// symlink to the current /dev/pts/N: a simulated cable pull closes the
// terminal and removes the link, a replug makes a new terminal and points
// the link at it.
type PTY struct {
	vb     *Board
	dir    string
	link   string
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	wmu       sync.Mutex // everything below: the line and what was written
	line      *ptyLine
	seq       uint16
	state     []byte
	acked     bool
	lastHello time.Time
	hb        time.Duration
	slow      bool
	drop      int
	corrupt   int
	swap      bool
	held      []byte
	history   map[uint16][]byte
	buf       []byte
	rng       *rand.Rand
	closed    bool
	stats     PTYStats

	hbKick chan struct{}
}

// PTYStats counts what the virtual board saw from the host.
type PTYStats struct {
	HostFrames    int // good frames from the host
	HostBadFrames int
	LEDFrames     int // LEDFrame and LEDSet frames applied
	Snapshots     int // snapshots sent
	Lines         int // terminals opened (1 + replugs)
}

type ptyLine struct {
	master, slave *os.File
}

func (l *ptyLine) close() {
	l.master.Close()
	l.slave.Close()
}

// ServePTY serves vb on a pseudo-terminal until ctx ends or vb is closed
// and returns the device path a host opens (serial:PATH).
func ServePTY(ctx context.Context, vb *Board) (string, error) {
	p, err := NewPTY(ctx, vb)
	if err != nil {
		return "", err
	}
	return p.Path(), nil
}

// NewPTY is ServePTY returning the server, for tests that look inside.
func NewPTY(ctx context.Context, vb *Board) (*PTY, error) {
	dir, err := os.MkdirTemp("", "tabla-sim-")
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &PTY{
		vb: vb, dir: dir, link: filepath.Join(dir, "tty"), cancel: cancel,
		hb:      time.Duration(wire.DefaultConfig.HeartbeatMs) * time.Millisecond,
		history: map[uint16][]byte{},
		rng:     rand.New(rand.NewPCG(vb.opts.Seed, 0x11e)),
		hbKick:  make(chan struct{}, 1),
	}
	p.wmu.Lock()
	err = p.plug()
	p.wmu.Unlock()
	if err != nil {
		cancel()
		os.RemoveAll(dir)
		return nil, err
	}
	vb.mu.Lock()
	p.state = slices.Clone(vb.qstate)
	vb.mu.Unlock()
	vb.setSink(p)
	p.wg.Add(1)
	go p.beat(ctx)
	go func() {
		<-ctx.Done()
		p.Close()
	}()
	return p, nil
}

// Path is the device a host opens.
func (p *PTY) Path() string { return p.link }

// Stats returns the counters.
func (p *PTY) Stats() PTYStats {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	return p.stats
}

// StateAt returns the sensor codes as of the board frame with sequence
// number seq (for frames that carry cell state: snapshots and changes).
func (p *PTY) StateAt(seq uint16) ([]byte, bool) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	s, ok := p.history[seq]
	return s, ok
}

// Close stops serving and removes the device link. The board stays usable
// in process only for its truth and LEDs.
func (p *PTY) Close() error {
	p.once.Do(func() {
		p.cancel()
		p.wmu.Lock()
		p.closed = true
		p.unplug()
		p.wmu.Unlock()
		p.wg.Wait()
		os.RemoveAll(p.dir)
	})
	return nil
}

// nonblocking re-opens a pty master so that the runtime poller drives it:
// creack/pty hands out a blocking file whose deadlines do nothing and whose
// Close does not wake a reader.
func nonblocking(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "ptmx"), nil
}

// plug opens a new terminal; p.wmu held.
func (p *PTY) plug() error {
	m, s, err := pty.Open()
	if err != nil {
		return fmt.Errorf("sim: opening a pty: %w", err)
	}
	if _, err := term.MakeRaw(int(s.Fd())); err != nil {
		m.Close()
		s.Close()
		return fmt.Errorf("sim: raw mode on %s: %w", s.Name(), err)
	}
	master, err := nonblocking(m)
	if err != nil {
		s.Close()
		return fmt.Errorf("sim: pty master: %w", err)
	}
	tmp := p.link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(s.Name(), tmp); err != nil {
		master.Close()
		s.Close()
		return fmt.Errorf("sim: %w", err)
	}
	if err := os.Rename(tmp, p.link); err != nil {
		master.Close()
		s.Close()
		return fmt.Errorf("sim: %w", err)
	}
	l := &ptyLine{master: master, slave: s}
	p.line, p.acked, p.held, p.swap = l, false, nil, false
	p.stats.Lines++
	p.wg.Add(1)
	go p.read(l)
	p.writeHello()
	return nil
}

// unplug closes the terminal; p.wmu held.
func (p *PTY) unplug() {
	if p.line == nil {
		return
	}
	os.Remove(p.link)
	p.line.close()
	p.line = nil
}

// write puts one frame on the line, applying pending line faults; p.wmu
// held.
func (p *PTY) write(frame []byte, event bool) {
	if p.line == nil {
		return
	}
	if event && p.drop > 0 {
		for range min(p.drop, len(frame)-1) {
			i := p.rng.IntN(len(frame))
			frame = append(frame[:i], frame[i+1:]...)
		}
		p.drop = 0
	}
	if event && p.corrupt > 0 {
		for range p.corrupt {
			frame[p.rng.IntN(len(frame))] ^= byte(1 + p.rng.IntN(255))
		}
		p.corrupt = 0
	}
	if event && p.swap {
		p.swap = false
		p.held = slices.Clone(frame)
		return
	}
	p.raw(frame)
	if p.held != nil {
		h := p.held
		p.held = nil
		p.raw(h)
	}
}

func (p *PTY) raw(b []byte) {
	// A host that stopped reading must not wedge the board forever.
	p.line.master.SetWriteDeadline(time.Now().Add(time.Second))
	if p.slow {
		for len(b) > 0 {
			n := min(3, len(b))
			if _, err := p.line.master.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
			time.Sleep(200 * time.Microsecond)
		}
		return
	}
	p.line.master.Write(b)
}

// send encodes and writes a board message; p.wmu held.
func (p *PTY) send(m wire.Message, event bool) {
	var err error
	p.buf, err = wire.AppendFrame(p.buf[:0], p.seq, m)
	if err != nil {
		return
	}
	switch m.(type) {
	case *wire.Snapshot, *wire.CellChange:
		p.history[p.seq] = slices.Clone(p.state)
		delete(p.history, p.seq-4096)
	}
	p.seq++
	p.write(p.buf, event)
}

func (p *PTY) now() uint32 { return wiremap.Millis(p.vb.Now()) }

func (p *PTY) writeHello() {
	info := p.vb.info
	var ab wire.Abilities = wire.AbilityButtons
	if info.Identifying {
		ab |= wire.AbilityIdentify
	}
	if info.DieD6 {
		ab |= wire.AbilityDieD6
	}
	if info.DieNSEW {
		ab |= wire.AbilityDieNSEW
	}
	model := "sim " + p.vb.def.Name
	if len(model) > wire.MaxStringLen {
		model = model[:wire.MaxStringLen]
	}
	p.lastHello = time.Now()
	p.send(&wire.Hello{
		Major: wire.VersionMajor, Minor: wire.VersionMinor, Abilities: ab, Buttons: 0x1F,
		Cells: uint16(info.Sensors), LEDs: uint16(info.LEDs), MaxRX: PTYMaxRX,
		Vendor: "tabla", Model: model, Serial: fmt.Sprintf("SIM-%d", p.vb.opts.Seed), Firmware: "sim",
	}, false)
}

func (p *PTY) writeSnapshot(reason wire.SnapshotReason) {
	p.stats.Snapshots++
	p.send(&wire.Snapshot{Time: p.now(), Reason: reason, Cells: p.state}, false)
}

// deliver writes the board's events as frames (called by the pump).
func (p *PTY) deliver(o op) bool {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.closed {
		return true
	}
	switch o.kind {
	case opLine:
		switch o.line.Kind {
		case "garbage":
			if p.line != nil {
				g := make([]byte, o.line.Bytes)
				for i := range g {
					g[i] = byte(p.rng.IntN(256))
				}
				p.raw(g)
			}
		case "drop":
			p.drop += o.line.Bytes
		case "corrupt":
			p.corrupt += o.line.Bytes
		case "reorder":
			p.swap = true
		case "slow":
			p.slow = o.line.On
		case "unplug":
			p.unplug()
		case "replug":
			if err := p.plug(); err != nil {
				return true // the line stays down
			}
		}
	case opSnapshot:
		if o.reason == wire.ReasonConnect {
			p.state = slices.Clone(o.ev.Codes) // the truth at replug
		}
	case opEvent:
		ev := o.ev
		t := wiremap.Millis(ev.At)
		switch ev.Kind {
		case hardware.Change:
			p.state[ev.Sensor] = ev.Code
			p.send(&wire.CellChange{Time: t, Changes: []wire.Change{{Cell: uint16(ev.Sensor), Code: ev.Code}}}, true)
		case hardware.Roll:
			d, v, err := wiremap.Roll(ev.Face)
			if err == nil {
				p.send(&wire.Roll{Time: t, Die: d, Value: v}, true)
			}
		case hardware.Press:
			p.send(&wire.Button{Time: t, Button: wiremap.ButtonID(ev.Button)}, true)
		}
	}
	return true
}

func (p *PTY) close() { p.Close() }

// beat sends heartbeats and repeats Hello until it is acknowledged.
func (p *PTY) beat(ctx context.Context) {
	defer p.wg.Done()
	for {
		p.wmu.Lock()
		d := p.hb
		p.wmu.Unlock()
		if d <= 0 {
			d = HelloRepeat
		}
		t := time.NewTimer(min(d, HelloRepeat))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-p.hbKick:
			t.Stop()
			continue
		case <-t.C:
		}
		p.wmu.Lock()
		switch {
		case p.line == nil:
		case !p.acked:
			if time.Since(p.lastHello) >= HelloRepeat {
				p.writeHello()
			}
		case p.hb > 0:
			p.send(&wire.Heartbeat{Time: p.now(), ScanRate: 100}, false)
		}
		p.wmu.Unlock()
	}
}

// read serves the host's frames on one terminal.
func (p *PTY) read(l *ptyLine) {
	defer p.wg.Done()
	dec := wire.NewDecoder(l.master)
	for {
		f, err := dec.Next()
		var fe *wire.FrameError
		if errors.As(err, &fe) {
			p.wmu.Lock()
			p.stats.HostBadFrames++
			if p.line == l {
				p.send(&wire.Error{Code: wire.ErrCodeBadFrame, Detail: badFrameDetail(fe)}, false)
			}
			p.wmu.Unlock()
			continue
		}
		if err != nil {
			return // the terminal was closed (or the host hung up)
		}
		p.wmu.Lock()
		if p.line != l {
			p.wmu.Unlock()
			return
		}
		p.stats.HostFrames++
		p.hostFrame(f)
		p.wmu.Unlock()
	}
}

func badFrameDetail(fe *wire.FrameError) uint16 {
	switch {
	case errors.Is(fe, wire.ErrCRC):
		return wire.BadFrameCRC
	case errors.Is(fe, wire.ErrTooLong):
		return wire.BadFrameTooLong
	case errors.Is(fe, wire.ErrTooShort):
		return wire.BadFrameTooShort
	}
	return wire.BadFrameCOBS
}

// hostFrame answers one host frame; p.wmu held.
func (p *PTY) hostFrame(f wire.Frame) {
	ack := func() { p.send(&wire.Ack{Seq: f.Seq, Ref: f.Type()}, false) }
	switch m := f.Msg.(type) {
	case *wire.HelloRequest:
		p.writeHello()
	case *wire.Ack:
		if m.Ref == wire.TypeHello {
			p.acked = true
			p.writeSnapshot(wire.ReasonConnect)
		}
	case *wire.SnapshotRequest:
		p.writeSnapshot(wire.ReasonRequest)
	case *wire.Config:
		p.hb = time.Duration(m.HeartbeatMs) * time.Millisecond
		select {
		case p.hbKick <- struct{}{}:
		default:
		}
		ack()
	case *wire.LEDFrame:
		n := p.vb.info.LEDs
		if int(m.Start)+len(m.Colors) > n {
			p.send(&wire.Error{Code: wire.ErrCodeOutOfRange, Seq: f.Seq, Ref: f.Type(), Detail: uint16(n)}, false)
			return
		}
		p.vb.updateLEDs(func(leds []hardware.LED) {
			for i, c := range m.Colors {
				leds[int(m.Start)+i] = hardware.LED{R: c.R, G: c.G, B: c.B}
			}
		})
		p.stats.LEDFrames++
		ack()
	case *wire.LEDSet:
		n := p.vb.info.LEDs
		for _, r := range m.Ranges {
			if int(r.Start)+int(r.Count) > n {
				p.send(&wire.Error{Code: wire.ErrCodeOutOfRange, Seq: f.Seq, Ref: f.Type(), Detail: r.Start}, false)
				return
			}
		}
		led := hardware.LED{R: m.Color.R, G: m.Color.G, B: m.Color.B, Blink: wiremap.Blink(m.Blink)}
		p.vb.updateLEDs(func(leds []hardware.LED) {
			for _, r := range m.Ranges {
				for i := range int(r.Count) {
					leds[int(r.Start)+i] = led
				}
			}
		})
		p.stats.LEDFrames++
		ack()
	default:
		p.send(&wire.Error{Code: wire.ErrCodeUnknownType, Seq: f.Seq, Ref: f.Type(), Detail: uint16(f.Type())}, false)
	}
}
