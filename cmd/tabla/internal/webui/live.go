package webui

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/record"
)

// Backend is the game the live page shows: a companion session, on the
// virtual board (tabla sim) or on the table's board (tabla run).
type Backend interface {
	// Board is the board definition being played on.
	Board() *boards.Board
	// Seats are the players in turn order; Die the die faces (nil: none).
	Seats() []string
	Die() []string
	// State returns the current state, ready for JSON.
	State() any
	// Subscribe returns a channel that receives a value whenever the state
	// may have changed; it is closed when ctx ends.
	Subscribe(ctx context.Context) <-chan struct{}
}

// Mode is what the live page is for.
type Mode string

const (
	// ModeSim: the simulator; the page acts on the virtual board.
	ModeSim Mode = "sim"
	// ModeTable: a real table; the page mirrors the board read-only, and a
	// paired phone controls it.
	ModeTable Mode = "table"
)

// Options say what the live page may do.
type Options struct {
	Mode Mode
	// Act performs one physical action on a virtual board (SCRIPTS.md
	// action object); nil: the board is real, POST /api/action is 404.
	Act func(action json.RawMessage) error
	// Command runs a control command (one of Commands).
	Command  func(name, arg string) error
	Commands []string
	// SetEngine makes the engine play a seat (on) at a level (1–5; 0 the
	// default), or stops it; nil: not offered.
	SetEngine func(seat string, on bool, level int) error
	// SetWho sets who plays which seat and the event, round, site and date
	// of the game (all of them: a field left out is cleared); nil: not
	// offered.
	SetWho func(record.Who) error
	// Pairing lets phones control the table by the board's confirm button
	// (ModeTable); nil: no pairing.
	Pairing *Pairing
	// Token lets scripts control: "Authorization: Bearer TOKEN" (or
	// ?token=); "" none.
	Token string
	// Library is the path of the game library the page links to ("" none).
	Library string
	// Logger logs the detail of the API's errors (nil: discard); the page
	// words them for people by their reason.
	Logger *slog.Logger
}

// Reasons of the live page's API errors (APIError.Reason): the page shows
// people a sentence for each, never the detail.
const (
	ReasonNotPaired    = "not_paired"     // 403: the browser never paired
	ReasonSessionEnded = "session_ended"  // 403: its session is unknown to the board (expired, lost)
	ReasonBadToken     = "bad_token"      // 401: a wrong or missing token
	ReasonNoControl    = "no_control"     // 403: neither pairing nor a token is configured
	ReasonUnknown      = "unknown"        // 404: no such command
	ReasonBadRequest   = "bad_request"    // 400, 413: a malformed request
	ReasonRefused      = "refused"        // 409, 422: the board could not do it now
	ReasonPairBusy     = "pair_busy"      // 409: another phone is asking
	ReasonPairCooldown = "pair_cooldown"  // 429: this browser asked too recently (Retry-After)
	ReasonPairCrowded  = "pair_crowded"   // 429: its address asked MaxPairPerAddress times in the window (Retry-After)
	ReasonPairNoButton = "pair_no_button" // 409: the board has no confirm button
	ReasonPairFailed   = "pair_failed"    // 500: the request could not be made
)

// APIError is the JSON body of the live page API's errors: a reason for
// programs and the page, and the detail for developers (and the log).
type APIError struct {
	Reason string `json:"reason"`
	Error  string `json:"error"`
}

func (o *Options) log() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// apiError answers with an APIError and logs it (at debug level what any
// client on the LAN can repeat at will: refusals of control and pairing).
func (o *Options) apiError(w http.ResponseWriter, r *http.Request, code int, reason, detail string) {
	level := slog.LevelInfo
	switch reason {
	case ReasonNotPaired, ReasonSessionEnded, ReasonBadToken, ReasonNoControl, ReasonPairBusy, ReasonPairCooldown, ReasonPairCrowded:
		level = slog.LevelDebug
	}
	o.log().Log(r.Context(), level, "live page API", "path", r.URL.Path, "status", code, "reason", reason, "err", detail)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(APIError{Reason: reason, Error: detail})
}

// readBody is ReadAction answering with an APIError.
func (o *Options) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	rec := &errRecorder{header: http.Header{}}
	body, ok := ReadAction(rec, r)
	if !ok {
		o.apiError(w, r, rec.code, ReasonBadRequest, strings.TrimSpace(rec.body.String()))
	}
	return body, ok
}

// errRecorder keeps ReadAction's error answer.
type errRecorder struct {
	header http.Header
	code   int
	body   strings.Builder
}

func (e *errRecorder) Header() http.Header         { return e.header }
func (e *errRecorder) Write(b []byte) (int, error) { return e.body.Write(b) }
func (e *errRecorder) WriteHeader(code int)        { e.code = code }

