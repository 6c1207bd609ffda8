package wire_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

// budgetTable renders PROTOCOL.md's wire-time budget for the largest board
// (RAY, 841 cells and LEDs). Wire bytes are the worst case: a body without
// zero bytes, so COBS adds its maximum, plus the delimiter. A byte is 10
// bits on the wire in 8N1.
func budgetTable() string {
	hundred := make([]uint8, rayCells)
	for i := range 100 {
		hundred[i*8] = uint8(1 + i)
	}
	singles := make([]wire.Range, 10)
	for i := range singles {
		singles[i] = wire.Range{Start: uint16(i * 29), Count: 1}
	}
	rows := []struct {
		name string
		msg  wire.Message
	}{
		{"Hello (RAY, 27 bytes of strings)", &wire.Hello{Major: 1, Cells: rayCells, LEDs: rayCells, MaxRX: 4096,
			Vendor: "tabla", Model: "RAY 29x29", Serial: "R-000042", Firmware: "1.0.0"}},
		{"Snapshot, 841 cells, all identified (worst case)", raySnapshot(false)},
		{"Snapshot, 841 cells, 100 identified pieces", &wire.Snapshot{Cells: hundred}},
		{"Snapshot, 841 cells, presence only", raySnapshot(true)},
		{"CellChange, 1 cell", &wire.CellChange{Changes: make([]wire.Change, 1)}},
		{"CellChange, 2 cells (capture)", &wire.CellChange{Changes: make([]wire.Change, 2)}},
		{"Roll", &wire.Roll{Die: wire.DieD6, Value: 1}},
		{"Button", &wire.Button{Button: wire.ButtonHint}},
		{"Heartbeat", &wire.Heartbeat{}},
		{"Error, no text", &wire.Error{Code: 1}},
		{"Ack", &wire.Ack{Ref: 1}},
		{"HelloRequest", &wire.HelloRequest{}},
		{"SnapshotRequest", &wire.SnapshotRequest{}},
		{"Config", &wire.Config{ScanHz: 1, Debounce: 1}},
		{"LEDFrame, all 841 LEDs", rayLEDFrame()},
		{"LEDFrame, one row of 29 LEDs", &wire.LEDFrame{Colors: make([]wire.Color, 29)}},
		{"LEDSet, 1 range (e.g. clear all)", &wire.LEDSet{Ranges: make([]wire.Range, 1)}},
		{"LEDSet, 10 single cells", &wire.LEDSet{Ranges: singles}},
	}
	bauds := []int{115200, 230400, 460800, 1000000}
	var b strings.Builder
	b.WriteString("| message | body bytes | wire bytes (max) |")
	for _, baud := range bauds {
		fmt.Fprintf(&b, " ms @ %d |", baud)
	}
	b.WriteString("\n|---|--:|--:|")
	for range bauds {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		n := wire.MaxWireLen(r.msg)
		fmt.Fprintf(&b, "| %s | %d | %d |", r.name, wire.BodyLen(r.msg), n)
		for _, baud := range bauds {
			fmt.Fprintf(&b, " %.2f |", float64(n*10)*1000/float64(baud))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestBudgetTableInSpec(t *testing.T) {
	table := budgetTable()
	spec, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(spec), table) {
		t.Errorf("PROTOCOL.md lacks the current wire-time budget table; put this in it:\n%s", table)
	}
}
