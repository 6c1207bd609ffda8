// Package remote plays a game between boards through a club hub: a seat
// played at another table or in a browser is lit here as a move to carry
// out, and this table's seats are granted to the others.
//
// Remote is on every table with a hub: a table hosts its game (others
// claim seats of it in tabla_seats, and the host grants them) or joins
// another's (--remote HOST[/GAME][:SEAT]). Each table compares its own
// game (the session's history) with the record of every seat played
// elsewhere, step by step: such a seat's next move is lit as a hint to
// carry out (as an AI seat's), its roll rolled with tabla's die on the
// same face, and a step made on the board for such a seat that its
// record does not have is taken back. Each referee still checks
// everything its board senses. A board that plays with this one and
// sends no live status for OfflineAfter is said to be away.
//
// Linked is what `tabla run` and `tabla sim --hub` start: a table's link
// (package link) with remote play on it.
package remote
