package link

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Ordered reads a stream in order on a consumer of its own, as nats.go's
// ordered consumer (JetStream.OrderedConsumer) does: an ephemeral pull
// consumer (no acks, one replica, in memory) that it replaces, from the
// stream sequence after the last one it delivered, whenever the consumer
// misses its heartbeats, skips a message, is deleted or stops, or the
// connection comes back. Unlike nats.go's, it never deletes the consumer
// it replaces: the server removes it once unused for its
// InactiveThreshold (watchIdle unless the configuration says). nats.go
// deletes the old consumer at every reset, which a table may not do (its
// permissions hold no $JS.API.CONSUMER.DELETE: one user cannot take
// another's consumers away): the hub's server logged each try as an
// ERROR, a Publish Violation, and a hub too slow to send its heartbeats
// in time reset every table's consumers at once (issue 41).
//
// An Ordered consumes once; its Consume's context ends it.
type Ordered struct {
	js     jetstream.JetStream
	stream string
	cfg    jetstream.OrderedConsumerConfig
	prefix string // the consumers' names: prefix_serial

	mu         sync.Mutex
	serial     int                // the current consumer's
	cur        jetstream.Consumer // the current consumer
	deliverSeq uint64             // its last consumer sequence delivered
	streamSeq  uint64             // the last stream sequence delivered (0: none yet)
	consuming  bool

	dmu sync.Mutex // held while a message is handed on: one at a time, in order
}

// NewOrdered makes the first consumer of stream as cfg says (its filter
// subjects, where it starts, headers only, metadata, inactive threshold;
// its name prefix, random when empty).
func NewOrdered(ctx context.Context, js jetstream.JetStream, stream string, cfg jetstream.OrderedConsumerConfig) (*Ordered, error) {
	o := &Ordered{js: js, stream: stream, cfg: cfg, prefix: cfg.NamePrefix}
	if o.prefix == "" {
		o.prefix = rand.Text()
	}
	o.mu.Lock()
	cc := o.config()
	o.mu.Unlock()
	cons, err := js.CreateOrUpdateConsumer(ctx, stream, cc)
	if err != nil {
		return nil, err
	}
	o.cur = cons
	return o, nil
}

// config is the next consumer's configuration (o.mu held).
func (o *Ordered) config() jetstream.ConsumerConfig {
	o.serial++
	c := jetstream.ConsumerConfig{
		Name:              fmt.Sprintf("%s_%d", o.prefix, o.serial),
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       o.streamSeq + 1,
		AckPolicy:         jetstream.AckNonePolicy,
		InactiveThreshold: o.cfg.InactiveThreshold,
		Replicas:          1,
		MemoryStorage:     true,
		HeadersOnly:       o.cfg.HeadersOnly,
		Metadata:          o.cfg.Metadata,
	}
	if c.InactiveThreshold == 0 {
		c.InactiveThreshold = watchIdle
	}
	if len(o.cfg.FilterSubjects) == 1 {
		c.FilterSubject = o.cfg.FilterSubjects[0]
	} else {
		c.FilterSubjects = o.cfg.FilterSubjects
	}
	if o.streamSeq > 0 {
		return c // on from the last message delivered
	}
	// nothing delivered yet: start as configured
	c.DeliverPolicy, c.OptStartSeq = o.cfg.DeliverPolicy, 0
	switch c.DeliverPolicy {
	case jetstream.DeliverByStartSequencePolicy:
		c.OptStartSeq = o.cfg.OptStartSeq
	case jetstream.DeliverByStartTimePolicy:
		c.OptStartTime = o.cfg.OptStartTime
	case jetstream.DeliverLastPerSubjectPolicy:
		if len(o.cfg.FilterSubjects) == 0 {
			c.FilterSubjects = []string{">"}
		}
	}
	return c
}

// Info asks the server about the current consumer.
func (o *Ordered) Info(ctx context.Context) (*jetstream.ConsumerInfo, error) {
	o.mu.Lock()
	cur := o.cur
	o.mu.Unlock()
	return cur.Info(ctx)
}

// CachedInfo is the current consumer's information as last read (at its
// creation, or by Info).
func (o *Ordered) CachedInfo() *jetstream.ConsumerInfo {
	o.mu.Lock()
	cur := o.cur
	o.mu.Unlock()
	return cur.CachedInfo()
}

// errSkipped is a message whose consumer sequence is not the next one.
var errSkipped = errors.New("link: a consumer skipped a message")

// Consume hands every message to handler, one at a time and in stream
// order, until the returned context is stopped or the connection closes;
// onErr (nil: none) hears of the consumers' errors. opts are the pull
// consumers' (ConsumeOpts; a ConsumeErrHandler among them is replaced).
func (o *Ordered) Consume(handler jetstream.MessageHandler, onErr func(error), opts ...jetstream.PullConsumeOpt) (jetstream.ConsumeContext, error) {
	o.mu.Lock()
	if o.consuming {
		o.mu.Unlock()
		return nil, errors.New("link: an ordered consumer consumes once")
	}
	o.consuming = true
	cur, serial := o.cur, o.serial
	o.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	s := &orderedSub{o: o, handler: handler, onErr: onErr, opts: slices.Clip(opts), cancel: cancel,
		reset: make(chan int, 1), done: make(chan struct{}), closed: make(chan struct{})}
	status := o.js.Conn().StatusChanged(nats.CONNECTED, nats.CLOSED)
	inner, err := s.start(cur, serial)
	if err != nil {
		o.js.Conn().RemoveStatusListener(status)
		cancel()
		return nil, err
	}
	go s.run(ctx, inner, status)
	return s, nil
}

