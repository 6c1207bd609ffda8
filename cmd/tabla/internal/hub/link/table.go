package link

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/cmd/tabla/internal/watchers"
)

// TableOptions set up a table's link to a hub.
type TableOptions struct {
	// URL is the hub: nats://TABLE:PASSWORD@HOST:4222 (tls://… with TLS),
	// a comma-separated list for a cluster.
	URL string
	// Name is the table's name on the hub (default: the URL's user).
	Name string
	// CA is a PEM file of the authority that signed the hub's TLS
	// certificate, if the system does not know it.
	CA string
	// JournalDir is the table's journal directory: journals of earlier
	// runs the hub has not got yet are published from it.
	JournalDir string
	// Logger logs the link's state (default: discard).
	Logger *slog.Logger
	// ReconnectWait is the pause between connection attempts (default 1 s).
	ReconnectWait time.Duration
}

// Table is a table's link to a hub: it publishes the table's games as
// they are journalled, its live status, and its finished journals. The
// journal stays the source of truth: while the hub cannot be reached the
// table plays on, and when it can again the link publishes what the hub
// missed, exactly once — every event of a game carries its number, the
// link asks the hub for the last number it has and publishes the rest,
// each publish expecting the previous one as the last message of the
// game's subject (and deduplicated by its Nats-Msg-Id).
//
// It is the session's companion.Publisher: the session tells it of every
// journalled decision, and it reads the journal itself.
type Table struct {
	opts TableOptions
	name string
	log  *slog.Logger
	nc   *nats.Conn
	js   jetstream.JetStream

	mu      sync.Mutex
	tails   []*tail
	byPath  map[string]*tail
	current *tail
	joined  *wire.Ref // the next journal plays seats of this game
	kvPut   string
	started bool
	sess    *companion.Session
	stats   TableStats
	watch   watchers.Set
	abort   context.CancelFunc // cancels the sync under way (a disconnect)
	recheck bool               // compare the hub's copy of the journals marked sent with them (at start, after a reconnect)
	// verifying cancels the comparison under way (nil: none): it runs
	// beside the publishing, which never waits for it (a cluster whose
	// journals' stream elects a new leader answers it seconds later)
	verifying context.CancelFunc
	// verified: the comparison ended (no reconnect since); the next pass
	// over the journals, which reads those it found the hub lacks, sets
	// stats.Checked
	verified bool
	// asked counts the wake-ups (a journal written, Wake, a connection
	// change, the comparison's end); answered is the count the last pass
	// had taken up when it set the backlog: Stats.Pending while they differ
	asked, answered uint64
	loopCtx         context.Context // the publishing loop's: ends with Close
	stateMu         sync.Mutex      // the state file's read-modify-writes

	poke   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed sync.Once
}

var _ companion.Publisher = (*Table)(nil)

// TableStats count what a link did.
type TableStats struct {
	Published int  `json:"published"` // events published
	Backlog   int  `json:"backlog"`   // events read and not yet on the hub
	Connected bool `json:"connected"`
	Errors    int  `json:"errors"`
	// Pending: the link was told of lines (Journalled, Wake) or a change
	// that no pass over the journals has read yet — Backlog does not count
	// them. No Backlog and none Pending: what the link was told of is on
	// the hub.
	Pending bool `json:"pending"`
	// Checked: since the last connect, the journals marked sent were
	// compared with what the hub holds of them, and a pass over the
	// journals has since read those the hub lacks (so Backlog counts
	// their events): Checked with no Backlog is all on the hub.
	Checked bool `json:"checked"`
}

// TableName is the table name a hub URL implies: its user.
func TableName(hubURL string) string {
	for _, u := range splitURLs(hubURL) {
		if p, err := url.Parse(u); err == nil && p.User != nil {
			return p.User.Username()
		}
	}
	return ""
}

// Redact hides the passwords of NATS URLs.
func Redact(u string) string {
	parts := splitURLs(u)
	for i, part := range parts {
		if scheme, rest, ok := strings.Cut(part, "://"); ok {
			if at := strings.LastIndexByte(rest, '@'); at >= 0 {
				parts[i] = scheme + "://" + rest[at+1:]
			}
		}
	}
	return strings.Join(parts, ",")
}

