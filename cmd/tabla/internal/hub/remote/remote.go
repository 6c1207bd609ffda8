package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// Remote plays a game between boards: a seat whose moves are made at
// another table (or in a browser on the hub's page) is lit on this board
// as a move to carry out, as the engine's moves are for an AI seat, and
// the board does not go on until it is: a different move made for that
// seat is taken back (the LEDs guide the pieces back) and the right one
// lit again. Rolls are made once, at the table (or by the hub for a
// browser) whose seat rolls, and the others roll the same face with
// tabla's die. Each table's referee still checks everything its sensors
// see, and each journals the whole game; the hub keeps both records.
//
// A table that hosts a game (every table with --hub) follows the claims
// on its game's seats (tabla_seats: HOST.GAME.SEAT) and, for each
// claimed seat, the claimer's record. A table that joins a game (--remote
// HOST[:SEAT]) claims a seat and follows the host's record for the
// others. Both compare, at every change, their own game (the session's
// history) with those records, step by step: the records are the truth
// for the seats they play.
type Remote struct {
	t    *link.Table
	name string // the table's name on the hub (t.Name())
	log  *slog.Logger
	join string // HOST[/GAME][:SEAT] for a joiner, "" for a host
	dir  string // the journal directory (the joiner's link file)

	host   wire.Ref // joiner: the hosted game
	seat   string   // joiner: the seat played here
	header *record.Header
	resume bool

	innerHint func(engine.State) (string, error)
	innerRand func(int) int

	mu       sync.Mutex
	due      dueMove
	face     int // the face to roll next (-1: none)
	sources  map[string]*source
	claims   map[string]wire.Ref // host: seat key → the player
	loaded   bool                // host: the claims were read once
	sess     *companion.Session
	ctx      context.Context
	gid      string // this table's game now
	joined   string // joiner: this table's game that plays the hosted one
	askedAt  string // the state the last hint was asked for
	askedT   time.Time
	backAt   int // local history length the last takeback was asked at (-1: none)
	warned   string
	answered int // host: seat requests answered (granted or not)
	now      func() time.Time

	poke chan struct{}
}

type dueMove struct {
	ply  int
	seat string
	move string
}

// source is a record the remote play follows.
type source struct {
	ref    wire.Ref
	game   *wire.Game
	caught bool // read to the end once
	err    error
	cancel context.CancelFunc
	since  time.Time // followed since
	seen   time.Time // the other board's last live status
}

// RemoteOptions set up remote play.
type RemoteOptions struct {
	// Join is HOST[:SEAT] or HOST/GAME[:SEAT]: play SEAT (default: the
	// last seat not played elsewhere) of the game table HOST plays (its
	// current one, or GAME). "" hosts: seats others claim are played
	// there.
	Join string
	// JournalDir is the table's journal directory: a joiner keeps its link
	// to the hosted game there (.tabla-remote.json), to resume it.
	JournalDir string
	// Hint and Rand are the session's own hint and die, used for the
	// seats played here.
	Hint func(engine.State) (string, error)
	Rand func(int) int
	// Logger logs remote play (default: the table's).
	Logger *slog.Logger
}

// NewRemote sets remote play up on a table's link.
func NewRemote(t *link.Table, o RemoteOptions) *Remote {
	if o.Logger == nil {
		o.Logger = t.Logger()
	}
	if o.Hint == nil {
		o.Hint = companion.SearchHint(nil)
	}
	return &Remote{t: t, name: t.Name(), log: o.Logger, join: o.Join, now: time.Now, dir: o.JournalDir, innerHint: o.Hint, innerRand: o.Rand,
		face: -1, sources: map[string]*source{}, claims: map[string]wire.Ref{}, backAt: -1, poke: make(chan struct{}, 1)}
}

// linkFile is a joiner's link to the game it plays seats of.
const linkFile = ".tabla-remote.json"

type hostLink struct {
	Host    wire.Ref `json:"host"`
	Journal string   `json:"journal"`
}

