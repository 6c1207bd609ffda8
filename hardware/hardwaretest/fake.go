// Package hardwaretest has a fake hardware.Board for tests: the test pushes
// events in and reads the LED frames the code under test sent.
package hardwaretest

import (
	"errors"
	"sync"

	"github.com/tabla-board/tabla/hardware"
)

// Board is a fake board. Its exported fields may be set before use.
type Board struct {
	BoardInfo hardware.Info

	mu       sync.Mutex
	events   chan hardware.Event
	frames   [][]hardware.LED
	snapReqs int
	closed   bool
	// SetLEDsErr, when set, is returned by SetLEDs.
	SetLEDsErr error
	// FrameSent, when set, is called with every frame.
	FrameSent func([]hardware.LED)
}

var _ hardware.Board = (*Board)(nil)

// New returns a fake board with a buffered event channel.
func New(info hardware.Info) *Board {
	return &Board{BoardInfo: info, events: make(chan hardware.Event, 1024)}
}

func (b *Board) Info() hardware.Info { return b.BoardInfo }

func (b *Board) Events() <-chan hardware.Event { return b.events }

// Send delivers an event as if the board had sensed it.
func (b *Board) Send(ev hardware.Event) { b.events <- ev }

func (b *Board) SetLEDs(frame []hardware.LED) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errors.New("hardwaretest: board closed")
	}
	if b.SetLEDsErr != nil {
		return b.SetLEDsErr
	}
	f := append([]hardware.LED(nil), frame...)
	b.frames = append(b.frames, f)
	if b.FrameSent != nil {
		b.FrameSent(f)
	}
	return nil
}

// Frames returns every frame sent so far.
func (b *Board) Frames() [][]hardware.LED {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]hardware.LED(nil), b.frames...)
}

// LastFrame returns the latest frame, nil if none.
func (b *Board) LastFrame() []hardware.LED {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.frames) == 0 {
		return nil
	}
	return b.frames[len(b.frames)-1]
}

func (b *Board) RequestSnapshot() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.snapReqs++
	return nil
}

// SnapshotRequests counts RequestSnapshot calls.
func (b *Board) SnapshotRequests() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.snapReqs
}

func (b *Board) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.events)
	}
	return nil
}