func splitURLs(s string) []string {
	var out []string
	for _, u := range slices.Collect(func(yield func(string) bool) {
		start := 0
		for i := 0; i <= len(s); i++ {
			if i == len(s) || s[i] == ',' {
				if !yield(s[start:i]) {
					return
				}
				start = i + 1
			}
		}
	}) {
		if u != "" {
			out = append(out, u)
		}
	}
	return out
}

// Connect sets up a table's link. It does not wait for the hub: the
// connection is retried in the background for as long as the table runs.
// Publishing starts with Start.
func Connect(o TableOptions) (*Table, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Name == "" {
		o.Name = TableName(o.URL)
	}
	if o.Name == "" {
		return nil, errors.New("hub: no table name: give --table or a user in the hub URL (nats://TABLE:PASSWORD@HOST:4222)")
	}
	if err := wire.CheckTable(o.Name); err != nil {
		return nil, err
	}
	if o.ReconnectWait <= 0 {
		o.ReconnectWait = time.Second
	}
	t := &Table{opts: o, name: o.Name, log: o.Logger.With("hub_table", o.Name), byPath: map[string]*tail{},
		recheck: true, poke: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	nc, err := Dial(o.URL, "tabla table "+o.Name, o.CA, o.ReconnectWait, t.log, t.onConn, nil)
	if err != nil {
		return nil, err
	}
	t.nc = nc
	t.js, err = jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return t, nil
}

// Servers splits a hub URL (one URL, or a comma-separated list for a
// cluster) into its servers without credentials, and the user and
// password of whichever carries them: `nats://admin:PW@n1:4222,n2:4222`
// gives every server the admin's credentials, as the README writes it.
// Two different users in one list are an error.
func Servers(hubURL string) (servers []string, user, password string, err error) {
	scheme := "nats"
	for i, u := range splitURLs(hubURL) {
		u = strings.TrimSpace(u)
		if sc, _, ok := strings.Cut(u, "://"); ok {
			if i == 0 {
				scheme = sc
			}
		} else {
			u = scheme + "://" + u // a bare HOST:PORT takes the list's scheme
		}
		p, perr := url.Parse(u)
		if perr != nil || p.Host == "" {
			return nil, "", "", fmt.Errorf("hub: %q is not a NATS URL (nats://USER:PASSWORD@HOST:4222)", Redact(u))
		}
		if p.User != nil {
			pw, _ := p.User.Password()
			if user != "" && (p.User.Username() != user || pw != password) {
				return nil, "", "", fmt.Errorf("hub: %s: two different users in one server list", Redact(hubURL))
			}
			user, password = p.User.Username(), pw
			p.User = nil
		}
		servers = append(servers, p.String())
	}
	if len(servers) == 0 {
		return nil, "", "", errors.New("hub: no NATS server given")
	}
	return servers, user, password, nil
}

// maxReconnectWait bounds the pause between connection attempts as it
// grows: a table added to a running hub connects within seconds.
const maxReconnectWait = 2 * time.Second

// Dial connects to a hub's NATS server, retrying for ever in the
// background — the first connection too, and after the server refused
// the credentials (a table started before `tabla hub table add`) — with
// a pause that doubles from wait up to maxReconnectWait. Every state
// change is logged; change is called on every connect and disconnect, fail (if not nil)
// with every failed attempt's error.
// The credentials of the URL apply to every server of a list (and to the
// servers a cluster announces).
func Dial(u, name, ca string, wait time.Duration, log *slog.Logger, change func(*nats.Conn), fail func(error)) (*nats.Conn, error) {
	servers, user, password, err := Servers(u)
	if err != nil {
		return nil, err
	}
	limit := max(wait, maxReconnectWait)
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true),
		nats.IgnoreAuthErrorAbort(), nats.ReconnectBufSize(-1),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			d := wait << min(attempts, 16)
			if d <= 0 || d > limit {
				d = limit
			}
			return d - time.Duration(rand.Int64N(int64(d/4)+1)) // jitter: tables do not come back in step
		}),
		nats.PingInterval(5 * time.Second), nats.MaxPingsOutstanding(2),
		// the server checks a bcrypt hash at every connect: seconds on a
		// small or busy machine, beyond nats.go's 2 s default
		nats.Timeout(10 * time.Second),
		nats.ConnectHandler(func(nc *nats.Conn) {
			log.Info("hub connected", "server", Redact(nc.ConnectedUrl()))
			change(nc)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("hub reconnected", "server", Redact(nc.ConnectedUrl()))
			change(nc)
		}),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if err != nil {
				log.Warn("hub disconnected: retrying", "err", err)
			} else {
				log.Info("hub disconnected")
			}
			change(nc)
		}),
		nats.ReconnectErrHandler(func(nc *nats.Conn, err error) {
			if fail != nil {
				fail(err)
			}
			if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) {
				log.Warn("hub refused the credentials: retrying (is the table added on the hub? `tabla hub table add`)", "err", err)
				return
			}
			log.Debug("hub: connection attempt failed", "err", err)
		}),
		nats.ErrorHandler(func(nc *nats.Conn, _ *nats.Subscription, err error) {
			// (a consumer replaced is left to the server, Ordered: a
			// permissions error here is one the hub's log has too)
			log.Warn("hub: NATS error", "err", err)
		}),
		nats.ClosedHandler(func(nc *nats.Conn) { log.Info("hub connection closed") }),
	}
	if user != "" {
		opts = append(opts, nats.UserInfo(user, password), nats.CustomInboxPrefix(wire.Inbox(user)))
	}
	if ca != "" {
		opts = append(opts, nats.RootCAs(ca))
	}
	nc, err := nats.Connect(strings.Join(servers, ","), opts...)
	if err != nil {
		return nil, fmt.Errorf("hub: %v", err)
	}
	return nc, nil
}

