//go:build linux

package gpio

import (
	"fmt"
	"io"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"
	"periph.io/x/devices/v3/apa102"
	"periph.io/x/devices/v3/nrzled"
	"periph.io/x/host/v3"
)

// Open initialises periph's host drivers and builds a Board from cfg.
func Open(cfg Config) (*Board, error) {
	cfg.defaults()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if _, err := host.Init(); err != nil {
		return nil, fmt.Errorf("gpio: periph host init: %w", err)
	}
	var closers []io.Closer
	fail := func(err error) (*Board, error) {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	pin := func(name string) (gpio.PinIO, error) {
		p := gpioreg.ByName(name)
		if p == nil {
			return nil, fmt.Errorf("gpio: no pin %q (names such as GPIO17 or P1_11)", name)
		}
		return p, nil
	}
	var sc Scanner
	switch cfg.Sensors {
	case "matrix":
		var rows []gpio.PinOut
		var cols []gpio.PinIn
		for _, n := range cfg.Rows {
			p, err := pin(n)
			if err != nil {
				return fail(err)
			}
			rows = append(rows, p)
		}
		for _, n := range cfg.Cols {
			p, err := pin(n)
			if err != nil {
				return fail(err)
			}
			cols = append(cols, p)
		}
		m, err := NewMatrix(rows, cols, cfg.ActiveHigh)
		if err != nil {
			return fail(err)
		}
		sc = m
	case "74hc165":
		port, err := spireg.Open(cfg.ShiftSPI)
		if err != nil {
			return fail(fmt.Errorf("gpio: SPI port %q for the 74HC165 chain: %w", cfg.ShiftSPI, err))
		}
		closers = append(closers, port)
		conn, err := port.Connect(physic.Frequency(cfg.ShiftHz)*physic.Hertz, spi.Mode0, 8)
		if err != nil {
			return fail(fmt.Errorf("gpio: 74HC165 SPI: %w", err))
		}
		latch, err := pin(cfg.ShiftLatch)
		if err != nil {
			return fail(err)
		}
		s, err := NewShiftChain(conn, latch, cfg.ShiftChips, cfg.ActiveHigh)
		if err != nil {
			return fail(err)
		}
		sc = s
	}
	var strip Strip
	if cfg.LEDs == "ws2812" || cfg.LEDs == "apa102" {
		port, err := spireg.Open(cfg.LEDSPI)
		if err != nil {
			return fail(fmt.Errorf("gpio: SPI port %q for the LEDs: %w", cfg.LEDSPI, err))
		}
		closers = append(closers, port)
		if cfg.LEDs == "ws2812" {
			d, err := nrzled.NewSPI(port, &nrzled.Opts{NumPixels: cfg.LEDCount, Channels: 3, Freq: 2500 * physic.KiloHertz})
			if err != nil {
				return fail(fmt.Errorf("gpio: WS2812 strip (is spidev.bufsize=65536 on the kernel command line?): %w", err))
			}
			strip = d
		} else {
			if err := port.LimitSpeed(physic.Frequency(cfg.LEDHz) * physic.Hertz); err != nil {
				return fail(fmt.Errorf("gpio: APA102 speed: %w", err))
			}
			d, err := apa102.New(port, &apa102.Opts{NumPixels: cfg.LEDCount, Intensity: 255, Temperature: apa102.NeutralTemp, DisableGlobalPWM: true})
			if err != nil {
				return fail(fmt.Errorf("gpio: APA102 strip: %w", err))
			}
			strip = d
		}
	}
	return New(Parts{
		Name: "gpio " + cfg.Sensors, Sensors: sc, LEDs: strip, NumLEDs: cfg.LEDCount,
		Brightness: cfg.Brightness, ScanInterval: time.Second / time.Duration(cfg.ScanHz),
		Debounce: cfg.Debounce, Closers: closers,
	})
}
