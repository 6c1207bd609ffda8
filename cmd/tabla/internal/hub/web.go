package hub

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/link"
	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine"
)

// webPlayers are the seats people play in a browser on the hub's page:
// the hub plays them as a table would, with a record of its own
// (tabla.rec.web.ID: the whole game, the host's moves copied in as they
// come, the browser's own moves and rolls added), which the hosting table
// follows for those seats exactly as it follows another table's.
//
// The hub writes a record from two sides, its copying of the host's steps
// (sync, a forced pass included) and the browser's own moves (WebMove):
// they take turns (write), each deciding its event from the record as
// the hub holds it once the turn is its own. Each event also expects the
// previous one as the last of its record, so a writer elsewhere (another
// hub process) cannot interleave: its conflict is waited out and the
// event decided again.
type webPlayers struct {
	h       *Hub
	pmu     sync.Mutex       // guards players and writing
	players map[string]Ref   // web record id → the host's game and seat
	writing map[string]*turn // web record id → its writers' turn (while any waits)

	qmu   sync.Mutex
	dirty map[string]bool
	fails map[string]int // web record id → syncs failed in a row
	wake  chan struct{}
}

func newWebPlayers(h *Hub) *webPlayers {
	w := &webPlayers{h: h, players: map[string]Ref{}, writing: map[string]*turn{}, dirty: map[string]bool{}, fails: map[string]int{}, wake: make(chan struct{}, 1)}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		w.loop()
	}()
	return w
}

// later queues a player's record to be brought in line (never blocks: the
// hub's consumer calls it). A read-only hub plays no seat.
func (w *webPlayers) later(id string) {
	if w.h.opts.ReadOnly {
		return
	}
	w.qmu.Lock()
	w.dirty[id] = true
	w.qmu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *webPlayers) loop() {
	for {
		select {
		case <-w.h.ctx.Done():
			return
		case <-w.wake:
		}
		w.qmu.Lock()
		ids := make([]string, 0, len(w.dirty))
		for id := range w.dirty {
			ids = append(ids, id)
		}
		clear(w.dirty)
		w.qmu.Unlock()
		for _, id := range ids {
			w.sync(id)
		}
	}
}

// webID names the record of a browser's seat.
func webID(host, game, seat string) string { return sanitize(host + "-" + game + "-" + seat) }

// onSeat takes a seat claim: a browser's is played by the hub.
func (w *webPlayers) onSeat(key string) {
	w.h.mu.Lock()
	r, ok := w.h.seats[key]
	w.h.mu.Unlock()
	if !ok || r.Table != WebTable {
		return
	}
	parts := strings.SplitN(key, ".", 3)
	if len(parts) != 3 {
		return
	}
	w.pmu.Lock()
	w.players[r.Game] = Ref{Table: parts[0], Game: parts[1], Seat: parts[2]}
	w.pmu.Unlock()
	w.later(r.Game)
}

// onRecord follows a change of a game's record: a host's game copied
// into its browser players' records.
func (w *webPlayers) onRecord(table, game string) {
	w.pmu.Lock()
	var ids []string
	for id, r := range w.players {
		if (r.Table == table && r.Game == game) || (table == WebTable && id == game) {
			ids = append(ids, id)
		}
	}
	w.pmu.Unlock()
	for _, id := range ids {
		w.later(id)
	}
}

