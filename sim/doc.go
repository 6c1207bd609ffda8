// Package sim is tabla's virtual sensor board: every cell's sensor, the
// electronic dice, the buttons and the LED frame, driven by actions (lift,
// place, remove, slide, roll, press) on a virtual clock, with scriptable,
// seeded fault injection.
//
// A [Board] implements hardware.Board in process: New sets up the start
// layout of the board definition (GYGES and six: only the pieces that
// start on the table) and its first events are a Snapshot and Status
// Connected. Events carry At on the board's virtual clock, which only
// [Board.Advance] moves; nothing sleeps. [Board.Flush] waits until every
// event so far has been received, which is how the script player knows the
// referee has seen them before it checks an expectation.
//
// [ServePTY] serves the same board on a pseudo-terminal speaking the real
// wire protocol (firmware-protocol/wire): Hello until acknowledged,
// snapshots on connect and on request, one CellChange per sensor change
// with sequence numbers, heartbeats at the interval the host configures,
// LED frames and sets applied to the board's frame and acknowledged. The
// host's serial driver connects to its Path exactly as to a
// microcontroller.
//
// Faults:
//   - Bounce: a sensor chatters (extra off/on pairs within 30 ms).
//   - Slide: a piece slid across intermediate cells, which see it pass.
//   - Delay: the next event (and the queue behind it) is late by d.
//   - Slow: every event is late by d; in pty mode frames also trickle out
//     three bytes at a time.
//   - Line "reorder": the next two events swap places (in pty mode the
//     frames, so their sequence numbers go backwards).
//   - Line "drop", "corrupt", "garbage" (pty mode): bytes of the next
//     event's frame removed or damaged, random bytes on the line.
//   - Unplug / Replug: Status Disconnected and no events while the cable
//     is out, a Snapshot of the truth on replug (in pty mode the terminal
//     is closed and a new one made behind the same Path).
//   - Dead / Stuck: a sensor that never sees a piece, or always does.
//
// The randomness of faults, random rolls of the board's die and the dice
// tabla rolls itself ([Board.TablaRoll]) come from generators seeded with
// Options.Seed, so every run is reproducible.
//
// Package sim/script reads and plays physical-action scripts (SCRIPTS.md).
package sim