// ParseJoin reads HOST[/GAME][:SEAT].
func ParseJoin(s string) (host, game, seat string, err error) {
	rest, seat, _ := strings.Cut(s, ":")
	host, game, _ = strings.Cut(rest, "/")
	if err := wire.CheckTable(host); err != nil {
		return "", "", "", fmt.Errorf("--remote %s: %v", s, err)
	}
	if game != "" && wire.Sanitize(game) != game {
		return "", "", "", fmt.Errorf("--remote %s: %q is not a game id", s, game)
	}
	return host, game, seat, nil
}

// Prepare finds the hosted game a joiner plays (waiting for the hub as
// long as ctx allows) and returns its header, for the session to play,
// and whether the session should resume its unfinished game (the one
// linked to it). A host returns (nil, true, nil).
func (r *Remote) Prepare(ctx context.Context) (*record.Header, bool, error) {
	if r.join == "" {
		return nil, true, nil
	}
	host, game, seat, err := ParseJoin(r.join)
	if err != nil {
		return nil, false, err
	}
	var entry link.TableEntry
	for wait := time.Duration(0); ; wait = r.t.ReconnectWait() {
		select {
		case <-ctx.Done():
			return nil, false, fmt.Errorf("hub: waiting for the hub to join %s: %w", r.join, ctx.Err())
		case <-time.After(wait):
		}
		entry, err = r.lookup(ctx, host, game)
		if err == nil {
			break
		}
		r.log.Info("hub: waiting to join a game", "remote", r.join, "err", err)
	}
	h, err := wire.ParseHeader(entry.Header)
	if err != nil {
		return nil, false, err
	}
	h.Meta = nil
	st, err := record.NewState(h)
	if err != nil {
		return nil, false, err
	}
	seats := st.Info().Seats
	if seat != "" && !slices.Contains(seats, seat) {
		return nil, false, fmt.Errorf("--remote %s: %q is not a seat of %s (want %s)", r.join, seat, h.Game, strings.Join(seats, ", "))
	}
	r.host = wire.Ref{Table: host, Game: entry.Game}
	if l, ok := r.readLink(); ok && l.Host.Table == host && l.Host.Game == entry.Game {
		r.resume = true
		if seat == "" {
			seat = l.Host.Seat
		}
	}
	if seat == "" {
		seat = r.freeSeat(ctx, seats)
	}
	r.seat = seat
	r.host.Seat = seat
	r.header = h
	r.t.Join(r.host)
	r.log.Info("hub: joining a game", "host", host, "game", entry.Game, "seat", seat, "resume", r.resume)
	return h, r.resume, nil
}

var errNoTable = errors.New("hub: no such table on the hub")

// lookup finds a host's game: its current one, or game.
func (r *Remote) lookup(ctx context.Context, host, game string) (link.TableEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if !r.t.Conn().IsConnected() {
		return link.TableEntry{}, errors.New("not connected")
	}
	if game != "" {
		s, err := r.t.JetStream().Stream(ctx, wire.StreamGames)
		if err != nil {
			return link.TableEntry{}, err
		}
		m, err := s.GetMsg(ctx, 0, jetstream.WithGetMsgSubject(wire.RecSubject(host, game)))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return link.TableEntry{}, fmt.Errorf("%w: %s has no game %s", errNoTable, host, game)
		}
		if err != nil {
			// a server without direct get by subject: ask for the first message
			return link.TableEntry{}, err
		}
		var ev wire.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil || ev.N != 0 {
			return link.TableEntry{}, fmt.Errorf("hub: %s/%s: no header", host, game)
		}
		return link.TableEntry{Table: host, Game: game, Journal: ev.Journal, Header: ev.Header}, nil
	}
	kv, err := r.t.JetStream().KeyValue(ctx, wire.BucketTables)
	if err != nil {
		return link.TableEntry{}, err
	}
	e, err := kv.Get(ctx, host)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return link.TableEntry{}, fmt.Errorf("%w: %s (it has not published a game)", errNoTable, host)
	}
	if err != nil {
		return link.TableEntry{}, err
	}
	var te link.TableEntry
	if err := json.Unmarshal(e.Value(), &te); err != nil {
		return link.TableEntry{}, err
	}
	return te, nil
}

