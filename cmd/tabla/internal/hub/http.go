package hub

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
)

//go:embed static
var static embed.FS

// Handler serves the spectators' pages, the club library and browser
// play:
//
//	GET  /                          the live tables, a small board each
//	GET  /table.html?t=TABLE        one table: its board, the move list, the evaluation bar
//	GET  /t/TABLE/                  the table's live page (webui, read-only): LEDs as lit
//	GET  /ui/…                      webui's scripts and styles (board.js draws every board)
//	GET  /library/                  the club library (webui): every finished game, analysis, stats
//	GET  /api/tables                every table with its game (JSON)
//	GET  /api/events                server-sent events: "tables" at once and on every change
//	GET  /api/tables/TABLE          one table (TableView)
//	GET  /api/tables/TABLE/events   server-sent events: "state" (TableView) at once and per change
//	GET  /api/board?t=TABLE         the board geometry of a table's game (webui.View)
//	GET  /api/games                 the club library's games (library.Entry), newest first
//	GET  /api/games/ID              one game's record (JSONL download)
//	GET  /api/stats                 the figures of tabla stats over the library
//	GET  /api/tables/TABLE/legal?seat=S   what a browser's seat may do now (Turn)
//	POST /api/tables/TABLE/play     {"seat":S}: play seat S of the table's game here
//	POST /api/tables/TABLE/move     {"seat":S,"move":M}: that seat's move ("move":"" rolls)
//	                                a refusal answers {"error":developer text,"message":plain words} (Refused)
//	POST /library/…                 an engine analysis of a library game (webui)
//	…/event.html, /api/club/…, /api/broadcast…  club evenings and the public feed (eventweb.go)
//
// Everything but the POSTs is open to anyone who can reach the page (read
// only: spectators never reach a table). Browser play needs
// "Authorization: Bearer TOKEN" with the hub's token (Options.Token); an
// analysis (engine time on the hub's machine) needs it too, or is one of
// at most AnalysisRate a minute without it. Put it behind sameorigin's
// guard.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	mux.Handle("GET /", webui.NoCache(files))
	mux.Handle("GET /ui/", http.StripPrefix("/ui", webui.Handler(emptyBackend{}, webui.Options{Mode: webui.ModeTable})))
	lv := &liveViews{h: h, m: map[string]http.Handler{}}
	mux.Handle("GET /t/", lv)
	lib := http.StripPrefix("/library", webui.Library(h.lib, webui.LibraryOptions{Live: "/"}))
	mux.Handle("GET /library/", lib)
	mux.Handle("POST /library/", h.analysisGuard(lib)) // an analysis started: the token, or a few a minute

	h.eventRoutes(mux) // eventweb.go: club evenings and the broadcast
	mux.HandleFunc("GET /api/tables", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, h.Summaries()) })
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		webui.ServeEvents(w, r, func() any { return h.Summaries() }, func(ctx context.Context) <-chan struct{} {
			return h.Subscribe(ctx, "")
		})
	})
	mux.HandleFunc("GET /api/tables/{table}", func(w http.ResponseWriter, r *http.Request) {
		data := h.TableJSON(r.PathValue("table"))
		if data == nil {
			http.Error(w, "hub: no such table", http.StatusNotFound)
			return
		}
		h.wantEval(r.PathValue("table"))
		writeRaw(w, data)
	})
	mux.HandleFunc("GET /api/tables/{table}/events", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("table")
		if h.TableJSON(name) == nil {
			http.Error(w, "hub: no such table", http.StatusNotFound)
			return
		}
		webui.ServeEvents(w, r, func() any { return json.RawMessage(h.TableJSON(name)) }, func(ctx context.Context) <-chan struct{} {
			return h.Subscribe(ctx, name)
		})
	})
	mux.HandleFunc("GET /api/board", func(w http.ResponseWriter, r *http.Request) {
		b, seats, die, err := h.board(r.URL.Query().Get("t"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, webui.View(b, seats, die))
	})
	mux.HandleFunc("GET /api/games", func(w http.ResponseWriter, r *http.Request) {
		games, err := h.lib.Games()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, games)
	})
	mux.HandleFunc("GET /api/games/{id...}", func(w http.ResponseWriter, r *http.Request) {
		// through the library, which serves only regular files inside its
		// folder (never a link out of it)
		f, _, err := h.lib.Record(r.PathValue("id"))
		if err != nil {
			http.Error(w, "no such game", http.StatusNotFound)
			return
		}
		defer f.Close()
		var mod time.Time
		if fi, err := f.Stat(); err == nil {
			mod = fi.ModTime()
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", `attachment; filename="`+strings.ReplaceAll(r.PathValue("id"), "/", "-")+`"`)
		http.ServeContent(w, r, "", mod, f)
	})
	mux.HandleFunc("GET /api/stats", func(w http.ResponseWriter, r *http.Request) {
		st, err := h.lib.Stats()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, st)
	})
	mux.HandleFunc("GET /api/tables/{table}/legal", func(w http.ResponseWriter, r *http.Request) {
		turn, err := h.Legal(r.PathValue("table"), r.URL.Query().Get("seat"))
		if err != nil {
			h.refused(w, r, http.StatusConflict, err)
			return
		}
		writeJSON(w, turn)
	})
	mux.HandleFunc("POST /api/tables/{table}/play", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Seat string `json:"seat"`
		}
		if !h.authorize(w, r, &req) {
			return
		}
		ref, err := h.Play(r.PathValue("table"), req.Seat)
		if err != nil {
			code := http.StatusConflict
			if errors.Is(err, ErrSeat) {
				code = http.StatusBadRequest
			}
			h.refused(w, r, code, err)
			return
		}
		writeJSON(w, ref)
	})
	mux.HandleFunc("POST /api/tables/{table}/move", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Seat string `json:"seat"`
			Move string `json:"move"`
		}
		if !h.authorize(w, r, &req) {
			return
		}
		if err := h.WebMove(r.PathValue("table"), req.Seat, req.Move); err != nil {
			h.refused(w, r, http.StatusConflict, err)
			return
		}
		writeRaw(w, h.TableJSON(r.PathValue("table")))
	})
	return webui.SecurityHeaders(mux)
}

