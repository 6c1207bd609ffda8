//go:build !unix

package sim

import (
	"context"
	"errors"
)

// PTY is not available on this system.
type PTY struct{}

// PTYStats counts what the virtual board saw from the host.
type PTYStats struct{ HostFrames, HostBadFrames, LEDFrames, Snapshots, Lines int }

// ErrNoPTY: pseudo-terminals need a Unix system.
var ErrNoPTY = errors.New("sim: pseudo-terminals need a Unix system")

// ServePTY is not available on this system.
func ServePTY(ctx context.Context, vb *Board) (string, error) { return "", ErrNoPTY }

// NewPTY is not available on this system.
func NewPTY(ctx context.Context, vb *Board) (*PTY, error) { return nil, ErrNoPTY }

// Path is empty.
func (p *PTY) Path() string { return "" }

// Stats is empty.
func (p *PTY) Stats() PTYStats { return PTYStats{} }

// StateAt knows nothing.
func (p *PTY) StateAt(seq uint16) ([]byte, bool) { return nil, false }

// Close does nothing.
func (p *PTY) Close() error { return nil }