// freeSeat is the last seat of the host's game nobody plays elsewhere.
func (r *Remote) freeSeat(ctx context.Context, seats []string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	kv, err := r.t.JetStream().KeyValue(ctx, wire.BucketSeats)
	for i := len(seats) - 1; i > 0 && err == nil; i-- {
		e, gerr := kv.Get(ctx, wire.SeatKey(r.host.Table, r.host.Game, seats[i]))
		if errors.Is(gerr, jetstream.ErrKeyNotFound) {
			return seats[i]
		}
		if gerr == nil {
			var p wire.Ref
			if json.Unmarshal(e.Value(), &p) == nil && p.Table == r.name {
				return seats[i]
			}
		}
	}
	return seats[len(seats)-1]
}

func (r *Remote) readLink() (hostLink, bool) {
	var l hostLink
	if r.dir == "" {
		return l, false
	}
	data, err := os.ReadFile(filepath.Join(r.dir, linkFile))
	if err != nil || json.Unmarshal(data, &l) != nil {
		return l, false
	}
	return l, true
}

func (r *Remote) writeLink(journal string) {
	if r.dir == "" {
		return
	}
	data, _ := json.Marshal(hostLink{Host: r.host, Journal: filepath.Base(journal)})
	path := filepath.Join(r.dir, linkFile)
	if os.WriteFile(path+".tmp", data, 0o644) == nil {
		os.Rename(path+".tmp", path)
	}
}

// Hint is the session's hint: a remote seat's move to carry out, else the
// session's own hint. A seat played elsewhere whose move is not known yet
// gets no hint (companion.ErrNoHintYet), never an engine's move: a person
// would carry that out as the other board's.
func (r *Remote) Hint(st engine.State) (string, error) {
	if st.ToMove() < 0 {
		return r.innerHint(st)
	}
	seat := st.Info().Seats[st.ToMove()]
	r.mu.Lock()
	d := r.due
	_, elsewhere := r.sourcesLocked([]string{seat})[seat]
	r.mu.Unlock()
	if d.move != "" && d.ply == st.Plies() && seat == d.seat {
		return d.move, nil
	}
	if elsewhere {
		r.mu.Lock()
		table, quiet := r.quietLocked(seat)
		r.mu.Unlock()
		if quiet > 0 {
			// not "no hint yet": the board shows that none comes
			return "", fmt.Errorf("hub: %s plays at board %s, which has sent nothing for %v: it may be off or cut off", seat, table, quiet.Round(time.Second))
		}
		return "", fmt.Errorf("%w: %s plays at another board", companion.ErrNoHintYet, seat)
	}
	return r.innerHint(st)
}

// Rand is the session's die: the face a remote seat rolled, when one is
// due, else the session's own die.
func (r *Remote) Rand(n int) int {
	r.mu.Lock()
	f := r.face
	r.face = -1
	r.mu.Unlock()
	if f >= 0 && f < n {
		return f
	}
	return r.innerRand(n)
}

// Ready reports whether the remote play knows which seats are played
// elsewhere (a host has read the claims on its game's seats).
func (r *Remote) Ready() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.join != "" || r.loaded
}

// Seat is the seat a joiner plays ("" for a host).
func (r *Remote) Seat() string { return r.seat }

// Host is the game a joiner plays seats of.
func (r *Remote) Host() wire.Ref { return r.host }

// Run plays until ctx ends.
func (r *Remote) Run(ctx context.Context, sess *companion.Session) {
	r.mu.Lock()
	r.sess, r.ctx = sess, ctx
	r.gid = wire.GameID(sess.JournalPath())
	r.joined = r.gid
	r.mu.Unlock()
	changes := sess.Subscribe(ctx)
	link := r.t.Subscribe(ctx)
	if r.join != "" {
		r.writeLink(sess.JournalPath())
		go r.claim(ctx)
		r.follow(ctx, wire.Ref{Table: r.host.Table, Game: r.host.Game})
	} else {
		go r.watchClaims(ctx)
		go r.refreshClaims(ctx)
		go r.watchRequests(ctx)
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	defer r.stopAll()
	for n := 0; ; {
		r.reconcile()
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-link:
		case <-r.poke:
		case <-tick.C:
			r.checkQuiet()
			if n++; n%5 == 0 && r.join == "" {
				go r.refreshClaims(ctx) // besides the watch, in case it stalls
			}
		}
	}
}

func (r *Remote) wake() {
	select {
	case r.poke <- struct{}{}:
	default:
	}
}

