package hub

import (
	"bytes"
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

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
)

// Options set up a hub's service.
type Options struct {
	// URL is the NATS server with the admin's credentials
	// (nats://admin:PASSWORD@HOST:4222; a comma-separated list for a
	// cluster).
	URL string
	// CA is a PEM file of the authority that signed the server's TLS
	// certificate, if the system does not know it.
	CA string
	// Dir is the hub's data directory; the club library is Dir/library.
	Dir string
	// Replicas of the streams (1 on one server, 3 on a cluster).
	Replicas int
	// Token lets a browser play a seat of a game (POST requests:
	// "Authorization: Bearer TOKEN"); "" none can.
	Token string
	// EvalTime bounds the search behind a table's evaluation bar (default
	// 50 ms; negative: no evaluation).
	EvalTime time.Duration
	// Logger logs the hub's work (default: discard).
	Logger *slog.Logger
	// ReadOnly follows the streams without setting them up or publishing
	// (the spectator's credentials suffice): a mirror of the club library
	// (Mirror) for `tabla library --hub` and `tabla stats --hub`.
	ReadOnly bool
	// BroadcastDelay holds the public feed of the live games
	// (/api/broadcast) this long behind the boards (a club's anti-cheating
	// delay; 0 none).
	BroadcastDelay time.Duration
}

// Hub is the club hub's service: it follows every table's games as they
// are published (TABLA_GAMES), their live statuses and the tables'
// entries, keeps the club library (every finished game as a record under
// Dir/library), evaluates the positions spectators watch, and serves the
// spectators' pages and the library (Handler). It never talks to a
// table's computer: everything comes through NATS.
type Hub struct {
	opts Options
	log  *slog.Logger
	nc   *nats.Conn
	js   jetstream.JetStream
	lib  *library.Library
	dir  string // the library's folder

	mu      sync.Mutex
	games   map[string]*Game // by table/game
	tables  map[string]*tableState
	seats   map[string]Ref // tabla_seats: key → the player
	version uint64
	subs    map[chan struct{}]string // watchers → table ("" every table)
	evalQ   chan string              // table names whose position wants evaluating
	loaded  bool                     // the stream was read to its end once
	written map[string]int           // library files written: table/game → events
	lastSeq uint64                   // the stream sequence of the last event followed
	saved   uint64                   // lastSeq as last written to the checkpoint
	ended   []string                 // finished games in memory (table/game), oldest first
	applied int                      // events applied since the start

	web *webPlayers

	events       map[string]*eventEntry // club evenings (event.go), by id
	eventsLoaded bool                   // the events' bucket was read once
	evMu         sync.Mutex             // one event update at a time
	evPoke       chan struct{}          // wakes eventLoop
	evQueue      []string               // finished games (table/game) whose header names an event
	broadcast    time.Duration          // Options.BroadcastDelay

	connErr  error            // the last failed connection attempt's
	analyses rateLimit        // analyses started without the token
	now      func() time.Time // the clock (tests set it)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// tableState is what the hub knows of one table.
type tableState struct {
	name    string
	entry   *link.TableEntry
	game    string // the current game's id
	live    *link.Live
	liveRaw json.RawMessage
	seen    time.Time // the last live status
	online  bool
	version uint64
	eval    *Eval
	view    []byte // cached JSON of the table's view, at version
	viewAt  uint64
}

// Eval is the evaluation bar of a position: each side's win probability
// as the engine sees it.
type Eval struct {
	Events int                `json:"events"` // the game's event the position follows
	Values map[string]float64 `json:"values"`
	Level  int                `json:"level"`
}

// Open connects the hub's service to the NATS server, creates the streams
// and buckets, and starts following them.
func Open(o Options) (*Hub, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.EvalTime == 0 {
		o.EvalTime = 50 * time.Millisecond
	}
	if o.Dir == "" {
		return nil, errors.New("hub: no data directory")
	}
	dir := filepath.Join(o.Dir, "library")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lib, err := library.Open(dir, library.Options{Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	h := &Hub{opts: o, log: o.Logger, lib: lib, dir: dir, games: map[string]*Game{}, tables: map[string]*tableState{},
		seats: map[string]Ref{}, subs: map[chan struct{}]string{}, evalQ: make(chan string, 1024), written: map[string]int{},
		analyses: rateLimit{n: AnalysisRate}, now: time.Now,
		events: map[string]*eventEntry{}, evPoke: make(chan struct{}, 1), broadcast: o.BroadcastDelay}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	nc, err := link.Dial(o.URL, "tabla hub", o.CA, 500*time.Millisecond, h.log, func(*nats.Conn) { h.bump("") }, func(err error) {
		h.mu.Lock()
		h.connErr = err
		h.mu.Unlock()
	})
	if err != nil {
		lib.Close()
		return nil, err
	}
	h.nc = nc
	if h.js, err = jetstream.New(nc); err != nil {
		nc.Close()
		lib.Close()
		return nil, err
	}
	h.web = newWebPlayers(h)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.follow()
	}()
	if o.EvalTime > 0 {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.evaluator()
		}()
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.watchOnline()
	}()
	if !o.ReadOnly {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			h.eventLoop()
		}()
	}
	return h, nil
}

