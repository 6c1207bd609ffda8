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
	"path"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
)

//go:embed static
var static embed.FS

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
// goes away or the subscription closes. The server's read and write
// timeouts (Limits) do not apply to the stream; instead each write must
// leave within Limits.StreamWrite, or the stream is cut, and a stream
// counts against Limits.StreamsPerHost and MaxStreams (it may be closed to
// make room for a newer one). The request's context ends the stream,
// which http.Server.Shutdown does not wait for: cancel BaseContext to stop
// streams on shutdown.
func ServeEvents(w http.ResponseWriter, r *http.Request, state func() any, subscribe func(ctx context.Context) <-chan struct{}) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "webui: streaming unsupported", http.StatusInternalServerError)
		return
	}
	release, ok := streamSlot(r)
	defer release()
	if !ok {
		return
	}
	longLived(w)
	rc := http.NewResponseController(w)
	timeout := streamWriteTimeout(r)
	// Each write gets timeout to leave; the last deadline stays for the
	// end of the response.
	write := func(b []byte) error {
		if timeout > 0 {
			rc.SetWriteDeadline(time.Now().Add(timeout))
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
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
		return write(fmt.Appendf(nil, "event: state\ndata: %s\n\n", b))
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
			if write([]byte(": keep-alive\n\n")) != nil {
				return
			}
		}
	}
}

// NoCache makes browsers revalidate what h serves (the pages change with
// the binary).
func NoCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// SecurityHeaders keeps the pages self-contained: no external resources,
// no framing by other sites. Every server of pages uses it (the hub's too).
func SecurityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// assets serves the embedded pages and scripts, and catalogue.js: the
// message catalogues of every language (i18n.Script) that i18n.js reads;
// the library's web app manifest as application/manifest+json.
func assets() http.Handler {
	sub, _ := fs.Sub(static, "static")
	files := http.FileServer(http.FS(sub))
	catalogue := i18n.Script()
	return NoCache(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path.Base(r.URL.Path) == "catalogue.js" {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Write(catalogue)
			return
		}
		if path.Ext(r.URL.Path) == ".webmanifest" { // not in every system's MIME types
			w.Header().Set("Content-Type", "application/manifest+json")
		}
		files.ServeHTTP(w, r)
	}))
}

// httpError answers with a status and a message.
func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), code)
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
