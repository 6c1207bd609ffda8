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
// holds. No frame for MissedHeartbeats heartbeat intervals (the watchdog
// fires at that deadline after the last frame: 3 s by default), a read
// error or an unplugged cable end the connection: the Board emits Status
// Disconnected and redials with exponential backoff; the next connection
// begins with a Snapshot again, which is the truth to compare with.
//
// Commands (Config, LEDFrame, LEDSet, SnapshotRequest) go stop-and-wait, as
// PROTOCOL.md §5.2 requires: one outstanding, sent again with the same seq
// when its reply (Ack, Snapshot, or an Error refusing it) has not come
// within ReplyTimeout plus twice its wire time, or at once after an Error
// bad-frame. After Retries unanswered transmissions the driver sends
// HelloRequest; no Hello, or the command still unanswered after it, fails
// the link with ErrNoReply (Status Disconnected, then a redial). An Ack
// for a frame that is not outstanding is a Fault. Stats counts answers,
// timeouts, retransmissions and stray Acks.
//
// LED frames are diffed against what the board has acknowledged showing and
// sent as partial LEDFrame messages (steady runs) and LEDSet messages
// (blinking groups), split to the board's MaxRX, one at a time: frames set
// while one is on its way are not queued, the newest supersedes them. A
// frame set while disconnected is sent in full on reconnection.
//
// Time is injectable ([Config].Clock, a clockwork.Clock) and so is the
// port ([Config].Dial), so the driver is tested on net.Pipe and on the
// simulator's pty without real waits.
package serial
