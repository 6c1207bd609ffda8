package companion

import (
	"sync"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
)

// hwFake is a minimal board that counts frames (hardwaretest's fake keeps
// every frame, which a benchmark does not want).
type hwFake struct {
	mu     sync.Mutex
	info   hardware.Info
	events chan hardware.Event
	frames int
	last   []hardware.LED
	lastAt time.Time // when the latest frame was handed over
}

func newHWFake(def *boards.Board) *hwFake {
	return &hwFake{info: hardware.Info{Name: "fake", Sensors: len(def.Sensors), LEDs: def.LEDCount, Buttons: true},
		events: make(chan hardware.Event, 16)}
}

func (f *hwFake) Info() hardware.Info           { return f.info }
func (f *hwFake) Events() <-chan hardware.Event { return f.events }
func (f *hwFake) RequestSnapshot() error        { return nil }
func (f *hwFake) Close() error                  { return nil }
func (f *hwFake) SetLEDs(frame []hardware.LED) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frames++
	f.lastAt = time.Now()
	f.last = append(f.last[:0], frame...)
	return nil
}
