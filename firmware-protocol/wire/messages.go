package wire

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Message is one of the message types of this package: *Hello, *Snapshot,
// *CellChange, *Roll, *Button, *Heartbeat, *Error, *Ack, *HelloRequest,
// *SnapshotRequest, *Config, *LEDFrame, *LEDSet. The set is closed: the
// unexported methods keep other types out.
//
// Messages returned by a [Decoder] or [Parser] are owned by it and are
// overwritten by its next call, slices and all; copy what you keep (see
// the Clone methods).
type Message interface {
	// Type returns the message's type byte.
	Type() Type
	payloadLen() int
	appendPayload(b []byte) []byte
	check() error
	unmarshal(p []byte) error
}

var (
	_ Message = (*Hello)(nil)
	_ Message = (*Snapshot)(nil)
	_ Message = (*CellChange)(nil)
	_ Message = (*Roll)(nil)
	_ Message = (*Button)(nil)
	_ Message = (*Heartbeat)(nil)
	_ Message = (*Error)(nil)
	_ Message = (*Ack)(nil)
	_ Message = (*HelloRequest)(nil)
	_ Message = (*SnapshotRequest)(nil)
	_ Message = (*Config)(nil)
	_ Message = (*LEDFrame)(nil)
	_ Message = (*LEDSet)(nil)
)

var le = binary.LittleEndian

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// setString sets *s to b without allocating when it already holds b.
func setString(s *string, b []byte) {
	if *s != string(b) {
		*s = string(b)
	}
}

// readString reads a length-prefixed string at p[i:] and returns the index
// after it. field names it in errors ("hello vendor").
func readString(p []byte, i int, s *string, field string) (int, error) {
	if i >= len(p) {
		return 0, ErrTruncated
	}
	n := int(p[i])
	i++
	if n > MaxStringLen {
		return 0, invalid("%s: %d bytes, want at most %d", field, n, MaxStringLen)
	}
	if i+n > len(p) {
		return 0, ErrTruncated
	}
	if err := checkText(p[i:i+n], field); err != nil {
		return 0, err
	}
	setString(s, p[i:i+n])
	return i + n, nil
}

// checkText reports the first byte of b that is not printable ASCII
// (0x20–0x7E), the only bytes protocol text may hold.
func checkText[T string | []byte](b T, field string) error {
	for j := 0; j < len(b); j++ {
		if c := b[j]; c < 0x20 || c > 0x7E {
			return invalid("%s: byte 0x%02X at position %d is not printable ASCII", field, c, j)
		}
	}
	return nil
}

func appendString(b []byte, s string) []byte {
	b = append(b, byte(len(s)))
	return append(b, s...)
}

// Hello is the board's announcement, sent after reset and in reply to
// HelloRequest, repeated every second until the host sends Ack for it.
//
// Payload: major u8, minor u8, abilities u16, buttons u8, cells u16, leds u16,
// maxrx u16, then vendor, model, serial, firmware, each a length byte
// (0–64) and that many bytes. Major and minor are frozen at payload
// offsets 0 and 1 for every protocol version; if Major is not VersionMajor
// the decoder fills only Major and Minor and the host refuses the board
// (see CheckVersion).
type Hello struct {
	Major, Minor uint8
	Abilities    Abilities
	// Buttons has bit b-1 set when the board has ButtonID b.
	Buttons uint8
	// Cells is the number of sensor cells, 1–MaxCells.
	Cells uint16
	// LEDs is the number of LEDs, 0–MaxLEDs.
	LEDs uint16
	// MaxRX is the largest frame body the board accepts from the host,
	// MinRX–MaxBodyLen. The host splits LEDFrames to fit.
	MaxRX uint16
	// Identity strings, printable ASCII, at most MaxStringLen bytes each.
	Vendor, Model, Serial, Firmware string
}

// Limits for Hello fields.
const (
	MaxLEDs = 4096
	MinRX   = 64
)

const helloFixed = 11

// Type returns TypeHello.
func (*Hello) Type() Type { return TypeHello }