// Name is the table's name on the hub.
func (t *Table) Name() string { return t.name }

// Conn is the link's NATS connection.
func (t *Table) Conn() *nats.Conn { return t.nc }

// JetStream is the link's JetStream context.
func (t *Table) JetStream() jetstream.JetStream { return t.js }

// Logger is the link's logger.
func (t *Table) Logger() *slog.Logger { return t.log }

// ReconnectWait is the pause between connection attempts
// (TableOptions.ReconnectWait): remote play retries at the same pace.
func (t *Table) ReconnectWait() time.Duration { return t.opts.ReconnectWait }

// onConn follows the connection: on a disconnect, what is under way
// waits for replies that will not come; give up on it now rather than at
// its timeout. On a (re)connect the hub may have lost what it had
// acknowledged (a server restored from an older disk, a cluster that lost
// its leader's last writes): the journals marked sent are compared with
// the hub's copy again.
func (t *Table) onConn(nc *nats.Conn) {
	t.mu.Lock()
	if !nc.IsConnected() {
		if t.abort != nil {
			t.abort()
		}
		if t.verifying != nil {
			t.verifying()
		}
	} else {
		t.recheck = true
	}
	t.stats.Checked = false
	t.verified = false // a comparison before this change no longer counts
	t.mu.Unlock()
	t.wake()
}

// Wake has the link read the journals and publish what the hub lacks
// now, as a Journalled report does.
func (t *Table) Wake() { t.wake() }

func (t *Table) wake() {
	t.mu.Lock()
	t.asked++
	t.mu.Unlock()
	select {
	case t.poke <- struct{}{}:
	default:
	}
	t.notify()
}

// Journalled is the session's report that path was written (a decision
// journalled, or a journal started or resumed): its new lines are read
// and published. It never blocks.
func (t *Table) Journalled(path string, ply int) {
	t.mu.Lock()
	tl := t.byPath[path]
	if tl == nil {
		tl = newTail(path, t.joined)
		t.joined = nil
		t.byPath[path] = tl
		t.tails = append(t.tails, tl)
	}
	if t.current != tl {
		if t.current != nil {
			t.current.retired = true
		}
		tl.retired = false
		t.current = tl
	}
	t.mu.Unlock()
	t.wake()
}

// Join says that the next journal started (or resumed) plays seats of
// game: its record on the hub says so.
func (t *Table) Join(game wire.Ref) {
	t.mu.Lock()
	t.joined = &game
	t.mu.Unlock()
}

// Current is the game the table plays now ("" before the first journal).
func (t *Table) Current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current == nil {
		return ""
	}
	return t.current.gid
}

// Stats are the link's counts.
func (t *Table) Stats() TableStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	s.Connected = t.nc.IsConnected()
	s.Pending = t.asked != t.answered
	return s
}

