// Package wire is what a club hub's two sides — the tables' links
// (packages link and remote) and the hub's service (package hub) — share:
// the NATS names (streams, buckets, subjects, keys), a game's record as
// the hub holds it (Event, Game: one message per decision line of a
// table's journal), which journal lines those are (RecordKinds,
// LineKind), a club evening's pairing (Pairing) and the refusals of a
// seat's claim. The journal itself is written by the companion; every
// reader of it on the way to the hub takes its lines by these
// definitions.
package wire
