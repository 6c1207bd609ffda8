package wire

import "strconv"

// Protocol version implemented by this package.
const (
	VersionMajor = 1
	VersionMinor = 0
)

// Frame size limits. A frame body is type (1 byte), sequence number
// (2 bytes), payload, and CRC (2 bytes).
const (
	// HeaderLen is the length of the body header: type and sequence number.
	HeaderLen = 3
	// CRCLen is the length of the CRC trailer of a body.
	CRCLen = 2
	// MinBodyLen is the length of a body with an empty payload.
	MinBodyLen = HeaderLen + CRCLen
	// MaxBodyLen is the largest body, header and CRC included, that any
	// receiver must accept. A board may accept less from the host: it says
	// how much in [Hello].MaxRX.
	MaxBodyLen = 4096
	// MaxPayloadLen is the largest payload.
	MaxPayloadLen = MaxBodyLen - MinBodyLen
	// MaxEncodedLen is the largest COBS-encoded body, without delimiter.
	MaxEncodedLen = MaxBodyLen + (MaxBodyLen+253)/254
	// MaxFrameLen is the largest frame on the wire: encoded body and the
	// 0x00 delimiter.
	MaxFrameLen = MaxEncodedLen + 1
	// MaxCells is the largest cell count a board may declare. A snapshot of
	// MaxCells cells with a code on every cell fits in MaxBodyLen.
	MaxCells = 2048
	// MaxChanges is the largest number of cell changes in one CellChange.
	MaxChanges = 255
	// MaxRanges is the largest number of ranges in one LEDSet.
	MaxRanges = 255
	// MaxStringLen is the longest string in a Hello or Error.
	MaxStringLen = 64
)

// Type is the message type, the first byte of every frame body. Types
// 0x01–0x3F are sent by the board, 0x40–0x7F by the host, and Ack (0x20)
// by either. 0x00 and 0x80–0xFF are reserved.
type Type uint8

// Message types.
const (
	TypeHello      Type = 0x01 // board → host
	TypeSnapshot   Type = 0x02 // board → host
	TypeCellChange Type = 0x03 // board → host
	TypeRoll       Type = 0x04 // board → host
	TypeButton     Type = 0x05 // board → host
	TypeHeartbeat  Type = 0x06 // board → host
	TypeError      Type = 0x07 // board → host
	TypeAck        Type = 0x20 // either direction

	TypeHelloRequest    Type = 0x40 // host → board
	TypeSnapshotRequest Type = 0x41 // host → board
	TypeConfig          Type = 0x42 // host → board
	TypeLEDFrame        Type = 0x43 // host → board
	TypeLEDSet          Type = 0x44 // host → board
)

// Types lists every message type this package knows, in numeric order.
var Types = []Type{
	TypeHello, TypeSnapshot, TypeCellChange, TypeRoll, TypeButton,
	TypeHeartbeat, TypeError, TypeAck, TypeHelloRequest,
	TypeSnapshotRequest, TypeConfig, TypeLEDFrame, TypeLEDSet,
}

var typeNames = [...]string{
	TypeHello:           "Hello",
	TypeSnapshot:        "Snapshot",
	TypeCellChange:      "CellChange",
	TypeRoll:            "Roll",
	TypeButton:          "Button",
	TypeHeartbeat:       "Heartbeat",
	TypeError:           "Error",
	TypeAck:             "Ack",
	TypeHelloRequest:    "HelloRequest",
	TypeSnapshotRequest: "SnapshotRequest",
	TypeConfig:          "Config",
	TypeLEDFrame:        "LEDFrame",
	TypeLEDSet:          "LEDSet",
}

// String returns the name of a known type and "Type(0xNN)" otherwise.
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "Type(0x" + hex2(uint8(t)) + ")"
}

// Known reports whether t is a message type of this protocol version.
func (t Type) Known() bool {
	return int(t) < len(typeNames) && typeNames[t] != ""
}

// FromBoard reports whether t is sent by the board (Ack is sent by both).
func (t Type) FromBoard() bool { return t >= 0x01 && t <= 0x3F }

// FromHost reports whether t is sent by the host (Ack is sent by both).
func (t Type) FromHost() bool { return t == TypeAck || t >= 0x40 && t <= 0x7F }

func hex2(b uint8) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// Abilities is the Hello bitfield of what a board can do.
type Abilities uint16

// Abilities bits.
const (
	// AbilityIdentify: sensors report piece codes 1–254, not only presence
	// (255).
	AbilityIdentify Abilities = 1 << 0
	// AbilityDieD6: the board has an electronic six-sided die.
	AbilityDieD6 Abilities = 1 << 1
	// AbilityDieNSEW: the board has an electronic four-sided N/E/S/W die.
	AbilityDieNSEW Abilities = 1 << 2
	// AbilityButtons: the board has buttons, listed in Hello.Buttons.
	AbilityButtons Abilities = 1 << 3
)

// String lists the set abilities, like "identify|d6|buttons".
func (a Abilities) String() string {
	names := [...]string{"identify", "d6", "nsew", "buttons"}
	var b []byte
	for i, n := range names {
		if a&(1<<i) != 0 {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, n...)
		}
	}
	if rest := a &^ (1<<len(names) - 1); rest != 0 {
		if len(b) > 0 {
			b = append(b, '|')
		}
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, uint64(rest), 16)
	}
	if len(b) == 0 {
		return "none"
	}
	return string(b)
}

