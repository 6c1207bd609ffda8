package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/rating"
	"github.com/tabla-board/tabla/engine/record"
)

// A club evening (issue 27) on the hub: `tabla hub event new` writes the
// event into the bucket tabla_events; players register on the event's
// page; the arbiter starts it; the hub pairs each round (package club),
// sends each pairing to its table (bucket tabla_pairings, key the table:
// the table starts the game with the names, event, round "R.B" and time
// control in its header), takes each result from the game's record when
// the table's journal ends it, pairs the next round when the last result
// of one is in, and shows the pairings, standings and ratings. The hub is
// the only writer of an event once it exists (optimistic updates on the
// bucket's revision); the event's whole state is one value, bounded by
// package club's limits and wire.MaxEventBytes, so a hub restart reads it
// back as it was.

// EventState is a club evening as the hub keeps it.
type EventState struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Site     string          `json:"site,omitempty"`
	Date     string          `json:"date,omitempty"`
	Created  time.Time       `json:"created"`
	Started  bool            `json:"started"`
	Sections []*club.Section `json:"sections"`
	Log      []EventLogEntry `json:"log,omitempty"`
}

// EventLogEntry is a line of an event's log: each result taken or
// refused, each round paired, each arbiter's change.
type EventLogEntry struct {
	T    time.Time `json:"t"`
	What string    `json:"what"`
	// Say is What in the page's words (a catalogue key with arguments;
	// What keeps the English with the developer's detail, for the log).
	Say     *i18n.Text `json:"say,omitempty"`
	Refused bool       `json:"refused,omitempty"`
	Game    string     `json:"game,omitempty"` // TABLE/GAME the entry is about
	Who     string     `json:"who,omitempty"`  // the arbiter who made the change
}

// maxEventLog bounds an event's log (the oldest lines go).
const maxEventLog = 300

// EventSpec is a new event as the arbiter gives it.
type EventSpec struct {
	ID, Name, Site, Date string
	Sections             []SectionSpec
}

// SectionSpec is one game of a new event.
type SectionSpec struct {
	Game   string
	System string // "" : Swiss for two players, fours for four
	Rounds int
	Clock  string // a time control ("10m+5s"; "" untimed)
	Tables []string
}

var eventIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// NewEvent checks a spec and makes the event.
func NewEvent(spec EventSpec, now time.Time) (*EventState, error) {
	if !eventIDRE.MatchString(spec.ID) {
		return nil, fmt.Errorf("event id %q: want 1–32 of a–z, 0–9, _ and - (starting with a letter or digit)", spec.ID)
	}
	e := &EventState{ID: spec.ID, Name: strings.TrimSpace(spec.Name), Site: spec.Site, Date: spec.Date, Created: now.UTC()}
	if e.Name == "" {
		e.Name = spec.ID
	}
	h := record.Header{Event: e.Name, Site: e.Site, Date: e.Date}
	if err := record.CheckWho(&h, nil); err != nil {
		return nil, fmt.Errorf("event: %v", err)
	}
	if len(spec.Sections) == 0 || len(spec.Sections) > club.MaxSections {
		return nil, fmt.Errorf("event: 1 to %d games, got %d", club.MaxSections, len(spec.Sections))
	}
	used := map[string]string{}
	for _, ss := range spec.Sections {
		st, err := record.NewState(&record.Header{Game: ss.Game})
		if err != nil {
			return nil, fmt.Errorf("event: game %q: %v", ss.Game, err)
		}
		info := st.Info()
		if len(info.Sides) != len(info.Seats) {
			return nil, fmt.Errorf("event: %s is played in teams; a club evening pairs players", ss.Game)
		}
		sys := ss.System
		if sys == "" {
			sys = map[bool]string{true: club.Fours, false: club.Swiss}[len(info.Seats) == 4]
		}
		if ss.Clock != "" {
			ctl, err := clock.ParseControls([]string{ss.Clock})
			if err != nil {
				return nil, fmt.Errorf("event: %s: clock: %v", ss.Game, err)
			}
			ss.Clock = ctl.String()
		}
		for _, t := range ss.Tables {
			if err := CheckTable(t); err != nil {
				return nil, err
			}
			if g, ok := used[t]; ok {
				return nil, fmt.Errorf("event: table %s plays %s and %s", t, g, ss.Game)
			}
			used[t] = ss.Game
		}
		s := &club.Section{Game: info.Game, Seats: info.Seats, System: sys, Rounds: ss.Rounds, Clock: ss.Clock, Tables: slices.Clone(ss.Tables)}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("event: %v", err)
		}
		for _, o := range e.Sections {
			if o.Game == s.Game {
				return nil, fmt.Errorf("event: %s given twice", s.Game)
			}
		}
		e.Sections = append(e.Sections, s)
	}
	return e, nil
}

