package companion

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui"
)

// ServerOptions configure the status API.
type ServerOptions struct {
	// Token guards the control endpoints (POST); empty disables them.
	Token string
}

// NewMux returns the status API of a session on a mux the simulator page
// can add its own routes to:
//
//	GET  /                 a minimal read-only status page
//	GET  /api/state        the state as JSON (referee.State plus "journal")
//	GET  /api/events       server-sent events: one "state" event at once and per change
//	POST /api/{command}    takeback, new, roll, hint, confirm, choose (?arg=N);
//	                       needs "Authorization: Bearer TOKEN" (or ?token=)
//
// The servers that use it put it behind sameorigin's guard (Host, Origin,
// Content-Type and body size checks).
func NewMux(s *Session, o ServerOptions) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
		io.WriteString(w, statusPage)
	})
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, s.StatusJSON())
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		webui.ServeEvents(w, r, func() any { return s.StatusJSON() }, s.Subscribe)
	})
	mux.HandleFunc("POST /api/{command}", func(w http.ResponseWriter, r *http.Request) {
		if o.Token == "" {
			http.Error(w, "companion: control is disabled (no token configured)", http.StatusForbidden)
			return
		}
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if got == "" {
			got = r.URL.Query().Get("token")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) != 1 {
			http.Error(w, "companion: bad or missing token", http.StatusUnauthorized)
			return
		}
		cmd := r.PathValue("command")
		known := false
		for _, c := range Commands {
			known = known || c == cmd
		}
		if !known {
			http.Error(w, fmt.Sprintf("companion: unknown command %q (want %s)", cmd, strings.Join(Commands, ", ")), http.StatusNotFound)
			return
		}
		if err := s.Command(cmd, r.URL.Query().Get("arg")); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		writeJSON(w, s.StatusJSON())
	})
	return mux
}

// HandleActions adds POST /api/action to a mux: one physical action in the
// SCRIPTS.md format ({"lift":"c1"}, {"place":"c3"}, {"roll":4}, …) on a
// virtual board, guarded by the token like the other control endpoints.
func HandleActions(mux *http.ServeMux, p *LivePlayer, token string) {
	mux.HandleFunc("POST /api/action", func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if got == "" {
			got = r.URL.Query().Get("token")
		}
		if token == "" || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			http.Error(w, "companion: bad or missing token", http.StatusUnauthorized)
			return
		}
		body, ok := webui.ReadAction(w, r)
		if !ok {
			return
		}
		if err := p.Act(body); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		writeJSON(w, p.sess.StatusJSON())
	})
}

// Status is what /api/state serves.
type Status struct {
	State   any    `json:"state"`
	Journal string `json:"journal,omitempty"`
	Board   string `json:"board"`
	Frames  int    `json:"frames"`
}

// StatusJSON is the /api/state document.
func (s *Session) StatusJSON() Status {
	return Status{State: s.State(), Journal: s.JournalPath(), Board: s.hw.Info().Name, Frames: s.Frames()}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

const statusPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>tabla</title>
<style>body{font:16px system-ui,sans-serif;margin:1em;max-width:40em}td{padding:.1em .6em}.bad{color:#b00}</style>
</head><body>
<h1>tabla</h1>
<table id="t"></table>
<h2>Moves</h2><ol id="m"></ol>
<script>
const keys=["game","to_move","awaiting","mode","in_sync","status","winner","ply","roll","last_move","conn","message"];
function show(d){const s=d.state;const t=document.getElementById("t");t.innerHTML="";
for(const k of keys){const tr=t.insertRow();tr.insertCell().textContent=k;const c=tr.insertCell();
c.textContent=s[k]===null||s[k]===undefined?"—":String(s[k]);if(k==="in_sync"&&!s[k])c.className="bad";}
const tr=t.insertRow();tr.insertCell().textContent="journal";tr.insertCell().textContent=d.journal||"—";
const m=document.getElementById("m");m.innerHTML="";for(const x of s.moves||[]){const li=document.createElement("li");li.textContent=x;m.appendChild(li);}}
const es=new EventSource("/api/events");es.addEventListener("state",e=>show(JSON.parse(e.data)));
</script></body></html>
`
