package link

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// watchIdle is how soon the server removes a consumer a table no longer
// reads (a stopped watch's, one an Ordered replaced).
const watchIdle = 10 * time.Second

// KVWatch follows keys of a bucket as jetstream.KeyValue's Watch does
// (each key's latest value, then every change; a nil entry once the
// values as they stood are in; the channel closed when the watch ends:
// stopped, its context done or its connection closed), on an Ordered
// consumer, which the server removes itself once the watch stops
// (watchIdle unused).
// KeyValue's Watch deletes its consumer when it stops, which a table may
// not do: a Publish Violation, an ERROR in the hub's log, every time
// (issue 37); and nats.go's ordered consumer deletes the one it replaces
// (issue 41).
type KVWatch struct {
	updates chan jetstream.KeyValueEntry
	cc      jetstream.ConsumeContext
	stop    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	init    bool // the nil entry is sent
	rw      sync.RWMutex
	closed  bool // updates is closed
}

// WatchKV watches keys (NATS wildcards allowed) of bucket.
func WatchKV(ctx context.Context, js jetstream.JetStream, bucket string, keys ...string) (*KVWatch, error) {
	subjects := make([]string, len(keys))
	for i, k := range keys {
		subjects[i] = "$KV." + bucket + "." + k
	}
	cons, err := NewOrdered(ctx, js, "KV_"+bucket, jetstream.OrderedConsumerConfig{FilterSubjects: subjects,
		DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy, InactiveThreshold: watchIdle})
	if err != nil {
		return nil, err
	}
	w := &KVWatch{updates: make(chan jetstream.KeyValueEntry, 64), stop: make(chan struct{})}
	prefix := len("$KV." + bucket + ".")
	w.cc, err = cons.Consume(func(m jetstream.Msg) {
		meta, err := m.Metadata()
		if err != nil || len(m.Subject()) <= prefix {
			return
		}
		e := &kvEntry{bucket: bucket, key: m.Subject()[prefix:], value: m.Data(), rev: meta.Sequence.Stream, created: meta.Timestamp, delta: meta.NumPending}
		switch m.Headers().Get("KV-Operation") {
		case "DEL":
			e.op = jetstream.KeyValueDelete
		case "PURGE":
			e.op = jetstream.KeyValuePurge
		}
		if w.send(e) && meta.NumPending == 0 {
			w.initDone()
		}
	}, nil)
	if err != nil {
		return nil, err
	}
	if info := cons.CachedInfo(); info != nil && info.NumPending == 0 {
		go w.initDone() // nothing to read first (the reader is not there yet)
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-w.cc.Closed():
		case <-w.stop:
		}
		w.Stop()
	}()
	return w, nil
}

// initDone sends the nil entry, once.
func (w *KVWatch) initDone() {
	w.mu.Lock()
	done := w.init
	w.init = true
	w.mu.Unlock()
	if !done {
		w.send(nil)
	}
}

// send passes an entry on unless the watch stopped.
func (w *KVWatch) send(e jetstream.KeyValueEntry) bool {
	w.rw.RLock()
	defer w.rw.RUnlock()
	if w.closed {
		return false
	}
	select {
	case w.updates <- e:
		return true
	case <-w.stop:
		return false
	}
}

// Updates are the keys' values and changes.
func (w *KVWatch) Updates() <-chan jetstream.KeyValueEntry { return w.updates }

// Stop ends the watch (its consumer is the server's to remove).
func (w *KVWatch) Stop() {
	w.once.Do(func() {
		close(w.stop) // a send under way gives up
		w.cc.Stop()
		w.rw.Lock()
		w.closed = true
		close(w.updates)
		w.rw.Unlock()
	})
}

// kvEntry is a bucket's entry as a watch reads it.
type kvEntry struct {
	bucket, key string
	value       []byte
	rev, delta  uint64
	created     time.Time
	op          jetstream.KeyValueOp
}

func (e *kvEntry) Bucket() string                  { return e.bucket }
func (e *kvEntry) Key() string                     { return e.key }
func (e *kvEntry) Value() []byte                   { return e.value }
func (e *kvEntry) Revision() uint64                { return e.rev }
func (e *kvEntry) Created() time.Time              { return e.created }
func (e *kvEntry) Delta() uint64                   { return e.delta }
func (e *kvEntry) Operation() jetstream.KeyValueOp { return e.op }
