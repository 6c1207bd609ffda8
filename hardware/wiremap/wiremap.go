package wiremap

import (
	"fmt"
	"time"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

var nsewFaces = [...]string{wire.North: "N", wire.East: "E", wire.South: "S", wire.West: "W"}

// Face returns the hardware face of a die roll: "1".."6" for a d6, "N",
// "E", "S", "W" for the N/S/E/W die. Unknown dice give "d<die>:<value>".
func Face(die wire.Die, value uint8) string {
	switch {
	case die == wire.DieD6 && value >= 1 && value <= 6:
		return string(rune('0' + value))
	case die == wire.DieNSEW && value >= 1 && value <= 4:
		return nsewFaces[value]
	}
	return fmt.Sprintf("d%d:%d", die, value)
}

// Roll is the inverse of Face for the two known dice.
func Roll(face string) (wire.Die, uint8, error) {
	if len(face) == 1 {
		c := face[0]
		if c >= '1' && c <= '6' {
			return wire.DieD6, c - '0', nil
		}
		for v, f := range nsewFaces {
			if f == face {
				return wire.DieNSEW, uint8(v), nil
			}
		}
	}
	return 0, 0, fmt.Errorf("wiremap: die face %q (want 1–6 or N, E, S, W)", face)
}

// Button maps a wire button to a hardware button (the numbering is shared);
// ok is false for buttons tabla does not know.
func Button(id wire.ButtonID) (hardware.Button, bool) {
	if id >= wire.ButtonRoll && id <= wire.ButtonNew {
		return hardware.Button(id), true
	}
	return 0, false
}

// ButtonID maps a hardware button to its wire id.
func ButtonID(b hardware.Button) wire.ButtonID { return wire.ButtonID(b) }

// Info describes a board from its Hello.
func Info(h *wire.Hello) hardware.Info {
	name := h.Vendor
	for _, s := range []string{h.Model, h.Serial} {
		if s != "" {
			if name != "" {
				name += "/"
			}
			name += s
		}
	}
	proto := fmt.Sprintf("tabla-wire %d.%d", h.Major, h.Minor)
	if h.Firmware != "" {
		proto += " firmware " + h.Firmware
	}
	return hardware.Info{
		Name:        name,
		Sensors:     int(h.Cells),
		LEDs:        int(h.LEDs),
		Identifying: h.Abilities&wire.AbilityIdentify != 0,
		DieD6:       h.Abilities&wire.AbilityDieD6 != 0,
		DieNSEW:     h.Abilities&wire.AbilityDieNSEW != 0,
		Buttons:     h.Abilities&wire.AbilityButtons != 0,
		Protocol:    proto,
	}
}

// Clock turns a board's 32-bit millisecond clock into a monotonic duration,
// counting wraps (every 49.7 days). The zero value is ready; Reset it when
// the board restarts.
type Clock struct {
	last  uint32
	wraps uint64
	seen  bool
}

// At returns the duration since the board started for a board time.
func (c *Clock) At(ms uint32) time.Duration {
	if c.seen && ms < c.last && c.last-ms > 1<<31 {
		c.wraps++
	}
	c.last, c.seen = ms, true
	return time.Duration(c.wraps<<32+uint64(ms)) * time.Millisecond
}

// Reset forgets the board's clock (after a Hello: the board restarted).
func (c *Clock) Reset() { *c = Clock{} }

// Millis is a duration as a board time.
func Millis(d time.Duration) uint32 { return uint32(d / time.Millisecond) }

// BlinkUnits is a hardware blink as LEDSet.Blink (period in 20 ms units).
func BlinkUnits(b hardware.Blink) uint8 {
	switch b {
	case hardware.Slow:
		return 1000 / wire.BlinkUnitMs
	case hardware.Fast:
		return 250 / wire.BlinkUnitMs
	}
	return 0
}

// Blink is the inverse of BlinkUnits: periods of 500 ms and more are Slow,
// shorter ones Fast, 0 Steady.
func Blink(units uint8) hardware.Blink {
	switch {
	case units == 0:
		return hardware.Steady
	case int(units)*wire.BlinkUnitMs >= 500:
		return hardware.Slow
	}
	return hardware.Fast
}
