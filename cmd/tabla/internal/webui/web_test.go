package webui

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tabla-board/tabla/boards"
)

type fakeBackend struct {
	mu      sync.Mutex
	actions []string
	n       int
	subs    []chan struct{}
}

func (f *fakeBackend) Board() *boards.Board { return boards.Default("gyges") }
func (f *fakeBackend) Seats() []string      { return []string{"south", "north"} }
func (f *fakeBackend) Die() []string        { return nil }
func (f *fakeBackend) State() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]any{"to_move": "south", "actions": f.n}
}
func (f *fakeBackend) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	f.subs = append(f.subs, ch)
	f.mu.Unlock()
	return ch
}
func (f *fakeBackend) Act(a json.RawMessage) error {
	if strings.Contains(string(a), "bad") {
		return errors.New("no such cell bad")
	}
	f.mu.Lock()
	f.actions = append(f.actions, string(a))
	f.n++
	subs := f.subs
	f.mu.Unlock()
	for _, s := range subs {
		select {
		case s <- struct{}{}:
		default:
		}
	}
	return nil
}

func (f *fakeBackend) Command(name, arg string) error {
	if name == "takeback" {
		return errors.New("nothing to take back")
	}
	f.mu.Lock()
	f.actions = append(f.actions, "command "+name)
	f.mu.Unlock()
	return nil
}

func TestRoutes(t *testing.T) {
	be := &fakeBackend{}
	srv := httptest.NewServer(Handler(be, Options{Mode: ModeSim, Act: be.Act, Command: be.Command, Commands: []string{"takeback", "hint"}}))
	defer srv.Close()

	get := func(path string) (string, *http.Response) {
		r, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return string(b), r
	}
	page, r := get("/")
	if r.StatusCode != 200 || !strings.Contains(page, "<svg id=\"board\"") || !strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("page: %d %q", r.StatusCode, page[:min(80, len(page))])
	}
	for _, asset := range []string{"/board.js", "/live.js", "/style.css", "/library.html", "/game.html", "/game.js", "/stats.html", "/stats.js", "/library.js"} {
		if _, r := get(asset); r.StatusCode != 200 {
			t.Errorf("%s: %d", asset, r.StatusCode)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page refers to an external resource")
	}
	body, _ := get("/api/board")
	var bv BoardView
	if err := json.Unmarshal([]byte(body), &bv); err != nil || bv.Game != "gyges" || len(bv.Cells) != 38 || len(bv.Pieces) != 3 {
		t.Errorf("board view: %v %+v", err, bv)
	}

	// The event stream sends the state at once and again after an action.
	req, _ := http.NewRequest("GET", srv.URL+"/api/events", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	next := func() string {
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "data: ") {
				return l[6:]
			}
		}
		t.Fatal("stream ended")
		return ""
	}
	if got := next(); !strings.Contains(got, `"actions":0`) {
		t.Errorf("first event %s", got)
	}
	r2, err := http.Post(srv.URL+"/api/action", "application/json", strings.NewReader(`{"lift":"c1"}`))
	if err != nil || r2.StatusCode != 200 {
		t.Fatalf("action: %v %v", err, r2.Status)
	}
	r2.Body.Close()
	if got := next(); !strings.Contains(got, `"actions":1`) {
		t.Errorf("event after action %s", got)
	}
	for _, tc := range []struct {
		body string
		code int
	}{{`{"lift":"bad"}`, 422}, {`{lift`, 400},
		// a valid action of 5 KB is read whole (not cut and called "not JSON")
		// (the fake backend refuses it as it refuses every "bad" action)
		{`{"expect":{"lit":[` + strings.Repeat(`"c1",`, 1000) + `"bad"]}}`, 422},
		{`{"wait":1` + strings.Repeat(" ", MaxActionBytes) + `}`, 413}} {
		r, _ := http.Post(srv.URL+"/api/action", "application/json", strings.NewReader(tc.body))
		if r.StatusCode != tc.code {
			msg, _ := io.ReadAll(r.Body)
			t.Errorf("%s: %d, want %d: %s", clip(tc.body), r.StatusCode, tc.code, msg)
		}
		r.Body.Close()
	}
	if len(be.actions) != 1 || be.actions[0] != `{"lift":"c1"}` {
		t.Errorf("actions %v", be.actions)
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
