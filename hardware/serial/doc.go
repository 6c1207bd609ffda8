// Package serial drives a tabla sensor board on a serial line: a
// microcontroller on USB (or the simulator's pseudo-terminal) speaking the
// wire protocol of firmware-protocol/wire.
//
// [Open] finds the port (a path, or the first USB device with a known
// vendor/product id), waits for the board's Hello (Arduino-class boards
// reset when the port opens; a board that does not is asked with
// HelloRequest), refuses another major protocol version, and returns a
// [Board] implementing hardware.Board.
//
// The Board reads frames on its own goroutine and turns them into events:
// a Snapshot first (and then Status Connected), Change events for every
// cell change, Roll, Press, and Fault for bad frames (with their byte
// offset) and board errors. Sequence numbers are checked: after any gap the
// driver asks for a snapshot and drops cell changes until it arrives, so a
// consumer never sees a change that does not follow from the state it
// holds. No frame for MissedHeartbeats heartbeat intervals, a read error or
// an unplugged cable end the connection: the Board emits Status
// Disconnected and redials with exponential backoff; the next connection
// begins with a Snapshot again, which is the truth to compare with.
//
// LED frames are diffed against what the board shows and sent as partial
// LEDFrame messages (steady runs) and LEDSet messages (blinking groups),
// split to the board's MaxRX. A frame set while disconnected is sent in
// full on reconnection.
//
// Time is injectable ([Config].Clock, a clockwork.Clock) and so is the
// port ([Config].Dial), so the driver is tested on net.Pipe and on the
// simulator's pty without real waits.
package serial
