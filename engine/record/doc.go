// Package record reads and writes game records: UTF-8 JSON Lines, a header
// line and then one event a line (RULES.md §6 and §7).
//
// Reading is strict: unknown header fields, malformed lines and illegal moves
// are errors that name the 1-based line. A record whose last line was cut off
// by a power cut (no final newline, not valid JSON) is reported with ErrTorn,
// so a resuming daemon can cut the torn bytes and go on; Repair does that.
//
// Replay sets the game up from the header and applies every move and roll
// through the engine, checking whose turn it is; other event kinds (sensor
// changes, corrections…) are counted but not interpreted or kept, so that
// replaying a journal of millions of board events takes the memory of its
// moves only. A game may go on for ever, so a legal record may hold a
// million moves: Stream (Game.Each) applies them without keeping them or
// the engine's undo history (engine.Forgetter), in the memory of one
// position, while Replay, which keeps them, stops at MaxApplied (or the
// Max its caller sets) with ErrTooMany naming the line of the first move
// beyond. Lines are at most MaxLine bytes (ErrLong beyond).
package record