// ButtonID names a physical button.
type ButtonID uint8

// Buttons. In Hello.Buttons, button b is present if bit b-1 is set.
const (
	ButtonRoll     ButtonID = 1
	ButtonTakeback ButtonID = 2
	ButtonHint     ButtonID = 3
	ButtonConfirm  ButtonID = 4
	ButtonNew      ButtonID = 5
)

// String returns the button's name.
func (b ButtonID) String() string {
	switch b {
	case ButtonRoll:
		return "roll"
	case ButtonTakeback:
		return "takeback"
	case ButtonHint:
		return "hint"
	case ButtonConfirm:
		return "confirm"
	case ButtonNew:
		return "new"
	}
	return "ButtonID(" + strconv.Itoa(int(b)) + ")"
}

// ButtonMask returns the Hello.Buttons bit of b.
func (b ButtonID) ButtonMask() uint8 {
	if b == 0 || b > 8 {
		return 0
	}
	return 1 << (b - 1)
}

// Die is the kind of an electronic die.
type Die uint8

// Dice.
const (
	DieD6   Die = 1 // faces 1–6
	DieNSEW Die = 2 // faces North=1, East=2, South=3, West=4
)

// String returns the die's name.
func (d Die) String() string {
	switch d {
	case DieD6:
		return "d6"
	case DieNSEW:
		return "nsew"
	}
	return "Die(" + strconv.Itoa(int(d)) + ")"
}

// Faces returns the number of faces of a known die and 0 otherwise.
func (d Die) Faces() int {
	switch d {
	case DieD6:
		return 6
	case DieNSEW:
		return 4
	}
	return 0
}

// Faces of the NSEW die.
const (
	North uint8 = 1
	East  uint8 = 2
	South uint8 = 3
	West  uint8 = 4
)

// SnapshotReason says why the board sent a Snapshot.
type SnapshotReason uint8

// Snapshot reasons.
const (
	// ReasonConnect: the host acknowledged the Hello.
	ReasonConnect SnapshotReason = 0
	// ReasonRequest: the host sent a SnapshotRequest.
	ReasonRequest SnapshotReason = 1
	// ReasonPeriodic: Config.SnapshotMs elapsed.
	ReasonPeriodic SnapshotReason = 2
	// ReasonResync: the board lost events itself (full transmit queue).
	ReasonResync SnapshotReason = 3
)

// String returns the reason's name.
func (r SnapshotReason) String() string {
	switch r {
	case ReasonConnect:
		return "connect"
	case ReasonRequest:
		return "request"
	case ReasonPeriodic:
		return "periodic"
	case ReasonResync:
		return "resync"
	}
	return "SnapshotReason(" + strconv.Itoa(int(r)) + ")"
}

// ErrorCode classifies a board's Error message.
type ErrorCode uint8

// Error codes sent by the board.
const (
	// ErrCodeBadFrame: a host frame failed COBS, length or CRC checks.
	// Detail is a BadFrame* reason; Seq and Ref are 0.
	ErrCodeBadFrame ErrorCode = 1
	// ErrCodeUnknownType: the host sent a type the board does not know.
	// Detail is the type.
	ErrCodeUnknownType ErrorCode = 2
	// ErrCodeBadPayload: the payload is truncated or a field is invalid.
	ErrCodeBadPayload ErrorCode = 3
	// ErrCodeOutOfRange: an LED or cell index beyond the board's count.
	// Detail is the first offending index.
	ErrCodeOutOfRange ErrorCode = 4
	// ErrCodeOverflow: the board dropped events; Detail is how many.
	ErrCodeOverflow ErrorCode = 5
	// ErrCodeHardware: a sensor, LED or die fault; Detail is board-specific.
	ErrCodeHardware ErrorCode = 6
)

// Detail values for ErrCodeBadFrame.
const (
	BadFrameCOBS     uint16 = 1
	BadFrameCRC      uint16 = 2
	BadFrameTooLong  uint16 = 3
	BadFrameTooShort uint16 = 4
)

// String returns the code's name.
func (c ErrorCode) String() string {
	switch c {
	case ErrCodeBadFrame:
		return "bad-frame"
	case ErrCodeUnknownType:
		return "unknown-type"
	case ErrCodeBadPayload:
		return "bad-payload"
	case ErrCodeOutOfRange:
		return "out-of-range"
	case ErrCodeOverflow:
		return "overflow"
	case ErrCodeHardware:
		return "hardware"
	}
	return "ErrorCode(" + strconv.Itoa(int(c)) + ")"
}

// Color is an RGB colour, sent as three bytes R, G, B.
type Color struct{ R, G, B uint8 }

// String returns the colour as "#rrggbb".
func (c Color) String() string {
	return "#" + hexLower(c.R) + hexLower(c.G) + hexLower(c.B)
}

func hexLower(b uint8) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// Range is a run of consecutive LED indexes.
type Range struct {
	Start uint16
	Count uint16
}
