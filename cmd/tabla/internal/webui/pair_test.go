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

	"github.com/tabla-board/tabla/cmd/tabla/internal/webui/browsertest"
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

// cookieOf is the session cookie w set ("" without one).
func cookieOf(w *httptest.ResponseRecorder) string {
	for _, c := range w.Result().Cookies() {
		if c.Name == CookieName {
			return c.Value
		}
	}
	return ""
}

// TestPairCooldown: a browser (by the cookie of its earlier request) asks
// at most once per cooldown, granted or not, from any port; another phone
// behind the same address (NAT, a proxy, an SSH tunnel) may ask, up to
// MaxPairPerAddress requests an address in a cooldown window, so that a
// stranger dropping its cookies cannot flood; other addresses are not held
// back; a request standing for another phone is pair_busy.
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
	status := func(cookie string) PairStatus {
		req := httptest.NewRequest("GET", "/api/pair", nil)
		req.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var st PairStatus
		if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
			t.Fatalf("status %q: %v", w.Body, err)
		}
		return st
	}
	refuse := func(cookie string) {
		t.Helper()
		be.grant(false)
		var st PairStatus
		browsertest.Wait(t, "the refusal", func() bool { st = status(cookie); return st.Refused }, func() string { return fmt.Sprintf("%+v", st) })
	}

	w := ask(h, "192.0.2.1:4000", "")
	phone1 := cookieOf(w)
	if w.Code != http.StatusAccepted || phone1 == "" {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
	refuse(phone1)
	if st := status(phone1); st != (PairStatus{}) {
		t.Errorf("the refusal said twice: %+v", st)
	}
	// the same browser, another port: its cookie names it
	w = ask(h, "192.0.2.1:4001", phone1)
	if w.Code != http.StatusTooManyRequests || reasonOf(t, w) != ReasonPairCooldown || w.Header().Get("Retry-After") != "60" {
		t.Fatalf("the same browser asking again at once: %d %s Retry-After %q", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	// a second phone behind the same address is not that browser
	w = ask(h, "192.0.2.1:4002", "")
	phone2 := cookieOf(w)
	if w.Code != http.StatusAccepted || phone2 == "" || phone2 == phone1 {
		t.Fatalf("a second phone at the same address: %d %s", w.Code, w.Body)
	}
	refuse(phone2)
	clock.add(59 * time.Second)
	if w := ask(h, "192.0.2.1:4003", phone1); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("the first browser after 59 s: %d %s", w.Code, w.Body)
	}
	if w := ask(h, "192.0.2.1:4003", phone2); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("the second browser after 59 s: %d %s", w.Code, w.Body)
	}
	// a browser with no cookie (or dropping it) counts for its address:
	// two more requests there fill the window's MaxPairPerAddress
	for i := 3; i <= MaxPairPerAddress; i++ {
		w := ask(h, "192.0.2.1:5000", "")
		if w.Code != http.StatusAccepted {
			t.Fatalf("phone %d at the address: %d %s", i, w.Code, w.Body)
		}
		refuse(cookieOf(w))
	}
	w = ask(h, "192.0.2.1:5001", "")
	if w.Code != http.StatusTooManyRequests || reasonOf(t, w) != ReasonPairCrowded || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("request %d of the address's window: %d %s Retry-After %q", MaxPairPerAddress+1, w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	// another address may ask meanwhile; while its request stands the
	// board is busy for everyone
	busy = true
	if w := ask(h, "[2001:db8::7]:4000", ""); w.Code != http.StatusConflict || reasonOf(t, w) != ReasonPairBusy {
		t.Fatalf("another client while one asks: %d %s", w.Code, w.Body)
	}
	busy = false
	clock.add(time.Second)
	w = ask(h, "192.0.2.1:4004", phone1)
	if w.Code != http.StatusAccepted {
		t.Fatalf("the first browser after the cooldown: %d %s", w.Code, w.Body)
	}
	// its new request replaced the refused one: the old cookie is gone
	if st := status(phone1); !st.Ended {
		t.Errorf("the replaced cookie: %+v, want ended", st)
	}
	if st := status(cookieOf(w)); !st.Pending {
		t.Errorf("the new request: %+v, want pending", st)
	}
	if len(p.asked) > maxAsking {
		t.Errorf("%d cooldowns remembered, at most %d", len(p.asked), maxAsking)
	}
}

// TestPairCooldownBounded: however many browsers and addresses ask, the
// cooldowns remembered stay within maxAsking.
func TestPairCooldownBounded(t *testing.T) {
	clock := newClock()
	be := &tableBackend{engines: map[string]bool{}}
	p := &Pairing{Now: clock.now, Request: func(w time.Duration) (<-chan bool, error) {
		c := make(chan bool, 1)
		c <- false
		return c, nil
	}}
	h := Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"}, Pairing: p})
	for i := range 3 * maxAsking {
		if w := ask(h, fmt.Sprintf("10.0.%d.%d:1", i/250, i%250), ""); w.Code != http.StatusAccepted {
			t.Fatalf("phone %d: %d %s", i, w.Code, w.Body)
		}
		p.mu.Lock()
		n := len(p.asked)
		p.mu.Unlock()
		if n > maxAsking {
			t.Fatalf("after phone %d: %d cooldowns remembered, at most %d", i, n, maxAsking)
		}
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