// orderedSub is an Ordered's consume context.
type orderedSub struct {
	o       *Ordered
	handler jetstream.MessageHandler
	onErr   func(error)
	opts    []jetstream.PullConsumeOpt
	cancel  context.CancelFunc // ends a replacement under way

	reset  chan int      // the consumer of this serial is to be replaced
	done   chan struct{} // Stop or Drain called
	once   sync.Once
	drain  bool          // (set before done closes) drain the current consumer
	closed chan struct{} // run returned
}

// start consumes cons, the consumer of serial.
func (s *orderedSub) start(cons jetstream.Consumer, serial int) (jetstream.ConsumeContext, error) {
	o := s.o
	return cons.Consume(func(m jetstream.Msg) {
		o.dmu.Lock()
		defer o.dmu.Unlock()
		md, err := m.Metadata()
		o.mu.Lock()
		if serial != o.serial {
			o.mu.Unlock()
			return // a replaced consumer's
		}
		if err != nil {
			o.mu.Unlock()
			s.report(serial, err)
			return
		}
		if md.Sequence.Consumer != o.deliverSeq+1 {
			o.mu.Unlock()
			s.report(serial, errSkipped)
			return
		}
		o.deliverSeq, o.streamSeq = md.Sequence.Consumer, md.Sequence.Stream
		o.mu.Unlock()
		s.handler(m)
	}, append(slices.Clip(s.opts), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) { s.report(serial, err) }))...)
}

// report passes a consumer's error on and asks for a new consumer when
// it is one that calls for it.
func (s *orderedSub) report(serial int, err error) {
	if s.onErr != nil && !errors.Is(err, errSkipped) {
		s.onErr(err)
	}
	switch {
	case errors.Is(err, jetstream.ErrConnectionClosed):
		s.Stop()
	case errors.Is(err, errSkipped), errors.Is(err, jetstream.ErrNoHeartbeat), errors.Is(err, jetstream.ErrConsumerDeleted),
		errors.Is(err, jetstream.ErrConsumerNotFound), errors.Is(err, nats.ErrNoResponders):
		s.replace(serial)
	}
}

// replace asks for the consumer of serial to be replaced (once; nothing
// if it has been).
func (s *orderedSub) replace(serial int) {
	select {
	case s.reset <- serial:
	default:
	}
}

// run replaces the consumer when asked, until stopped.
func (s *orderedSub) run(ctx context.Context, inner jetstream.ConsumeContext, status chan nats.Status) {
	o := s.o
	defer close(s.closed)
	defer o.js.Conn().RemoveStatusListener(status)
	for {
		select {
		case <-s.done:
			if s.drain {
				inner.Drain()
				<-inner.Closed()
			} else {
				inner.Stop()
			}
			return
		case st := <-status:
			if st == nats.CLOSED {
				inner.Stop()
				return
			}
			// on a new connection: a new consumer
		case <-inner.Closed(): // it stopped by itself (deleted, a bad request)
		case serial := <-s.reset:
			o.mu.Lock()
			old := serial != o.serial
			o.mu.Unlock()
			if old {
				continue // replaced already
			}
		}
		inner.Stop()
		next, err := s.renew(ctx)
		if err != nil {
			return // stopped, or the connection closed
		}
		inner = next
	}
}

// renew makes the next consumer, from the message after the last one
// delivered, and consumes it: again after a failure (1 s, doubling to
// 10 s), until stopped or the connection closes.
func (s *orderedSub) renew(ctx context.Context) (jetstream.ConsumeContext, error) {
	o := s.o
	wait := time.Second
	for {
		o.mu.Lock()
		cfg := o.config()
		serial := o.serial
		o.deliverSeq = 0
		o.mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cons, err := o.js.CreateOrUpdateConsumer(cctx, o.stream, cfg)
		cancel()
		var inner jetstream.ConsumeContext
		if err == nil {
			o.mu.Lock()
			o.cur = cons
			o.mu.Unlock()
			if inner, err = s.start(cons, serial); err == nil {
				return inner, nil
			}
		}
		if ctx.Err() != nil || o.js.Conn().IsClosed() {
			return nil, fmt.Errorf("link: replacing a consumer of %s: %w", o.stream, err)
		}
		if s.onErr != nil {
			s.onErr(fmt.Errorf("link: replacing a consumer of %s: %w", o.stream, err))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// Stop ends the consuming (the consumer is the server's to remove).
func (s *orderedSub) Stop() { s.end(false) }

// Drain ends the consuming after the messages already received are handled.
func (s *orderedSub) Drain() { s.end(true) }

func (s *orderedSub) end(drain bool) {
	s.once.Do(func() {
		s.drain = drain
		close(s.done)
		s.cancel()
	})
}

// Closed is closed once the consuming has ended.
func (s *orderedSub) Closed() <-chan struct{} { return s.closed }