// CheckEventTables refuses an event that names a table the hub does not
// have (creds are the hub's credentials): such a table could never join,
// and its games would wait for ever.
func CheckEventTables(e *EventState, creds *Credentials) error {
	for _, s := range e.Sections {
		for _, t := range s.Tables {
			if _, ok := creds.Tables[t]; ok {
				continue
			}
			have := make([]string, 0, len(creds.Tables))
			for n := range creds.Tables {
				have = append(have, n)
			}
			slices.Sort(have)
			if len(have) == 0 {
				have = []string{"none"}
			}
			return fmt.Errorf("--table %s=%s: the hub has no table %s (its tables: %s; add one with `tabla hub table add %s`)",
				s.Game, strings.Join(s.Tables, ","), t, strings.Join(have, ", "), t)
		}
	}
	return nil
}

// EventURL is an event's page on the hub whose pages are at base
// (http://HOST:PORT).
func EventURL(base, id string) string {
	return strings.TrimRight(base, "/") + "/event.html?e=" + id
}

// busyTable names an event not over yet that plays one of e's tables:
// a table plays one event's games at a time (another event's pairing
// would wait for ever behind the game on its board).
func busyTable(e, o *EventState) error {
	for _, sec := range o.Sections {
		if sec.Ended || sec.Finished() {
			continue
		}
		for _, s := range e.Sections {
			for _, t := range s.Tables {
				if slices.Contains(sec.Tables, t) {
					return fmt.Errorf("hub: table %s plays %s in event %s, which is not over: end it first (`tabla hub event end %s`) or choose other tables", t, sec.Game, o.ID, o.ID)
				}
			}
		}
	}
	return nil
}

// CreateEvent stores a new event in the hub's bucket (the hub's admin
// credentials): an event of the same id is refused, as is one beyond
// wire.MaxEvents, one of the same name, and one that takes a table of
// an event not over yet.
func CreateEvent(ctx context.Context, js jetstream.JetStream, e *EventState) error {
	kv, err := js.KeyValue(ctx, wire.BucketEvents)
	if err != nil {
		return fmt.Errorf("hub: the events' bucket (is the hub running?): %w", err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return err
	}
	n := 0
	for range keys.Keys() {
		n++
	}
	if n >= wire.MaxEvents {
		return fmt.Errorf("hub: %d events kept already (at most %d)", n, wire.MaxEvents)
	}
	// results find their event by its name (the records' "event"): one
	// event a name
	keys, err = kv.ListKeys(ctx)
	if err != nil {
		return err
	}
	for k := range keys.Keys() {
		if kve, err := kv.Get(ctx, k); err == nil {
			var o EventState
			if json.Unmarshal(kve.Value(), &o) != nil || o.ID == e.ID {
				continue // the same id is refused below
			}
			if o.Name == e.Name {
				return fmt.Errorf("hub: event %s is named %q already: give this one another --name", k, e.Name)
			}
			if err := busyTable(e, &o); err != nil {
				return err
			}
		}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := kv.Create(ctx, e.ID, data); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return fmt.Errorf("hub: an event %s exists already", e.ID)
		}
		return err
	}
	return nil
}

