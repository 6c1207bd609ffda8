package natsrv

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
)

// ConsumerIdle is how long a consumer of the hub's streams may go unused
// before the server removes it: NATS permissions cannot keep a reader from
// naming its consumer as a durable one, this keeps such a consumer from
// staying for ever.
const ConsumerIdle = time.Hour

// Setup creates (or updates) the hub's streams and buckets: the admin's
// job, once per start of `tabla hub`. replicas is 1 on a single server, 3
// on a three-node cluster.
func Setup(ctx context.Context, js jetstream.JetStream, replicas int) error {
	if replicas < 1 {
		replicas = 1
	}
	streams := []jetstream.StreamConfig{{
		Name:        wire.StreamGames,
		Description: "tabla: every game's record, one message per line (tabla.rec.TABLE.GAME)",
		Subjects:    []string{wire.RecPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		AllowDirect: true,
		// every consumer, a durable one a reader asked for included, goes
		// after an hour unused (readers' own are ordered: 5 minutes)
		ConsumerLimits: jetstream.StreamConsumerLimits{InactiveThreshold: ConsumerIdle},
	}, {
		Name:              wire.StreamJournals,
		Description:       "tabla: finished journals with their board events (tabla.journal.TABLE.GAME)",
		Subjects:          []string{wire.JournalPrefix + ">"},
		Storage:           jetstream.FileStorage,
		Replicas:          replicas,
		MaxMsgsPerSubject: 1,
		AllowDirect:       true,
		ConsumerLimits:    jetstream.StreamConsumerLimits{InactiveThreshold: ConsumerIdle},
	}}
	for _, cfg := range streams {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("hub: stream %s: %w", cfg.Name, err)
		}
	}
	for _, b := range []string{wire.BucketTables, wire.BucketSeats, wire.BucketPairings, wire.BucketEvents} {
		cfg := jetstream.KeyValueConfig{Bucket: b, History: 1, Storage: jetstream.FileStorage, Replicas: replicas}
		if b == wire.BucketEvents { // bounded: a club evening's state each
			cfg.MaxValueSize, cfg.MaxBytes = wire.MaxEventBytes, 2*wire.MaxEvents*wire.MaxEventBytes
		}
		if _, err := js.CreateOrUpdateKeyValue(ctx, cfg); err != nil {
			return fmt.Errorf("hub: bucket %s: %w", b, err)
		}
	}
	return nil
}
