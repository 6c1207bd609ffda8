package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/rating"
	"github.com/tabla-board/tabla/engine/record"
)

// EventView is an event's page: every game's rounds with their pairings,
// results and live games, who the round waits for, the standings with
// their tie-breaks and the ratings.
type EventView struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Site     string          `json:"site,omitempty"`
	Date     string          `json:"date,omitempty"`
	Started  bool            `json:"started"`
	Sections []SectionView   `json:"sections"`
	Log      []EventLogEntry `json:"log"` // the latest, oldest first
}

// SectionView is one game of an event.
type SectionView struct {
	Game      string          `json:"game"`
	System    string          `json:"system"`
	Rounds    int             `json:"rounds"`
	Clock     string          `json:"clock,omitempty"`
	Seats     []string        `json:"seats"`
	Tables    []string        `json:"tables"`
	Players   []club.Player   `json:"players"`
	Played    []RoundView     `json:"played"`
	Waiting   []Waiting       `json:"waiting"` // the round's games without a result
	Tiebreaks []string        `json:"tiebreaks"`
	Standings []club.Standing `json:"standings"`
	Ratings   []RatingView    `json:"ratings"`
	Finished  bool            `json:"finished"`
	Ended     bool            `json:"ended,omitempty"` // by the arbiter
	// Stuck says why the next round cannot be paired: the arbiter pairs
	// it by hand, allows a rematch (a Swiss) or ends the game.
	Stuck string `json:"stuck,omitempty"`
	// StuckSay is why in the page's words, when the hub can word it (a
	// Swiss with no pairing left without a rematch)
	StuckSay *i18n.Text `json:"stuck_say,omitempty"`
	// Exports: the crosstable (HTML, CSV) and, for two-player games, the
	// TRF report.
	Crosstable string `json:"crosstable"`
	CSV        string `json:"csv"`
	TRF        string `json:"trf,omitempty"`
}

// Waiting is a game of the round the hub has no result of yet.
type Waiting struct {
	Round int    `json:"round"`
	Board int    `json:"board"`
	Table string `json:"table"`
	// State: "playing", "offline" (the table's live status stopped),
	// "not started" (the table has not begun the paired game).
	State string `json:"state"`
	Text  string `json:"text"` // in words, for the log and the API
	// Players are the game's players by seat; Underway says an offline
	// table has the game under way (the page words it from these).
	Players  []string `json:"players"`
	Underway bool     `json:"underway,omitempty"`
}

// RoundView is a round: its games and, once complete, its download.
type RoundView struct {
	N        int           `json:"n"`
	Complete bool          `json:"complete"`
	Byes     []string      `json:"byes,omitempty"`
	Half     []string      `json:"half,omitempty"`   // half-point byes asked for
	Absent   []string      `json:"absent,omitempty"` // withdrawn or paused
	By       string        `json:"by,omitempty"`     // paired by hand by
	Clocks   time.Time     `json:"clocks,omitzero"`  // the arbiter started its clocks
	Pairings []PairingView `json:"pairings"`
	Download string        `json:"download,omitempty"`
	Print    string        `json:"print"` // its pairings and result slips, for A4
}

// PairingView is a game of a round.
type PairingView struct {
	Board   int          `json:"board"`
	Table   string       `json:"table"`
	Players []string     `json:"players"`
	Result  *club.Result `json:"result,omitempty"`
	Score   string       `json:"score,omitempty"` // "1–0", "3–1–1–1"
	Live    *LivePairing `json:"live,omitempty"`
}

// LivePairing is a paired game under way at its table.
type LivePairing struct {
	Game   string     `json:"game"`
	Plies  int        `json:"plies"`
	ToMove string     `json:"to_move,omitempty"`
	Online bool       `json:"online"`
	Clock  *ClockView `json:"clock,omitempty"`
	Last   time.Time  `json:"last,omitzero"` // the latest line: the running clock counts from it
}

// RatingView is a player's rating before the evening and now.
type RatingView struct {
	Name   string        `json:"name"`
	Before rating.Rating `json:"before"`
	After  rating.Rating `json:"after"`
}

