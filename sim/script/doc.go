// Package script reads physical-action scripts (SCRIPTS.md) and plays them
// against the virtual board on virtual time.
//
// [Parse] is strict: the header line must be {"tabla-script":1,...} with
// known keys, every other line one action with exactly the keys it takes,
// cells must exist on the board and pieces belong to the game; an error
// names the file, the line and what is wrong (the CLI exits 2 on them).
//
// [Run] plays a script: every action but wait and expect takes
// sim.ActionTime (200 ms) of board time, wait N takes N ms, nothing
// sleeps. Before an expect line the board is flushed (every event so far
// has been received from Events); "lit" as a list of cells is checked here
// against the LED frame and the board's wiring, the other keys (and "lit"
// as an object role → cells) go to the caller's [Handler] (the referee's
// state: to_move, in_sync, …). A Handler that follows the board on
// virtual time (the companion's session) implements [Ticker] and is told
// when board time has passed. [Step] plays one action the same way,
// [Perform] does a physical action without its board time (a page on real
// time), and [ParseAction] reads one action line without a script.
//
// Faults beyond SCRIPTS.md, all seeded by the header's seed:
//
//	{"fault":"drop","bytes":2}        bytes lost from the next event's frame (pty)
//	{"fault":"corrupt","bytes":1}     bytes damaged in the next event's frame (pty)
//	{"fault":"reorder"}               the next two events swap
//	{"fault":"delay","ms":300}        the next event (and those behind it) late
//	{"fault":"slow","ms":50}          every event late (0 ends it); pty trickles
//	{"fault":"slide","cells":["a1","a2","a3"]}  a piece slid across cells
//	{"fault":"dead","cell":"c3"}      a sensor that never sees a piece
//	{"fault":"stuck","cell":"c3"}     a sensor that always sees one
//	{"fault":"heal","cell":"c3"}      the sensor works again
package script