// Subscribe returns a channel poked whenever the link's state changes
// (published events, connection); it is closed when ctx ends.
func (t *Table) Subscribe(ctx context.Context) <-chan struct{} {
	return t.watch.Watch(ctx)
}

func (t *Table) notify() {
	t.watch.Wake()
}

// Start starts publishing: the journals the session reports, and those of
// the journal directory the hub has not got yet (older first). If sess is
// not nil its live status is published too (tabla.live.TABLE).
func (t *Table) Start(sess *companion.Session) {
	t.mu.Lock()
	if t.started {
		t.mu.Unlock()
		return
	}
	t.started = true
	t.sess = sess
	t.mu.Unlock()
	t.scanOld()
	go t.loop()
	if sess != nil {
		go t.live(sess)
		go t.followPairings(sess) // tablepair.go: a club evening's games
	}
}

// Close stops the link, first publishing what it can within wait: the
// lines it was told of up to now (Journalled) included, read by a pass
// that starts after the call.
func (t *Table) Close(wait time.Duration) {
	t.closed.Do(func() {
		t.mu.Lock()
		started := t.started
		t.mu.Unlock()
		if started && wait > 0 && t.nc.IsConnected() {
			// woken by the link's own reports (each pass over the journals)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			changes := t.Subscribe(ctx)
			t.wake()
		drain:
			for s := t.Stats(); (s.Backlog > 0 || s.Pending) && s.Connected; s = t.Stats() {
				select {
				case <-changes:
				case <-ctx.Done():
					break drain
				}
			}
			cancel()
		}
		close(t.stop)
		if started {
			<-t.done
		}
		t.nc.Close()
		t.mu.Lock()
		for _, tl := range t.tails {
			tl.close()
		}
		t.mu.Unlock()
	})
}

// stateFile records, per hub, the journals of the journal directory that
// are all on it: every event acknowledged by the hub (a JetStream PubAck)
// and the whole journal uploaded.
const stateFile = ".tabla-hub.json"

type pubState struct {
	Done map[string][]string `json:"done"` // hub address → journal names
	// Events is, per hub address and journal name, the number of events
	// the hub acknowledged (header included): what its stream must hold
	// for that game. Journals marked done before it was kept have none.
	Events map[string]map[string]int `json:"events,omitempty"`
}

func (t *Table) hubKey() string {
	var hosts []string
	for _, u := range splitURLs(t.opts.URL) {
		if p, err := url.Parse(u); err == nil {
			hosts = append(hosts, p.Host)
		}
	}
	slices.Sort(hosts)
	key := ""
	for _, h := range hosts {
		key += h + ","
	}
	return key
}

func (t *Table) loadState() *pubState {
	st := &pubState{Done: map[string][]string{}}
	if t.opts.JournalDir == "" {
		return st
	}
	path := filepath.Join(t.opts.JournalDir, stateFile)
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, st)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		// every journal is then compared with the hub and what it lacks sent
		t.log.Warn("hub: the record of journals sent is unreadable: checking them all with the hub", "file", path, "err", err)
		st = &pubState{}
	}
	if st.Done == nil {
		st.Done = map[string][]string{}
	}
	if st.Events == nil {
		st.Events = map[string]map[string]int{}
	}
	return st
}

// Sent is how many journals the journal directory's state file
// (.tabla-hub.json) records as wholly on this hub.
func (t *Table) Sent() int {
	return len(t.loadState().Done[t.hubKey()])
}

// saveState writes the state file through a temporary file, synced.
func (t *Table) saveState(st *pubState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return WriteFileSync(filepath.Join(t.opts.JournalDir, stateFile), data)
}

// markDone records that all events of journal name, events of them, are
// on the hub.
func (t *Table) markDone(name string, events int) error {
	if t.opts.JournalDir == "" {
		return nil
	}
	t.stateMu.Lock()
	defer t.stateMu.Unlock()
	st := t.loadState()
	k := t.hubKey()
	if !slices.Contains(st.Done[k], name) {
		st.Done[k] = append(st.Done[k], name)
		slices.Sort(st.Done[k])
	}
	if st.Events[k] == nil {
		st.Events[k] = map[string]int{}
	}
	st.Events[k][name] = events
	return t.saveState(st)
}

