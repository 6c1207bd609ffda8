package link

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine/clock"
)

// followPairings starts the club evening's games the hub pairs at this
// table (bucket tabla_pairings, key the table's name): each pairing's
// game starts, with the names, event, round and time control in its
// header, as soon as the game on the board is over or has not begun
// (companion.Session.StartPaired); a game under way is never abandoned.
// A pairing for another game than the table's is logged and left. The
// game's clocks start with its first move, or when the arbiter starts
// the round (the pairing's Start).
func (t *Table) followPairings(sess *companion.Session) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-t.stop
		cancel()
	}()
	changes := sess.Subscribe(ctx)
	var want *wire.Pairing // the latest pairing, until it is the board's game
	updates := make(chan *wire.Pairing, 1)
	go t.watchPairing(ctx, updates)
	for {
		if want != nil {
			if t.applyPairing(sess, want) {
				want = nil
			}
		}
		select {
		case <-ctx.Done():
			return
		case p := <-updates:
			want = p
		case _, ok := <-changes:
			if !ok {
				return
			}
		}
	}
}

// watchPairing sends each value of the table's pairing key (again after
// a failed watch).
func (t *Table) watchPairing(ctx context.Context, out chan<- *wire.Pairing) {
	for ctx.Err() == nil {
		err := func() error {
			w, err := WatchKV(ctx, t.js, wire.BucketPairings, t.name)
			if err != nil {
				return err
			}
			defer w.Stop()
			for e := range w.Updates() {
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
				var p wire.Pairing
				if err := json.Unmarshal(e.Value(), &p); err != nil {
					t.log.Warn("hub: an unreadable pairing", "err", err)
					continue
				}
				select {
				case out <- &p:
				case <-ctx.Done():
					return nil
				}
			}
			return errors.New("the pairing's watch ended")
		}()
		if ctx.Err() != nil {
			return
		}
		t.log.Debug("hub: following the table's pairing", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// applyPairing starts the paired game if it can; it reports whether the
// pairing needs nothing more (started, already the board's game, or not
// for this table's game).
func (t *Table) applyPairing(sess *companion.Session, p *wire.Pairing) bool {
	if g := sess.GameName(); g != p.Game {
		t.log.Warn("hub: a pairing for another game: left", "pairing", p.Game, "table", g, "round", p.Who.Round)
		return true
	}
	var ctl clock.Controls
	if p.Clock != "" {
		var err error
		if ctl, err = clock.ParseControls([]string{p.Clock}); err != nil {
			t.log.Warn("hub: a pairing's time control", "clock", p.Clock, "err", err)
			return true
		}
	}
	started, err := sess.StartPaired(p.Who, ctl)
	switch {
	case errors.Is(err, companion.ErrGameUnderWay):
		return false // when the game on the board ends
	case err != nil:
		t.log.Warn("hub: a pairing not started", "round", p.Who.Round, "err", err)
		return true
	case started:
		t.log.Info("hub: the paired game started", "event", p.Who.Event, "round", p.Who.Round, "names", p.Who.Names)
	}
	// the arbiter started the round's clocks: the first mover's runs now
	// (unless a move is made already); else the first move starts them
	if p.Start != nil {
		if err := sess.StartClocks(); err == nil {
			t.log.Info("hub: the arbiter started the clocks", "round", p.Who.Round)
		}
	}
	return true
}
