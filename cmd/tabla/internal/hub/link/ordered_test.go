package link

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
)

// TestOrderedReplacesWithoutDeleting: a table's Ordered whose consumer is
// deleted on the server (as a hub restarted with its consumers in memory,
// or one that dropped it idle, leaves it) goes on with a new consumer from
// the message after the last it handed on — every message once, in order —
// and never asks to delete a consumer, which a table may not: nats.go's
// ordered consumer does at every reset, a permissions error on the
// table's connection and a Publish Violation in the hub's log (issue 41).
func TestOrderedReplacesWithoutDeleting(t *testing.T) {
	srv, js, pw := startTestHub(t)
	var mu sync.Mutex
	var connErrs []string
	nc, err := nats.Connect(natsrv.UserURL(srv.ClientURL(), "solo", pw), nats.CustomInboxPrefix(wire.Inbox("solo")),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			mu.Lock()
			connErrs = append(connErrs, err.Error())
			mu.Unlock()
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	tjs, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	subj := wire.RecSubject("solo", "g1")
	publish := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := js.Publish(ctx, subj, []byte(strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(0, 20)
	o, err := NewOrdered(ctx, tjs, wire.StreamGames, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 100)
	cc, err := o.Consume(func(m jetstream.Msg) {
		n, err := strconv.Atoi(string(m.Data()))
		if err != nil {
			t.Errorf("message %q", m.Data())
		}
		got <- n
	}, nil, ConsumeOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Stop()
	next := 0
	read := func(to int) {
		t.Helper()
		for next < to {
			select {
			case n := <-got:
				if n != next {
					t.Fatalf("message %d, want %d", n, next)
				}
				next++
			case <-ctx.Done():
				t.Fatalf("waiting for message %d: %v", next, ctx.Err())
			}
		}
	}
	read(20)
	first := o.CachedInfo().Name
	if err := js.DeleteConsumer(ctx, wire.StreamGames, first); err != nil {
		t.Fatal(err)
	}
	publish(20, 40)
	read(40)
	if name := o.CachedInfo().Name; name == first {
		t.Errorf("still on consumer %s", name)
	}
	select {
	case n := <-got:
		t.Fatalf("message %d again", n)
	default:
	}
	// the table's connection has said whatever it had to say by the time
	// a round trip has come back
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range connErrs {
		if strings.Contains(e, "CONSUMER.DELETE") {
			t.Errorf("the table asked to delete a consumer: %s", e)
		}
	}
}
