package serial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	bugserial "go.bug.st/serial"
)

// Dialer opens the line to a board. The driver calls it for the first
// connection and for every reconnection.
type Dialer func(ctx context.Context) (io.ReadWriteCloser, error)

// USBID is a USB vendor and product id, as four hex digits each.
type USBID struct{ VID, PID string }

// KnownUSB lists the USB-serial bridges tabla boards are built on, tried in
// order by "auto": Arduino Uno/Mega (ATmega16U2), CH340, CP210x, FTDI
// FT232R, the tabla RP2040 firmware on the Pico's own USB port
// (firmware-protocol/firmware/usb_cdc.c: pid.codes' 1209:0001 unless built
// with other USB_VID/USB_PID), a Raspberry Pi Pico with the SDK's USB
// serial (2E8A:000A).
var KnownUSB = []USBID{
	{"2341", "0043"}, {"2341", "0042"}, {"2341", "0001"}, {"2A03", "0043"},
	{"1A86", "7523"}, {"10C4", "EA60"}, {"0403", "6001"}, {"1209", "0001"},
	{"2E8A", "000A"},
}

// ErrNoPort: no serial port matched.
var ErrNoPort = errors.New("serial: no tabla board found")

// readTimeout is how long one read of a real port waits; the reader checks
// for shutdown between reads.
const readTimeout = 100 * time.Millisecond

// PortDialer returns a Dialer for a device path, or for the first known USB
// board when path is "" or "auto".
func PortDialer(path string, baud int, ids []USBID) Dialer {
	if baud == 0 {
		baud = 115200
	}
	if ids == nil {
		ids = KnownUSB
	}
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		p := path
		if p == "" || p == "auto" {
			var err error
			if p, err = FindPort(ids); err != nil {
				return nil, err
			}
		}
		// InitialStatusBits stays nil: setting it fails on a pty, and
		// DTR is raised by default anyway (which resets an Arduino).
		port, err := bugserial.Open(p, &bugserial.Mode{BaudRate: baud, DataBits: 8, Parity: bugserial.NoParity, StopBits: bugserial.OneStopBit})
		if err != nil {
			return nil, fmt.Errorf("serial: opening %s: %w", p, err)
		}
		if err := port.SetReadTimeout(readTimeout); err != nil {
			port.Close()
			return nil, fmt.Errorf("serial: %s: %w", p, err)
		}
		return &timeoutPort{port}, nil
	}
}

// ErrReadTimeout is returned by the port wrapper when a read timed out;
// go.bug.st/serial itself returns (0, nil), on which io.ReadFull spins.
var ErrReadTimeout = errors.New("serial: read timeout")

type timeoutPort struct{ bugserial.Port }

func (p *timeoutPort) Read(b []byte) (int, error) {
	n, err := p.Port.Read(b)
	if n == 0 && err == nil && len(b) > 0 {
		return 0, ErrReadTimeout
	}
	return n, err
}

// unplugged reports whether a read error means the line is gone (as opposed
// to a timeout).
func unplugged(err error) bool {
	if err == nil || errors.Is(err, ErrReadTimeout) || errors.Is(err, io.ErrNoProgress) {
		return false
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return false
	}
	return true
}
