package hub

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine/record"
)

// The names and the record of package wire, shared with the tables' side,
// under the names this package has always given them.

// NATS names (wire).
const (
	StreamGames    = wire.StreamGames
	StreamJournals = wire.StreamJournals
	BucketTables   = wire.BucketTables
	BucketSeats    = wire.BucketSeats
	WebTable       = wire.WebTable

	recPrefix  = wire.RecPrefix
	livePrefix = wire.LivePrefix
	hdrN       = wire.HdrN
)

// A game's record on the hub (wire).
type (
	Event = wire.Event
	Ref   = wire.Ref
	Line  = wire.Line
	Step  = wire.Step
	Game  = wire.Game
)

// ErrOrder: an event came out of order (a gap or a repeat).
var ErrOrder = wire.ErrOrder

// CheckTable checks a table name (wire.CheckTable).
func CheckTable(name string) error { return wire.CheckTable(name) }

// GameID names a journal's game on the hub (wire.GameID).
func GameID(journal string) string { return wire.GameID(journal) }

// RecSubject is the subject of a game's record events.
func RecSubject(table, game string) string { return wire.RecSubject(table, game) }

// LiveSubject is the subject of a table's live status.
func LiveSubject(table string) string { return wire.LiveSubject(table) }

// JournalSubject is the subject of a finished journal.
func JournalSubject(table, game string) string { return wire.JournalSubject(table, game) }

// NewGame starts a game from its event 0.
func NewGame(ev *Event) (*Game, error) { return wire.NewGame(ev) }

// ParseHeader reads a record header.
func ParseHeader(raw []byte) (*record.Header, error) { return wire.ParseHeader(raw) }

// ParseLine reads one decision line.
func ParseLine(raw []byte) (Line, error) { return wire.ParseLine(raw) }

func sanitize(s string) string                       { return wire.Sanitize(s) }
func seatKey(host, game, seat string) string         { return wire.SeatKey(host, game, seat) }
func isSeatKey(key string) bool                      { return wire.IsSeatKey(key) }
func splitRec(subject string) (string, string, bool) { return wire.SplitRec(subject) }
func requestKey(asker, host, game, seat string) string {
	return wire.RequestKey(asker, host, game, seat)
}

// The NATS side (natsrv), under the names this package has always given it.
type (
	Server       = natsrv.Server
	ServerConfig = natsrv.ServerConfig
	Credentials  = natsrv.Credentials
)

const (
	CredentialsFile = natsrv.CredentialsFile
	HashesFile      = natsrv.HashesFile
	ConsumerIdle    = natsrv.ConsumerIdle
)

// StartServer starts the embedded NATS server (natsrv.StartServer).
func StartServer(cfg ServerConfig) (*Server, error) { return natsrv.StartServer(cfg) }

// LoadCredentials reads a hub's credentials (natsrv.LoadCredentials).
func LoadCredentials(dir string) (*Credentials, error) { return natsrv.LoadCredentials(dir) }

// ReadCredentials reads an existing hub's credentials, never creating
// any (natsrv.ReadCredentials).
func ReadCredentials(dir string) (*Credentials, error) { return natsrv.ReadCredentials(dir) }

// UserURL puts a user and password into a NATS URL.
func UserURL(u, user, password string) string { return natsrv.UserURL(u, user, password) }

// Setup creates (or updates) the hub's streams and buckets.
func Setup(ctx context.Context, js jetstream.JetStream, replicas int) error {
	return natsrv.Setup(ctx, js, replicas)
}

// Inbox is the prefix of a user's reply subjects.
func Inbox(user string) string { return wire.Inbox(user) }
