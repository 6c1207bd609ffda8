package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ask POSTs /api/pair from a client address, with a cookie if given.
func ask(h http.Handler, addr, cookie string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "/api/pair", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = addr
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func reasonOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var e APIError
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %q is not an APIError: %v", w.Body.String(), err)
	}
	if e.Error == "" {
		t.Errorf("error %q without detail", w.Body.String())
	}
	return e.Reason
}

// TestPairCooldown: a client (by remote address) asks at most once per
// cooldown, granted or not; other clients are not held back by it; a
// request standing for another phone is pair_busy.
func TestPairCooldown(t *testing.T) {
	clock := newClock()
	be := &tableBackend{engines: map[string]bool{}}
	busy := false
	p := &Pairing{Now: clock.now, Cooldown: time.Minute, Request: func(w time.Duration) (<-chan bool, error) {
		if busy {
			return nil, ErrPairBusy
		}
		return be.request(w)
	}}
	h := Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"}, Pairing: p})

	if w := ask(h, "192.0.2.1:4000", ""); w.Code != http.StatusAccepted {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
	be.grant(false)
	// the same address, another port, no cookie: still the same client
	w := ask(h, "192.0.2.1:4001", "")
	if w.Code != http.StatusTooManyRequests || reasonOf(t, w) != ReasonPairCooldown || w.Header().Get("Retry-After") != "60" {
		t.Fatalf("asking again at once: %d %s Retry-After %q", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	clock.add(59 * time.Second)
	if w := ask(h, "192.0.2.1:4002", ""); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("asking again after 59 s: %d %s", w.Code, w.Body)
	}
	// another client may ask meanwhile; while its request stands the
	// board is busy for everyone
	busy = true
	if w := ask(h, "[2001:db8::7]:4000", ""); w.Code != http.StatusConflict || reasonOf(t, w) != ReasonPairBusy {
		t.Fatalf("another client while one asks: %d %s", w.Code, w.Body)
	}
	busy = false
	clock.add(time.Second)
	if w := ask(h, "192.0.2.1:4003", ""); w.Code != http.StatusAccepted {
		t.Fatalf("after the cooldown: %d %s", w.Code, w.Body)
	}
}

// grantOne pairs a browser on p through h and returns its token.
func grantOne(t *testing.T, h http.Handler, be *tableBackend, p *Pairing, addr string) string {
	t.Helper()
	w := ask(h, addr, "")
	if w.Code != http.StatusAccepted {
		t.Fatalf("pair: %d %s", w.Code, w.Body)
	}
	var tok string
	for _, c := range w.Result().Cookies() {
		if c.Name == CookieName {
			tok = c.Value
		}
	}
	if tok == "" {
		t.Fatal("no session cookie")
	}
	be.grant(true)
	req := httptest.NewRequest("GET", "/api/pair", nil)
	req.AddCookie(&http.Cookie{Name: CookieName, Value: tok})
	deadline := time.Now().Add(10 * time.Second)
	for !p.Paired(req) { // the grant arrives on a goroutine
		if time.Now().After(deadline) {
			t.Fatal("the grant did not arrive")
		}
		time.Sleep(time.Millisecond)
	}
	return tok
}

func controlCode(h http.Handler, tok string) (int, string) {
	req := httptest.NewRequest("POST", "/api/hint", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: CookieName, Value: tok})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

// TestPairingSessionsFile: granted sessions are kept in the file (mode
// 0600, the token's SHA-256, never the token) and a new Pairing on the same
// file knows them: a restart keeps the phones paired; they still expire;
// giving control back removes one; a bad file is a clear error and loads
// nothing.
func TestPairingSessionsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, SessionsFile)
	clock := newClock()
	start := func() (*Pairing, *tableBackend, http.Handler) {
		be := &tableBackend{engines: map[string]bool{}}
		p := &Pairing{Request: be.request, Now: clock.now, TTL: time.Hour, File: file}
		if err := p.Load(); err != nil {
			t.Fatal(err)
		}
		return p, be, Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"}, Pairing: p})
	}
	p, be, h := start()
	tok1 := grantOne(t, h, be, p, "192.0.2.1:1")
	tok2 := grantOne(t, h, be, p, "192.0.2.2:1")

	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", file, fi.Mode().Perm())
	}
	raw, _ := os.ReadFile(file)
	for _, tok := range []string{tok1, tok2} {
		sum := sha256.Sum256([]byte(tok))
		if strings.Contains(string(raw), tok) {
			t.Errorf("the file holds a raw token: %s", raw)
		}
		if !strings.Contains(string(raw), hex.EncodeToString(sum[:])) {
			t.Errorf("the file lacks the token's SHA-256: %s", raw)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the sessions file alone", len(entries))
	}

	// a restart: the sessions are known again
	p, be, h = start()
	for _, tok := range []string{tok1, tok2} {
		if code, body := controlCode(h, tok); code != http.StatusOK {
			t.Errorf("a phone paired before the restart: %d %s", code, body)
		}
	}
	if code, body := controlCode(h, "forged"); code != http.StatusForbidden || !strings.Contains(body, ReasonSessionEnded) {
		t.Errorf("an unknown cookie: %d %s", code, body)
	}
	// giving control back is kept too
	req := httptest.NewRequest("POST", "/api/unpair", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: CookieName, Value: tok1})
	h.ServeHTTP(httptest.NewRecorder(), req)
	_, _, h = start()
	if code, _ := controlCode(h, tok1); code != http.StatusForbidden {
		t.Errorf("a phone that gave control back, after a restart: %d", code)
	}
	if code, _ := controlCode(h, tok2); code != http.StatusOK {
		t.Errorf("the other phone after a restart: %d", code)
	}
	// expiry across a restart
	clock.add(time.Hour + time.Second)
	_, _, h = start()
	if code, body := controlCode(h, tok2); code != http.StatusForbidden || !strings.Contains(body, ReasonSessionEnded) {
		t.Errorf("an expired session after a restart: %d %s", code, body)
	}

	// bad files
	for name, content := range map[string]string{
		"not JSON":      "{",
		"raw token":     `{"tabla_sessions":1,"sessions":[{"sha256":"` + tok1 + `","expires":"2030-01-01T00:00:00Z"}]}`,
		"version":       `{"tabla_sessions":2,"sessions":[]}`,
		"unknown field": `{"tabla_sessions":1,"sessions":[],"token":"x"}`,
		"too large":     strings.Repeat(" ", maxSessionsFile+1),
	} {
		os.WriteFile(file, []byte(content), 0o600)
		q := &Pairing{File: file, Now: clock.now}
		err := q.Load()
		if err == nil || !strings.Contains(err.Error(), "sessions") {
			t.Errorf("%s: %v, want an error", name, err)
		}
		if len(q.sessions) != 0 {
			t.Errorf("%s: %d sessions loaded", name, len(q.sessions))
		}
	}
	os.Remove(file)
	if err := (&Pairing{File: file}).Load(); err != nil {
		t.Errorf("no file: %v", err)
	}
}

// TestPairingCap: at most MaxPaired sessions are kept, in memory and in
// the file.
func TestPairingCap(t *testing.T) {
	file := filepath.Join(t.TempDir(), SessionsFile)
	clock := newClock()
	be := &tableBackend{engines: map[string]bool{}}
	p := &Pairing{Request: be.request, Now: clock.now, File: file}
	h := Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"}, Pairing: p})
	var first string
	for i := range MaxPaired + 3 {
		tok := grantOne(t, h, be, p, fmt.Sprintf("192.0.2.%d:1", i))
		if i == 0 {
			first = tok
		}
		clock.add(time.Second)
	}
	if n := len(p.sessions); n > MaxPaired {
		t.Errorf("%d sessions kept, want at most %d", n, MaxPaired)
	}
	var sf sessionsFile
	raw, _ := os.ReadFile(file)
	if err := json.Unmarshal(raw, &sf); err != nil || len(sf.Sessions) > MaxPaired {
		t.Errorf("file: %d sessions (%v), want at most %d", len(sf.Sessions), err, MaxPaired)
	}
	if code, _ := controlCode(h, first); code != http.StatusForbidden {
		t.Errorf("the oldest session outlived the cap: %d", code)
	}
}
