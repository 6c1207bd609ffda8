// Package fwboard turns a board definition (boards.Board) into what the
// reference firmware needs at build time: the number of sensors and LEDs,
// how many bits of the 74HC165 sensor chain each cell takes, the table of
// piece codes those bits select, the die and the buttons. [Header] writes
// it as the C header tabla_board.h that `make BOARD=file.board` includes
// into every firmware source (firmware-protocol/firmware/gen is the command).
//
// The same [Layout] tells a simulator or a test what value the sensors of a
// cell report for a piece: [Layout.Value].
package fwboard

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/tabla-board/tabla/boards"
)

// Protocol limits (firmware-protocol/PROTOCOL.md, Hello).
const (
	MaxCells = 2048
	MaxLEDs  = 4096
)

// Die kinds a board can carry.
const (
	DieNone = "none"
	DieD6   = "d6"
	DieNSEW = "nsew"
)

// Options choose what the board file does not say.
type Options struct {
	// Presence builds presence-only sensors (one chain bit per cell) even
	// if the board file lists piece codes.
	Presence bool
	// Die is DieNone, DieD6, DieNSEW, or "" for the game's own: a d6 for
	// DAHA, the N/E/S/W die for RAY, none otherwise.
	Die string
	// Model is the Hello model string ("" for the board's name).
	Model string
	// Arduino adds to the header the build settings the Makefile gives on
	// its command line (BAUD, TABLA_LED_BITS, TABLA_LED_DEFER_MS,
	// TABLA_RX_CAP per MCU), for the Arduino sketch
	// (firmware-protocol/arduino/tabla), which has no command line.
	Arduino bool
}

// Layout is a board as the firmware sees it.
type Layout struct {
	Board *boards.Board
	// Cells is the number of sensors (the protocol's cells), LEDs the
	// strip's length.
	Cells, LEDs int
	// SensorBits is how many chain bits each cell takes; CodeBits how many
	// the firmware keeps per cell (the next power of two).
	SensorBits, CodeBits int
	// Codes are the wire codes that sensor values 1..len(Codes) stand for
	// (ascending); Kinds the piece kind of each. Value 0 is empty, any
	// other value an unidentified piece (wire code 255).
	Codes []byte
	Kinds []string
	// Die is DieNone, DieD6 or DieNSEW.
	Die string
	// Buttons has bit b-1 set for each button b (all five).
	Buttons uint8
	Model   string
	// Arduino: the header carries the build settings (Options.Arduino).
	Arduino bool
}

// New works out the layout of a board.
func New(b *boards.Board, o Options) (*Layout, error) {
	l := &Layout{Board: b, Cells: len(b.Sensors), LEDs: b.LEDCount, Buttons: 0x1F, Model: o.Model, Arduino: o.Arduino}
	if l.Cells < 1 || l.Cells > MaxCells {
		return nil, fmt.Errorf("fwboard: %s has %d sensors; the protocol allows 1–%d", b.Name, l.Cells, MaxCells)
	}
	if l.LEDs > MaxLEDs {
		return nil, fmt.Errorf("fwboard: %s has %d LEDs; the protocol allows at most %d", b.Name, l.LEDs, MaxLEDs)
	}
	if l.Model == "" {
		l.Model = b.Name
	}
	if len(l.Model) > 64 || strings.ContainsFunc(l.Model, func(r rune) bool { return r < 0x20 || r > 0x7E || r == '"' || r == '\\' }) {
		return nil, fmt.Errorf("fwboard: model %q: want at most 64 printable ASCII characters, no quotes or backslashes", l.Model)
	}
	if !o.Presence {
		for c := range b.Codes {
			l.Codes = append(l.Codes, c)
		}
		slices.Sort(l.Codes)
		for _, c := range l.Codes {
			l.Kinds = append(l.Kinds, b.Codes[c])
		}
	}
	l.SensorBits = max(1, bits.Len(uint(len(l.Codes))))
	l.CodeBits = 1
	for l.CodeBits < l.SensorBits {
		l.CodeBits *= 2
	}
	switch o.Die {
	case "":
		switch b.Game {
		case "daha":
			l.Die = DieD6
		case "ray":
			l.Die = DieNSEW
		default:
			l.Die = DieNone
		}
	case DieNone, DieD6, DieNSEW:
		l.Die = o.Die
	default:
		return nil, fmt.Errorf("fwboard: unknown die %q (want none, d6 or nsew)", o.Die)
	}
	return l, nil
}

// Identifying reports whether the sensors tell piece kinds apart.
func (l *Layout) Identifying() bool { return len(l.Codes) > 0 }

// Value is the sensor value a cell reports with the piece kind on it
// ("" for an empty cell): 0 empty, 1 on a presence board, else the code's
// position in Codes plus one. An unknown kind reads as unidentified.
func (l *Layout) Value(kind string) uint8 {
	if kind == "" {
		return 0
	}
	if !l.Identifying() {
		return 1
	}
	if i := slices.Index(l.Kinds, kind); i >= 0 {
		return uint8(i + 1)
	}
	return uint8(1<<l.SensorBits - 1) // may be a code when every value is one
}

// ChainBits is the length of the sensor chain in bits, ChainChips in
// 74HC165s.
func (l *Layout) ChainBits() int  { return l.Cells * l.SensorBits }
func (l *Layout) ChainChips() int { return (l.ChainBits() + 7) / 8 }