// verify compares the journals marked sent with what the hub holds of
// them (one request for the number of events of every game of this
// table, one for its uploaded journals): a journal whose game the hub
// holds fewer events of than were acknowledged, or whose upload it lost,
// is unmarked and published again (what the hub has is asked again, and
// only the rest sent). A journal marked sent before the counts were kept
// is counted once, from its file.
func (t *Table) verify(ctx context.Context) error {
	if t.opts.JournalDir == "" {
		return nil
	}
	t.stateMu.Lock()
	defer t.stateMu.Unlock()
	st := t.loadState()
	k := t.hubKey()
	if len(st.Done[k]) == 0 {
		return nil
	}
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	counts := func(stream, filter string) (map[string]uint64, error) {
		s, err := t.js.Stream(vctx, stream)
		if err != nil {
			return nil, err
		}
		info, err := s.Info(vctx, jetstream.WithSubjectFilter(filter))
		if err != nil {
			return nil, err
		}
		return info.State.Subjects, nil
	}
	recs, err := counts(wire.StreamGames, wire.RecPrefix+t.name+".*")
	if err != nil {
		return fmt.Errorf("the hub's games: %w", err)
	}
	journals, err := counts(wire.StreamJournals, wire.JournalPrefix+t.name+".*")
	if err != nil {
		return fmt.Errorf("the hub's journals: %w", err)
	}
	if st.Events[k] == nil {
		st.Events[k] = map[string]int{}
	}
	var again []string
	changed := false
	for _, name := range st.Done[k] {
		path := filepath.Join(t.opts.JournalDir, name)
		want, ok := st.Events[k][name]
		if !ok {
			tl := newTail(path, nil)
			_, err := tl.read(t.name)
			tl.close()
			if errors.Is(err, os.ErrNotExist) {
				continue // moved aside or deleted: nothing to compare
			}
			if err != nil {
				return err
			}
			want = len(tl.events)
		}
		gid := wire.GameID(name)
		if int(recs[wire.RecSubject(t.name, gid)]) >= want && journals[wire.JournalSubject(t.name, gid)] > 0 {
			if !ok {
				st.Events[k][name] = want
				changed = true
			}
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		t.log.Warn("hub: the hub lacks part of a journal it acknowledged: publishing it again", "journal", name,
			"events", want, "hub_events", recs[wire.RecSubject(t.name, gid)], "hub_journal", journals[wire.JournalSubject(t.name, gid)] > 0)
		again = append(again, name)
	}
	if len(again) > 0 {
		st.Done[k] = slices.DeleteFunc(st.Done[k], func(n string) bool { return slices.Contains(again, n) })
		for _, n := range again {
			delete(st.Events[k], n)
		}
		changed = true
	}
	if changed {
		if err := t.saveState(st); err != nil {
			return err
		}
	}
	if len(again) > 0 {
		t.mu.Lock()
		var add []*tail
		for _, n := range again {
			p := filepath.Join(t.opts.JournalDir, n)
			if t.byPath[p] != nil {
				continue
			}
			tl := newTail(p, nil)
			tl.retired = true
			t.byPath[p] = tl
			add = append(add, tl)
		}
		t.tails = append(add, t.tails...)
		t.mu.Unlock()
	}
	return nil
}

// scanOld adds the journals of the directory not yet all on the hub.
func (t *Table) scanOld() {
	if t.opts.JournalDir == "" {
		return
	}
	names, _ := filepath.Glob(filepath.Join(t.opts.JournalDir, "game-*.jsonl"))
	slices.Sort(names)
	done := t.loadState().Done[t.hubKey()]
	t.mu.Lock()
	defer t.mu.Unlock()
	var old []*tail
	for _, p := range names {
		if slices.Contains(done, filepath.Base(p)) || t.byPath[p] != nil {
			continue
		}
		tl := newTail(p, nil)
		tl.retired = true
		t.byPath[p] = tl
		old = append(old, tl)
	}
	t.tails = append(old, t.tails...)
}

// loop publishes until Close.
func (t *Table) loop() {
	defer close(t.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-t.stop
		cancel()
	}()
	t.mu.Lock()
	t.loopCtx = ctx
	t.mu.Unlock()
	retry := time.NewTimer(time.Hour)
	defer retry.Stop()
	for {
		wait := t.sync(ctx)
		if wait > 0 {
			retry.Reset(wait)
		}
		select {
		case <-t.stop:
			return
		case <-t.poke:
		case <-retry.C:
		}
	}
}

// sync reads the journals and publishes what the hub has not got. It
// returns how long to wait before trying again (0: until poked).
func (t *Table) sync(ctx context.Context) time.Duration {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.mu.Lock()
	recheck := t.recheck && t.nc.IsConnected() && t.verifying == nil
	if recheck {
		t.recheck = false
		vctx, vcancel := context.WithCancel(t.loopCtx)
		t.verifying = vcancel
		go t.runVerify(vctx, vcancel)
	}
	t.abort = cancel
	t.mu.Unlock()
	t.mu.Lock()
	// the tails verify put back are in t.tails once it has ended
	tails := slices.Clone(t.tails)
	checking := t.verified
	t.verified = false
	asked := t.asked // taken up by this pass: lines written since are read below
	// whether each journal was retired before it is read: only then do
	// the events read below hold all of it (the session writes a game's
	// last lines before it starts the next journal)
	retired := make([]bool, len(tails))
	for i, tl := range tails {
		retired[i] = tl.retired
		if recheck {
			tl.synced = false // the hub may have lost what it acknowledged
		}
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.abort = nil
		t.mu.Unlock()
	}()
	// read every journal first, so that the backlog counts down from
	// what there is to publish (Close and the tests wait on it)
	backlog := 0
	live := tails[:0:0]
	wasRetired := map[*tail]bool{}
	for i, tl := range tails {
		if _, err := tl.read(t.name); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				t.drop(tl) // moved aside (unreadable) or deleted
				continue
			}
			t.log.Warn("hub: reading the journal", "journal", tl.path, "err", err)
			if retired[i] {
				retired[i] = false // not all of it read: not to be marked sent
			}
		}
		if tl.over > 0 && !tl.overSaid {
			tl.overSaid = true
			t.log.Error("hub: the journal holds more moves than the hub's copy of a game: published up to the limit, the rest left out (the journal keeps it)",
				"journal", tl.path, "line", tl.over, "limit", wire.MaxSteps)
		}
		live = append(live, tl)
		wasRetired[tl] = retired[i]
		backlog += len(tl.events) - (tl.hubN + 1)
	}
	t.mu.Lock()
	t.stats.Backlog = backlog
	t.answered = asked // before, Stats gave the last pass's backlog with no sign of the new lines
	t.mu.Unlock()
	backlog = 0
	var wait time.Duration
	var published []*tail
	for _, tl := range live {
		if wait > 0 || !t.nc.IsConnected() {
			backlog += len(tl.events) - (tl.hubN + 1)
			wait = max(wait, t.opts.ReconnectWait)
			continue
		}
		if err := t.publish(ctx, tl); err != nil {
			if ctx.Err() == nil {
				t.log.Warn("hub: publishing", "game", tl.gid, "err", err)
				t.mu.Lock()
				t.stats.Errors++
				t.mu.Unlock()
			}
			tl.synced = false
			backlog += len(tl.events) - (tl.hubN + 1)
			wait = min(t.opts.ReconnectWait, publishRetry)
			continue
		}
		published = append(published, tl)
	}
	// then the uploads of finished journals (another stream, larger
	// messages): the games' events never wait behind them
	for _, tl := range published {
		t.finish(ctx, tl, wasRetired[tl])
	}
	if wait == 0 { // else the next pass, when the hub answers again
		t.putTable(ctx)
	}
	t.mu.Lock()
	t.stats.Backlog = backlog
	if checking && !t.recheck && t.nc.IsConnected() {
		t.stats.Checked = true // with the backlog of what verify put back
	}
	if t.recheck && t.verifying == nil {
		wait = max(wait, t.opts.ReconnectWait) // the comparison failed: again
	}
	t.mu.Unlock()
	t.notify()
	return wait
}

