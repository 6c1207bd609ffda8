package webui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/library"
	"github.com/tabla-board/tabla/engine/analysis"
)

// LibraryOptions configure the library pages.
type LibraryOptions struct {
	// Live is the path of the table's live page ("" none): tabla run's
	// library links back to it.
	Live string
}

// LibraryInfo is GET /api/info.
type LibraryInfo struct {
	Dir   string `json:"dir"`
	Live  string `json:"live,omitempty"`
	Level int    `json:"level"`
}

// GameView is GET /api/game: a game stepped, with its board.
type GameView struct {
	*library.Game
	Board BoardView `json:"board"`
}

// AnalysisView is GET /api/analysis: where the analysis stands, and the
// analysis once done.
type AnalysisView struct {
	Progress library.Progress `json:"progress"`
	*library.Analysis
}

// Library serves the game library and the analysis board:
//
//	GET  /                    the library: every game, filters, sorting
//	GET  /game.html?id=ID     the analysis board of one game
//	GET  /stats.html          the statistics as charts
//	GET  /api/info            the library's folder and the live page's path
//	GET  /api/games           every game as JSON; unreadable files with their error
//	GET  /api/game?id=ID[&from=K&count=N]  one game: its board, its number of
//	                          steps (total) and a page of them: N steps from
//	                          step K (default 0 and library.MaxPage, the most)
//	GET  /api/analysis?id=ID  where its analysis stands, the analysis when done
//	POST /api/analysis?id=ID  start the analysis in the background (a stopped one resumes)
//	DELETE /api/analysis?id=ID  stop the analysis under way (returns once stopped)
//	GET  /api/stats           the figures of tabla stats
//	GET  /api/progress        how far the listing under way has read
//	GET  /api/search?q=Q      the ids of the games matching Q (moves, seats, header fields)
//	GET  /api/explore?id=ID&ply=K&m=MOVE…  a variation from step K: its position and legal moves
//	GET  /api/evaluate?id=ID&ply=K&m=MOVE…&lines=N  the engine's evaluation and N best lines there
//	GET  /download/record?id=ID     the record (JSONL)
//	GET  /download/annotated?id=ID[&v=[PLY,"MOVE",…]…]  the record with the
//	                          analysis as comment lines, and the analysis
//	                          board's variations (each v a JSON array: the
//	                          step it starts from, then its moves)
//	GET  /download/curve.svg?id=ID  the win-probability curve (SVG)
//
// Put it behind sameorigin's guard.
func Library(lib *library.Library, o LibraryOptions) http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(static, "static")
	mux.Handle("GET /", assets())
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, sub, "library.html")
	})
	mux.HandleFunc("GET /api/info", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, LibraryInfo{Dir: lib.Dir(), Live: o.Live, Level: lib.Level()})
	})
	mux.HandleFunc("GET /api/games", func(w http.ResponseWriter, r *http.Request) {
		games, err := lib.Games()
		if err != nil {
			httpError(w, listingStatus(err), "webui: %v", err)
			return
		}
		writeJSON(w, games)
	})
	mux.HandleFunc("GET /api/stats", func(w http.ResponseWriter, r *http.Request) {
		st, err := lib.Stats()
		if err != nil {
			httpError(w, listingStatus(err), "webui: %v", err)
			return
		}
		writeJSON(w, st)
	})
	mux.HandleFunc("GET /api/progress", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, lib.Progress())
	})
	mux.HandleFunc("GET /api/search", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, lib.Search(r.URL.Query().Get("q")))
	})
	mux.HandleFunc("GET /api/explore", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		ply, err := strconv.Atoi(q.Get("ply"))
		if err != nil {
			http.Error(w, "webui: ply: want a number", http.StatusBadRequest)
			return
		}
		x, err := lib.Explore(q.Get("id"), ply, q["m"])
		if err != nil {
			libraryError(w, err)
			return
		}
		writeJSON(w, x)
	})
	mux.HandleFunc("GET /api/evaluate", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		ply, err := strconv.Atoi(q.Get("ply"))
		if err != nil {
			http.Error(w, "webui: ply: want a number", http.StatusBadRequest)
			return
		}
		n, _ := strconv.Atoi(q.Get("lines"))
		ev, err := lib.Evaluate(r.Context(), q.Get("id"), ply, q["m"], max(n, 1))
		if r.Context().Err() != nil {
			return // the page asked for another position
		}
		if err != nil {
			libraryError(w, err)
			return
		}
		writeJSON(w, ev)
	})
	mux.HandleFunc("GET /download/annotated", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		vars, err := variations(r.URL.Query()["v"])
		if err != nil {
			httpError(w, http.StatusBadRequest, "webui: %v", err)
			return
		}
		data, err := lib.AnnotatedWith(id, vars)
		if errors.Is(err, library.ErrVariation) {
			httpError(w, http.StatusUnprocessableEntity, "webui: %v", err)
			return
		}
		if errors.Is(err, library.ErrNotAnalysed) {
			httpError(w, http.StatusConflict, "webui: %s is not analysed yet; open it in the library first", id)
			return
		}
		if err != nil {
			libraryError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", strings.TrimSuffix(path.Base(id), ".jsonl")+".annotated.jsonl"))
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	})
	mux.HandleFunc("GET /api/game", func(w http.ResponseWriter, r *http.Request) {
		g, ok := game(w, r, lib)
		if !ok {
			return
		}
		writeJSON(w, GameView{Game: g, Board: View(g.Board, g.Seats, g.Die)})
	})
	mux.HandleFunc("GET /api/analysis", func(w http.ResponseWriter, r *http.Request) {
		a, p, err := lib.Analysis(r.URL.Query().Get("id"))
		if err != nil {
			libraryError(w, err)
			return
		}
		writeJSON(w, AnalysisView{Progress: p, Analysis: a})
	})
	mux.HandleFunc("POST /api/analysis", func(w http.ResponseWriter, r *http.Request) {
		p, err := lib.Analyze(r.URL.Query().Get("id"))
		if err != nil {
			libraryError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		writeJSON(w, AnalysisView{Progress: p})
	})
	mux.HandleFunc("DELETE /api/analysis", func(w http.ResponseWriter, r *http.Request) {
		p, err := lib.CancelAnalysis(r.URL.Query().Get("id"))
		if err != nil {
			libraryError(w, err)
			return
		}
		writeJSON(w, AnalysisView{Progress: p})
	})
	mux.HandleFunc("GET /download/record", func(w http.ResponseWriter, r *http.Request) {
		f, e, err := lib.Record(r.URL.Query().Get("id"))
		if err != nil {
			libraryError(w, err)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", path.Base(e.ID)))
		http.ServeContent(w, r, "", e.ModTime, f)
	})
	mux.HandleFunc("GET /download/curve.svg", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		a, p, err := lib.Analysis(id)
		if err != nil {
			libraryError(w, err)
			return
		}
		if a == nil {
			httpError(w, http.StatusConflict, "webui: %s is not analysed yet (analysis: %s); open it in the library first", id, p.State)
			return
		}
		var b bytes.Buffer
		if err := analysis.WriteSVG(&b, a.Report); err != nil {
			httpError(w, http.StatusInternalServerError, "webui: %v", err)
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", strings.TrimSuffix(path.Base(id), ".jsonl")+".svg"))
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b.Bytes()))
	})
	return SecurityHeaders(mux)
}