// Cell is a board cell as the page draws it.
type Cell struct {
	Name string  `json:"name"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	Adj  []int   `json:"adj,omitempty"`
	Goal bool    `json:"goal,omitempty"`
	Mark string  `json:"mark,omitempty"`
}

// BoardView is the geometry the pages need, and what the live page offers.
type BoardView struct {
	Name  string   `json:"name"`
	Game  string   `json:"game"`
	Title string   `json:"title"`
	Kind  string   `json:"kind"`
	Cols  int      `json:"cols,omitempty"`
	Rows  int      `json:"rows,omitempty"`
	Cells []Cell   `json:"cells"`
	Seats []string `json:"seats"`
	Die   []string `json:"die"`
	// Pieces are the piece kinds of the game (colours, or GYGES heights).
	Pieces []string `json:"pieces"`
	// Mode is sim or table (live pages); Library the library's path.
	Mode     Mode   `json:"mode,omitempty"`
	Library  string `json:"library,omitempty"`
	Pairing  bool   `json:"pairing,omitempty"`  // phones can pair
	Engines  bool   `json:"engines,omitempty"`  // "AI plays this seat" is offered
	Physical bool   `json:"physical,omitempty"` // the page acts on a virtual board
	Who      bool   `json:"who,omitempty"`      // who plays and where may be set (POST /api/who)
}

// View describes a board for the pages.
func View(b *boards.Board, seats, die []string) BoardView {
	v := BoardView{Name: b.Name, Game: b.Game, Title: b.Title, Kind: string(b.Kind), Cols: b.Cols, Rows: b.Rows,
		Seats: seats, Die: die, Pieces: boards.Games[b.Game]}
	for _, c := range b.Cells {
		v.Cells = append(v.Cells, Cell{Name: c.Name, X: c.X, Y: c.Y, Adj: c.Adj, Goal: c.Goal, Mark: c.Mark})
	}
	return v
}

// Handler serves the live page and its API:
//
//	GET  /                the page (index.html, board.js, live.js, style.css)
//	GET  /api/board       the board geometry and what the page offers
//	GET  /api/state       the state as JSON
//	GET  /api/events      server-sent events: one "state" at once and per change
//	POST /api/action      sim: one physical action on the virtual board
//	POST /api/{command}   takeback, new, roll, hint, confirm, choose (?arg=N)
//	POST /api/ai          {"seat":"north","on":true,"level":3}: the engine plays a seat
//	POST /api/who         {"names":{"red":"Ayşe"},"event":"…","round":"3","site":"…","date":"2026-11-26"}:
//	                      who plays and where (the record's header; all fields, omitted ones cleared)
//	GET  /api/pair        table: is this browser paired? (PairStatus)
//	POST /api/pair        table: ask to control (the board's confirm button grants it;
//	                      once a minute per client)
//	POST /api/unpair      table: give control back
//
// Control (commands, engine seats, and actions on a table's virtual board)
// needs a paired browser or the token; the simulator page's own actions and
// engine seats need nothing. Errors are APIError JSON: a reason the page
// words for people (Reason…), the detail in the log. Put it behind
// sameorigin's guard.
func Handler(be Backend, o Options) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /", assets())
	mux.HandleFunc("GET /api/board", func(w http.ResponseWriter, r *http.Request) {
		v := View(be.Board(), be.Seats(), be.Die())
		v.Mode, v.Library, v.Pairing, v.Engines, v.Physical = o.Mode, o.Library, o.Pairing != nil, o.SetEngine != nil, o.Act != nil
		v.Who = o.SetWho != nil
		writeJSON(w, v)
	})
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, be.State()) })
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		ServeEvents(w, r, be.State, be.Subscribe)
	})
	if o.Act != nil {
		mux.HandleFunc("POST /api/action", func(w http.ResponseWriter, r *http.Request) {
			if !o.authorize(w, r, o.Mode == ModeSim) {
				return
			}
			body, ok := o.readBody(w, r)
			if !ok {
				return
			}
			if err := o.Act(body); err != nil {
				o.apiError(w, r, http.StatusUnprocessableEntity, ReasonRefused, err.Error())
				return
			}
			writeJSON(w, be.State())
		})
	}
	if o.Command != nil {
		mux.HandleFunc("POST /api/{command}", func(w http.ResponseWriter, r *http.Request) {
			cmd := r.PathValue("command")
			if !slices.Contains(o.Commands, cmd) {
				o.apiError(w, r, http.StatusNotFound, ReasonUnknown, fmt.Sprintf("webui: unknown command %q (want %s)", cmd, strings.Join(o.Commands, ", ")))
				return
			}
			if !o.authorize(w, r, false) {
				return
			}
			if err := o.Command(cmd, r.URL.Query().Get("arg")); err != nil {
				o.apiError(w, r, http.StatusConflict, ReasonRefused, err.Error())
				return
			}
			writeJSON(w, be.State())
		})
	}
	if o.SetEngine != nil {
		mux.HandleFunc("POST /api/ai", func(w http.ResponseWriter, r *http.Request) {
			if !o.authorize(w, r, o.Mode == ModeSim) {
				return
			}
			body, ok := o.readBody(w, r)
			if !ok {
				return
			}
			var req struct {
				Seat  string `json:"seat"`
				On    *bool  `json:"on"`
				Level int    `json:"level"`
			}
			dec := json.NewDecoder(strings.NewReader(string(body)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&req); err != nil || req.Seat == "" || req.On == nil {
				o.apiError(w, r, http.StatusBadRequest, ReasonBadRequest, `webui: want {"seat":"SEAT","on":true|false,"level":0–5}`)
				return
			}
			if err := o.SetEngine(req.Seat, *req.On, req.Level); err != nil {
				o.apiError(w, r, http.StatusUnprocessableEntity, ReasonRefused, err.Error())
				return
			}
			writeJSON(w, be.State())
		})
	}
	if o.SetWho != nil {
		mux.HandleFunc("POST /api/who", func(w http.ResponseWriter, r *http.Request) {
			if !o.authorize(w, r, o.Mode == ModeSim) {
				return
			}
			body, ok := o.readBody(w, r)
			if !ok {
				return
			}
			var who record.Who
			dec := json.NewDecoder(strings.NewReader(string(body)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&who); err != nil {
				o.apiError(w, r, http.StatusBadRequest, ReasonBadRequest, `webui: want {"names":{"SEAT":"NAME",…},"event":"…","round":"…","site":"…","date":"YYYY-MM-DD"}: `+err.Error())
				return
			}
			if err := o.SetWho(who); err != nil {
				o.apiError(w, r, http.StatusUnprocessableEntity, ReasonRefused, err.Error())
				return
			}
			writeJSON(w, be.State())
		})
	}
	if p := o.Pairing; p != nil {
		mux.HandleFunc("GET /api/pair", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, p.Status(w, r)) })
		mux.HandleFunc("POST /api/pair", func(w http.ResponseWriter, r *http.Request) {
			st, err := p.Start(w, r)
			var cool *CooldownError
			switch {
			case errors.As(err, &cool):
				w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(cool.Left.Seconds()))))
				reason := ReasonPairCooldown
				if cool.Address {
					reason = ReasonPairCrowded
				}
				o.apiError(w, r, http.StatusTooManyRequests, reason, err.Error())
				return
			case errors.Is(err, ErrPairBusy):
				o.apiError(w, r, http.StatusConflict, ReasonPairBusy, err.Error())
				return
			case errors.Is(err, ErrPairNoButton):
				o.apiError(w, r, http.StatusConflict, ReasonPairNoButton, err.Error())
				return
			case err != nil:
				o.apiError(w, r, http.StatusInternalServerError, ReasonPairFailed, err.Error())
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			if st.Pending {
				w.WriteHeader(http.StatusAccepted)
			}
			json.NewEncoder(w).Encode(st)
		})
		mux.HandleFunc("POST /api/unpair", func(w http.ResponseWriter, r *http.Request) {
			p.Forget(w, r)
			writeJSON(w, PairStatus{})
		})
	}
	return SecurityHeaders(mux)
}

// ErrNotPaired is the detail of a control request from a browser that is
// not paired.
var ErrNotPaired = errors.New("webui: this browser is not paired with the board, so it cannot control it: " +
	`tap "Control this board" on the page and press the board's confirm button within 30 s ` +
	"(scripts: Authorization: Bearer TOKEN with the token of the config)")

