// Package hub is a club's hub service: it follows every table's games on
// NATS and serves them to spectators, keeps the club's library, runs club
// evenings and lets a browser play a seat, with the pages of all of it.
//
// It is the hub's side of issue 15's club hub — live broadcast, remote
// play between two boards (or a board and a browser), one library of
// every finished game — and not a home-made server: `tabla hub` embeds a
// NATS server with JetStream (package natsrv), or uses an existing server
// or cluster. The tables' side is packages link and remote (see Rooms).
//
// # Subjects, streams and buckets
//
//	tabla.rec.TABLE.GAME      stream TABLA_GAMES: a game's record, one message per line
//	tabla.live.TABLE          core NATS: a table's live status (not kept)
//	tabla.journal.TABLE.GAME  stream TABLA_JOURNALS: a finished journal, board events included
//	KV tabla_tables           TABLE → its current game (id, header)
//	KV tabla_seats            HOST.GAME.SEAT → the table (or browser) that plays it
//	KV tabla_events           EVENT → a club evening's state (the hub's alone; event.go)
//	KV tabla_pairings         TABLE → the game the hub pairs at that table next (wire.Pairing)
//
// A game's record is its header (event 0) and each decision line of the
// table's journal in journal order, numbered; a table's link (package
// link) publishes it from the journal, exactly once, whatever the hub's
// outages.
//
// # The hub's service
//
// Hub follows the streams (an ordered consumer from the first message,
// link.Ordered, which leaves a consumer it replaces to the server),
// rebuilds every game with the engine, marks tables offline when their
// live status stops, writes finished games as records into the club
// library (DATA/library/TABLE/GAME.jsonl, served by the library package
// and webui's library pages), evaluates watched positions with
// engine/search for the evaluation bar, and serves the pages (Handler):
// the live tables with a small board each and one table with its board,
// move list and evaluation bar (a minimal page of this package, drawing
// with webui's board.js), and each table's own live page (webui, read
// only: its status document as the table publishes it, LEDs and all).
// Spectators only ever reach the hub. The pages speak the player's
// language with webui's i18n.js and catalogue.js; what the hub says to
// them — a refused action (Refused.Say), an event's log line
// (EventLogEntry.Say), who a round waits for (Waiting's fields) — is a
// catalogue key with arguments (package i18n), its English kept beside
// it for the log and the API; the arbiter's refusals (the hub's and the
// club's, i18n.Refusal) and warnings too. The printable crosstable and
// round pages mark their texts as keys with arguments (data-i18n,
// data-i18n-args) that i18n.js words; the CSV and TRF stay English.
//
// # Club evenings
//
// `tabla hub event new` writes an event (package club pairs, scores and
// rates it); players register on its page and the arbiter starts it; the
// hub sends each pairing to its table (tabla_pairings), whose link starts
// the paired game with the names, event, round and time control in its
// header (package link, companion.Session.StartPaired), takes each result
// from the game's record as the table's journal ends it (refusing one
// from another table or under other names), and pairs the next round.
// The arbiter's tools (arbiter.go: late entries, withdrawals, requested
// byes, forfeits, pairings by hand, a stuck round's way out, the end,
// the round's clocks; each logged with who and why) come from the event
// page and `tabla hub event …` through POST /api/club/ID/arbiter; the
// exports (eventexport.go) are the crosstable (HTML, CSV), each round's
// printable pairings and slips, the TRF report and the records' zip.
// The public broadcast (/api/broadcast) may run a delay behind.
//
// # Browser play
//
// Remote play between boards is the tables' own (package remote). A
// browser plays a seat through the hub (web.go): the hub asks the host
// for the seat as a table does and plays it with a record of its own
// (tabla.rec.web.ID: the host's moves copied in, the browser's moves and
// rolls added, each checked first), which the host follows as it follows
// another table's.
//
// # Rooms
//
// The club hub is four packages:
//
//   - natsrv: the NATS server, the users and their permissions, the
//     streams and buckets;
//   - hub (this one): the club service with its pages, events and library;
//   - link: the table's link that `tabla run` uses (journal tail,
//     publishing, pairings), which this package also dials and reads with;
//   - remote: remote play between tables, on a link.
//
// What the tables' side and the hub's side share — the NATS names, a
// game's record (Event, Game), which journal lines are record events —
// is package wire; this package names it and natsrv as before (wire.go).
// `tabla run` imports link and remote and none of natsrv, this package or
// the club's (runcmd's TestRunImportsNoClubService checks it).
//
// # Security
//
// The NATS account TABLA has an admin (the hub), a read-only spectator and
// one user per table that may publish only on its own subjects
// (Credentials, NATSConfig); browser play needs the hub's token. The
// embedded server speaks TLS when given a certificate.
package hub