// pruneLocked stops following the records the game played here now does
// not need — those of earlier games — and forgets their seats' claims:
// a daemon that plays game after game follows one game's records, not
// every game's since it started.
func (r *Remote) pruneLocked() {
	need := map[string]bool{}
	if r.join != "" {
		if r.gid == r.joined {
			need[r.host.Table+"/"+r.host.Game] = true
		}
	} else {
		prefix := r.name + "." + r.gid + "."
		for k, p := range r.claims {
			if !strings.HasPrefix(k, prefix) {
				delete(r.claims, k)
				continue
			}
			need[p.Table+"/"+p.Game] = true
		}
	}
	for key, s := range r.sources {
		if !need[key] {
			if s.cancel != nil {
				s.cancel()
			}
			delete(r.sources, key)
		}
	}
}

func (r *Remote) stopAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sources {
		if s.cancel != nil {
			s.cancel()
		}
	}
}

// claim asks the host for the joiner's seat of the hosted game and waits
// until it is granted. Only the host writes its seats (NATS permissions:
// a table puts only keys under its own name), so the joiner puts a
// request under its own name (JOINER.HOST.GAME.SEAT) and watches the
// seat's key (HOST.GAME.SEAT) for the host's grant.
func (r *Remote) claim(ctx context.Context) {
	ref := wire.Ref{Table: r.name, Game: r.gid, Seat: r.seat}
	val, _ := json.Marshal(ref)
	req := wire.RequestKey(r.name, r.host.Table, r.host.Game, r.seat)
	key := wire.SeatKey(r.host.Table, r.host.Game, r.seat)
	asked := false
	for {
		err := func() error {
			kv, err := r.t.JetStream().KeyValue(ctx, wire.BucketSeats)
			if err != nil {
				return err
			}
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err = kv.Put(pctx, req, val)
			cancel()
			if err != nil {
				return err
			}
			if !asked {
				r.log.Info("hub: seat asked for", "game", r.host.String(), "seat", r.seat)
				asked = true
			}
			w, err := link.WatchKV(ctx, r.t.JetStream(), wire.BucketSeats, key)
			if err != nil {
				return err
			}
			defer w.Stop()
			// asked again while no answer comes: a host that was not ready
			// (its new game not yet its own) answers the next ask
			again := time.NewTicker(askAgain)
			defer again.Stop()
			for {
				var e jetstream.KeyValueEntry
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-again.C:
					pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					_, err := kv.Put(pctx, req, val)
					cancel()
					if err != nil {
						return err
					}
					continue
				case u, ok := <-w.Updates():
					if !ok {
						return errors.New("the watch of the seat ended")
					}
					e = u
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
				var p wire.Ref
				json.Unmarshal(e.Value(), &p)
				if p == ref {
					return nil
				}
				if p.Table != r.name {
					return fmt.Errorf("%w: %s plays %s there", wire.ErrSeatTaken, p.Table, r.seat)
				}
				// an earlier journal of ours: the host updates it
			}
		}()
		if err == nil {
			r.log.Info("hub: seat claimed", "game", r.host.String(), "seat", r.seat) // granted by the host
			return
		}
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("hub: claiming the seat", "game", r.host.String(), "err", err)
		if errors.Is(err, wire.ErrSeatTaken) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.t.ReconnectWait()):
		}
	}
}

// askAgain is how often a joiner asks again for a seat not yet granted.
const askAgain = 5 * time.Second

// watchRequests grants the seats other tables (and the hub, for a
// browser) ask for in this table's current game: a seat nobody plays
// elsewhere, or one the asker already plays (a later journal of it). A
// browser gets no seat of a game under way (the board would have to take
// back the moves made for it).
func (r *Remote) watchRequests(ctx context.Context) {
	for ctx.Err() == nil {
		err := func() error {
			kv, err := r.t.JetStream().KeyValue(ctx, wire.BucketSeats)
			if err != nil {
				return err
			}
			w, err := link.WatchKV(ctx, r.t.JetStream(), wire.BucketSeats, "*."+r.name+".*.*")
			if err != nil {
				return err
			}
			defer w.Stop()
			for e := range w.Updates() {
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
				if err := r.grant(ctx, kv, e); err != nil && ctx.Err() == nil {
					r.log.Warn("hub: a seat asked for", "request", e.Key(), "err", err)
				}
				r.mu.Lock()
				r.answered++
				r.mu.Unlock()
			}
			return errors.New("the watch ended")
		}()
		if ctx.Err() != nil {
			return
		}
		r.log.Debug("hub: watching seat requests", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.t.ReconnectWait()):
		}
	}
}