// EventView is an event's page as JSON (nil: no such event).
func (h *Hub) EventView(id string) *EventView {
	e := h.Event(id)
	if e == nil {
		return nil
	}
	v := &EventView{ID: e.ID, Name: e.Name, Site: e.Site, Date: e.Date, Started: e.Started, Log: e.Log}
	if n := len(v.Log); n > 100 {
		v.Log = v.Log[n-100:]
	}
	if v.Log == nil {
		v.Log = []EventLogEntry{}
	}
	for _, s := range e.Sections {
		sv := SectionView{Game: s.Game, System: s.System, Rounds: s.Rounds, Clock: s.Clock, Seats: s.Seats, Tables: s.Tables,
			Players: s.Players, Played: []RoundView{}, Waiting: []Waiting{}, Tiebreaks: club.TiebreakNames(s.System),
			Standings: s.Standings(), Finished: s.Finished(), Ended: s.Ended, Stuck: s.Stuck}
		if strings.Contains(s.Stuck, club.ErrNoPairing.Error()) {
			say := i18n.T("club.err.nopairing")
			sv.StuckSay = &say
		}
		base := fmt.Sprintf("/api/club/%s/%s/", e.ID, s.Game)
		sv.Crosstable, sv.CSV = base+"crosstable.html", base+"crosstable.csv"
		if len(s.Seats) == 2 {
			sv.TRF = base + "report.trf"
		}
		if sv.Players == nil {
			sv.Players = []club.Player{}
		}
		after, err := s.Ratings()
		if err == nil {
			for _, st := range sv.Standings {
				for _, p := range s.Players {
					if p.Name == st.Name {
						sv.Ratings = append(sv.Ratings, RatingView{Name: p.Name, Before: p.Rating, After: after[p.Name]})
					}
				}
			}
		}
		for _, r := range s.Played {
			rv := RoundView{N: r.N, Complete: r.Complete(), Byes: r.Byes, Half: r.Half, Absent: r.Absent, By: r.By, Clocks: r.Clocks,
				Pairings: []PairingView{}, Print: fmt.Sprintf("/api/club/%s/%s/round/%d/print.html", e.ID, s.Game, r.N)}
			if rv.Complete {
				rv.Download = fmt.Sprintf("/api/club/%s/%s/round/%d", e.ID, s.Game, r.N)
			}
			for _, p := range r.Pairings {
				pv := PairingView{Board: p.Board, Table: p.Table, Players: p.Players, Result: p.Result}
				if p.Result != nil {
					pv.Score = resultText(s, p.Result)
				} else {
					pv.Live = h.livePairing(e, p.Table, p.Round(r.N))
					state, words, under := "not started", "has not started the game", false
					switch {
					case pv.Live == nil && !h.online(p.Table):
						state, words = "offline", "is offline"
					case pv.Live != nil && !pv.Live.Online:
						state, words, under = "offline", "is offline, its game under way", true
					case pv.Live != nil:
						state, words = "playing", "is playing"
					}
					sv.Waiting = append(sv.Waiting, Waiting{Round: r.N, Board: p.Board, Table: p.Table, State: state, Players: p.Players, Underway: under,
						Text: fmt.Sprintf("round %d board %d waits for table %s (%s), which %s", r.N, p.Board, p.Table, strings.Join(p.Players, " – "), words)})
				}
				rv.Pairings = append(rv.Pairings, pv)
			}
			sv.Played = append(sv.Played, rv)
		}
		v.Sections = append(v.Sections, sv)
	}
	return v
}

// online reports whether a table's live status arrives.
func (h *Hub) online(table string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := h.tables[table]
	return ts != nil && ts.online
}

// livePairing is the table's current game if it is the pairing's.
func (h *Hub) livePairing(e *EventState, table, round string) *LivePairing {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.currentLocked(table)
	if g == nil || g.Who.Event != e.Name || g.Who.Round != round {
		return nil
	}
	ts := h.tables[table]
	lp := &LivePairing{Game: g.ID, Plies: g.State.Plies(), Online: ts != nil && ts.online, Clock: clockView(g), Last: g.Last}
	if t := g.State.ToMove(); t >= 0 && !g.Over() {
		lp.ToMove = g.State.Info().Seats[t]
	}
	return lp
}

// Broadcast is the public feed of the live games: every table's game as
// it stood Delay ago.
type Broadcast struct {
	DelayMs int64           `json:"delay_ms"`
	At      time.Time       `json:"at"` // the instant shown
	Games   []BroadcastGame `json:"games"`
}

