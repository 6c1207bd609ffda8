package hardware

import (
	"fmt"
	"time"
)

// Board is a sensor board: sensors under the cells, LEDs beside them, and
// optionally an electronic die and buttons. Sensor and LED indices are the
// board's own; a boards.Board wiring maps them to cells.
type Board interface {
	// Info describes the board (after the handshake for real boards).
	Info() Info
	// Events delivers what the board senses, in order. The channel is closed
	// when the board is closed. After a connection is (re)established the
	// first event is a full Snapshot, so a consumer never has to guess what
	// changed while it was away.
	Events() <-chan Event
	// SetLEDs shows a frame: one LED state per LED index (len Info().LEDs).
	// The board copies it; a frame sent while disconnected is shown on
	// reconnection.
	SetLEDs(frame []LED) error
	// RequestSnapshot asks for a full Snapshot event.
	RequestSnapshot() error
	// Close stops the board and closes the Events channel.
	Close() error
}

// Info describes a board and what it can do.
type Info struct {
	Name        string // identity: vendor/model/serial as the board reports it
	Sensors     int
	LEDs        int
	Identifying bool // sensors report piece kinds, not only presence
	DieD6       bool // an electronic six-sided die
	DieNSEW     bool // an electronic N/S/E/W four-sided die
	Buttons     bool
	Protocol    string // e.g. "tabla-wire 1.0", "gpio", "sim"
}

// Sensor codes: 0 empty, 255 occupied by an unknown piece, others a piece
// kind that the board definition's "code" lines name.
const (
	Empty    byte = 0
	Occupied byte = 255
)

// EventKind tells events apart.
type EventKind uint8

const (
	// Snapshot: Codes holds every sensor's code (index = sensor index).
	Snapshot EventKind = iota + 1
	// Change: sensor Sensor now reads Code.
	Change
	// Roll: the electronic die shows Face (DAHA 1–6 as "1".."6", RAY "N","S","E","W").
	Roll
	// Press: a button was pressed.
	Press
	// Status: the connection changed; Conn says how.
	Status
	// Fault: the board or its link reported a problem (bad frame, sensor
	// error); Err says what. The stream goes on.
	Fault
)

func (k EventKind) String() string {
	switch k {
	case Snapshot:
		return "snapshot"
	case Change:
		return "change"
	case Roll:
		return "roll"
	case Press:
		return "press"
	case Status:
		return "status"
	case Fault:
		return "fault"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Button is a board button.
type Button uint8

const (
	ButtonRoll Button = iota + 1
	ButtonTakeback
	ButtonHint
	ButtonConfirm
	ButtonNew
)

var buttonNames = []string{"", "roll", "takeback", "hint", "confirm", "new"}

func (b Button) String() string {
	if int(b) < len(buttonNames) && b > 0 {
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
	return 0, fmt.Errorf("hardware: unknown button %q (want roll, takeback, hint, confirm or new)", s)
}

// Conn is a connection state.
type Conn uint8

const (
	Connected    Conn = iota + 1
	Disconnected      // the link is gone (cable pulled); the driver retries
	Reconnecting      // a retry is under way
)

func (c Conn) String() string {
	switch c {
	case Connected:
		return "connected"
	case Disconnected:
		return "disconnected"
	case Reconnecting:
		return "reconnecting"
	}
	return fmt.Sprintf("Conn(%d)", uint8(c))
}

// Event is one thing the board reports.
type Event struct {
	Kind EventKind
	// At is when it happened on the board's clock (since the board started),
	// or the host's receive time for drivers without a board clock.
	At  time.Duration
	Seq uint16 // the board's sequence number, where it has one

	Sensor int    // Change
	Code   byte   // Change
	Codes  []byte // Snapshot; the receiver owns it
	Face   string // Roll
	Button Button // Press
	Conn   Conn   // Status
	Err    error  // Fault, and the reason with Status Disconnected
}

func (e Event) String() string {
	switch e.Kind {
	case Snapshot:
		return fmt.Sprintf("snapshot of %d sensors", len(e.Codes))
	case Change:
		return fmt.Sprintf("sensor %d → %d", e.Sensor, e.Code)
	case Roll:
		return "roll " + e.Face
	case Press:
		return "press " + e.Button.String()
	case Status:
		if e.Err != nil {
			return fmt.Sprintf("%s: %v", e.Conn, e.Err)
		}
		return e.Conn.String()
	case Fault:
		return fmt.Sprintf("fault: %v", e.Err)
	}
	return e.Kind.String()
}

// LED is one LED's state.
type LED struct {
	R, G, B uint8
	Blink   Blink
}

// Blink is how an LED blinks; drivers without blinking hardware animate it.
type Blink uint8

const (
	Steady Blink = iota
	Slow         // 1 Hz
	Fast         // 4 Hz
)

// Off is a dark LED.
var Off = LED{}

// Lit reports whether an LED shows anything.
func (l LED) Lit() bool { return l.R|l.G|l.B != 0 }

// At returns the colour an LED shows at time t since an animation started:
// its colour, or dark during the off half of a blink period.
func (l LED) At(t time.Duration) (r, g, b uint8) {
	var period time.Duration
	switch l.Blink {
	case Slow:
		period = time.Second
	case Fast:
		period = 250 * time.Millisecond
	default:
		return l.R, l.G, l.B
	}
	if t%period >= period/2 {
		return 0, 0, 0
	}
	return l.R, l.G, l.B
}