// runVerify compares the journals marked sent with the hub's copy (verify)
// beside the publishing, and passes again over the journals when it is
// done (those it found the hub lacks are published then).
func (t *Table) runVerify(ctx context.Context, cancel context.CancelFunc) {
	defer cancel()
	err := t.verify(ctx)
	if err != nil && ctx.Err() == nil {
		t.log.Warn("hub: comparing the journals sent with the hub's copy", "err", err)
	}
	if err != nil {
		select { // again after a pause, at the next pass
		case <-ctx.Done():
		case <-time.After(t.opts.ReconnectWait):
		}
	}
	t.mu.Lock()
	t.verifying = nil
	switch {
	case err != nil:
		t.recheck = true
	case !t.recheck: // compared, and no reconnect since: Checked at the
		// next pass (woken below), which reads the journals put back;
		// before, Checked with the last pass's Backlog (0) said all was on
		// the hub while the journals verify had just found lacking were
		// yet to be read and published
		t.verified = true
	}
	t.mu.Unlock()
	t.wake()
}

func (t *Table) drop(tl *tail) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current == tl {
		return
	}
	delete(t.byPath, tl.path)
	t.tails = slices.DeleteFunc(t.tails, func(x *tail) bool { return x == tl })
	tl.close()
}

// publishTimeout bounds each request of the publishing (an event's
// publish, the question of what the hub has): a request sent while a
// cluster elects a new leader of the stream is never answered, and the
// next try, after publishRetry, reaches the new leader (issue 37: after a
// node's kill publishing waited 5 s a try). A publish tried again is
// deduplicated by its Nats-Msg-Id.
const (
	publishTimeout = 2 * time.Second
	publishRetry   = 250 * time.Millisecond
)