// Close stops the hub's service.
func (h *Hub) Close() {
	h.cancel()
	h.nc.Close()
	h.wg.Wait()
	h.saveCheckpoint()
	h.lib.Close()
}

// Library is the club library.
func (h *Hub) Library() *library.Library { return h.lib }

// Conn is the hub's NATS connection.
func (h *Hub) Conn() *nats.Conn { return h.nc }

// Ready reports whether the hub has read every stored game once.
func (h *Hub) Ready() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loaded
}

// follow sets the streams up and follows them, again after every failure,
// until Close.
func (h *Hub) follow() {
	for h.ctx.Err() == nil {
		err := h.followOnce()
		if h.ctx.Err() != nil {
			return
		}
		h.log.Warn("hub: following the streams", "err", err)
		select {
		case <-h.ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (h *Hub) followOnce() error {
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	if !h.opts.ReadOnly {
		sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
		err := Setup(sctx, h.js, h.opts.Replicas)
		scancel()
		if err != nil {
			return err
		}
	}
	// live statuses
	sub, err := h.nc.Subscribe(livePrefix+">", func(m *nats.Msg) { h.onLive(m) })
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	// tables' entries and seats
	errc := make(chan error, 4)
	for _, b := range []string{BucketTables, BucketSeats} {
		kv, err := h.js.KeyValue(ctx, b)
		if err != nil {
			return err
		}
		w, err := kv.WatchAll(ctx)
		if err != nil {
			return err
		}
		go func() {
			for e := range w.Updates() {
				if e != nil {
					h.onKV(b, e)
				}
			}
			errc <- fmt.Errorf("watch of %s ended", b)
		}()
	}
	// club evenings (the hub's alone)
	if !h.opts.ReadOnly {
		kv, err := h.js.KeyValue(ctx, wire.BucketEvents)
		if err != nil {
			return err
		}
		w, err := kv.WatchAll(ctx)
		if err != nil {
			return err
		}
		go func() {
			for e := range w.Updates() {
				if e == nil { // every stored event read
					h.mu.Lock()
					h.eventsLoaded = true
					h.mu.Unlock()
					h.pokeEvents()
					continue
				}
				h.onEvent(e)
			}
			errc <- fmt.Errorf("watch of %s ended", wire.BucketEvents)
		}()
	}
	// every game's events, from the first
	cfg := jetstream.OrderedConsumerConfig{}
	h.mu.Lock()
	if h.lastSeq > 0 { // again after a failure: from where it stopped
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, h.lastSeq+1
	}
	first := h.lastSeq == 0
	h.mu.Unlock()
	if first && !h.opts.ReadOnly {
		if from := h.startFrom(ctx); from > 1 {
			cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
		}
	}
	// link's ordered consumer, as the tables': nats.go's deletes the
	// consumer it replaces, which a read-only hub (the spectator) may not
	cons, err := link.NewOrdered(ctx, h.js, StreamGames, cfg)
	if err != nil {
		return err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return err
	}
	if info.NumPending == 0 {
		h.setLoaded()
	}
	// the consumer starts after what the hub has: nothing new is no stall
	last := link.NewStallGuard(max(cfg.OptStartSeq, 1) - 1)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		h.onRecord(m)
		if md, err := m.Metadata(); err == nil {
			last.Delivered(md.Sequence.Stream)
			h.mu.Lock()
			h.lastSeq = md.Sequence.Stream
			h.mu.Unlock()
			if md.NumPending == 0 {
				h.setLoaded()
			}
		}
	}, func(err error) {
		if !errors.Is(err, jetstream.ErrNoHeartbeat) {
			h.log.Debug("hub: consumer", "err", err)
		}
	}, link.ConsumeOpts()...)
	if err != nil {
		return err
	}
	defer cc.Stop()
	go func() {
		errc <- last.Watch(ctx, cc, func(ctx context.Context) (uint64, error) {
			st, err := h.js.Stream(ctx, StreamGames)
			if err != nil {
				return 0, err
			}
			info, err := st.Info(ctx)
			if err != nil {
				return 0, err
			}
			return info.State.LastSeq, nil
		})
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return err
	}
}

func (h *Hub) setLoaded() {
	h.mu.Lock()
	first := !h.loaded
	h.loaded = true
	h.mu.Unlock()
	if first {
		h.bump("")
	}
}

// known reports whether the hub has heard of a table (its entry, a
// live status or a game).
func (h *Hub) known(table string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.tables[table]
	return ok
}

// currentLocked returns a table's current game (nil: none yet).
func (h *Hub) currentLocked(table string) *Game {
	if ts := h.tables[table]; ts != nil {
		return h.games[table+"/"+ts.game]
	}
	return nil
}

// table returns the state of a table, creating it (locked).
func (h *Hub) tableLocked(name string) *tableState {
	ts := h.tables[name]
	if ts == nil {
		ts = &tableState{name: name}
		h.tables[name] = ts
	}
	return ts
}

// onRecord applies one record event.
func (h *Hub) onRecord(m jetstream.Msg) {
	table, gid, ok := splitRec(m.Subject())
	if !ok {
		return
	}
	var ev Event
	if err := json.Unmarshal(m.Data(), &ev); err != nil {
		h.log.Warn("hub: unreadable event", "subject", m.Subject(), "err", err)
		return
	}
	key := table + "/" + gid
	var seq uint64
	if md, err := m.Metadata(); err == nil {
		seq = md.Sequence.Stream
	}
	h.mu.Lock()
	h.applied++
	g := h.games[key]
	var err error
	switch {
	case ev.N == 0 && g == nil:
		ev.Table, ev.Game = table, gid // the subject names it: the body may not lie
		g, err = NewGame(&ev)
		if err == nil {
			g.Seq = seq
			h.games[key] = g
			ts := h.tableLocked(table)
			if ts.entry == nil || ts.entry.Game == gid || ts.game == "" || gid > ts.game {
				ts.game = gid
			}
		}
	case g == nil:
		h.mu.Unlock()
		// a game that ended before the hub's checkpoint (it is in the
		// library), or one whose header is lost
		h.log.Debug("hub: event of a game not in memory", "game", key, "n", ev.N)
		return
	default:
		err = g.Apply(ev.N, ev.Line)
	}
	if err != nil {
		h.mu.Unlock()
		h.log.Warn("hub: event not applied", "game", key, "n", ev.N, "err", err)
		return
	}
	ts := h.tableLocked(table)
	current := ts.game == gid
	if g.Over() && !slices.Contains(h.ended, key) {
		h.ended = append(h.ended, key)
	}
	club := g.Over() && g.Who.Event != "" && !h.opts.ReadOnly
	if club {
		h.queueResultLocked(key)
	}
	h.mu.Unlock()
	if club {
		h.pokeEvents()
	}
	if current {
		h.bump(table)
		h.wantEval(table)
	}
	h.web.onRecord(table, gid)
	h.store(key)
	h.mu.Lock()
	h.forgetLocked()
	h.mu.Unlock()
}

// keepEnded is how many finished games the hub keeps in memory besides
// every table's current game: the library holds them all.
var keepEnded = 256

// forgetLocked drops the oldest finished games beyond keepEnded that are
// no table's current game and are in the library (or need not be).
func (h *Hub) forgetLocked() {
	for len(h.ended) > keepEnded {
		dropped := false
		for i, key := range h.ended {
			g := h.games[key]
			if g != nil && g.Over() && (h.currentKeyLocked(key) || !h.storedLocked(key, g)) {
				continue // still shown, or not yet written
			}
			if g != nil {
				if g.Over() {
					delete(h.games, key)
					delete(h.written, key)
				}
			}
			h.ended = slices.Delete(h.ended, i, i+1)
			dropped = true
			break
		}
		if !dropped {
			return
		}
	}
}

// currentKeyLocked reports whether table/game is its table's current game.
func (h *Hub) currentKeyLocked(key string) bool {
	table, gid, _ := strings.Cut(key, "/")
	ts := h.tables[table]
	return ts != nil && ts.game == gid
}

// storedLocked reports whether a finished game is in the library (or is
// not for it: a joiner's record, a game without a step).
func (h *Hub) storedLocked(key string, g *Game) bool {
	return g.Remote != nil || len(g.Steps) == 0 || h.written[key] == g.N
}

// checkpointFile keeps, in the hub's data directory, where to start
// reading TABLA_GAMES again: the first event of the oldest game the hub
// still needs (one under way, or a table's current one). Games that ended
// before are in the library.
const checkpointFile = "hub-state.json"

type checkpoint struct {
	Seq  uint64 `json:"seq"`  // the last event followed
	From uint64 `json:"from"` // where to start again
}

// saveCheckpoint writes the checkpoint if the hub followed more since.
func (h *Hub) saveCheckpoint() {
	if h.opts.ReadOnly {
		return
	}
	h.mu.Lock()
	if h.lastSeq == h.saved || !h.loaded {
		h.mu.Unlock()
		return
	}
	cp := checkpoint{Seq: h.lastSeq, From: h.lastSeq + 1}
	for key, g := range h.games {
		if (!g.Over() || h.currentKeyLocked(key)) && g.Seq > 0 && g.Seq < cp.From {
			cp.From = g.Seq
		}
	}
	h.mu.Unlock()
	data, _ := json.Marshal(cp)
	if err := link.WriteFileSync(filepath.Join(h.opts.Dir, checkpointFile), data); err != nil {
		h.log.Warn("hub: writing the checkpoint (the next start reads every game again)", "err", err)
		return
	}
	h.mu.Lock()
	h.saved = cp.Seq
	h.mu.Unlock()
}

// startFrom is where to start following TABLA_GAMES: the checkpoint's
// From, unless the stream is not the one it was written for (it holds
// less than the checkpoint saw: a new or restored stream).
func (h *Hub) startFrom(ctx context.Context) uint64 {
	data, err := os.ReadFile(filepath.Join(h.opts.Dir, checkpointFile))
	if err != nil {
		return 1
	}
	var cp checkpoint
	if err := json.Unmarshal(data, &cp); err != nil || cp.From == 0 {
		h.log.Warn("hub: unreadable checkpoint: reading every game", "err", err)
		return 1
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := h.js.Stream(sctx, StreamGames)
	if err != nil {
		return 1
	}
	info, err := st.Info(sctx)
	if err != nil || info.State.LastSeq < cp.Seq {
		return 1
	}
	h.log.Info("hub: reading the games from the checkpoint", "from", cp.From, "last", info.State.LastSeq)
	return cp.From
}

// store writes a finished game into the library (once per change).
func (h *Hub) store(key string) {
	h.mu.Lock()
	g := h.games[key]
	if g == nil || g.Remote != nil || !g.Over() || len(g.Steps) == 0 || h.written[key] == g.N {
		h.mu.Unlock()
		return
	}
	rec := g.Record()
	n := g.N
	h.mu.Unlock()
	path := filepath.Join(h.dir, filepath.FromSlash(key)+".jsonl")
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, rec) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			h.log.Error("hub: library", "err", err)
			return
		}
		if err := writeFile(path, rec); err != nil {
			h.log.Error("hub: library", "err", err)
			return
		}
	}
	h.mu.Lock()
	h.written[key] = n
	h.mu.Unlock()
}

