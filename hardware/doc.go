// Package hardware defines what tabla needs of a sensor board, real or
// virtual: a stream of events in (snapshots of every sensor, cell changes,
// dice rolls, button presses, connection status) and LED frames out.
//
// Like periph.io's conn, this package holds only interfaces and plain types;
// drivers live in subpackages (hardware/serial for a microcontroller on a
// serial line, hardware/gpio for the Pi's own pins) and the simulator in sim.
// hardwaretest has a fake for tests.
package hardware
