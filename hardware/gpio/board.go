package gpio

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/tabla-board/tabla/hardware"
)

// Strip takes raw RGB bytes, three per LED: periph's nrzled.Dev and
// apa102.Dev are Strips.
type Strip interface {
	Write(rgb []byte) (int, error)
}

// Parts make a Board.
type Parts struct {
	Name    string
	Sensors Scanner
	LEDs    Strip // nil: no LEDs
	// NumLEDs is the strip length.
	NumLEDs int
	// Brightness scales every colour (0–255) [255].
	Brightness int
	Clock      clockwork.Clock // [real clock]
	// ScanInterval [10 ms], Debounce [3 scans], BlinkInterval: how often
	// blinking LEDs are redrawn [50 ms].
	ScanInterval  time.Duration
	Debounce      int
	BlinkInterval time.Duration
	// Closers are closed with the board (ports opened for it).
	Closers []io.Closer
}

// Board is a direct-GPIO sensor board. It implements hardware.Board.
type Board struct {
	p      Parts
	clock  clockwork.Clock
	start  time.Time
	events chan hardware.Event
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	kick   chan struct{}
	snap   chan struct{}

	mu   sync.Mutex
	want []hardware.LED

	// loop state
	raw     []bool
	deb     *debouncer
	changed []int
	scans   int
	ready   bool
	rgb     []byte
	shown   []byte
	lastErr string
}

var _ hardware.Board = (*Board)(nil)

// New starts a board on its parts.
func New(p Parts) (*Board, error) {
	if p.Sensors == nil {
		return nil, errors.New("gpio: Parts.Sensors is nil")
	}
	if p.Clock == nil {
		p.Clock = clockwork.NewRealClock()
	}
	if p.ScanInterval <= 0 {
		p.ScanInterval = 10 * time.Millisecond
	}
	if p.Debounce <= 0 {
		p.Debounce = 3
	}
	if p.BlinkInterval <= 0 {
		p.BlinkInterval = 50 * time.Millisecond
	}
	if p.Brightness <= 0 || p.Brightness > 255 {
		p.Brightness = 255
	}
	if p.LEDs == nil {
		p.NumLEDs = 0
	}
	n := p.Sensors.Sensors()
	b := &Board{
		p: p, clock: p.Clock, start: p.Clock.Now(),
		events: make(chan hardware.Event, 256),
		stop:   make(chan struct{}), done: make(chan struct{}),
		kick: make(chan struct{}, 1), snap: make(chan struct{}, 1),
		want: make([]hardware.LED, p.NumLEDs),
		raw:  make([]bool, n), deb: newDebouncer(n, p.Debounce),
		rgb: make([]byte, 3*p.NumLEDs),
	}
	go b.loop()
	return b, nil
}

// Info describes the board.
func (b *Board) Info() hardware.Info {
	name := b.p.Name
	if name == "" {
		name = "gpio"
	}
	return hardware.Info{Name: name, Sensors: b.p.Sensors.Sensors(), LEDs: b.p.NumLEDs, Protocol: "gpio"}
}

// Events delivers the board's events.
func (b *Board) Events() <-chan hardware.Event { return b.events }

// SetLEDs shows a frame (blinking LEDs are animated by the board).
func (b *Board) SetLEDs(frame []hardware.LED) error {
	if len(frame) > b.p.NumLEDs {
		return fmt.Errorf("gpio: frame of %d LEDs for a strip of %d", len(frame), b.p.NumLEDs)
	}
	b.mu.Lock()
	clear(b.want[copy(b.want, frame):])
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default:
	}
	return nil
}

// RequestSnapshot asks for a Snapshot event of the debounced sensors.
func (b *Board) RequestSnapshot() error {
	select {
	case b.snap <- struct{}{}:
	default:
	}
	return nil
}

// Close stops scanning, darkens the strip and closes Events.
func (b *Board) Close() error {
	b.once.Do(func() { close(b.stop) })
	<-b.done
	return nil
}

func (b *Board) now() time.Duration { return b.clock.Since(b.start) }

func (b *Board) emit(ev hardware.Event) bool {
	select {
	case b.events <- ev:
		return true
	case <-b.stop:
		return false
	}
}

func (b *Board) loop() {
	defer close(b.done)
	defer close(b.events)
	defer func() {
		if b.p.LEDs != nil {
			clear(b.rgb)
			b.p.LEDs.Write(b.rgb)
		}
		for _, c := range b.p.Closers {
			c.Close()
		}
	}()
	scan := b.clock.NewTicker(b.p.ScanInterval)
	defer scan.Stop()
	blink := b.clock.NewTicker(b.p.BlinkInterval)
	defer blink.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-scan.Chan():
			if !b.scan() {
				return
			}
		case <-b.snap:
			if b.ready && !b.emit(b.snapshot()) {
				return
			}
		case <-b.kick:
			b.render()
		case <-blink.Chan():
			b.render()
		}
	}
}

func (b *Board) snapshot() hardware.Event {
	codes := make([]byte, len(b.deb.stable))
	for i, on := range b.deb.stable {
		if on {
			codes[i] = hardware.Occupied
		}
	}
	return hardware.Event{Kind: hardware.Snapshot, At: b.now(), Codes: codes}
}

// scan reads the sensors once and emits what the debouncer accepts.
func (b *Board) scan() bool {
	if err := b.p.Sensors.Scan(b.raw); err != nil {
		if msg := err.Error(); msg != b.lastErr {
			b.lastErr = msg
			return b.emit(hardware.Event{Kind: hardware.Fault, At: b.now(), Err: err})
		}
		return true
	}
	b.lastErr = ""
	b.changed = b.deb.update(b.raw, b.changed[:0])
	if !b.ready {
		if b.scans == 0 {
			copy(b.deb.stable, b.raw)
		}
		b.scans++
		if b.scans < b.p.Debounce {
			return true
		}
		b.ready = true
		return b.emit(b.snapshot()) && b.emit(hardware.Event{Kind: hardware.Status, At: b.now(), Conn: hardware.Connected})
	}
	for _, s := range b.changed {
		code := hardware.Empty
		if b.deb.stable[s] {
			code = hardware.Occupied
		}
		if !b.emit(hardware.Event{Kind: hardware.Change, At: b.now(), Sensor: s, Code: code}) {
			return false
		}
	}
	return true
}

// render writes the frame as it shows now, if it differs from the last.
func (b *Board) render() {
	if b.p.LEDs == nil {
		return
	}
	t := b.now()
	scale := uint16(b.p.Brightness)
	b.mu.Lock()
	for i, l := range b.want {
		r, g, bl := l.At(t)
		b.rgb[3*i] = byte(uint16(r) * scale / 255)
		b.rgb[3*i+1] = byte(uint16(g) * scale / 255)
		b.rgb[3*i+2] = byte(uint16(bl) * scale / 255)
	}
	b.mu.Unlock()
	if b.shown != nil && slices.Equal(b.rgb, b.shown) {
		return
	}
	if _, err := b.p.LEDs.Write(b.rgb); err != nil {
		b.emit(hardware.Event{Kind: hardware.Fault, At: t, Err: fmt.Errorf("gpio: LEDs: %w", err)})
		return
	}
	b.shown = append(b.shown[:0], b.rgb...)
}