func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// onLive takes a table's live status.
func (h *Hub) onLive(m *nats.Msg) {
	table := strings.TrimPrefix(m.Subject, livePrefix)
	if CheckTable(table) != nil {
		return
	}
	var l link.Live
	if err := json.Unmarshal(m.Data, &l); err != nil {
		return
	}
	h.mu.Lock()
	ts := h.tableLocked(table)
	ts.live, ts.liveRaw, ts.seen, ts.online = &l, bytes.Clone(m.Data), time.Now(), true
	h.mu.Unlock()
	h.bump(table)
}

// onKV takes a change of the tables' entries or the seats.
func (h *Hub) onKV(bucket string, e jetstream.KeyValueEntry) {
	h.mu.Lock()
	var table string
	switch bucket {
	case BucketTables:
		table = e.Key()
		ts := h.tableLocked(table)
		if e.Operation() != jetstream.KeyValuePut {
			ts.entry = nil
			break
		}
		var te link.TableEntry
		if json.Unmarshal(e.Value(), &te) == nil {
			ts.entry = &te
			ts.game = te.Game
		}
	case BucketSeats:
		if !isSeatKey(e.Key()) {
			h.mu.Unlock()
			return // a request: the host answers it
		}
		if e.Operation() != jetstream.KeyValuePut {
			delete(h.seats, e.Key())
			break
		}
		var r Ref
		if json.Unmarshal(e.Value(), &r) == nil {
			h.seats[e.Key()] = r
		}
		table, _, _ = strings.Cut(e.Key(), ".")
	}
	h.mu.Unlock()
	h.bump(table)
	if bucket == BucketSeats {
		h.web.onSeat(e.Key())
	}
}