// authorize checks a browser-play request's token and reads its JSON
// body into v; when it returns false it has answered.
func (h *Hub) authorize(w http.ResponseWriter, r *http.Request, v any) bool {
	got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if h.opts.Token == "" {
		h.refused(w, r, http.StatusForbidden, refuse(i18n.T("hub.refuse.off"), errors.New("hub: browser play is off (the hub has no token)")))
		return false
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(h.opts.Token)) != 1 {
		h.refused(w, r, http.StatusUnauthorized, refuse(i18n.T("hub.refuse.token"),
			errors.New("hub: bad or missing token (Authorization: Bearer TOKEN)")))
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<10)) // an arbiter's pairing of 32 boards fits
	if err == nil {
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
	}
	if err != nil {
		h.refused(w, r, http.StatusBadRequest, refuse(i18n.T("hub.refuse.request"), fmt.Errorf("hub: bad request: %v", err)))
		return false
	}
	return true
}

// Refused is the answer to a refused browser action (play, move, legal):
// Error is the developer's text (also in the hub's log), Message the
// same in plain words for the page to show.
type Refused struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	// Say is Message as a catalogue key with arguments, for the page to
	// word in its language.
	Say *i18n.Text `json:"say,omitempty"`
}

// refused answers a browser action with code and err as Refused, and logs
// the developer's text.
func (h *Hub) refused(w http.ResponseWriter, r *http.Request, code int, err error) {
	say := i18n.T("hub.err.other")
	var rf *Refusal
	if errors.As(err, &rf) {
		say = rf.Say
	}
	out := Refused{Error: err.Error(), Message: say.English(), Say: &say}
	h.log.Info("hub: browser action refused", "path", r.URL.Path, "status", code, "err", err)
	data, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(append(data, '\n'))
}

// AnalysisRate bounds the engine analyses started on the hub's library
// without the token: so many a minute, for every spectator together.
const AnalysisRate = 6

