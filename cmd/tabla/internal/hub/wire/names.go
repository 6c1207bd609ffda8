package wire

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// NATS names of the hub. Every subject holds the publishing table's name,
// so that a table's credentials can be limited to its own subjects.
const (
	// StreamGames keeps every game's record as published: subjects
	// tabla.rec.TABLE.GAME, one message per record line (header first).
	StreamGames = "TABLA_GAMES"
	// StreamJournals keeps each finished journal (board events included)
	// as one message: subjects tabla.journal.TABLE.GAME, the last only.
	StreamJournals = "TABLA_JOURNALS"
	// BucketTables (KV) holds each table's current game: key TABLE.
	BucketTables = "tabla_tables"
	// BucketSeats (KV) holds the seats of a game played at another table
	// or in a browser: key HOST.GAME.SEAT, value the player's Ref.
	BucketSeats = "tabla_seats"

	RecPrefix     = "tabla.rec."
	LivePrefix    = "tabla.live."
	JournalPrefix = "tabla.journal."

	// WebTable is the name the hub publishes the records of browser
	// players under.
	WebTable = "web"
)

// Headers of record messages.
const (
	HdrN = "Tabla-N" // the event's number in its game (0: the header)
)

var tableRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// reserved names are the hub's own users.
var reserved = map[string]bool{"admin": true, "spectator": true, WebTable: true, "hub": true, "sys": true}

// CheckTable checks a table name: 1–32 of a–z, 0–9, "_" and "-", starting
// with a letter or digit, and not one of the hub's own user names.
func CheckTable(name string) error {
	if !tableRE.MatchString(name) {
		return fmt.Errorf("hub: table name %q: want 1–32 of a–z, 0–9, _ and - (starting with a letter or digit)", name)
	}
	if reserved[name] {
		return fmt.Errorf("hub: table name %q is reserved", name)
	}
	return nil
}

// GameID names a journal's game on the hub: the journal's file name
// without "game-" and ".jsonl", with characters that cannot be in a NATS
// subject token replaced by "_" (game-20261125T021900.123456789Z-gyges.jsonl
// → 20261125T021900_123456789Z-gyges).
func GameID(journal string) string {
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(journal), "game-"), ".jsonl")
	return Sanitize(base)
}

// Sanitize makes s a NATS subject token: characters other than a–z, A–Z,
// 0–9, "_" and "-" become "_" ("" becomes "_").
func Sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// RecSubject is the subject of a game's record events.
func RecSubject(table, game string) string { return RecPrefix + table + "." + game }

// LiveSubject is the subject of a table's live status.
func LiveSubject(table string) string { return LivePrefix + table }

// JournalSubject is the subject of a finished journal.
func JournalSubject(table, game string) string { return JournalPrefix + table + "." + game }

// Inbox is the prefix of a user's reply subjects (nats.CustomInboxPrefix;
// the hub's Dial sets it): a user may subscribe to its own only, so no one reads
// another's replies.
func Inbox(user string) string { return "_INBOX_" + user }

// SeatKey is the tabla_seats key of a seat of a game.
func SeatKey(host, game, seat string) string { return host + "." + game + "." + Sanitize(seat) }

// RequestKey is the key of asker's request for a seat of host's game:
// under the asker's own name, the only keys it may put.
func RequestKey(asker, host, game, seat string) string {
	return asker + "." + SeatKey(host, game, seat)
}

// ParseRequestKey splits a request's key addressed to host.
func ParseRequestKey(key, host string) (asker, game, seat string, ok bool) {
	parts := strings.Split(key, ".")
	if len(parts) != 4 || parts[1] != host {
		return "", "", "", false
	}
	return parts[0], parts[2], parts[3], true
}

// IsSeatKey reports whether a tabla_seats key is a seat (HOST.GAME.SEAT),
// not a request.
func IsSeatKey(key string) bool { return strings.Count(key, ".") == 2 }

// SplitRec returns the table and game of a record subject.
func SplitRec(subject string) (table, game string, ok bool) {
	rest, ok := strings.CutPrefix(subject, RecPrefix)
	if !ok {
		return "", "", false
	}
	table, game, ok = strings.Cut(rest, ".")
	return table, game, ok && table != "" && game != "" && !strings.Contains(game, ".")
}

// Refusals of a seat's claim, the hub's (a browser's seat) and a hosting
// table's alike.
var (
	ErrSeat      = errors.New("hub: not a seat of the game")
	ErrSeatTaken = errors.New("hub: the seat is played elsewhere")
	ErrUnderWay  = errors.New("hub: the game is under way")
)