// watchOnline marks tables offline after three live beats without a
// status.
func (h *Hub) watchOnline() {
	tick := time.NewTicker(link.LiveBeat / 2)
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		h.saveCheckpoint()
		var gone []string
		h.mu.Lock()
		for name, ts := range h.tables {
			if ts.online && time.Since(ts.seen) > 3*link.LiveBeat {
				ts.online = false
				gone = append(gone, name)
			}
		}
		h.mu.Unlock()
		for _, name := range gone {
			h.bump(name)
		}
	}
}

// bump tells the watchers of table (and of every table) that it changed;
// "" tells everyone.
func (h *Hub) bump(table string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.version++
	if ts := h.tables[table]; ts != nil {
		ts.version = h.version
	}
	for ch, t := range h.subs {
		if table == "" || t == "" || t == table {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// Subscribe returns a channel poked when table changes ("" every table);
// it is closed when ctx ends.
func (h *Hub) Subscribe(ctx context.Context, table string) <-chan struct{} {
	return h.subscribe(ctx, table, true)
}

// subscribe is Subscribe; eval says whether the table's position is to
// be evaluated (a spectator watches it).
func (h *Hub) subscribe(ctx context.Context, table string, eval bool) <-chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[ch] = table
	h.mu.Unlock()
	if table != "" && eval {
		h.wantEval(table)
	}
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
		close(ch)
	})
	return ch
}