// sync brings a browser player's record in line with the host's game: the
// host's header first, then every step of another seat the host has and
// the record has not, in order; a step of another seat the host took back
// is taken back.
func (w *webPlayers) sync(id string) {
	w.pmu.Lock()
	ref, ok := w.players[id]
	w.pmu.Unlock()
	if !ok {
		return
	}
	h := w.h
	for range 64 {
		wrote, err := w.write(id, &ref, func() (int, json.RawMessage, json.RawMessage, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			host := h.games[ref.Table+"/"+ref.Game]
			own := h.games[WebTable+"/"+id]
			switch {
			case host == nil || !h.loaded:
				return 0, nil, nil, nil
			case own == nil:
				return 0, host.HeaderRaw, nil, nil
			case own.Err != nil:
				return 0, nil, nil, nil // broken: nothing more applies (WebMove says so)
			}
			n := own.N + 1
			p := 0
			for p < len(own.Steps) && p < len(host.Steps) && own.Steps[p] == host.Steps[p] {
				p++
			}
			switch {
			case p < len(own.Steps) && own.Steps[p].Seat != ref.Seat:
				// the host changed a step of its own: take back to there
				ops := len(own.Steps) - p
				plies := 0
				for _, s := range own.Steps[p:] {
					if !s.Roll {
						plies++
					}
				}
				return n, nil, fmt.Appendf(nil, `{"takeback":%d,"ops":%d,"t":%q}`, plies, ops, time.Now().UTC().Format(time.RFC3339Nano)), nil
			case p == len(own.Steps) && p < len(host.Steps) && host.Steps[p].Seat != ref.Seat:
				return n, nil, host.Lines[p], nil
			case p == len(own.Steps) && forcedPass(own.State, ref.Seat):
				// as a referee does: a pass nobody can show on a board is played at once
				return n, nil, fmt.Appendf(nil, `{"move":"pass","by":%q,"t":%q,"source":"engine"}`, ref.Seat, time.Now().UTC().Format(time.RFC3339Nano)), nil
			}
			return 0, nil, nil, nil
		})
		if err != nil {
			// a starved or unreachable server: nothing else may come to
			// wake this record (the host waits for the browser's seat), so
			// it is tried again
			w.qmu.Lock()
			w.fails[id]++
			wait := min(time.Second<<min(w.fails[id]-1, 5), 30*time.Second)
			w.qmu.Unlock()
			h.log.Warn("hub: browser player: trying again", "seat", ref.String(), "in", wait, "err", err)
			time.AfterFunc(wait, func() { w.later(id) })
			return
		}
		w.qmu.Lock()
		delete(w.fails, id)
		w.qmu.Unlock()
		if !wrote {
			return
		}
	}
}

// turn is the writers' turn at one browser player's record: held by the
// one writing, counted by those holding or waiting for it.
type turn struct {
	mu      sync.Mutex
	waiting int // guarded by webPlayers.pmu
}

// conflictTries bounds how often a browser player's event is decided
// again after a writer elsewhere got in first.
const conflictTries = 3

// write adds one event to a browser player's record and waits until the
// hub has applied it. next decides the event from the record as the hub
// holds it: its number n and the header (n 0) or line; neither is nothing
// to write (wrote false), an error is returned as it is. The hub's writers
// of one record take turns; when the stream's record has moved on (a
// writer elsewhere, or the hub's copy behind), write waits until the hub
// has applied the record's last event and asks next again, up to
// conflictTries times.
func (w *webPlayers) write(id string, ref *Ref, next func() (n int, header, line json.RawMessage, err error)) (wrote bool, err error) {
	w.pmu.Lock()
	t := w.writing[id]
	if t == nil {
		t = new(turn)
		w.writing[id] = t
	}
	t.waiting++
	w.pmu.Unlock()
	t.mu.Lock()
	defer func() {
		t.mu.Unlock()
		w.pmu.Lock()
		if t.waiting--; t.waiting == 0 {
			delete(w.writing, id) // (the map holds only records being written)
		}
		w.pmu.Unlock()
	}()
	for try := 1; ; try++ {
		n, header, line, err := next()
		if err != nil || header == nil && line == nil {
			return false, err
		}
		err = w.publish(id, n, header, line, ref)
		if err == nil {
			return true, w.waitFor(id, n)
		}
		if !conflict(err) || try == conflictTries {
			return false, err
		}
		w.h.log.Info("hub: browser player: the record moved on, deciding again", "record", id, "event", n, "try", try, "err", err)
		if err := w.caughtUp(id); err != nil {
			return false, err
		}
	}
}

