package wire_test

import (
	"fmt"
	"os"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

// RAY is the largest board: 29×29 cells.
const rayCells = 29 * 29

// raySnapshot returns a RAY snapshot with every cell occupied by a piece
// code (worst case for size) or, if presence, every other cell occupied by
// an unidentified piece.
func raySnapshot(presence bool) *wire.Snapshot {
	s := &wire.Snapshot{Time: 123456789, Reason: wire.ReasonRequest, Cells: make([]uint8, rayCells)}
	for i := range s.Cells {
		switch {
		case presence && i%2 == 0:
			s.Cells[i] = 255
		case !presence:
			s.Cells[i] = uint8(1 + i%254)
		}
	}
	return s
}

func rayLEDFrame() *wire.LEDFrame {
	l := &wire.LEDFrame{Colors: make([]wire.Color, rayCells)}
	for i := range l.Colors {
		l.Colors[i] = wire.Color{R: uint8(i), G: uint8(i >> 2), B: 200}
	}
	return l
}

// sample is one message of a type, for table tests and benchmarks.
type sample struct {
	name string
	msg  wire.Message
}

func samples() []sample {
	return []sample{
		{"Hello", &wire.Hello{Major: 1, Minor: 0, Abilities: wire.AbilityIdentify | wire.AbilityDieD6 | wire.AbilityButtons,
			Buttons: 0x1F, Cells: rayCells, LEDs: rayCells, MaxRX: 4096, Vendor: "tabla", Model: "RAY", Serial: "R-1", Firmware: "1.0.0"}},
		{"Snapshot/RAY-codes", raySnapshot(false)},
		{"Snapshot/RAY-presence", raySnapshot(true)},
		{"CellChange/1", &wire.CellChange{Time: 1000, Changes: []wire.Change{{Cell: 420, Code: 255}}}},
		{"CellChange/2", &wire.CellChange{Time: 1001, Changes: []wire.Change{{Cell: 420, Code: 0}, {Cell: 421, Code: 9}}}},
		{"Roll", &wire.Roll{Time: 5, Die: wire.DieD6, Value: 3}},
		{"Button", &wire.Button{Time: 6, Button: wire.ButtonConfirm}},
		{"Heartbeat", &wire.Heartbeat{Time: 7, ScanRate: 100}},
		{"Error", &wire.Error{Code: wire.ErrCodeOutOfRange, Seq: 4, Ref: wire.TypeLEDFrame, Detail: 900, Text: "LED 900 of 841"}},
		{"Ack", &wire.Ack{Seq: 3, Ref: wire.TypeConfig}},
		{"HelloRequest", &wire.HelloRequest{Major: 1}},
		{"SnapshotRequest", &wire.SnapshotRequest{}},
		{"Config", &wire.Config{ScanHz: 200, Debounce: 4, HeartbeatMs: 500, SnapshotMs: 60000, Brightness: 128}},
		{"LEDFrame/RAY", rayLEDFrame()},
		{"LEDFrame/partial", &wire.LEDFrame{Start: 100, Colors: []wire.Color{{1, 2, 3}, {0, 0, 0}}}},
		{"LEDSet", &wire.LEDSet{Color: wire.Color{G: 255}, Blink: 25, Ranges: []wire.Range{{Start: 3, Count: 1}, {Start: 30, Count: 29}}}},
	}
}

// stream concatenates frames of msgs with sequence numbers from seq0.
func stream(seq0 uint16, msgs ...wire.Message) []byte {
	var b []byte
	for i, m := range msgs {
		var err error
		b, err = wire.AppendFrame(b, seq0+uint16(i), m)
		if err != nil {
			panic(fmt.Sprintf("%v: %v", m.Type(), err))
		}
	}
	return b
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