// watched reports whether a table's page is open somewhere.
func (h *Hub) watchedLocked(table string) bool {
	for _, t := range h.subs {
		if t == table {
			return true
		}
	}
	return false
}

// Game returns a copy of the state of a game's record as the hub has it:
// its steps and whether it is over (nil if unknown).
func (h *Hub) Game(table, game string) *GameInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.games[table+"/"+game]
	if g == nil {
		return nil
	}
	return gameInfo(g)
}

// GameInfo is a snapshot of a game's record.
type GameInfo struct {
	Table, ID string
	Events    int
	Steps     []Step
	Status    string
	Winner    string
	Ended     string
	Remote    *Ref
	Err       error
	Record    []byte
}

func gameInfo(g *Game) *GameInfo {
	st, w := g.Result()
	return &GameInfo{Table: g.Table, ID: g.ID, Events: g.N, Steps: slices.Clone(g.Steps), Status: st, Winner: w,
		Ended: g.Ended, Remote: g.Remote, Err: g.Err, Record: g.Record()}
}

// Tables lists the tables the hub knows, by name.
func (h *Hub) Tables() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.tables))
	for n := range h.tables {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// mirrorPatience is how long Mirror waits for a connection before it
// gives up with the reason (tests shorten it).
var mirrorPatience = 10 * time.Second

// Mirror follows a hub's games read-only (the spectator's credentials
// suffice) and keeps its finished games as records under dir/library,
// until ctx ends; it returns once it has read every stored game, with the
// library's folder. A hub that refuses the credentials or cannot be
// reached is an error after mirrorPatience, saying which.
func Mirror(ctx context.Context, url, ca, dir string, log *slog.Logger) (string, func(), error) {
	h, err := Open(Options{URL: url, CA: ca, Dir: dir, ReadOnly: true, EvalTime: -1, Logger: log})
	if err != nil {
		return "", nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := h.subscribe(wctx, "", false)
	patience := time.NewTimer(mirrorPatience)
	defer patience.Stop()
	for !h.Ready() {
		select {
		case <-ctx.Done():
			h.Close()
			return "", nil, fmt.Errorf("hub: reading the games: %w", ctx.Err())
		case <-changes:
		case <-patience.C:
			if h.nc.IsConnected() {
				patience.Reset(mirrorPatience) // connected: reading a long library
				continue
			}
			h.mu.Lock()
			err := h.connErr
			h.mu.Unlock()
			h.Close()
			return "", nil, connectError(url, err)
		}
	}
	h.storeAll()
	return h.dir, h.Close, nil
}

// connectError says, for people, why a hub could not be used.
func connectError(url string, err error) error {
	where := link.Redact(url)
	switch {
	case err == nil:
		return fmt.Errorf("hub: no connection to %s within %v", where, mirrorPatience)
	case errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization"):
		return fmt.Errorf("hub: %s refused the credentials (check the user and password: `tabla hub table list` prints the spectators' URL): %v", where, err)
	case strings.Contains(err.Error(), "certificate"):
		return fmt.Errorf("hub: %s: the TLS certificate is not trusted (give the authority that signed it with --hub-ca): %v", where, err)
	}
	return fmt.Errorf("hub: cannot reach %s: %v", where, err)
}

// storeAll writes every finished game into the library (store is called
// as events come; this waits for the last writes).
func (h *Hub) storeAll() {
	h.mu.Lock()
	keys := make([]string, 0, len(h.games))
	for k := range h.games {
		keys = append(keys, k)
	}
	h.mu.Unlock()
	for _, k := range keys {
		h.store(k)
	}
}