// conflict reports whether a publish failed because the record's last
// event was not the one expected.
func conflict(err error) bool {
	var api *jetstream.APIError
	return errors.Is(err, ErrOrder) || errors.As(err, &api) &&
		(api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// caughtUp waits until the hub has applied the last event the stream has
// of a browser player's record.
func (w *webPlayers) caughtUp(id string) error {
	ctx, cancel := context.WithTimeout(w.h.ctx, 5*time.Second)
	defer cancel()
	last, _, err := link.LastEvent(ctx, w.h.js, RecSubject(WebTable, id))
	if err != nil || last < 0 {
		return err
	}
	return w.waitFor(id, last)
}

// waitFor waits, woken by the hub's own reports of changes, until the
// hub has taken event n of a browser player's record (5 s at most); it
// fails if the event did not apply.
func (w *webPlayers) waitFor(id string, n int) error {
	ctx, cancel := context.WithTimeout(w.h.ctx, 5*time.Second)
	defer cancel()
	changes := w.h.subscribe(ctx, WebTable, false)
	for {
		w.h.mu.Lock()
		g := w.h.games[WebTable+"/"+id]
		var err error
		taken := g != nil && g.N >= n
		if taken {
			err = g.Err
		}
		w.h.mu.Unlock()
		if taken {
			if err != nil {
				return fmt.Errorf("hub: the browser's step was not applied: %w", err)
			}
			return nil
		}
		select {
		case <-changes:
		case <-ctx.Done():
			return fmt.Errorf("hub: the browser's step (event %d) was not seen on the hub within 5 s", n)
		}
	}
}

// publish publishes event n of a browser player's record (the header when
// n is 0), expecting event n-1 as the last.
func (w *webPlayers) publish(id string, n int, header, line json.RawMessage, ref *Ref) error {
	ctx, cancel := context.WithTimeout(w.h.ctx, 5*time.Second)
	defer cancel()
	subj := RecSubject(WebTable, id)
	last, seq, err := link.LastEvent(ctx, w.h.js, subj)
	if err != nil {
		return err
	}
	if last != n-1 {
		return fmt.Errorf("%w: the record has event %d, not %d", ErrOrder, last, n-1)
	}
	if webPublishing != nil {
		if err := webPublishing(id, n, line); err != nil {
			return err
		}
	}
	ev := Event{N: n, Line: line}
	if n == 0 {
		r := *ref
		ev = Event{N: 0, Table: WebTable, Game: id, Journal: "browser", Header: header, Remote: &r}
	}
	data, _ := json.Marshal(ev)
	msg := nats.NewMsg(subj)
	msg.Data = data
	msg.Header.Set(hdrN, strconv.Itoa(n))
	_, err = w.h.js.PublishMsg(ctx, msg, jetstream.WithMsgID(WebTable+"."+id+"."+strconv.Itoa(n)),
		jetstream.WithExpectLastSequencePerSubject(seq))
	return err
}

// webPublishing, when set (tests set it before the hub starts), is called
// as event n of a browser player's record is about to be published, the
// record's last event read; an error fails the publish.
var webPublishing func(id string, n int, line json.RawMessage) error

// Errors of browser play.
var (
	ErrNoGame    = errors.New("hub: the table has no game")
	ErrSeat      = wire.ErrSeat
	ErrSeatTaken = wire.ErrSeatTaken
	ErrNotTurn   = errors.New("hub: it is not this seat's turn")
	ErrUnderWay  = wire.ErrUnderWay
	ErrNoGrant   = errors.New("hub: the table did not grant the seat (is it online?)")
)

// Refusal is a refused browser action: Err for the log and the API
// (developer text), Say the same in plain words for the person at the
// page (the club's refusals are the same type).
type Refusal = i18n.Refusal

// refuse words err for the person at the page.
func refuse(say i18n.Text, err error) error { return i18n.Refuse(say, err) }

// Play claims a seat of a table's current game for a browser.
func (h *Hub) Play(table, seat string) (Ref, error) {
	if h.opts.ReadOnly {
		return Ref{}, refuse(i18n.T("hub.refuse.mirror"), errors.New("hub: a read-only mirror plays no seat"))
	}
	h.mu.Lock()
	g := h.currentLocked(table)
	if g == nil {
		h.mu.Unlock()
		return Ref{}, refuse(i18n.T("hub.refuse.nogame"), ErrNoGame)
	}
	gid := g.ID
	seats := g.State.Info().Seats
	underWay := len(g.Steps) > 0
	held, holds := h.seats[seatKey(table, gid, seat)]
	h.mu.Unlock()
	if !slices.Contains(seats, seat) {
		return Ref{}, refuse(i18n.T("hub.refuse.seat"), fmt.Errorf("%w: %q (want %s)", ErrSeat, seat, strings.Join(seats, ", ")))
	}
	id := webID(table, gid, seat)
	ref := Ref{Table: WebTable, Game: id, Seat: seat}
	switch {
	case holds && held != ref:
		return Ref{}, refuse(seatTaken(held.Table, seat), fmt.Errorf("%w: %s plays %s", ErrSeatTaken, held.Table, seat))
	case !holds && underWay:
		return Ref{}, refuse(i18n.T("hub.refuse.begun"),
			fmt.Errorf("%w: a seat is claimed before the first move (the board would take back the moves made for it)", ErrUnderWay))
	}
	if !holds {
		// only the host table writes its seats: ask it, and wait for its answer
		if err := h.askSeat(table, gid, seat, ref); err != nil {
			return Ref{}, err
		}
	}
	h.web.pmu.Lock()
	h.web.players[id] = Ref{Table: table, Game: gid, Seat: seat}
	h.web.pmu.Unlock()
	h.web.later(id)
	return Ref{Table: table, Game: gid, Seat: seat}, nil
}

// askSeat puts the browser's request for a seat and waits, on the seat's
// key, until the host table grants it (or gives it to another, or 5 s
// pass).
func (h *Hub) askSeat(table, gid, seat string, ref Ref) error {
	val, _ := json.Marshal(ref)
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	kv, err := h.js.KeyValue(ctx, BucketSeats)
	if err != nil {
		return err
	}
	w, err := kv.Watch(ctx, seatKey(table, gid, seat))
	if err != nil {
		return err
	}
	defer w.Stop()
	if _, err := kv.Put(ctx, requestKey(WebTable, table, gid, seat), val); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return refuse(i18n.T("hub.refuse.nogrant"), ErrNoGrant)
		case e, ok := <-w.Updates():
			if !ok {
				return refuse(i18n.T("hub.refuse.nogrant"), ErrNoGrant)
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var p Ref
			json.Unmarshal(e.Value(), &p)
			if p == ref {
				return nil
			}
			return refuse(seatTaken(p.Table, seat), fmt.Errorf("%w: %s plays %s", ErrSeatTaken, p.Table, seat))
		}
	}
}

// noGrant is ErrNoGrant in plain words.

// seatTaken says in plain words that table plays seat.
func seatTaken(table, seat string) i18n.Text {
	who := i18n.T("seat." + strings.TrimRight(seat, "0123456789"))
	if table == WebTable {
		return i18n.T("hub.refuse.taken.web", "who", who)
	}
	return i18n.T("hub.refuse.taken", "who", who, "table", table)
}

// webOf returns the browser player of a seat of a table's current game.
func (h *Hub) webOf(table, seat string) (string, *Game, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.currentLocked(table)
	if g == nil {
		return "", nil, refuse(i18n.T("hub.refuse.nogame"), ErrNoGame)
	}
	id := webID(table, g.ID, seat)
	r, ok := h.seats[seatKey(table, g.ID, seat)]
	own := h.games[WebTable+"/"+id]
	if !ok || r.Table != WebTable || r.Game != id || own == nil {
		return "", nil, refuse(i18n.T("hub.refuse.notyours"),
			fmt.Errorf("hub: %s is not played in a browser here: claim it first", seat))
	}
	return id, own, nil
}

// forcedPass reports whether seat is to move in st and must pass.
func forcedPass(st engine.State, seat string) bool {
	if st.Awaiting() != engine.AwaitMove || st.Info().Seats[st.ToMove()] != seat {
		return false
	}
	ms := st.Moves(nil)
	return len(ms) == 1 && engine.MoveString(st, ms[0]) == "pass"
}

// Turn is what a browser's seat may do now: GET /api/tables/T/legal.
type Turn struct {
	// Awaiting is "roll" or "move" when it is the seat's turn, "" when not
	// (nor when its only move is a pass: the hub plays that at once).
	Awaiting string   `json:"awaiting"`
	Moves    []string `json:"moves"` // the legal moves (canonical notation, sorted)
	// Plies and Moves are the position they are for: the seat's record
	// follows the table's game and may be a step behind what a page shows.
	Plies int    `json:"plies"`
	Last  string `json:"last"` // the last move ("" none)
}

// Legal says what a browser's seat may do now, as its record stands.
func (h *Hub) Legal(table, seat string) (Turn, error) {
	_, own, err := h.webOf(table, seat)
	if err != nil {
		return Turn{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	st := own.State
	out := Turn{Moves: []string{}, Plies: st.Plies()}
	if ms := own.Moves(); len(ms) > 0 {
		out.Last = ms[len(ms)-1]
	}
	if st.Awaiting() == engine.AwaitNone || st.Info().Seats[st.ToMove()] != seat || forcedPass(st, seat) {
		return out, nil // a forced pass is the hub's to play (sync), as a referee plays it
	}
	out.Awaiting = st.Awaiting().String()
	for _, m := range st.Moves(nil) {
		out.Moves = append(out.Moves, engine.MoveString(st, m))
	}
	slices.Sort(out.Moves)
	return out, nil
}

// WebMove makes a browser's move (move: canonical notation) or, when move
// is "", its roll (tabla's die). The move is checked against the seat's
// record once it is the browser's turn to write it (webPlayers.write), and
// again if the record moved on meanwhile.
func (h *Hub) WebMove(table, seat, move string) error {
	id, _, err := h.webOf(table, seat)
	if err != nil {
		return err
	}
	_, err = h.web.write(id, nil, func() (int, json.RawMessage, json.RawMessage, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		own := h.games[WebTable+"/"+id]
		if own == nil { // forgotten meanwhile: a finished game
			return 0, nil, nil, refuse(i18n.T("hub.refuse.over"), errors.New("hub: the game is over"))
		}
		if own.Err != nil {
			return 0, nil, nil, refuse(i18n.T("hub.refuse.damaged"),
				fmt.Errorf("hub: the browser's record of %s is broken, no move can apply: %w", seat, own.Err))
		}
		st := own.State
		info := st.Info()
		t := time.Now().UTC().Format(time.RFC3339Nano)
		switch {
		case st.Awaiting() == engine.AwaitNone:
			return 0, nil, nil, refuse(i18n.T("hub.refuse.over"), errors.New("hub: the game is over"))
		case info.Seats[st.ToMove()] != seat:
			who := info.Seats[st.ToMove()]
			return 0, nil, nil, refuse(i18n.T("hub.refuse.turn", "who", i18n.T("seat."+strings.TrimRight(who, "0123456789"))), fmt.Errorf("%w (%s's)", ErrNotTurn, who))
		case move == "" && st.Awaiting() == engine.AwaitRoll:
			f, _ := rand.Int(rand.Reader, big.NewInt(int64(len(info.Die.Faces))))
			face := info.Die.Faces[f.Int64()]
			if !info.Die.Numeric {
				face = strconv.Quote(face)
			}
			return own.N + 1, nil, fmt.Appendf(nil, `{"roll":%s,"by":%q,"t":%q,"source":"engine"}`, face, seat, t), nil
		case move == "":
			return 0, nil, nil, refuse(i18n.T("hub.refuse.noroll"), fmt.Errorf("hub: %s must move, not roll", seat))
		case st.Awaiting() == engine.AwaitRoll:
			return 0, nil, nil, refuse(i18n.T("hub.refuse.rollfirst"), fmt.Errorf("hub: %s must roll first", seat))
		}
		m, err := st.ParseMove(move)
		if err != nil {
			return 0, nil, nil, refuse(i18n.T("hub.refuse.move"), err)
		}
		return own.N + 1, nil, fmt.Appendf(nil, `{"move":%q,"by":%q,"t":%q,"source":"cli"}`, engine.MoveString(st, m), seat, t), nil
	})
	return err // only a step the hub applied is made (write waits for it)
}
