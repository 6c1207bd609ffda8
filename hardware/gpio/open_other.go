//go:build !linux

package gpio

import "errors"

// ErrNotLinux: direct GPIO needs Linux (GPIO character device, spidev).
var ErrNotLinux = errors.New("gpio: direct GPIO boards need Linux (a Raspberry Pi); use serial: or sim on this system")

// Open is not available on this system.
func Open(cfg Config) (*Board, error) {
	cfg.defaults()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	return nil, ErrNotLinux
}
