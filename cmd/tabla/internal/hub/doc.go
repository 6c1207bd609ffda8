// Package hub puts a club's tables on one hub, on NATS (issue 15): live
// broadcast to spectators, remote play between two boards (or a board and
// a browser), and one library of every finished game. It is not a
// home-made server: `tabla hub` embeds a NATS server with JetStream
// (Server), or uses an existing server or cluster.
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
// table's journal in journal order (moves, rolls, takebacks, an abandon),
// numbered. The journal stays the source of truth: Table (a table's
// link, the session's companion.Publisher) reads the journal as it is
// written and publishes each event with its number as Nats-Msg-Id, and
// expecting the previous event as the last message of the game's subject;
// after an outage it asks the hub for the last number it has and
// publishes the rest. So a table plays on while the hub is away, and the
// hub gets every event once, in order, when it is back.
//
// # The hub's service
//
// Hub follows the streams (an ordered consumer from the first message),
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
// header (tablepair.go, companion.Session.StartPaired), takes each result
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
// # Remote play
//
// Remote is on every table with a hub: a table hosts its game (others
// claim seats of it in tabla_seats) or joins another's (--remote
// HOST[:SEAT]). Each table compares its own game (the session's history)
// with the record of every seat played elsewhere, step by step: such a
// seat's next move is lit as a hint to carry out (as an AI seat's), its
// roll rolled with tabla's die on the same face, and a step made on the
// board for such a seat that its record does not have is taken back.
// Each referee still checks everything its board senses. A browser plays a
// seat through the hub, which keeps a record for it like a table's.
//
// # Packages
//
// What the tables' side and the hub's side share — the NATS names, a
// game's record (Event, Game) and which journal lines are record events —
// is package wire; the NATS server, its users and permissions and the
// streams are package natsrv. This package names both as before.
//
// # Security
//
// The NATS account TABLA has an admin (the hub), a read-only spectator and
// one user per table that may publish only on its own subjects
// (Credentials, NATSConfig); browser play needs the hub's token. The
// embedded server speaks TLS when given a certificate.
package hub