func (m *Hello) payloadLen() int {
	if m.Major != VersionMajor {
		return 2
	}
	return helloFixed + 4 + len(m.Vendor) + len(m.Model) + len(m.Serial) + len(m.Firmware)
}

func (m *Hello) check() error {
	if m.Major != VersionMajor {
		return nil // only major and minor are meaningful
	}
	switch {
	case m.Cells == 0 || m.Cells > MaxCells:
		return invalid("hello: %d cells, want 1..%d", m.Cells, MaxCells)
	case m.LEDs > MaxLEDs:
		return invalid("hello: %d LEDs, want at most %d", m.LEDs, MaxLEDs)
	case m.MaxRX < MinRX || m.MaxRX > MaxBodyLen:
		return invalid("hello: maxrx %d, want %d..%d", m.MaxRX, MinRX, MaxBodyLen)
	}
	for i, s := range [...]string{m.Vendor, m.Model, m.Serial, m.Firmware} {
		if len(s) > MaxStringLen {
			return invalid("%s: %d bytes, want at most %d", helloFields[i], len(s), MaxStringLen)
		}
		if err := checkText(s, helloFields[i]); err != nil {
			return err
		}
	}
	return nil
}

// helloFields names Hello's strings in errors, in wire order.
var helloFields = [...]string{"hello vendor", "hello model", "hello serial", "hello firmware"}

func (m *Hello) appendPayload(b []byte) []byte {
	b = append(b, m.Major, m.Minor)
	if m.Major != VersionMajor {
		return b
	}
	b = le.AppendUint16(b, uint16(m.Abilities))
	b = append(b, m.Buttons)
	b = le.AppendUint16(b, m.Cells)
	b = le.AppendUint16(b, m.LEDs)
	b = le.AppendUint16(b, m.MaxRX)
	b = appendString(b, m.Vendor)
	b = appendString(b, m.Model)
	b = appendString(b, m.Serial)
	return appendString(b, m.Firmware)
}

func (m *Hello) unmarshal(p []byte) error {
	if len(p) < 2 {
		return ErrTruncated
	}
	m.Major, m.Minor = p[0], p[1]
	if m.Major != VersionMajor {
		m.Abilities, m.Buttons, m.Cells, m.LEDs, m.MaxRX = 0, 0, 0, 0, 0
		m.Vendor, m.Model, m.Serial, m.Firmware = "", "", "", ""
		return nil
	}
	if len(p) < helloFixed {
		return ErrTruncated
	}
	m.Abilities = Abilities(le.Uint16(p[2:]))
	m.Buttons = p[4]
	m.Cells = le.Uint16(p[5:])
	m.LEDs = le.Uint16(p[7:])
	m.MaxRX = le.Uint16(p[9:])
	i := helloFixed
	var err error
	for j, s := range [...]*string{&m.Vendor, &m.Model, &m.Serial, &m.Firmware} {
		if i, err = readString(p, i, s, helloFields[j]); err != nil {
			return err
		}
	}
	if m.Cells == 0 || m.Cells > MaxCells || m.LEDs > MaxLEDs ||
		m.MaxRX < MinRX || m.MaxRX > MaxBodyLen {
		return ErrInvalid
	}
	return nil
}

// CheckVersion returns a *VersionError wrapping ErrIncompatible if the
// board's major version differs from VersionMajor. A board with the same
// major and a newer minor is compatible: the host ignores message types
// and trailing payload bytes it does not know.
func (m *Hello) CheckVersion() error {
	if m.Major != VersionMajor {
		return &VersionError{
			BoardMajor: m.Major, BoardMinor: m.Minor,
			HostMajor: VersionMajor, HostMinor: VersionMinor,
		}
	}
	return nil
}

// HasButton reports whether the board has button b.
func (m *Hello) HasButton(b ButtonID) bool {
	return m.Abilities&AbilityButtons != 0 && m.Buttons&b.ButtonMask() != 0
}

