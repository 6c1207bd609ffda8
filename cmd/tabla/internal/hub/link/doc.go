// Package link is a table's link to a club hub: it publishes the table's
// games from its journal, its live status and its finished journals, and
// starts the games the hub pairs at the table.
//
// # Publishing
//
// A game's record is its header (event 0) and each decision line of the
// table's journal in journal order (moves, rolls, takebacks, an abandon),
// numbered (package wire). The journal stays the source of truth: Table
// (the session's companion.Publisher) reads the journal as it is written
// (tail.go) and publishes each event with its number as Nats-Msg-Id,
// expecting the previous event as the last message of the game's
// subject; after an outage it asks the hub for the last number it has
// (LastEvent) and publishes the rest, and on every (re)connect it
// compares the journals marked sent (.tabla-hub.json) with what the hub
// holds of them. So a table plays on while the hub is away, and the hub
// gets every event once, in order, when it is back. Besides the records
// it keeps its entry in tabla_tables (TableEntry: its current game) and
// sends its live status (Live, core NATS) on every change and every
// LiveBeat.
//
// # Pairings
//
// The link watches the table's key of tabla_pairings (tablepair.go): a
// club evening's pairing starts its game with the names, event, round and
// time control in the header (companion.Session.StartPaired) as soon as
// the game on the board is over or has not begun.
//
// # Shared with the hub's service
//
// The hub's service (package hub) connects as a table does (Dial,
// Servers), reads what the link publishes (Live, TableEntry), follows
// streams with the same guard against a consumer that stalled
// (StallGuard, ConsumeOpts) and writes its checkpoint as the link writes
// its state (WriteFileSync); remote play watches the seats with WatchKV
// and follows the other table's record with Ordered, which leave their
// consumers for the server to remove (a table may not delete one), also
// the consumers they replace when a slow or restarted hub loses them
// (nats.go's ordered consumer deletes those: a Publish Violation in the
// hub's log each time, issue 41). This package imports nothing of the hub's service,
// its pages or its server: `tabla run` links a table with it (and package
// remote) alone.
package link
