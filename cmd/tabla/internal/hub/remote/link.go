package remote

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
)

// LinkOptions are `tabla run`'s and `tabla sim`'s --hub flags.
type LinkOptions struct {
	URL        string // --hub: nats://TABLE:PASSWORD@HOST:4222
	Table      string // --table ("": the URL's user)
	CA         string // --hub-ca
	Remote     string // --remote HOST[/GAME][:SEAT]
	JournalDir string
	Logger     *slog.Logger
}

// Linked is a session's link to a hub, with remote play.
type Linked struct {
	Table  *link.Table
	Remote *Remote
	log    *slog.Logger
	done   chan struct{}
	cancel context.CancelFunc
}

// Link connects a table to a hub and, for --remote, finds the game it
// joins (waiting for the hub as long as ctx allows).
func Link(ctx context.Context, o LinkOptions) (*Linked, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Remote != "" {
		if _, _, _, err := ParseJoin(o.Remote); err != nil {
			return nil, err
		}
	}
	t, err := link.Connect(link.TableOptions{URL: o.URL, Name: o.Table, CA: o.CA, JournalDir: o.JournalDir, Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	l := &Linked{Table: t, log: o.Logger}
	l.Remote = NewRemote(t, RemoteOptions{Join: o.Remote, JournalDir: o.JournalDir, Logger: o.Logger})
	return l, nil
}

// Apply sets a session's options up for the hub: the publisher, the hint
// and die of remote play and, for a joiner, the hosted game's header (its
// game must be the one asked for). Call it before companion.Open.
func (l *Linked) Apply(ctx context.Context, o *companion.Options) error {
	inner := o.Hint
	if inner == nil {
		inner = companion.SearchHint(nil)
	}
	rnd := o.Rand
	if rnd == nil {
		seed := o.Seed
		if seed == 0 {
			seed = uint64(time.Now().UnixNano())
		}
		rnd = rand.New(rand.NewPCG(seed, 0xd1ce)).IntN
	}
	l.Remote.innerHint, l.Remote.innerRand = inner, rnd
	h, resume, err := l.Remote.Prepare(ctx)
	if err != nil {
		return err
	}
	if h != nil {
		if o.Header.Game != "" && o.Header.Game != h.Game {
			return fmt.Errorf("hub: --remote %s plays %s, not %s", l.Remote.join, h.Game, o.Header.Game)
		}
		o.Header = *h
		o.NoResume = !resume
	}
	o.Publisher = l.Table
	o.Hint = l.Remote.Hint
	o.Rand = l.Remote.Rand
	return nil
}

// Start publishes the session and plays remote seats until ctx ends.
func (l *Linked) Start(ctx context.Context, sess *companion.Session) {
	l.Table.Start(sess)
	ctx, l.cancel = context.WithCancel(ctx)
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		l.Remote.Run(ctx, sess)
	}()
	l.log.Info("hub", "table", l.Table.Name(), "remote", l.Remote.join)
}

// Close stops remote play and the link, publishing what it can within 2 s.
func (l *Linked) Close() {
	if l.done != nil {
		l.cancel()
		<-l.done
	}
	l.Table.Close(2 * time.Second)
}