// ErrSessionEnded is the detail of a control request whose session the
// board does not know (expired, or lost).
var ErrSessionEnded = errors.New("webui: this browser's session has ended (expired, or unknown to the board), so it no longer controls the board: ask to control it again")

// authorize lets a control request through, or answers it with an
// APIError: a token given must be right (401 bad_token); a paired browser
// passes; open requests pass (the simulator's own page); the rest get 403
// (not_paired, session_ended, no_control) or 401 (bad_token: missing).
func (o *Options) authorize(w http.ResponseWriter, r *http.Request, open bool) bool {
	got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if got == "" {
		got = r.URL.Query().Get("token")
	}
	if got != "" {
		if o.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) == 1 {
			return true
		}
		o.apiError(w, r, http.StatusUnauthorized, ReasonBadToken, "webui: bad token")
		return false
	}
	paired, ended := false, false
	if o.Pairing != nil {
		paired, ended = o.Pairing.Check(r)
	}
	switch {
	case paired, open:
		return true
	case ended:
		o.apiError(w, r, http.StatusForbidden, ReasonSessionEnded, ErrSessionEnded.Error())
	case o.Pairing != nil:
		o.apiError(w, r, http.StatusForbidden, ReasonNotPaired, ErrNotPaired.Error())
	case o.Token == "":
		o.apiError(w, r, http.StatusForbidden, ReasonNoControl, "webui: control is disabled (no token configured)")
	default:
		o.apiError(w, r, http.StatusUnauthorized, ReasonBadToken, "webui: bad or missing token")
	}
	return false
}
