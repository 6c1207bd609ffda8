package referee

import (
	"fmt"
	"time"
)

// The referee's input vocabulary. It is the referee's own, so that the
// engine never depends on a driver: the owner (the companion) translates a
// board driver's events into these.

// Sensor codes in Input.Code and Input.Codes: 0 an empty cell, 255 a cell
// occupied by a piece the sensor cannot tell, any other value a piece kind
// that the board definition's "code" lines name.
const (
	CodeEmpty    byte = 0
	CodeOccupied byte = 255
)

// InputKind tells inputs apart.
type InputKind uint8

const (
	// SensorSnapshot: Codes holds every sensor's code (index = sensor
	// index); the board is read at once.
	SensorSnapshot InputKind = iota + 1
	// SensorChange: sensor Sensor now reads Code. Changes are collected
	// until the sensors have been quiet for the settle window.
	SensorChange
	// DieRoll: the board's electronic die shows Face.
	DieRoll
	// ButtonPress: a board button was pressed.
	ButtonPress
	// LinkStatus: the link to the board changed; Link says how.
	LinkStatus
	// BoardFault: the board reported a problem; Err says what.
	BoardFault
)

func (k InputKind) String() string {
	switch k {
	case SensorSnapshot:
		return "snapshot"
	case SensorChange:
		return "change"
	case DieRoll:
		return "roll"
	case ButtonPress:
		return "press"
	case LinkStatus:
		return "link"
	case BoardFault:
		return "fault"
	}
	return fmt.Sprintf("InputKind(%d)", uint8(k))
}

// Input is one thing the referee is told about the board.
type Input struct {
	Kind InputKind
	// At is board time: when it happened on the board's clock.
	At     time.Duration
	Sensor int    // SensorChange
	Code   byte   // SensorChange
	Codes  []byte // SensorSnapshot; read during the call only
	Face   string // DieRoll
	Button Button // ButtonPress
	Link   Link   // LinkStatus
	Err    error  // BoardFault
}

// Button is a board button.
type Button uint8

const (
	RollButton Button = iota + 1
	TakebackButton
	HintButton
	ConfirmButton
	NewButton
)

var buttonNames = [...]string{"", "roll", "takeback", "hint", "confirm", "new"}

func (b Button) String() string {
	if b > 0 && int(b) < len(buttonNames) {
		return buttonNames[b]
	}
	return fmt.Sprintf("Button(%d)", uint8(b))
}

// ParseButton reads a button name.
func ParseButton(s string) (Button, error) {
	for i, n := range buttonNames {
		if i > 0 && n == s {
			return Button(i), nil
		}
	}
	return 0, fmt.Errorf("referee: unknown button %q (want roll, takeback, hint, confirm or new)", s)
}

// Link is the state of the link to the board.
type Link uint8

const (
	Connected    Link = iota + 1
	Disconnected      // the link is gone (cable pulled)
	Reconnecting      // a retry is under way
)

func (l Link) String() string {
	switch l {
	case Connected:
		return "connected"
	case Disconnected:
		return "disconnected"
	case Reconnecting:
		return "reconnecting"
	}
	return fmt.Sprintf("Link(%d)", uint8(l))
}

// Light is what one LED shows.
type Light struct {
	R, G, B uint8
	Blink   Blink
}

// Blink is how a light blinks.
type Blink uint8

const (
	Steady Blink = iota
	Slow         // 1 Hz
	Fast         // 4 Hz
)