// Snapshot is the state of every cell.
//
// Payload: time u32, reason u8, flags u8, cells u16, presence bitmap of
// ceil(cells/8) bytes (cell i is bit i%8 of byte i/8; unused high bits of
// the last byte are 0), then, if flags bit 0 is set, one code (1–255) per
// occupied cell in cell order. Without bit 0 every occupied cell is 255
// (presence only). Flag bits 1–7 are reserved: sent as 0, ignored.
//
// The snapshot is the state as of its frame's sequence number: CellChange
// frames with later sequence numbers apply on top of it.
type Snapshot struct {
	// Time is the board's clock in milliseconds (wraps after 49.7 days).
	Time   uint32
	Reason SnapshotReason
	// Cells holds one code per cell: 0 empty, 1–254 a piece code, 255
	// occupied by an unidentified piece. At most MaxCells.
	Cells []uint8
}

const snapshotFixed = 8

// Snapshot flag bits.
const snapshotCodes = 1 << 0

// Type returns TypeSnapshot.
func (*Snapshot) Type() Type { return TypeSnapshot }

func (m *Snapshot) counts() (occupied int, codes bool) {
	for _, c := range m.Cells {
		if c != 0 {
			occupied++
			if c != 255 {
				codes = true
			}
		}
	}
	return occupied, codes
}

func (m *Snapshot) payloadLen() int {
	n := snapshotFixed + (len(m.Cells)+7)/8
	if occ, codes := m.counts(); codes {
		n += occ
	}
	return n
}

func (m *Snapshot) check() error {
	if len(m.Cells) > MaxCells {
		return invalid("snapshot: %d cells, want at most %d", len(m.Cells), MaxCells)
	}
	return nil
}

func (m *Snapshot) appendPayload(b []byte) []byte {
	b = le.AppendUint32(b, m.Time)
	_, codes := m.counts()
	var flags byte
	if codes {
		flags |= snapshotCodes
	}
	b = append(b, byte(m.Reason), flags)
	b = le.AppendUint16(b, uint16(len(m.Cells)))
	var acc byte
	for i, c := range m.Cells {
		if c != 0 {
			acc |= 1 << (i & 7)
		}
		if i&7 == 7 {
			b = append(b, acc)
			acc = 0
		}
	}
	if len(m.Cells)&7 != 0 {
		b = append(b, acc)
	}
	if codes {
		for _, c := range m.Cells {
			if c != 0 {
				b = append(b, c)
			}
		}
	}
	return b
}

