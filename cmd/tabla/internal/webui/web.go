package webui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"time"

	"github.com/tabla-board/tabla/boards"
)

//go:embed static
var static embed.FS

// Backend is what the page drives: a companion session on the virtual board.
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
	// Act performs one physical action (SCRIPTS.md action object).
	Act(action json.RawMessage) error
}

// Cell is a board cell as the page draws it.
type Cell struct {
	Name string  `json:"name"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	Adj  []int   `json:"adj,omitempty"`
	Goal bool    `json:"goal,omitempty"`
	Mark string  `json:"mark,omitempty"`
}

// BoardView is the geometry the page needs.
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
}

// View describes a board for the page.
func View(b *boards.Board, seats, die []string) BoardView {
	v := BoardView{Name: b.Name, Game: b.Game, Title: b.Title, Kind: string(b.Kind), Cols: b.Cols, Rows: b.Rows,
		Seats: seats, Die: die, Pieces: boards.Games[b.Game]}
	for _, c := range b.Cells {
		v.Cells = append(v.Cells, Cell{Name: c.Name, X: c.X, Y: c.Y, Adj: c.Adj, Goal: c.Goal, Mark: c.Mark})
	}
	return v
}

// Handler serves the page and its API.
func Handler(be Backend) http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	mux.Handle("GET /", noCache(http.FileServer(http.FS(sub))))
	mux.HandleFunc("GET /api/board", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, View(be.Board(), be.Seats(), be.Die()))
	})
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, be.State())
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		ServeEvents(w, r, be.State, be.Subscribe)
	})
	mux.HandleFunc("POST /api/action", func(w http.ResponseWriter, r *http.Request) {
		body, ok := ReadAction(w, r)
		if !ok {
			return
		}
		if err := be.Act(body); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		writeJSON(w, be.State())
	})
	return securityHeaders(mux)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// ServeEvents streams server-sent events: an "event: state" with state()
// as JSON at once, then one per value from subscribe (bursts coalesce
// there), with a comment line every 15 s as keep-alive, until the client
// goes away or the subscription closes. The request's context ends the
// stream, which http.Server.Shutdown does not wait for: cancel BaseContext
// to stop streams on shutdown.
func ServeEvents(w http.ResponseWriter, r *http.Request, state func() any, subscribe func(ctx context.Context) <-chan struct{}) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "webui: streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	changes := subscribe(ctx)
	send := func() error {
		b, err := json.Marshal(state())
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: state\ndata: %s\n\n", b); err != nil {
			return err
		}
		fl.Flush()
		return nil
	}
	if send() != nil {
		return
	}
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok || send() != nil {
				return
			}
		case <-keep.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// securityHeaders keeps the page self-contained: no external resources.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// MaxActionBytes bounds the body of POST /api/action: one action line
// (an expect with a long lit list runs to a few KB).
const MaxActionBytes = 64 << 10

// ReadAction reads a POSTed action: at most MaxActionBytes of JSON. When
// it returns false it has answered the request (413 too large, 400
// unreadable or not JSON).
func ReadAction(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxActionBytes+1))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			http.Error(w, fmt.Sprintf("webui: the action is over %d bytes", mb.Limit), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, "webui: reading the action: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	if len(body) > MaxActionBytes {
		http.Error(w, fmt.Sprintf("webui: the action is over %d bytes", MaxActionBytes), http.StatusRequestEntityTooLarge)
		return nil, false
	}
	if !json.Valid(body) {
		http.Error(w, "webui: the action is not JSON", http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// ErrAction is wrapped by a Backend's errors about a malformed action.
var ErrAction = errors.New("bad action")