// grant answers one request (JOINER.HOST.GAME.SEAT → the joiner's Ref).
func (r *Remote) grant(ctx context.Context, kv jetstream.KeyValue, e jetstream.KeyValueEntry) error {
	asker, game, seat, ok := wire.ParseRequestKey(e.Key(), r.name)
	if !ok {
		return nil
	}
	var p wire.Ref
	if err := json.Unmarshal(e.Value(), &p); err != nil || p.Table != asker || wire.Sanitize(p.Seat) != seat {
		return fmt.Errorf("a request that names another player: %s", e.Value())
	}
	r.mu.Lock()
	sess, gid := r.sess, r.gid
	r.mu.Unlock()
	if sess == nil || game != gid {
		return nil // not the game played here now
	}
	if !slices.ContainsFunc(sess.Seats(), func(s string) bool { return wire.Sanitize(s) == seat }) {
		return fmt.Errorf("%w: %q", wire.ErrSeat, p.Seat)
	}
	gctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	key := wire.SeatKey(r.name, game, seat)
	cur, err := kv.Get(gctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		if asker == wire.WebTable && len(sess.History()) > 0 {
			return fmt.Errorf("%w: a browser gets no seat of a game under way", wire.ErrUnderWay)
		}
		_, err = kv.Create(gctx, key, e.Value())
		if err == nil {
			r.log.Info("hub: seat granted", "seat", p.Seat, "to", asker)
		}
		return err
	case err != nil:
		return err
	}
	var held wire.Ref
	json.Unmarshal(cur.Value(), &held)
	if held == p {
		return nil
	}
	if held.Table != asker {
		return fmt.Errorf("%w: %s plays %s", wire.ErrSeatTaken, held.Table, p.Seat)
	}
	_, err = kv.Update(gctx, key, e.Value(), cur.Revision()) // a later journal of the same player
	return err
}

// watchClaims follows the claims on this table's games' seats.
func (r *Remote) watchClaims(ctx context.Context) {
	for ctx.Err() == nil {
		err := func() error {
			w, err := link.WatchKV(ctx, r.t.JetStream(), wire.BucketSeats, r.name+".*.*") // this table's seats, not its own requests
			if err != nil {
				return err
			}
			defer w.Stop()
			for e := range w.Updates() {
				if e == nil { // the claims as they stand are all in
					r.mu.Lock()
					r.loaded = true
					r.mu.Unlock()
					r.wake()
					continue
				}
				r.mu.Lock()
				if e.Operation() == jetstream.KeyValuePut {
					var p wire.Ref
					if json.Unmarshal(e.Value(), &p) == nil && strings.HasPrefix(e.Key(), r.name+"."+r.gid+".") {
						r.claims[e.Key()] = p // a seat of the game played now (earlier games' are of no use)
					}
				} else {
					delete(r.claims, e.Key())
				}
				r.mu.Unlock()
				r.wake()
			}
			return errors.New("the watch ended")
		}()
		if ctx.Err() != nil {
			return
		}
		r.log.Debug("hub: watching seat claims", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.t.ReconnectWait()):
		}
	}
}

