package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
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

// phone is a browser for TestPairCooldown: its address and the cookies
// the server set it.
type phone struct {
	h       http.Handler
	addr    string
	cookies map[string]string
}

func newPhone(h http.Handler, ip string) *phone {
	return &phone{h: h, addr: ip, cookies: map[string]string{}}
}

func (b *phone) do(method string, port int) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/api/pair", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = net.JoinHostPort(b.addr, strconv.Itoa(port))
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, req)
	for _, c := range w.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return w
}

func (b *phone) status(t *testing.T) PairStatus {
	t.Helper()
	w := b.do("GET", 1)
	var st PairStatus
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
		t.Fatalf("status %q: %v", w.Body, err)
	}
	return st
}

// TestPairCooldown: a browser (by the cookie of its earlier request) asks
// at most once per cooldown, granted or not, from any port, even once it
// heard of the refusal; another phone behind the same address (NAT, a
// proxy, an SSH tunnel) may ask, up to MaxPairPerAddress requests an
// address in a cooldown window, so that a stranger dropping its cookies
// cannot flood; other addresses are not held back; a request standing for
// another phone is pair_busy.
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
	refuse := func(b *phone) {
		t.Helper()
		be.grant(false)
		var st PairStatus
		browsertest.Wait(t, "the refusal", func() bool { st = b.status(t); return st.Refused }, func() string { return fmt.Sprintf("%+v", st) })
		if st := b.status(t); st != (PairStatus{}) {
			t.Errorf("after the refusal: %+v, want nothing (neither ended nor refused again)", st)
		}
		if _, ok := b.cookies[CookieName]; ok {
			t.Error("the refused session's cookie is kept")
		}
	}

	phone1 := newPhone(h, "192.0.2.1")
	if w := phone1.do("POST", 4000); w.Code != http.StatusAccepted || phone1.cookies[CookieName] == "" {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
	refuse(phone1)
	// a restart does not take the refused browser for one that controlled
	// the board (issue 38: "no longer controls the board")
	restarted := &phone{h: Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"}, Pairing: &Pairing{Now: clock.now, Request: be.request}}),
		addr: phone1.addr, cookies: maps.Clone(phone1.cookies)}
	if st := restarted.status(t); st != (PairStatus{}) {
		t.Errorf("the refused browser after a restart: %+v, want nothing", st)
	}
	// the same browser, another port: its cookie names it
	w := phone1.do("POST", 4001)
	if w.Code != http.StatusTooManyRequests || reasonOf(t, w) != ReasonPairCooldown || w.Header().Get("Retry-After") != "60" {
		t.Fatalf("the same browser asking again at once: %d %s Retry-After %q", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	// a second phone behind the same address is not that browser
	phone2 := newPhone(h, "192.0.2.1")
	if w := phone2.do("POST", 4002); w.Code != http.StatusAccepted {
		t.Fatalf("a second phone at the same address: %d %s", w.Code, w.Body)
	}
	// asking again while its request stands is its status, not a request
	if w := phone2.do("POST", 4003); w.Code != http.StatusAccepted {
		t.Fatalf("the second phone again while its request stands: %d %s", w.Code, w.Body)
	}
	be.grant(false) // not heard of: the session cookie names the browser
	browsertest.Wait(t, "the second refusal on the server", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		s := p.sessions[sha256.Sum256([]byte(phone2.cookies[CookieName]))]
		return s != nil && s.refused
	}, func() string { return "pending" })
	clock.add(59 * time.Second)
	for i, b := range []*phone{phone1, phone2} {
		if w := b.do("POST", 4004); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
			t.Fatalf("browser %d after 59 s: %d %s", i+1, w.Code, w.Body)
		}
	}
	// browsers with no cookie (or dropping theirs) count for their
	// address: two more fill the window's MaxPairPerAddress
	for i := 3; i <= MaxPairPerAddress; i++ {
		b := newPhone(h, "192.0.2.1")
		if w := b.do("POST", 5000+i); w.Code != http.StatusAccepted {
			t.Fatalf("phone %d at the address: %d %s", i, w.Code, w.Body)
		}
		refuse(b)
	}
	w = newPhone(h, "192.0.2.1").do("POST", 5000)
	if w.Code != http.StatusTooManyRequests || reasonOf(t, w) != ReasonPairCrowded || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("request %d of the address's window: %d %s Retry-After %q", MaxPairPerAddress+1, w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	// another address may ask meanwhile; while its request stands the
	// board is busy for everyone
	busy = true
	if w := newPhone(h, "2001:db8::7").do("POST", 4000); w.Code != http.StatusConflict || reasonOf(t, w) != ReasonPairBusy {
		t.Fatalf("another client while one asks: %d %s", w.Code, w.Body)
	}
	busy = false
	clock.add(time.Second)
	for i, b := range []*phone{phone1, phone2} {
		if w := b.do("POST", 4005); w.Code != http.StatusAccepted {
			t.Fatalf("browser %d after the cooldown: %d %s", i+1, w.Code, w.Body)
		}
		if st := b.status(t); !st.Pending {
			t.Errorf("browser %d's new request: %+v, want pending", i+1, st)
		}
		be.grant(false)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.sessions) > 2 {
		t.Errorf("%d sessions kept: the refused ones the new requests replaced stay", len(p.sessions))
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