func (m *Snapshot) unmarshal(p []byte) error {
	if len(p) < snapshotFixed {
		return ErrTruncated
	}
	m.Time = le.Uint32(p)
	m.Reason = SnapshotReason(p[4])
	flags := p[5]
	n := int(le.Uint16(p[6:]))
	if n > MaxCells {
		return ErrInvalid
	}
	nb := (n + 7) / 8
	if len(p) < snapshotFixed+nb {
		return ErrTruncated
	}
	bitmap := p[snapshotFixed : snapshotFixed+nb]
	if n&7 != 0 && bitmap[nb-1]>>(n&7) != 0 {
		return ErrInvalid
	}
	m.Cells = slices.Grow(m.Cells[:0], n)[:n]
	codes := p[snapshotFixed+nb:]
	k := 0
	for i := range m.Cells {
		if bitmap[i>>3]&(1<<(i&7)) == 0 {
			m.Cells[i] = 0
			continue
		}
		if flags&snapshotCodes == 0 {
			m.Cells[i] = 255
			continue
		}
		if k >= len(codes) {
			return ErrTruncated
		}
		if codes[k] == 0 {
			return ErrInvalid
		}
		m.Cells[i] = codes[k]
		k++
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *Snapshot) Clone() *Snapshot {
	c := *m
	c.Cells = slices.Clone(m.Cells)
	return &c
}

// Change is one cell's new code: 0 empty, 1–254 a piece code, 255 occupied.
type Change struct {
	Cell uint16
	Code uint8
}

// CellChange reports the cells that changed in one debounced scan, in one
// frame with one sequence number.
//
// Payload: time u32, count u8 (1–255), count × (cell u16, code u8).
type CellChange struct {
	// Time is the board's clock in milliseconds when the change became
	// stable.
	Time    uint32
	Changes []Change
}

const cellChangeFixed = 5

// Type returns TypeCellChange.
func (*CellChange) Type() Type { return TypeCellChange }

func (m *CellChange) payloadLen() int { return cellChangeFixed + 3*len(m.Changes) }

func (m *CellChange) check() error {
	if len(m.Changes) == 0 || len(m.Changes) > MaxChanges {
		return invalid("cell change: %d changes, want 1..%d", len(m.Changes), MaxChanges)
	}
	for _, c := range m.Changes {
		if c.Cell >= MaxCells {
			return invalid("cell change: cell %d, want below %d", c.Cell, MaxCells)
		}
	}
	return nil
}

func (m *CellChange) appendPayload(b []byte) []byte {
	b = le.AppendUint32(b, m.Time)
	b = append(b, byte(len(m.Changes)))
	for _, c := range m.Changes {
		b = le.AppendUint16(b, c.Cell)
		b = append(b, c.Code)
	}
	return b
}

func (m *CellChange) unmarshal(p []byte) error {
	if len(p) < cellChangeFixed {
		return ErrTruncated
	}
	m.Time = le.Uint32(p)
	n := int(p[4])
	if n == 0 {
		return ErrInvalid
	}
	if len(p) < cellChangeFixed+3*n {
		return ErrTruncated
	}
	m.Changes = slices.Grow(m.Changes[:0], n)[:n]
	q := p[cellChangeFixed:]
	for i := range m.Changes {
		c := Change{Cell: le.Uint16(q[3*i:]), Code: q[3*i+2]}
		if c.Cell >= MaxCells {
			return ErrInvalid
		}
		m.Changes[i] = c
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *CellChange) Clone() *CellChange {
	c := *m
	c.Changes = slices.Clone(m.Changes)
	return &c
}

// Roll reports a throw of the board's electronic die.
//
// Payload: time u32, die u8, value u8. A d6 shows 1–6, an NSEW die 1–4
// (North, East, South, West). Values of unknown dice are passed through.
type Roll struct {
	Time  uint32
	Die   Die
	Value uint8
}

// Type returns TypeRoll.
func (*Roll) Type() Type { return TypeRoll }

func (m *Roll) payloadLen() int { return 6 }

func (m *Roll) check() error {
	if !m.valid() {
		return invalid("roll: %v showing %d", m.Die, m.Value)
	}
	return nil
}

func (m *Roll) valid() bool {
	if m.Die == 0 || m.Value == 0 {
		return false
	}
	f := m.Die.Faces()
	return f == 0 || int(m.Value) <= f
}

func (m *Roll) appendPayload(b []byte) []byte {
	b = le.AppendUint32(b, m.Time)
	return append(b, byte(m.Die), m.Value)
}

func (m *Roll) unmarshal(p []byte) error {
	if len(p) < 6 {
		return ErrTruncated
	}
	m.Time, m.Die, m.Value = le.Uint32(p), Die(p[4]), p[5]
	if !m.valid() {
		return ErrInvalid
	}
	return nil
}

// Button reports a debounced press of a board button. With a die, the
// roll button makes a Roll instead.
//
// Payload: time u32, button u8 (1–255; unknown buttons are passed through).
type Button struct {
	Time   uint32
	Button ButtonID
}

// Type returns TypeButton.
func (*Button) Type() Type { return TypeButton }

func (m *Button) payloadLen() int { return 5 }

func (m *Button) check() error {
	if m.Button == 0 {
		return invalid("button: id 0")
	}
	return nil
}

func (m *Button) appendPayload(b []byte) []byte {
	b = le.AppendUint32(b, m.Time)
	return append(b, byte(m.Button))
}

func (m *Button) unmarshal(p []byte) error {
	if len(p) < 5 {
		return ErrTruncated
	}
	m.Time, m.Button = le.Uint32(p), ButtonID(p[4])
	if m.Button == 0 {
		return ErrInvalid
	}
	return nil
}

// Heartbeat tells the host the board is alive. It also carries the sequence
// number, so a lost last CellChange shows as a gap within one interval.
//
// Payload: time u32, scan rate u16 (scans in the last second), rx errors
// u16 (bad host frames since reset, wrapping).
type Heartbeat struct {
	Time     uint32
	ScanRate uint16
	RxErrors uint16
}

// Type returns TypeHeartbeat.
func (*Heartbeat) Type() Type { return TypeHeartbeat }

func (m *Heartbeat) payloadLen() int { return 8 }
func (m *Heartbeat) check() error    { return nil }

func (m *Heartbeat) appendPayload(b []byte) []byte {
	b = le.AppendUint32(b, m.Time)
	b = le.AppendUint16(b, m.ScanRate)
	return le.AppendUint16(b, m.RxErrors)
}

func (m *Heartbeat) unmarshal(p []byte) error {
	if len(p) < 8 {
		return ErrTruncated
	}
	m.Time, m.ScanRate, m.RxErrors = le.Uint32(p), le.Uint16(p[4:]), le.Uint16(p[6:])
	return nil
}

// Error is the board's complaint, usually about a host frame.
//
// Payload: code u8, seq u16 and type u8 of the host frame it refers to
// (0 and 0 if none), detail u16, text length u8 (0–64), text.
type Error struct {
	Code ErrorCode
	// Seq and Ref identify the host frame this error answers; Ref is 0 if
	// the error answers no frame (bad frame, overflow, hardware).
	Seq    uint16
	Ref    Type
	Detail uint16
	Text   string
}

const errorFixed = 7

// Type returns TypeError.
func (*Error) Type() Type { return TypeError }

func (m *Error) payloadLen() int { return errorFixed + len(m.Text) }

func (m *Error) check() error {
	if m.Code == 0 {
		return invalid("error: code 0")
	}
	if len(m.Text) > MaxStringLen {
		return invalid("error text: %d bytes, want at most %d", len(m.Text), MaxStringLen)
	}
	return checkText(m.Text, "error text")
}

func (m *Error) appendPayload(b []byte) []byte {
	b = append(b, byte(m.Code))
	b = le.AppendUint16(b, m.Seq)
	b = append(b, byte(m.Ref))
	b = le.AppendUint16(b, m.Detail)
	return appendString(b, m.Text)
}

func (m *Error) unmarshal(p []byte) error {
	if len(p) < errorFixed {
		return ErrTruncated
	}
	m.Code, m.Seq, m.Ref, m.Detail = ErrorCode(p[0]), le.Uint16(p[1:]), Type(p[3]), le.Uint16(p[4:])
	if _, err := readString(p, 6, &m.Text, "error text"); err != nil {
		return err
	}
	if m.Code == 0 {
		return ErrInvalid
	}
	return nil
}

// Error formats the board's error for logs.
func (m *Error) Error() string {
	s := "board error " + m.Code.String()
	if m.Ref != 0 {
		s += " for " + m.Ref.String() + fmt.Sprintf(" seq %d", m.Seq)
	}
	s += fmt.Sprintf(" (detail %d)", m.Detail)
	if m.Text != "" {
		s += ": " + m.Text
	}
	return s
}

// Ack acknowledges a frame. The board acks Config, LEDFrame and LEDSet
// after applying them; the host acks Hello.
//
// Payload: seq u16 and type u8 of the acknowledged frame.
type Ack struct {
	Seq uint16
	Ref Type
}

// Type returns TypeAck.
func (*Ack) Type() Type { return TypeAck }

func (m *Ack) payloadLen() int { return 3 }

func (m *Ack) check() error {
	if m.Ref == 0 {
		return invalid("ack: type 0")
	}
	return nil
}

func (m *Ack) appendPayload(b []byte) []byte {
	b = le.AppendUint16(b, m.Seq)
	return append(b, byte(m.Ref))
}

func (m *Ack) unmarshal(p []byte) error {
	if len(p) < 3 {
		return ErrTruncated
	}
	m.Seq, m.Ref = le.Uint16(p), Type(p[2])
	if m.Ref == 0 {
		return ErrInvalid
	}
	return nil
}

// HelloRequest asks the board to send Hello (for boards that do not reset
// when the port opens, and after the host restarts).
//
// Payload: host major u8, host minor u8.
type HelloRequest struct {
	Major, Minor uint8
}

// Type returns TypeHelloRequest.
func (*HelloRequest) Type() Type { return TypeHelloRequest }

func (m *HelloRequest) payloadLen() int { return 2 }
func (m *HelloRequest) check() error    { return nil }

func (m *HelloRequest) appendPayload(b []byte) []byte {
	return append(b, m.Major, m.Minor)
}

func (m *HelloRequest) unmarshal(p []byte) error {
	if len(p) < 2 {
		return ErrTruncated
	}
	m.Major, m.Minor = p[0], p[1]
	return nil
}

// SnapshotRequest asks for a Snapshot with reason ReasonRequest. Empty
// payload.
type SnapshotRequest struct{}

// Type returns TypeSnapshotRequest.
func (*SnapshotRequest) Type() Type { return TypeSnapshotRequest }

func (*SnapshotRequest) payloadLen() int               { return 0 }
func (*SnapshotRequest) check() error                  { return nil }
func (*SnapshotRequest) appendPayload(b []byte) []byte { return b }
func (*SnapshotRequest) unmarshal([]byte) error        { return nil }

// Config sets the board's timing. The board clamps values to what it can
// do and reports its real scan rate in Heartbeat.
//
// Payload: scan rate u16 (Hz, ≥ 1), debounce u8 (scans, ≥ 1), heartbeat
// interval u16 (ms, 0 = off), snapshot interval u32 (ms, 0 = off),
// brightness u8 (0–255 scale applied to every LED).
type Config struct {
	ScanHz      uint16
	Debounce    uint8
	HeartbeatMs uint16
	SnapshotMs  uint32
	Brightness  uint8
}

// DefaultConfig is what a board uses after reset.
var DefaultConfig = Config{ScanHz: 100, Debounce: 3, HeartbeatMs: 1000, SnapshotMs: 0, Brightness: 255}

// Type returns TypeConfig.
func (*Config) Type() Type { return TypeConfig }

func (m *Config) payloadLen() int { return 10 }

func (m *Config) check() error {
	if m.ScanHz == 0 || m.Debounce == 0 {
		return invalid("config: scan rate %d Hz, debounce %d scans, want both ≥ 1", m.ScanHz, m.Debounce)
	}
	return nil
}

func (m *Config) appendPayload(b []byte) []byte {
	b = le.AppendUint16(b, m.ScanHz)
	b = append(b, m.Debounce)
	b = le.AppendUint16(b, m.HeartbeatMs)
	b = le.AppendUint32(b, m.SnapshotMs)
	return append(b, m.Brightness)
}

func (m *Config) unmarshal(p []byte) error {
	if len(p) < 10 {
		return ErrTruncated
	}
	m.ScanHz, m.Debounce, m.HeartbeatMs = le.Uint16(p), p[2], le.Uint16(p[3:])
	m.SnapshotMs, m.Brightness = le.Uint32(p[5:]), p[9]
	if m.ScanHz == 0 || m.Debounce == 0 {
		return ErrInvalid
	}
	return nil
}

// LEDFrame sets LEDs Start, Start+1, … to Colors, steady (no blink). A
// whole frame starts at 0 and covers every LED; a partial frame any run.
//
// Payload: start u16, count u16, count × (r, g, b).
type LEDFrame struct {
	Start  uint16
	Colors []Color
}

// MaxLEDFrameColors is the most colours one LEDFrame can carry.
const MaxLEDFrameColors = (MaxPayloadLen - 4) / 3

// LEDFrameCapacity returns how many colours fit in an LEDFrame whose body
// may be maxBody bytes long (use Hello.MaxRX).
func LEDFrameCapacity(maxBody int) int {
	n := (min(maxBody, MaxBodyLen) - MinBodyLen - 4) / 3
	return max(n, 0)
}

// Type returns TypeLEDFrame.
func (*LEDFrame) Type() Type { return TypeLEDFrame }

func (m *LEDFrame) payloadLen() int { return 4 + 3*len(m.Colors) }

func (m *LEDFrame) check() error {
	if len(m.Colors) > MaxLEDFrameColors || int(m.Start)+len(m.Colors) > MaxLEDs {
		return invalid("LED frame: %d colours from %d, want at most %d and below LED %d",
			len(m.Colors), m.Start, MaxLEDFrameColors, MaxLEDs)
	}
	return nil
}

func (m *LEDFrame) appendPayload(b []byte) []byte {
	b = le.AppendUint16(b, m.Start)
	b = le.AppendUint16(b, uint16(len(m.Colors)))
	for _, c := range m.Colors {
		b = append(b, c.R, c.G, c.B)
	}
	return b
}

func (m *LEDFrame) unmarshal(p []byte) error {
	if len(p) < 4 {
		return ErrTruncated
	}
	m.Start = le.Uint16(p)
	n := int(le.Uint16(p[2:]))
	if int(m.Start)+n > MaxLEDs {
		return ErrInvalid
	}
	if len(p) < 4+3*n {
		return ErrTruncated
	}
	m.Colors = slices.Grow(m.Colors[:0], n)[:n]
	q := p[4 : 4+3*n]
	for i := range m.Colors {
		m.Colors[i] = Color{q[3*i], q[3*i+1], q[3*i+2]}
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *LEDFrame) Clone() *LEDFrame {
	c := *m
	c.Colors = slices.Clone(m.Colors)
	return &c
}

// BlinkUnitMs is the unit of LEDSet.Blink.
const BlinkUnitMs = 20

// LEDSet sets every LED in Ranges to one colour, steady or blinking: the
// compact way to highlight a few cells or clear the board.
//
// Payload: r u8, g u8, b u8, blink u8, count u8 (0–255), count ×
// (start u16, count u16).
type LEDSet struct {
	Color Color
	// Blink is the full on+off period in units of BlinkUnitMs (20 ms);
	// 0 is steady. 25 blinks at 2 Hz.
	Blink  uint8
	Ranges []Range
}

// Type returns TypeLEDSet.
func (*LEDSet) Type() Type { return TypeLEDSet }

func (m *LEDSet) payloadLen() int { return 5 + 4*len(m.Ranges) }

func (m *LEDSet) check() error {
	if len(m.Ranges) > MaxRanges {
		return invalid("LED set: %d ranges, want at most %d", len(m.Ranges), MaxRanges)
	}
	for _, r := range m.Ranges {
		if int(r.Start)+int(r.Count) > MaxLEDs {
			return invalid("LED set: range %d+%d beyond LED %d", r.Start, r.Count, MaxLEDs)
		}
	}
	return nil
}

func (m *LEDSet) appendPayload(b []byte) []byte {
	b = append(b, m.Color.R, m.Color.G, m.Color.B, m.Blink, byte(len(m.Ranges)))
	for _, r := range m.Ranges {
		b = le.AppendUint16(b, r.Start)
		b = le.AppendUint16(b, r.Count)
	}
	return b
}

func (m *LEDSet) unmarshal(p []byte) error {
	if len(p) < 5 {
		return ErrTruncated
	}
	m.Color, m.Blink = Color{p[0], p[1], p[2]}, p[3]
	n := int(p[4])
	if len(p) < 5+4*n {
		return ErrTruncated
	}
	m.Ranges = slices.Grow(m.Ranges[:0], n)[:n]
	q := p[5:]
	for i := range m.Ranges {
		r := Range{Start: le.Uint16(q[4*i:]), Count: le.Uint16(q[4*i+2:])}
		if int(r.Start)+int(r.Count) > MaxLEDs {
			return ErrInvalid
		}
		m.Ranges[i] = r
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *LEDSet) Clone() *LEDSet {
	c := *m
	c.Ranges = slices.Clone(m.Ranges)
	return &c
}