// CreateEventAt connects to a hub's NATS server with the admin's URL and
// creates the event there (`tabla hub event new`).
func CreateEventAt(ctx context.Context, url, ca string, e *EventState) error {
	// as the tables and the hub connect (Dial: a loaded server checking
	// the password's bcrypt hash can fumble a first handshake), waiting
	// at most connectPatience for the connection
	up := make(chan struct{}, 1)
	var last error
	var mu sync.Mutex
	nc, err := link.Dial(url, "tabla hub event", ca, 200*time.Millisecond, slog.New(slog.DiscardHandler), func(nc *nats.Conn) {
		if nc.IsConnected() {
			select {
			case up <- struct{}{}:
			default:
			}
		}
	}, func(err error) {
		mu.Lock()
		last = err
		mu.Unlock()
	})
	if err != nil {
		return connectError(url, err)
	}
	if !nc.IsConnected() {
		t := time.NewTimer(connectPatience)
		defer t.Stop()
		select {
		case <-up:
		case <-t.C:
			nc.Close()
			mu.Lock()
			defer mu.Unlock()
			return connectError(url, last)
		case <-ctx.Done():
			nc.Close()
			return ctx.Err()
		}
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	// a hub just started sets its buckets up in a moment
	deadline := time.Now().Add(connectPatience)
	for {
		_, err := js.KeyValue(ctx, wire.BucketEvents)
		if err == nil || !errors.Is(err, jetstream.ErrBucketNotFound) || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return CreateEvent(ctx, js, e)
}

// connectPatience bounds how long CreateEventAt waits for the hub.
const connectPatience = 30 * time.Second

// eventEntry is an event as last read or written, with its revision.
type eventEntry struct {
	st  *EventState
	rev uint64
}

// onEvent takes a change of the events' bucket.
func (h *Hub) onEvent(e jetstream.KeyValueEntry) {
	h.mu.Lock()
	if e.Operation() != jetstream.KeyValuePut {
		delete(h.events, e.Key())
	} else if old := h.events[e.Key()]; old == nil || old.rev < e.Revision() {
		var st EventState
		if err := json.Unmarshal(e.Value(), &st); err != nil {
			h.mu.Unlock()
			h.log.Warn("hub: unreadable event", "event", e.Key(), "err", err)
			return
		}
		h.events[e.Key()] = &eventEntry{st: &st, rev: e.Revision()}
	}
	h.mu.Unlock()
	h.bump("")
	h.pokeEvents()
}

func (h *Hub) pokeEvents() {
	select {
	case h.evPoke <- struct{}{}:
	default:
	}
}

// ErrNoEvent: no event of that id.
var ErrNoEvent = errors.New("hub: no such event")

// updateEvent applies f to a copy of the event and stores it (again from
// the stored state if another write came first), then sends the
// pairings it holds.
func (h *Hub) updateEvent(ctx context.Context, id string, f func(e *EventState) error) error {
	h.evMu.Lock()
	defer h.evMu.Unlock()
	kv, err := h.js.KeyValue(ctx, wire.BucketEvents)
	if err != nil {
		return err
	}
	for try := 0; ; try++ {
		h.mu.Lock()
		cur := h.events[id]
		h.mu.Unlock()
		if cur == nil || try > 0 {
			kve, err := kv.Get(ctx, id)
			if errors.Is(err, jetstream.ErrKeyNotFound) {
				return ErrNoEvent
			}
			if err != nil {
				return err
			}
			var st EventState
			if err := json.Unmarshal(kve.Value(), &st); err != nil {
				return err
			}
			cur = &eventEntry{st: &st, rev: kve.Revision()}
		}
		e, err := copyEvent(cur.st)
		if err != nil {
			return err
		}
		if err := f(e); err != nil {
			return err
		}
		if n := len(e.Log); n > maxEventLog {
			e.Log = slices.Delete(e.Log, 0, n-maxEventLog)
		}
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if len(data) > wire.MaxEventBytes {
			return fmt.Errorf("hub: event %s would hold %d bytes, at most %d", id, len(data), wire.MaxEventBytes)
		}
		rev, err := kv.Update(ctx, id, data, cur.rev)
		if err != nil {
			if try < 3 && (errors.Is(err, jetstream.ErrKeyExists) || strings.Contains(err.Error(), "wrong last sequence")) {
				continue
			}
			return err
		}
		h.mu.Lock()
		if old := h.events[id]; old == nil || old.rev < rev {
			h.events[id] = &eventEntry{st: e, rev: rev}
		}
		h.mu.Unlock()
		h.bump("")
		h.sendPairings(ctx, e)
		return nil
	}
}

func copyEvent(e *EventState) (*EventState, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	var out EventState
	return &out, json.Unmarshal(data, &out)
}

func (e *EventState) logf(game string, refused bool, t time.Time, say i18n.Text, format string, args ...any) {
	e.Log = append(e.Log, EventLogEntry{T: t.UTC(), What: fmt.Sprintf(format, args...), Say: &say, Refused: refused, Game: game})
}

// roundWords is a round's pairings for the page: "1. T1: Ayşe – Ali; 2. …"
// (no words to translate) and its byes.
func roundWords(game string, r *club.Round) i18n.Text {
	var parts []string
	for _, p := range r.Pairings {
		parts = append(parts, fmt.Sprintf("%d. %s: %s", p.Board, p.Table, strings.Join(p.Players, " – ")))
	}
	key := "ev.log.paired"
	if len(r.Byes) > 0 {
		key = "ev.log.paired.bye"
	}
	return i18n.T(key, "game", game, "round", r.N, "pairs", strings.Join(parts, "; "), "byes", strings.Join(r.Byes, ", "))
}

// section is the event's section of a game (nil: none).
func (e *EventState) section(game string) *club.Section {
	for _, s := range e.Sections {
		if s.Game == game {
			return s
		}
	}
	return nil
}

// Event is a copy of an event's state (nil: none).
func (h *Hub) Event(id string) *EventState {
	h.mu.Lock()
	cur := h.events[id]
	h.mu.Unlock()
	if cur == nil {
		return nil
	}
	e, err := copyEvent(cur.st)
	if err != nil {
		return nil
	}
	return e
}

// EventIDs are the events the hub keeps.
func (h *Hub) EventIDs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id := range h.events {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Register adds a player to a game of an event (before its first round).
func (h *Hub) Register(ctx context.Context, id, game, name string) error {
	return h.updateEvent(ctx, id, func(e *EventState) error {
		s := e.section(game)
		if s == nil {
			return refuse(i18n.T("arb.err.nogame", "game", game), fmt.Errorf("the event has no %s", game))
		}
		return s.Register(name, h.ratingOf(game, strings.TrimSpace(name)))
	})
}

// StartEvent pairs the first round of every game of the event and sends
// the pairings to the tables.
func (h *Hub) StartEvent(ctx context.Context, id string) error {
	now := h.now()
	return h.updateEvent(ctx, id, func(e *EventState) error {
		if e.Started {
			return refuse(i18n.T("arb.err.started"), errors.New("the event has started already"))
		}
		for _, s := range e.Sections {
			r, err := s.PairNext()
			if err != nil {
				return err
			}
			e.logf("", false, now, roundWords(s.Game, r), "%s round 1 paired: %s", s.Game, describeRound(s, r))
		}
		e.Started = true
		return nil
	})
}

func describeRound(s *club.Section, r *club.Round) string {
	var parts []string
	for _, p := range r.Pairings {
		parts = append(parts, fmt.Sprintf("board %d at %s: %s", p.Board, p.Table, strings.Join(p.Players, " – ")))
	}
	if len(r.Byes) > 0 {
		parts = append(parts, "bye: "+strings.Join(r.Byes, ", "))
	}
	return strings.Join(parts, "; ")
}

// CorrectResult sets a game's result by the arbiter (places by seat, 1
// first), the change logged with the reason.
func (h *Hub) CorrectResult(ctx context.Context, id, game string, round, board int, places []int, why string) error {
	now := h.now()
	why = strings.TrimSpace(why)
	if why == "" || len(why) > 200 {
		return errors.New("say why the result changes (up to 200 characters)")
	}
	return h.updateEvent(ctx, id, func(e *EventState) error {
		s := e.section(game)
		if s == nil {
			return fmt.Errorf("the event has no %s", game)
		}
		p := s.Find(round, board)
		if p == nil {
			return fmt.Errorf("%s has no round %d board %d", game, round, board)
		}
		if len(places) != len(s.Seats) {
			return fmt.Errorf("%d places for %d seats", len(places), len(s.Seats))
		}
		for _, pl := range places {
			if pl < 1 || pl > len(s.Seats) {
				return fmt.Errorf("a place is 1 to %d, got %d", len(s.Seats), pl)
			}
		}
		before, sayBefore := "none", "—"
		if p.Result != nil {
			before = resultText(s, p.Result)
			sayBefore = before
		}
		p.Result = &club.Result{Places: places, Points: s.Points(places), End: "arbiter", By: "arbiter"}
		e.logf("", false, now, i18n.T("ev.log.arbiter", "game", game, "round", round, "board", board, "players", strings.Join(p.Players, " – "),
			"before", sayBefore, "after", resultText(s, p.Result), "why", why),
			"the arbiter changed %s round %d board %d (%s) from %s to %s: %s", game, round, board,
			strings.Join(p.Players, " – "), before, resultText(s, p.Result), why)
		h.advance(e, s, now)
		return nil
	})
}

// resultText is a result in a few characters: "1–0", "3–1–1–1".
func resultText(s *club.Section, r *club.Result) string {
	parts := make([]string, len(r.Points))
	for i, p := range r.Points {
		parts[i] = strconv.FormatFloat(p, 'f', -1, 64)
		if p == 0.5 {
			parts[i] = "½"
		}
	}
	return strings.Join(parts, "–")
}

// advance pairs the section's next round when the current one is
// complete and rounds are left.
func (h *Hub) advance(e *EventState, s *club.Section, now time.Time) {
	c := s.Current()
	if c == nil || !c.Complete() || len(s.Played) >= s.Rounds || s.Ended {
		return
	}
	was := s.Stuck
	r, err := s.PairNext()
	if err != nil {
		// the arbiter decides: a pairing by hand, a rematch allowed, or
		// the end (the page and `tabla hub event` offer the three)
		s.Stuck = err.Error()
		if was != s.Stuck {
			e.logf("", true, now, i18n.T("ev.log.unpaired", "game", s.Game, "round", c.N+1),
				"%s round %d cannot be paired: %v — the arbiter may pair it by hand, allow a rematch or end the game", s.Game, c.N+1, err)
		}
		return
	}
	e.logf("", false, now, roundWords(s.Game, r), "%s round %d paired: %s", s.Game, r.N, describeRound(s, r))
}

// ratingOf is a player's rating in a game before an event: the latest
// event's rating after it, else a new player's.
func (h *Hub) ratingOf(game, name string) rating.Rating {
	h.mu.Lock()
	defer h.mu.Unlock()
	best, when := rating.New(), time.Time{}
	for _, ee := range h.events {
		s := ee.st.section(game)
		if s == nil || !s.Finished() || !ee.st.Created.After(when) {
			continue
		}
		for _, p := range s.Players {
			if strings.EqualFold(p.Name, name) {
				if after, err := s.Ratings(); err == nil {
					best, when = after[p.Name], ee.st.Created
				}
			}
		}
	}
	return best
}

// sendPairings puts every open pairing of the event's current rounds
// into its table's key (when it is not there already).
func (h *Hub) sendPairings(ctx context.Context, e *EventState) {
	if h.opts.ReadOnly || !e.Started {
		return
	}
	kv, err := h.js.KeyValue(ctx, wire.BucketPairings)
	if err != nil {
		h.log.Warn("hub: pairings", "err", err)
		return
	}
	for _, s := range e.Sections {
		r := s.Current()
		if r == nil {
			continue
		}
		for _, p := range r.Pairings {
			if p.Result != nil {
				continue
			}
			w := record.Who{Names: map[string]string{}, Event: e.Name, Round: p.Round(r.N), Site: e.Site, Date: e.Date}
			for i, name := range p.Players {
				w.Names[s.Seats[i]] = name
			}
			if old, err := kv.Get(ctx, p.Table); err == nil {
				var op wire.Pairing
				if json.Unmarshal(old.Value(), &op) == nil && op.EventID == e.ID && op.Game == s.Game && samePairingWho(op.Who, w) && op.Clock == s.Clock &&
					(op.Start == nil) == r.Clocks.IsZero() {
					continue
				}
			}
			data, _ := json.Marshal(wire.Pairing{EventID: e.ID, Game: s.Game, Who: w, Clock: s.Clock, Sent: h.now().UTC(), Start: arbiterTime(r.Clocks)})
			if _, err := kv.Put(ctx, p.Table, data); err != nil {
				h.log.Warn("hub: sending a pairing", "table", p.Table, "err", err)
			}
		}
	}
}

func samePairingWho(a, b record.Who) bool {
	if a.Event != b.Event || a.Round != b.Round || len(a.Names) != len(b.Names) {
		return false
	}
	for k, v := range a.Names {
		if b.Names[k] != v {
			return false
		}
	}
	return true
}

// queueResultLocked notes a finished game for the event loop (its header names
// an event).
func (h *Hub) queueResultLocked(key string) {
	if len(h.evQueue) < 4096 && !slices.Contains(h.evQueue, key) {
		h.evQueue = append(h.evQueue, key)
	}
}

// eventLoop takes the finished games' results into their events, once
// the events are read, and sends the pairings again after a restart.
func (h *Hub) eventLoop() {
	sent := false
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-h.evPoke:
		}
		h.mu.Lock()
		ready := h.eventsLoaded
		var keys []string
		if ready {
			keys, h.evQueue = h.evQueue, nil
		}
		h.mu.Unlock()
		if !ready {
			continue
		}
		if !sent {
			sent = true
			for _, id := range h.EventIDs() {
				if e := h.Event(id); e != nil {
					ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
					h.sendPairings(ctx, e)
					cancel()
				}
			}
		}
		for _, key := range keys {
			h.takeResult(key)
		}
	}
}

// gameResult is what the hub needs of a finished game to score it.
type gameResult struct {
	key, table string
	game       string // gyges, daha, …
	who        record.Who
	places     []int
	end, flag  string
}

// resultOfLocked reads a finished game's places (nil: not a result — an
// abandoned game, one not over, a remote seat's copy).
func resultOfLocked(g *Game) *gameResult {
	if g == nil || g.Remote != nil || !g.Over() || g.Err != nil {
		return nil
	}
	// a game over on the board is a result even when the table's next
	// game (a pairing, "new game") ended its journal with {"end":"new"}
	// before the hub read it; abandoned with no result, it is none
	if g.Ended == "new" && g.State.Result().Status == engine.Playing {
		return nil
	}
	info := g.State.Info()
	n := len(info.Seats)
	places := make([]int, n)
	r := &gameResult{key: g.Table + "/" + g.ID, table: g.Table, game: info.Game, who: g.Who, places: places}
	switch {
	case g.Ended == "time":
		flag := slices.Index(info.Seats, g.Flag)
		if flag < 0 {
			return nil
		}
		for i := range places {
			places[i] = 1
		}
		places[flag] = n
		r.end, r.flag = "time", g.Flag
	case g.State.Result().Status == engine.Won:
		win := g.State.Result().Winner // sides are the seats (NewEvent)
		for i := range places {
			places[i] = 2
		}
		places[win] = 1
		if el, ok := g.State.(engine.Eliminator); ok {
			out := el.Eliminated() // first out first: the last out is second
			for k, seat := range out {
				if seat >= 0 && seat < n && seat != win {
					places[seat] = n - k
				}
			}
		}
		r.end = "won"
	default: // a draw
		for i := range places {
			places[i] = 1
		}
		r.end = "draw"
	}
	return r
}

// parseRound reads a pairing's round tag "R.B".
func parseRound(s string) (round, board int, ok bool) {
	a, b, found := strings.Cut(s, ".")
	if !found {
		return 0, 0, false
	}
	r, err1 := strconv.Atoi(a)
	bd, err2 := strconv.Atoi(b)
	return r, bd, err1 == nil && err2 == nil && r > 0 && bd > 0
}

// takeResult scores a finished game in its event: the table must be the
// one the pairing sent it to, the round and board paired, the players the
// pairing's. Anything else is refused and logged on the event's page.
func (h *Hub) takeResult(key string) {
	h.mu.Lock()
	res := resultOfLocked(h.games[key])
	var id string
	if res != nil {
		for eid, ee := range h.events {
			if ee.st.Name == res.who.Event {
				id = eid
			}
		}
	}
	h.mu.Unlock()
	if res == nil || id == "" {
		return
	}
	now := h.now()
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	err := h.updateEvent(ctx, id, func(e *EventState) error {
		refuse := func(format string, args ...any) error {
			for _, l := range e.Log {
				if l.Refused && l.Game == res.key {
					return errNoChange // refused before (the hub read it again)
				}
			}
			e.logf(res.key, true, now, i18n.T("ev.log.refused", "game", res.key), "refused the result of %s: "+format, append([]any{res.key}, args...)...)
			return nil
		}
		s := e.section(res.game)
		round, board, ok := parseRound(res.who.Round)
		if s == nil {
			return refuse("the event has no %s", res.game)
		}
		if !ok {
			return refuse("its round %q is no round of the event", res.who.Round)
		}
		p := s.Find(round, board)
		if p == nil {
			return refuse("%s round %d has no board %d", res.game, round, board)
		}
		if p.Table != res.table {
			return refuse("round %d board %d was paired at table %s, not %s", round, board, p.Table, res.table)
		}
		for i, name := range p.Players {
			if res.who.Names[s.Seats[i]] != name {
				return refuse("round %d board %d pairs %s at %s, the game names %q", round, board, name, s.Seats[i], res.who.Names[s.Seats[i]])
			}
		}
		if p.Result != nil {
			if p.Result.Game == res.key {
				return errNoChange
			}
			return refuse("round %d board %d has its result already (from %s)", round, board, p.Result.Game)
		}
		p.Result = &club.Result{Places: res.places, Points: s.Points(res.places), End: res.end, Flag: res.flag, Game: res.key, By: "table"}
		how := res.end
		if res.flag != "" {
			how = res.flag + "'s flag fell"
		}
		say := i18n.T("ev.log.result", "game", s.Game, "round", round, "board", board, "table", res.table, "players", strings.Join(p.Players, " – "), "result", resultText(s, p.Result))
		if res.flag != "" {
			say = i18n.T("ev.log.result.flag", "game", s.Game, "round", round, "board", board, "table", res.table, "players", strings.Join(p.Players, " – "), "result", resultText(s, p.Result), "who", i18n.T("seat."+strings.TrimRight(res.flag, "0123456789")))
		}
		e.logf(res.key, false, now, say, "%s round %d board %d at %s: %s %s (%s)", s.Game, round, board, res.table,
			strings.Join(p.Players, " – "), resultText(s, p.Result), how)
		h.advance(e, s, now)
		return nil
	})
	if err != nil && !errors.Is(err, errNoChange) {
		h.log.Warn("hub: a result not taken", "game", key, "event", id, "err", err)
	}
}

// errNoChange: an update that changes nothing (not written).
var errNoChange = errors.New("no change")

// eventRecords are the records of a finished round's games, one after
// the other, board 1 first (each ends with its newline).
func (h *Hub) eventRecords(id, game string, round int) ([]byte, error) {
	e := h.Event(id)
	if e == nil {
		return nil, ErrNoEvent
	}
	s := e.section(game)
	if s == nil || round < 1 || round > len(s.Played) {
		return nil, fmt.Errorf("no round %d of %s", round, game)
	}
	r := s.Played[round-1]
	if !r.Complete() {
		return nil, errRoundOpen
	}
	var b bytes.Buffer
	for _, p := range r.Pairings {
		if p.Result.Game == "" {
			continue // set by the arbiter: no record
		}
		rec, err := h.gameRecord(p.Result.Game)
		if err != nil {
			return nil, err
		}
		b.Write(rec)
	}
	return b.Bytes(), nil
}

// gameRecord is a game's record (TABLE/GAME): the hub's copy in memory,
// else the club library's file of it.
func (h *Hub) gameRecord(key string) ([]byte, error) {
	table, gid, _ := strings.Cut(key, "/")
	if g := h.Game(table, gid); g != nil && g.Err == nil {
		return g.Record, nil
	}
	f, _, err := h.lib.Record(key + ".jsonl")
	if err != nil {
		return nil, fmt.Errorf("the record of %s: %v", key, err)
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var errRoundOpen = errors.New("the round is not finished: its games are downloadable when every result is in")
