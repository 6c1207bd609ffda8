package wire

import (
	"time"

	"github.com/tabla-board/tabla/engine/record"
)

// A club evening (the hub's events, package club) lives in two buckets:
const (
	// BucketEvents (KV) holds each event's state, key the event's id,
	// written by the hub (and `tabla hub event new`) only.
	BucketEvents = "tabla_events"
	// BucketPairings (KV) holds the game each table is to play next, key
	// the table's name, written by the hub; a table reads its own.
	BucketPairings = "tabla_pairings"
	// MaxEventBytes bounds one event's state (the bucket's value size).
	MaxEventBytes = 1 << 20
	// MaxEvents bounds the events the hub keeps.
	MaxEvents = 64
)

// Pairing is a game the hub sends a table: the game, who sits where (the
// names by seat), the event, its round ("3.2": round 3, board 2) and the
// time control. The table starts it when the game on its board is over
// (or has not begun) and plays it with this header; the hub takes its
// result from the record when it ends.
type Pairing struct {
	EventID string     `json:"event_id"`
	Game    string     `json:"game"`
	Who     record.Who `json:"who"`
	Clock   string     `json:"clock,omitempty"`
	Sent    time.Time  `json:"sent"`
	// Start is when the arbiter started the round's clocks: the table
	// starts the first mover's clock then, if no move is made yet
	// (without it, the clocks start with the first move).
	Start *time.Time `json:"start,omitempty"`
}