// refreshClaims reads the claims on the current game's seats, on a watch
// read to its end (the values as they stand) and stopped: its consumer
// is the server's to remove (link.KVWatch), no delete of it refused. Not gets
// of the seats' keys: with the hub's server reloading its users (a table
// added), nats-server v2.15.2's direct get races with the reload.
func (r *Remote) refreshClaims(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r.mu.Lock()
	gid := r.gid
	r.mu.Unlock()
	prefix := r.name + "." + gid + "."
	w, err := link.WatchKV(ctx, r.t.JetStream(), wire.BucketSeats, prefix+"*")
	if err != nil {
		return
	}
	defer w.Stop()
	changed, loaded := false, false
	for e := range w.Updates() {
		if e == nil {
			loaded = true
			break
		}
		var p wire.Ref
		if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &p) != nil {
			continue
		}
		r.mu.Lock()
		if r.gid == gid && r.claims[e.Key()] != p {
			r.claims[e.Key()], changed = p, true
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	if loaded && !r.loaded && r.gid == gid {
		r.loaded, changed = true, true
	}
	r.mu.Unlock()
	if changed {
		r.wake()
	}
}

// follow starts following a record (once).
func (r *Remote) follow(ctx context.Context, ref wire.Ref) *source {
	key := ref.Table + "/" + ref.Game
	r.mu.Lock()
	if s := r.sources[key]; s != nil {
		r.mu.Unlock()
		return s
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &source{ref: ref, cancel: cancel, since: r.now()}
	r.sources[key] = s
	r.mu.Unlock()
	go r.consume(sctx, s)
	return s
}

// consume reads a record into its source, again after every failure.
func (r *Remote) consume(ctx context.Context, s *source) {
	subj := wire.RecSubject(s.ref.Table, s.ref.Game)
	if s.ref.Table != wire.WebTable {
		// the other board's live status says it is there
		if sub, err := r.t.Conn().Subscribe(wire.LiveSubject(s.ref.Table), func(*nats.Msg) {
			r.mu.Lock()
			s.seen = r.now()
			r.mu.Unlock()
		}); err == nil {
			defer sub.Unsubscribe()
		}
	}
	for ctx.Err() == nil {
		err := func() error {
			// link's ordered consumer: nats.go's deletes the consumer it
			// replaces, which a table may not (issue 41)
			cons, err := link.NewOrdered(ctx, r.t.JetStream(), wire.StreamGames, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
			if err != nil {
				return err
			}
			info, err := cons.Info(ctx)
			if err != nil {
				return err
			}
			if info.NumPending == 0 {
				r.mu.Lock()
				s.caught = true
				r.mu.Unlock()
				r.wake()
			}
			var last link.StallGuard
			cc, err := cons.Consume(func(m jetstream.Msg) {
				var ev wire.Event
				if json.Unmarshal(m.Data(), &ev) != nil {
					return
				}
				md, _ := m.Metadata()
				if md != nil {
					last.Delivered(md.Sequence.Stream)
				}
				r.mu.Lock()
				switch {
				case s.game == nil && ev.N == 0:
					ev.Table, ev.Game = s.ref.Table, s.ref.Game
					s.game, s.err = wire.NewGame(&ev)
				case s.game != nil:
					if err := s.game.Apply(ev.N, ev.Line); err != nil {
						s.err = err
					}
				}
				if md != nil && md.NumPending == 0 {
					s.caught = true
				}
				r.mu.Unlock()
				r.wake()
			}, func(err error) {
				r.log.Debug("hub: following a record", "record", s.ref.String(), "err", err)
			}, link.ConsumeOpts()...)
			if err != nil {
				return err
			}
			defer cc.Stop()
			return last.Watch(ctx, cc, func(ctx context.Context) (uint64, error) {
				st, err := r.t.JetStream().Stream(ctx, wire.StreamGames)
				if err != nil {
					return 0, err
				}
				m, err := st.GetLastMsgForSubject(ctx, subj)
				if err != nil {
					return 0, err
				}
				return m.Sequence, nil
			})
		}()
		if ctx.Err() != nil {
			return
		}
		r.log.Debug("hub: following a record", "record", s.ref.String(), "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.t.ReconnectWait()):
		}
	}
}

// sourceFor returns the record that is the truth for seat (nil: the seat
// is played here), starting to follow it if needed.
func (r *Remote) sourcesLocked(seats []string) map[string]*source {
	out := map[string]*source{}
	if r.join != "" {
		if r.gid != r.joined {
			return out // a game of this table's own since
		}
		s := r.sources[r.host.Table+"/"+r.host.Game]
		for _, seat := range seats {
			if seat != r.seat {
				out[seat] = s
			}
		}
		return out
	}
	prefix := r.name + "." + r.gid + "."
	for k, p := range r.claims {
		seat, ok := strings.CutPrefix(k, prefix)
		if !ok || p.Table == r.name {
			continue
		}
		for _, s := range seats {
			if wire.Sanitize(s) == seat {
				out[s] = r.sources[p.Table+"/"+p.Game]
			}
		}
	}
	return out
}

// reconcile compares the session's game with the records of the seats
// played elsewhere and acts: takes back a step made here for such a seat
// that its record does not have, lights the next move of such a seat, or
// rolls its roll.
func (r *Remote) reconcile() {
	sess := r.sess
	if sess == nil {
		return
	}
	// this table's game may have changed (a new game)
	gid := wire.GameID(sess.JournalPath())
	seats := sess.Seats()
	r.mu.Lock()
	if gid != r.gid {
		r.gid = gid
		r.due = dueMove{}
		r.pruneLocked()
	}
	if r.join == "" {
		prefix := r.name + "." + r.gid + "."
		for k, p := range r.claims {
			if strings.HasPrefix(k, prefix) && p.Table != r.name && r.sources[p.Table+"/"+p.Game] == nil {
				r.mu.Unlock()
				r.follow(r.ctx, wire.Ref{Table: p.Table, Game: p.Game})
				r.mu.Lock()
			}
		}
	}
	if r.join == "" && !r.loaded {
		r.mu.Unlock()
		return // the claims are not read yet: which seats are played elsewhere is not known
	}
	srcs := r.sourcesLocked(seats)
	type view struct {
		steps  []wire.Step
		caught bool
		ok     bool
	}
	views := map[string]view{}
	for seat, s := range srcs {
		v := view{}
		if s != nil && s.game != nil && s.err == nil {
			v = view{steps: slices.Clone(s.game.Steps), caught: s.caught, ok: true}
		}
		views[seat] = v
	}
	r.mu.Unlock()
	if len(views) == 0 {
		r.setDue(dueMove{})
		return
	}
	for _, v := range views {
		if !v.ok || !v.caught {
			return // a record not yet read: wait for it
		}
	}
	st := sess.State()
	hist := sess.History()
	local := make([]wire.Step, len(hist))
	for i, a := range hist {
		local[i] = wire.Step{Roll: a.Roll, Text: a.Text, Seat: seats[a.Seat]}
	}
	// a step made here for a seat played elsewhere that its record has
	// otherwise (a step its record has not yet may be a forced pass the
	// referee played, or a move made early: it is judged when the record
	// has the step)
	for i, s := range local {
		v, remote := views[s.Seat]
		if !remote || i >= len(v.steps) || v.steps[i] == s {
			continue
		}
		r.setDue(dueMove{})
		r.mu.Lock()
		asked := r.backAt == len(local)
		r.backAt = len(local)
		r.mu.Unlock()
		if asked {
			return // the takeback asked for is under way (or failed: logged)
		}
		r.log.Info("hub: a step made here is not the other board's: taken back", "step", i, "made", s.String(), "want", v.steps[i].String())
		if err := sess.Command("takeback", ""); err != nil {
			r.warnOnce("takeback", "hub: cannot take back a step the other board did not make", "err", err)
		}
		return
	}
	r.mu.Lock()
	r.backAt = -1
	r.mu.Unlock()
	if st.Status != "playing" || st.ToMove == nil {
		r.setDue(dueMove{})
		return
	}
	seat := *st.ToMove
	i := len(local)
	var next *wire.Step
	if v, remote := views[seat]; remote {
		if i < len(v.steps) {
			next = &v.steps[i]
		}
	} else {
		// a seat played here: the other board may have carried out a step
		// of it that was taken back here since; light it again
		for _, v := range views {
			if i < len(v.steps) && v.steps[i].Seat == seat {
				next = &v.steps[i]
				break
			}
		}
	}
	if next == nil || next.Seat != seat {
		r.setDue(dueMove{})
		return
	}
	switch {
	case next.Roll && st.Awaiting == "roll":
		face := slices.Index(sess.Die(), next.Text)
		if face < 0 {
			r.warnOnce("face", "hub: the other board rolled a face this die has not", "face", next.Text)
			return
		}
		r.mu.Lock()
		r.face = face
		r.mu.Unlock()
		if err := sess.Command("roll", ""); err != nil {
			r.log.Warn("hub: rolling the other board's roll", "err", err)
		}
		r.mu.Lock()
		r.face = -1
		r.mu.Unlock()
	case !next.Roll && st.Awaiting == "move":
		r.setDue(dueMove{ply: st.Ply, seat: seat, move: next.Text})
		key := fmt.Sprintf("%d/%d/%s", len(local), st.Ply, next.Text)
		if st.Hint == next.Text || (st.Mode != "play" && st.Mode != "setup") || !st.InSync {
			if st.Hint == next.Text {
				r.mu.Lock()
				r.askedAt = key
				r.mu.Unlock()
			}
			return
		}
		// ask again after 2 s without the hint (a search under way may have
		// refused the ask); the time is that of the ask, not of this look
		r.mu.Lock()
		again := r.askedAt == key+"/asked" && time.Since(r.askedT) < 2*time.Second
		if !again {
			r.askedAt, r.askedT = key+"/asked", time.Now()
		}
		r.mu.Unlock()
		if again {
			return // asked for this position a moment ago
		}
		if err := sess.Command("hint", ""); err != nil {
			r.log.Warn("hub: lighting the other board's move", "err", err)
		}
	}
}

func (r *Remote) setDue(d dueMove) {
	r.mu.Lock()
	r.due = d
	r.mu.Unlock()
}

func (r *Remote) warnOnce(key, msg string, args ...any) {
	r.mu.Lock()
	again := r.warned == key
	r.warned = key
	r.mu.Unlock()
	if !again {
		r.log.Warn(msg, args...)
	}
}

// OfflineAfter is how long a board may send no live status before the
// board playing with it is told it may be off (three beats).
const OfflineAfter = 3 * link.LiveBeat

// quietLocked says, for a seat played at another board, which board and
// how long it has been silent beyond OfflineAfter (0: it is there, or the
// seat is a browser's).
func (r *Remote) quietLocked(seat string) (string, time.Duration) {
	s := r.sourcesLocked([]string{seat})[seat]
	if s == nil || s.ref.Table == wire.WebTable {
		return "", 0
	}
	last := s.seen
	if last.Before(s.since) {
		last = s.since
	}
	if d := r.now().Sub(last); d > OfflineAfter {
		return s.ref.Table, d
	}
	return s.ref.Table, 0
}

// checkQuiet logs, once per silence, that a board this one plays with
// has sent nothing for OfflineAfter.
func (r *Remote) checkQuiet() {
	r.mu.Lock()
	var msgs [][2]string
	for _, s := range r.sources {
		if s.ref.Table == wire.WebTable {
			continue
		}
		last := s.seen
		if last.Before(s.since) {
			last = s.since
		}
		if d := r.now().Sub(last); d > OfflineAfter {
			msgs = append(msgs, [2]string{s.ref.Table, last.UTC().Format(time.RFC3339)})
		}
	}
	r.mu.Unlock()
	for _, m := range msgs {
		r.warnOnce("quiet:"+m[0]+m[1], "hub: the other board sends nothing: it may be off or cut off", "table", m[0], "since", m[1])
	}
}

// Answered is how many seat requests this table, as a host, answered
// (granted or not).
func (r *Remote) Answered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answered
}

// PlayedElsewhere says whether seat of this table's game is played at
// another table or in a browser: for a host, claimed by one; for a
// joiner, any seat but its own while it plays the hosted game.
func (r *Remote) PlayedElsewhere(seat string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.sourcesLocked([]string{seat})[seat]
	return ok
}

// LastHeard is when the board that plays seat last sent its live status
// (zero: not yet, or the seat is played here).
func (r *Remote) LastHeard(seat string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.sourcesLocked([]string{seat})[seat]; s != nil {
		return s.seen
	}
	return time.Time{}
}

// SetClock sets the clock a board's silence is judged by (default
// time.Now): a test moves it on instead of waiting OfflineAfter.
func (r *Remote) SetClock(now func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = now
}

// Debug describes remote play's state, for a test's log.
func (r *Remote) Debug() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := fmt.Sprintf("gid %s due %+v face %d asked %q backAt %d claims %v;", r.gid, r.due, r.face, r.askedAt, r.backAt, r.claims)
	for k, s := range r.sources {
		n := -1
		var moves []string
		if s.game != nil {
			n = s.game.N
			moves = s.game.Moves()
		}
		out += fmt.Sprintf(" source %s: caught %v events %d err %v moves %v;", k, s.caught, n, s.err, moves)
	}
	return out
}