// Abilities is the Hello abilities C expression.
func (l *Layout) Abilities() string {
	var ab []string
	if l.Identifying() {
		ab = append(ab, "TABLA_AB_IDENTIFY")
	}
	switch l.Die {
	case DieD6:
		ab = append(ab, "TABLA_AB_D6")
	case DieNSEW:
		ab = append(ab, "TABLA_AB_NSEW")
	}
	ab = append(ab, "TABLA_AB_BUTTONS")
	return "(" + strings.Join(ab, " | ") + ")"
}

// Header is tabla_board.h for the board: the macros the firmware is built
// with, and as comments the chip and input of every cell's sensor bits and
// the cell of every LED, for whoever solders the board.
func Header(l *Layout) []byte {
	b := l.Board
	var w bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	p("/* Generated from %s by firmware-protocol/firmware/gen: do not edit. */\n", cComment(b.File))
	p("#ifndef TABLA_BOARD_H\n#define TABLA_BOARD_H\n\n")
	p("/* %s (%s): %d cells, %d LEDs. */\n", cComment(b.Name), cComment(b.Game), l.Cells, l.LEDs)
	p("#define TABLA_BOARD_NAME %s\n", cString(b.Name))
	p("#define TABLA_BOARD_MODEL %s\n", cString(l.Model))
	p("#define TABLA_BOARD_CELLS %du\n", l.Cells)
	p("#define TABLA_BOARD_LEDS %du\n", l.LEDs)
	p("#define TABLA_BOARD_ABILITIES %s\n", l.Abilities())
	p("#define TABLA_BOARD_BUTTONS 0x%02Xu\n\n", l.Buttons)
	p("/* The sensor chain: %d bits per cell, %d bits in %d 74HC165s. */\n", l.SensorBits, l.ChainBits(), l.ChainChips())
	p("#define TABLA_SENSOR_BITS %du\n", l.SensorBits)
	p("#define TABLA_CHAIN_BITS %du\n", l.ChainBits())
	p("#define TABLA_CODE_BITS %du\n", l.CodeBits)
	p("#define TABLA_CODE_COUNT %du\n", len(l.Codes))
	if l.Identifying() {
		var codes, kinds []string
		for i, c := range l.Codes {
			codes = append(codes, fmt.Sprintf("%du", c))
			kinds = append(kinds, fmt.Sprintf("%d %s", i+1, cComment(l.Kinds[i])))
		}
		p("/* Sensor value: 0 empty, %s; others unidentified (255). */\n", strings.Join(kinds, ", "))
		p("#define TABLA_CODE_TABLE {%s}\n", strings.Join(codes, ", "))
	} else {
		p("/* Sensor value: 0 empty, 1 a piece (presence only). */\n")
	}
	p("\n#define TABLA_MAX_CELLS TABLA_BOARD_CELLS\n")
	p("#define TABLA_MAX_LEDS %du\n", max(1, l.LEDs))
	p("\n/*\n * sensor  chip  inputs  cell\n")
	for i, c := range b.Sensors {
		first := i * l.SensorBits
		var in []string
		for k := range l.SensorBits {
			in = append(in, string(rune('H'-(first+k)%8)))
		}
		chip := fmt.Sprint(first / 8)
		if last := (first + l.SensorBits - 1) / 8; last != first/8 {
			chip += "-" + fmt.Sprint(last)
		}
		p(" * %6d  %4s  %-6s  %s\n", i, chip, strings.Join(in, ""), cComment(b.Cells[c].Name))
	}
	p(" *\n * LED  cell\n")
	byLED := make([]string, l.LEDs)
	for c, n := range b.LEDs {
		if n >= 0 {
			byLED[n] = b.Cells[c].Name
		}
	}
	for n, name := range byLED {
		if name == "" {
			name = "(none)"
		}
		p(" * %4d  %s\n", n, cComment(name))
	}
	p(" */\n")
	if l.Arduino {
		w.WriteString(arduinoSettings)
	}
	p("\n#endif /* TABLA_BOARD_H */\n")
	return w.Bytes()
}

// cString quotes s as a C string literal (octal escapes for anything but
// printable ASCII).
func cString(s string) string {
	var w strings.Builder
	w.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			w.WriteByte('\\')
			w.WriteByte(c)
		case c < 0x20 || c > 0x7E || c == '?':
			fmt.Fprintf(&w, "\\%03o", c)
		default:
			w.WriteByte(c)
		}
	}
	w.WriteByte('"')
	return w.String()
}

// cComment keeps a name from ending a C comment.
func cComment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// arduinoSettings are the Makefile's build settings for the board-file
// builds (BAUD, BOARD_DEFS, MEGA_DEFS, UNO_DEFS), as the Arduino sketch's
// header states them; the shared sources include tabla_board.h themselves
// when ARDUINO is defined (the IDE has no -include).
const arduinoSettings = `
/*
 * Build settings of the Arduino sketch (firmware-protocol/arduino/tabla),
 * the same as the Makefile's command line: 115200 baud, LEDs as 4-bit
 * palette indices, the strip driven once the line has been quiet 2 ms, and
 * the receive buffer the MCU chosen in Tools > Board can afford.
 */
#ifndef BAUD
#define BAUD 115200UL
#endif
#define TABLA_LED_BITS 4
#define TABLA_LED_DEFER_MS 2
#if defined(__AVR_ATmega2560__)
#define TABLA_RX_CAP 512
#elif defined(__AVR_ATmega328P__)
#define TABLA_RX_CAP 256
#else
#error "tabla builds for the Arduino Mega 2560 (ATmega2560) or the Uno (ATmega328P): choose one in Tools > Board"
#endif
`