// publish sends the events of tl the hub has not got.
func (t *Table) publish(ctx context.Context, tl *tail) error {
	if len(tl.events) == 0 {
		return nil
	}
	subj := wire.RecSubject(t.name, tl.gid)
	if !tl.synced {
		n, seq, err := LastEvent(ctx, t.js, subj)
		if err != nil {
			return err
		}
		tl.hubN, tl.seq, tl.synced = n, seq, true
		if n >= len(tl.events) {
			return fmt.Errorf("the hub has event %d of %s, the journal only %d: another table of this name?", n, tl.gid, len(tl.events)-1)
		}
	}
	for n := tl.hubN + 1; n < len(tl.events); n++ {
		pctx, cancel := context.WithTimeout(ctx, publishTimeout)
		msg := nats.NewMsg(subj)
		msg.Data = tl.events[n]
		msg.Header.Set(wire.HdrN, strconv.Itoa(n))
		ack, err := t.js.PublishMsg(pctx, msg, jetstream.WithMsgID(t.name+"."+tl.gid+"."+strconv.Itoa(n)),
			jetstream.WithExpectLastSequencePerSubject(tl.seq), jetstream.WithExpectStream(wire.StreamGames))
		cancel()
		if err != nil {
			tl.synced = false
			return err
		}
		tl.hubN, tl.seq = n, ack.Sequence
		t.mu.Lock()
		t.stats.Published++
		t.stats.Backlog = max(0, t.stats.Backlog-1)
		t.mu.Unlock()
	}
	return nil
}

// LastEvent asks the hub for the number and stream sequence of the last
// event it has on subj (-1, 0: none).
func LastEvent(ctx context.Context, js jetstream.JetStream, subj string) (int, uint64, error) {
	gctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	s, err := js.Stream(gctx, wire.StreamGames)
	if err != nil {
		return -1, 0, err
	}
	m, err := s.GetLastMsgForSubject(gctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return -1, 0, nil
	}
	if err != nil {
		return -1, 0, err
	}
	n, err := strconv.Atoi(m.Header.Get(wire.HdrN))
	if err != nil {
		var ev wire.Event
		if json.Unmarshal(m.Data, &ev) != nil {
			return -1, 0, fmt.Errorf("the hub's last event of %s has no number", subj)
		}
		n = ev.N
	}
	return n, m.Sequence, nil
}

// finish uploads the journal of a finished game, and forgets a retired
// journal once it is all on the hub. retired says whether the journal
// was retired before its events were last read: a journal retired since
// may have had its last lines (the winning move, its end) written after
// that read, and is marked sent only at the next pass, when they have
// been read and acknowledged.
func (t *Table) finish(ctx context.Context, tl *tail, retired bool) {
	over := tl.game != nil && tl.game.Over()
	if !retired && !over {
		return
	}
	if tl.fi != nil && tl.uploaded != tl.fi.Size() && tl.hubN+1 == len(tl.events) {
		if err := t.upload(ctx, tl); err != nil {
			t.log.Warn("hub: uploading the journal", "journal", tl.path, "err", err)
			return
		}
	}
	if retired && tl.hubN+1 == len(tl.events) && tl.uploaded > 0 && tl.uploaded == tl.fi.Size() {
		if err := t.markDone(tl.name, len(tl.events)); err != nil {
			t.log.Warn("hub: recording the journal as sent", "journal", tl.path, "err", err)
			return // kept: marked at the next pass
		}
		t.drop(tl)
	}
}