// analysisGuard lets an analysis through with the hub's token, or within
// AnalysisRate a minute; others get 429 and when to try again.
func (h *Hub) analysisGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if h.opts.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(h.opts.Token)) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		if wait := h.analyses.take(h.now()); wait > 0 {
			secs := int((wait + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			http.Error(w, fmt.Sprintf("hub: too many analyses on the hub: try again in %d s (or send the hub's token: Authorization: Bearer TOKEN)", secs),
				http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// rateLimit is a token bucket: n a minute, a burst of n.
type rateLimit struct {
	mu     sync.Mutex
	n      float64
	tokens float64
	at     time.Time
}

// take takes a token at now, or says how long until there is one.
func (l *rateLimit) take(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at.IsZero() {
		l.tokens, l.at = l.n, now
	}
	l.tokens = min(l.n, l.tokens+now.Sub(l.at).Minutes()*l.n)
	l.at = now
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	return time.Duration((1 - l.tokens) / l.n * float64(time.Minute))
}

// board returns the board of a table's current game.
func (h *Hub) board(table string) (*boards.Board, []string, []string, error) {
	h.mu.Lock()
	g := h.currentLocked(table)
	if g == nil {
		h.mu.Unlock()
		return nil, nil, nil, fmt.Errorf("hub: %s has no game", table)
	}
	name := g.Header.Board
	if name == "" {
		name = g.Header.Game
	}
	info := g.State.Info()
	var die []string
	if info.Die != nil {
		die = info.Die.Faces
	}
	h.mu.Unlock()
	b, err := boards.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	return b, info.Seats, die, nil
}

// liveViews serves each table's live page (webui, read-only) under
// /t/TABLE/.
type liveViews struct {
	h  *Hub
	mu sync.Mutex
	m  map[string]http.Handler
}

func (lv *liveViews) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/t/")
	name, _, ok := strings.Cut(rest, "/")
	if !ok {
		http.Redirect(w, r, "/t/"+name+"/", http.StatusFound)
		return
	}
	if (CheckTable(name) != nil && name != WebTable) || !lv.h.known(name) {
		http.Error(w, "hub: no such table", http.StatusNotFound) // and no page kept for it
		return
	}
	lv.mu.Lock()
	hd := lv.m[name]
	if hd == nil {
		hd = http.StripPrefix("/t/"+name, webui.Handler(&tableBackend{h: lv.h, name: name}, webui.Options{Mode: webui.ModeTable, Library: "/library/"}))
		lv.m[name] = hd
	}
	lv.mu.Unlock()
	hd.ServeHTTP(w, r)
}

// tableBackend is a table's live page backend: the table's own status
// document as it last published it (its board, LEDs and all), or, while
// none arrives, its game as the hub has it.
type tableBackend struct {
	h    *Hub
	name string
}

func (b *tableBackend) Board() *boards.Board {
	def, _, _, err := b.h.board(b.name)
	if err != nil {
		def, _ = boards.Open("gyges")
	}
	return def
}

func (b *tableBackend) Seats() []string {
	_, seats, _, _ := b.h.board(b.name)
	return seats
}

func (b *tableBackend) Die() []string {
	_, _, die, _ := b.h.board(b.name)
	return die
}

func (b *tableBackend) State() any {
	h := b.h
	h.mu.Lock()
	defer h.mu.Unlock()
	ts := h.tables[b.name]
	if ts == nil {
		return map[string]any{"state": map[string]any{"message": "no such table"}, "referee_message": "", "message_text": []i18n.Text{i18n.T("hub.table.none")}}
	}
	if ts.live != nil && ts.online {
		var l struct {
			Status json.RawMessage `json:"status"`
		}
		if json.Unmarshal(ts.liveRaw, &l) == nil {
			return l.Status
		}
	}
	g := h.games[b.name+"/"+ts.game]
	if g == nil {
		return map[string]any{"state": map[string]any{"message": "no game yet"}, "referee_message": "", "message_text": []i18n.Text{i18n.T("hub.nogame.yet")}}
	}
	v := gameView(g)
	st := map[string]any{"game": v.Game, "variant": v.Variant, "to_move": v.ToMove, "awaiting": v.Awaiting,
		"status": v.Status, "ply": v.Plies, "moves": v.Moves, "last_move": v.LastMove, "roll": v.Roll,
		"conn": "offline", "in_sync": true, "mode": "play", "painted": v.Painted, "hands": v.Hands,
		"message": "the table is offline: its game as the hub has it"}
	if v.Winner != "" {
		st["winner"] = v.Winner
	}
	// the message in the page's words (the English stays in the state)
	return map[string]any{"state": st, "pieces": v.Pieces, "ai": []string{}, "referee_message": "",
		"message_text": []i18n.Text{i18n.T("hub.table.offline.game")}}
}

func (b *tableBackend) Subscribe(ctx context.Context) <-chan struct{} {
	return b.h.Subscribe(ctx, b.name)
}

// emptyBackend serves webui's assets only.
type emptyBackend struct{}

func (emptyBackend) Board() *boards.Board {
	b, _ := boards.Open("gyges")
	return b
}
func (emptyBackend) Seats() []string { return nil }
func (emptyBackend) Die() []string   { return nil }
func (emptyBackend) State() any      { return nil }
func (emptyBackend) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ch) })
	return ch
}

func writeJSON(w http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeRaw(w, data)
}

func writeRaw(w http.ResponseWriter, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(data)
	w.Write([]byte("\n"))
}