// variations reads the v parameters of /download/annotated: each a JSON
// array, the step a variation starts from and its moves.
func variations(vs []string) ([]library.Variation, error) {
	if len(vs) > library.MaxVariations {
		return nil, fmt.Errorf("%d variations, at most %d", len(vs), library.MaxVariations)
	}
	out := make([]library.Variation, 0, len(vs))
	for i, v := range vs {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(v), &raw); err != nil || len(raw) < 2 {
			return nil, fmt.Errorf("variation %d (v=%.40q): want a JSON array of the step it starts from and at least one move: [4,\"b1-f3\"]", i+1, v)
		}
		var x library.Variation
		if err := json.Unmarshal(raw[0], &x.Ply); err != nil || x.Ply < 0 {
			return nil, fmt.Errorf("variation %d: its first element %.20s: want the step it starts from, 0 or more", i+1, raw[0])
		}
		for j, m := range raw[1:] {
			var s string
			if err := json.Unmarshal(m, &s); err != nil || s == "" {
				return nil, fmt.Errorf("variation %d, element %d (%.20s): want a move as a string", i+1, j+2, m)
			}
			x.Line = append(x.Line, s)
		}
		out = append(out, x)
	}
	return out, nil
}

func game(w http.ResponseWriter, r *http.Request, lib *library.Library) (*library.Game, bool) {
	q := r.URL.Query()
	from, count := 0, library.MaxPage
	for _, p := range []struct {
		name string
		v    *int
	}{{"from", &from}, {"count", &count}} {
		if s := q.Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				httpError(w, http.StatusBadRequest, "webui: %s=%q: want a step number, 0 or more", p.name, s)
				return nil, false
			}
			*p.v = n
		}
	}
	g, err := lib.GamePage(q.Get("id"), from, count)
	if errors.Is(err, library.ErrPage) {
		httpError(w, http.StatusBadRequest, "webui: %v", err)
		return nil, false
	}
	if err != nil {
		libraryError(w, err)
		return nil, false
	}
	return g, true
}

// libraryError: 404 for an unknown game, 422 for an unreadable record.
func libraryError(w http.ResponseWriter, err error) {
	var re *library.ReadError
	switch {
	case errors.Is(err, library.ErrNotFound):
		http.Error(w, err.Error(), http.StatusNotFound)
	case errors.As(err, &re):
		http.Error(w, "webui: not a readable game record: "+re.Error(), http.StatusUnprocessableEntity)
	default:
		http.Error(w, "webui: "+err.Error(), http.StatusUnprocessableEntity)
	}
}

// listingStatus is the HTTP status of a failed listing: 503 while the
// library stops (the server is shutting down), 500 otherwise.
func listingStatus(err error) int {
	if errors.Is(err, library.ErrClosed) {
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