// upload publishes the whole journal (board events included) to
// TABLA_JOURNALS, or its game record if the journal is larger than the
// server takes.
func (t *Table) upload(ctx context.Context, tl *tail) error {
	fi, err := os.Stat(tl.path)
	if err != nil {
		return err
	}
	size := fi.Size()
	msg := nats.NewMsg(wire.JournalSubject(t.name, tl.gid))
	msg.Header.Set("Tabla-Journal", tl.name)
	var data []byte
	if size+1024 > t.nc.MaxPayload() && tl.game != nil {
		// not read into memory: the game's record is all that is sent
		data = tl.game.Record()
		msg.Header.Set("Tabla-Cut", "board events left out: the journal is larger than the server takes")
	} else {
		data, err = os.ReadFile(tl.path)
		if err != nil {
			return err
		}
		size = int64(len(data))
	}
	msg.Data = data
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := t.js.PublishMsg(pctx, msg, jetstream.WithMsgID(t.name+"."+tl.gid+".j"+strconv.Itoa(len(data)))); err != nil {
		return err
	}
	tl.uploaded = size // the file's size as uploaded: a later line uploads it again
	return nil
}

// TableEntry is a table's entry in the tabla_tables bucket.
type TableEntry struct {
	Table   string          `json:"table"`
	Game    string          `json:"game"`
	Journal string          `json:"journal"`
	Header  json.RawMessage `json:"header"`
	Remote  *wire.Ref       `json:"remote,omitempty"`
}

// putTable writes the table's current game to tabla_tables when it
// changed.
func (t *Table) putTable(ctx context.Context) {
	t.mu.Lock()
	cur := t.current
	t.mu.Unlock()
	if cur == nil || len(cur.events) == 0 || !t.nc.IsConnected() {
		return
	}
	var ev wire.Event
	json.Unmarshal(cur.events[0], &ev)
	e := TableEntry{Table: t.name, Game: cur.gid, Journal: cur.name, Header: ev.Header, Remote: cur.remote}
	data, _ := json.Marshal(e)
	if string(data) == t.kvPut {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	kv, err := t.js.KeyValue(pctx, wire.BucketTables)
	if err == nil {
		_, err = kv.Put(pctx, t.name, data)
	}
	if err != nil {
		t.log.Warn("hub: table entry", "err", err)
		return
	}
	t.kvPut = string(data)
}

// Live is a table's live status (tabla.live.TABLE, core NATS: not kept):
// its session's status document, the game it belongs to, and the time.
// Tables send it on every change (at most LiveRate a second) and every
// LiveBeat as a heartbeat; the hub marks a table offline after three
// beats without one.
type Live struct {
	Table  string           `json:"table"`
	Game   string           `json:"game"`
	T      time.Time        `json:"t"`
	Status companion.Status `json:"status"`
}

// Rates of the live status.
const (
	LiveRate = 5
	LiveBeat = 2 * time.Second
)

// live publishes the session's status until Close.
func (t *Table) live(sess *companion.Session) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-t.stop
		cancel()
	}()
	changes := sess.Subscribe(ctx)
	beat := time.NewTicker(LiveBeat)
	defer beat.Stop()
	var last time.Time
	for {
		if wait := time.Second/LiveRate - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		if t.nc.IsConnected() {
			data, err := json.Marshal(Live{Table: t.name, Game: wire.GameID(sess.JournalPath()), T: time.Now().UTC(), Status: sess.StatusJSON()})
			if err == nil {
				t.nc.Publish(wire.LiveSubject(t.name), data)
			}
		}
		last = time.Now()
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
		case <-beat.C:
		}
	}
}

// WriteFileSync replaces path with data durably: written to path.tmp,
// synced, then renamed over it (the hub's checkpoint is written so too).
func WriteFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
