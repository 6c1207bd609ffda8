// Package hwcmd implements `tabla hw`: hardware bring-up tools.
//
//	tabla hw test --board SPEC --board-file NAME|FILE [--leds-only]
//
// walks every LED, then asks for a piece on each cell in turn and reports
// dead sensors, swapped cells (with the cell the firing sensor is wired
// to) and stuck-on sensors. `tabla hw sim-pty` (hidden) serves a virtual
// board on a pseudo-terminal for trying the serial path by hand.
//
// NewCmd also registers the "gpio" board scheme with the companion's
// opener (spec "gpio" or "gpio:CONFIG", the file holding a [gpio] section;
// see hardware/WIRING.md).
package hwcmd