// BroadcastGame is one table's game in the feed.
type BroadcastGame struct {
	Table  string           `json:"table"`
	ID     string           `json:"id"`
	Game   string           `json:"game"`
	Who    record.Who       `json:"who"`
	Steps  []Step           `json:"steps"`
	Moves  []string         `json:"moves"`
	Status string           `json:"status"` // playing, won, draw, time, abandoned
	Winner string           `json:"winner,omitempty"`
	Flag   string           `json:"flag,omitempty"`
	LeftMs map[string]int64 `json:"left_ms,omitempty"` // each clock after the turns shown
}

// BroadcastFeed is the feed now.
func (h *Hub) BroadcastFeed() *Broadcast {
	return h.broadcastAt(h.now().Add(-h.broadcast))
}

// broadcastAt is the feed of the games as they stood at at (with a
// delay; without one, as they stand).
func (h *Hub) broadcastAt(at time.Time) *Broadcast {
	b := &Broadcast{DelayMs: h.broadcast.Milliseconds(), At: at.UTC(), Games: []BroadcastGame{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	names := make([]string, 0, len(h.tables))
	for n := range h.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		g := h.currentLocked(n)
		if g == nil || g.Remote != nil || g.Err != nil {
			continue
		}
		bg := BroadcastGame{Table: n, ID: g.ID, Game: g.State.Info().Game, Who: g.Who, Steps: []Step{}, Moves: []string{}, Status: "playing"}
		k := len(g.Lines)
		if h.broadcast > 0 {
			k = 0
			for _, raw := range g.Lines {
				var l struct {
					T time.Time `json:"t"`
				}
				if json.Unmarshal(raw, &l) != nil || l.T.After(at) {
					break
				}
				k++
			}
		}
		bg.Steps = append(bg.Steps, g.Steps[:k]...)
		for _, s := range bg.Steps {
			if !s.Roll {
				bg.Moves = append(bg.Moves, s.Text)
			}
		}
		if k == len(g.Lines) && (h.broadcast == 0 || !g.Last.After(at)) {
			switch {
			case g.Ended == "time":
				bg.Status, bg.Flag = "time", g.Flag
			case g.Ended == "new" && g.State.Result().Status == engine.Playing:
				bg.Status = "abandoned"
			default:
				bg.Status, bg.Winner = g.Result()
			}
		}
		if len(g.Header.Clock) > 0 {
			seats := g.State.Info().Seats
			c := g.Header.Clock.New(seats)
			bg.LeftMs = map[string]int64{}
			for _, s := range bg.Steps {
				if s.MS != nil {
					c.Charge(slices.Index(seats, s.Seat), time.Duration(*s.MS)*time.Millisecond)
				}
			}
			for i, seat := range seats {
				bg.LeftMs[seat] = c.Left(i, 0).Milliseconds()
			}
			if bg.Status == "time" {
				bg.LeftMs[bg.Flag] = 0
			}
		}
		b.Games = append(b.Games, bg)
	}
	return b
}

// eventRoutes adds the club evening's pages and the broadcast:
//
//	GET  /event.html?e=ID                   the event's page
//	GET  /api/club                          the events (ids)
//	GET  /api/club/ID                       the event (EventView)
//	GET  /api/club/ID/events                server-sent events: "state" (EventView) at once and per change
//	GET  /api/club/ID/GAME/round/N          a finished round's records, one after the other (JSONL)
//	POST /api/club/ID/players               {"game":G,"name":N}: register a player (the token)
//	POST /api/club/ID/start                 pair the first round and send it to the tables (the token)
//	POST /api/club/ID/result                {"game","round","board","places":[…],"why"}: the arbiter's result (the token)
//	POST /api/club/ID/arbiter               ArbiterAction: enter, withdraw, bye, forfeit, pair, rematch, result, end,
//	                                        clocks (the token); answers {"ok":true,"warnings":[…]}
//	…/crosstable.html|csv, round/N/print.html, report.trf, records.zip   the exports (eventexport.go)
//	GET  /api/broadcast                     every table's game, BroadcastDelay behind (Broadcast)
//	GET  /api/broadcast/events              server-sent events: "state" (Broadcast) at once and per change
func (h *Hub) eventRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/club", func(w http.ResponseWriter, r *http.Request) {
		ids := h.EventIDs()
		if ids == nil {
			ids = []string{}
		}
		writeJSON(w, ids)
	})
	mux.HandleFunc("GET /api/club/{id}", func(w http.ResponseWriter, r *http.Request) {
		v := h.EventView(r.PathValue("id"))
		if v == nil {
			http.Error(w, "no such event", http.StatusNotFound)
			return
		}
		writeJSON(w, v)
	})
	mux.HandleFunc("GET /api/club/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if h.Event(id) == nil {
			http.Error(w, "no such event", http.StatusNotFound)
			return
		}
		webui.ServeEvents(w, r, func() any { return h.EventView(id) }, func(ctx context.Context) <-chan struct{} {
			return h.subscribe(ctx, "", false)
		})
	})
	mux.HandleFunc("GET /api/club/{id}/{game}/round/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("n"))
		if err != nil {
			http.Error(w, "no such round", http.StatusNotFound)
			return
		}
		data, err := h.eventRecords(r.PathValue("id"), r.PathValue("game"), n)
		switch {
		case errors.Is(err, errRoundOpen):
			http.Error(w, err.Error(), http.StatusConflict)
			return
		case err != nil:
			http.Error(w, "no such round", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s-round-%d.jsonl"`, r.PathValue("id"), r.PathValue("game"), n))
		w.Write(data)
	})
	// answer: ok, or the refusal; a Refusal (the hub's, the club's) as
	// Refused, its words for the page beside the English
	answer := func(w http.ResponseWriter, err error) {
		var rf *Refusal
		switch {
		case err == nil:
			writeJSON(w, map[string]bool{"ok": true})
		case errors.Is(err, ErrNoEvent):
			http.Error(w, "no such event", http.StatusNotFound)
		case errors.As(err, &rf):
			say := rf.Say
			data, _ := json.Marshal(Refused{Error: err.Error(), Message: say.English(), Say: &say})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			w.Write(data)
		default:
			http.Error(w, err.Error(), http.StatusConflict)
		}
	}
	mux.HandleFunc("POST /api/club/{id}/players", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Game, Name string
			Rating, RD float64
			By         string
		}
		if !h.authorize(w, r, &body) {
			return
		}
		if body.Rating == 0 && body.RD == 0 && body.By == "" {
			answer(w, h.Register(r.Context(), r.PathValue("id"), body.Game, body.Name))
			return
		}
		_, err := h.Arbiter(r.Context(), r.PathValue("id"), ArbiterAction{Do: ActEnter, Game: body.Game, Name: body.Name, Rating: body.Rating, RD: body.RD, By: body.By})
		answer(w, err)
	})
	mux.HandleFunc("POST /api/club/{id}/arbiter", func(w http.ResponseWriter, r *http.Request) {
		var body ArbiterAction
		if !h.authorize(w, r, &body) {
			return
		}
		say, err := h.arbiter(r.Context(), r.PathValue("id"), body)
		if err != nil {
			answer(w, err)
			return
		}
		warnings := []string{}
		for _, x := range say {
			warnings = append(warnings, x.English())
		}
		if say == nil {
			say = []i18n.Text{}
		}
		writeJSON(w, map[string]any{"ok": true, "warnings": warnings, "warnings_say": say})
	})
	h.exportRoutes(mux)
	mux.HandleFunc("POST /api/club/{id}/start", func(w http.ResponseWriter, r *http.Request) {
		var body struct{}
		if !h.authorize(w, r, &body) {
			return
		}
		answer(w, h.StartEvent(r.Context(), r.PathValue("id")))
	})
	mux.HandleFunc("POST /api/club/{id}/result", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Game         string
			Round, Board int
			Places       []int
			Why          string
		}
		if !h.authorize(w, r, &body) {
			return
		}
		answer(w, h.CorrectResult(r.Context(), r.PathValue("id"), body.Game, body.Round, body.Board, body.Places, body.Why))
	})
	mux.HandleFunc("GET /api/broadcast", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, h.BroadcastFeed()) })
	mux.HandleFunc("GET /api/broadcast/events", func(w http.ResponseWriter, r *http.Request) {
		webui.ServeEvents(w, r, func() any { return h.BroadcastFeed() }, func(ctx context.Context) <-chan struct{} {
			changes := h.subscribe(ctx, "", false)
			if h.broadcast <= 0 {
				return changes
			}
			// delayed: what is due shows up as its time comes
			out := make(chan struct{}, 1)
			go func() {
				defer close(out)
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for {
					select {
					case _, ok := <-changes:
						if !ok {
							return
						}
					case <-tick.C:
					}
					select {
					case out <- struct{}{}:
					default:
					}
				}
			}()
			return out
		})
	})
}
