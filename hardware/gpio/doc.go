// Package gpio drives a tabla board wired straight to a Raspberry Pi's
// pins with periph.io: sensors in a row/column matrix on GPIO pins or
// behind chained 74HC165 shift registers read over SPI, LEDs as a WS2812
// strip (periph's nrzled over SPI MOSI) or an APA102 strip (apa102 over
// SPI). Presence sensors only: every occupied cell reads 255.
//
// The core — [Matrix], [ShiftChain], the debouncer, the blink animation
// and [Board] — takes periph's interfaces (gpio.PinIn, gpio.PinOut,
// spi.Conn) and an [Strip] writer, so it is tested on a laptop with
// gpiotest pins and spitest playbacks of the exact SPI transactions.
// [Open] builds the parts from a [Config] (see ParseConfig for the
// "[gpio]" section of a config file, documented in hardware/WIRING.md);
// it needs Linux (GPIO character device and spidev) and returns an error
// elsewhere.
//
// A Board scans at Config.ScanHz, accepts a sensor change after Debounce
// equal scans, emits a Snapshot then Status Connected once the first
// Debounce scans are in, then one Change per accepted change. Blinking
// LEDs are animated on the host (hardware.LED.At).
package gpio
