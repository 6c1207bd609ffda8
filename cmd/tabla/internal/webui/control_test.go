package webui

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// tableBackend is a fake table: its pairing requests wait for grant.
type tableBackend struct {
	fakeBackend
	mu      sync.Mutex
	pending chan bool
	engines map[string]bool
}

func (b *tableBackend) request(window time.Duration) (<-chan bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = make(chan bool, 1)
	return b.pending, nil
}

func (b *tableBackend) grant(ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending <- ok
}

func (b *tableBackend) setEngine(seat string, on bool, level int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.engines[seat] = on
	return nil
}

type client struct {
	t   *testing.T
	c   *http.Client
	url string
}

func (c *client) do(method, path, auth, body string) (int, string) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	resp, err := c.c.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (c *client) pair() PairStatus {
	c.t.Helper()
	_, body := c.do("GET", "/api/pair", "", "")
	var p PairStatus
	json.Unmarshal([]byte(body), &p)
	return p
}

// TestTableControl: on a table every control endpoint refuses a browser
// that is not paired (403, saying how to pair); the token works for
// scripts; a browser that asked and was granted by the board controls
// until it gives control back; a refused request leaves it watching.
func TestTableControl(t *testing.T) {
	be := &tableBackend{engines: map[string]bool{}}
	clock := newClock()
	p := &Pairing{Request: be.request, Now: clock.now}
	srv := httptest.NewServer(Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"takeback", "hint", "new"},
		SetEngine: be.setEngine, Pairing: p, Token: "sesame", Act: be.Act}))
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	phone := &client{t: t, c: &http.Client{Jar: jar}, url: srv.URL}
	other := &client{t: t, c: &http.Client{}, url: srv.URL}

	controls := []struct{ path, body string }{{"/api/hint", ""}, {"/api/new", ""}, {"/api/ai", `{"seat":"north","on":true}`}, {"/api/action", `{"lift":"c1"}`}}
	for _, c := range controls {
		code, body := phone.do("POST", c.path, "", c.body)
		if code != http.StatusForbidden || !strings.Contains(body, `"reason":"not_paired"`) || !strings.Contains(body, "confirm button") {
			t.Errorf("unpaired %s: %d %q", c.path, code, body)
		}
		if code, _ := phone.do("POST", c.path, "wrong", c.body); code != http.StatusUnauthorized {
			t.Errorf("wrong token %s: %d", c.path, code)
		}
		if code, body := phone.do("POST", c.path, "sesame", c.body); code != http.StatusOK {
			t.Errorf("token %s: %d %s", c.path, code, body)
		}
	}
	if code, _ := phone.do("POST", "/api/fly", "sesame", ""); code != http.StatusNotFound {
		t.Errorf("unknown command: %d", code)
	}
	if code, _ := phone.do("POST", "/api/takeback", "sesame", ""); code != http.StatusConflict {
		t.Errorf("a failing command: %d", code)
	}
	if code, body := phone.do("GET", "/api/board", "", ""); code != 200 || !strings.Contains(body, `"mode":"table"`) || !strings.Contains(body, `"pairing":true`) {
		t.Errorf("board: %s", body)
	}

	// a refused request leaves the phone watching
	if code, body := phone.do("POST", "/api/pair", "", "{}"); code != http.StatusAccepted || !strings.Contains(body, `"pending":true`) {
		t.Fatalf("pair: %d %s", code, body)
	}
	if st := phone.pair(); !st.Pending || st.Paired || st.Seconds != 30 {
		t.Errorf("pending: %+v", st)
	}
	be.grant(false)
	waitPair(t, phone, func(s PairStatus) bool { return !s.Pending && !s.Paired })
	if code, _ := phone.do("POST", "/api/hint", "", ""); code != http.StatusForbidden {
		t.Errorf("after a refusal: %d", code)
	}

	// granted: the phone controls, another browser does not
	if code, body := phone.do("POST", "/api/pair", "", "{}"); code != http.StatusTooManyRequests || !strings.Contains(body, `"reason":"pair_cooldown"`) {
		t.Errorf("asking again at once: %d %s", code, body)
	}
	// another phone behind the same address (every client here is
	// 127.0.0.1) is not held back by the first one's cooldown
	jar2, _ := cookiejar.New(nil)
	second := &client{t: t, c: &http.Client{Jar: jar2}, url: srv.URL}
	if code, body := second.do("POST", "/api/pair", "", "{}"); code != http.StatusAccepted || !strings.Contains(body, `"pending":true`) {
		t.Errorf("a second phone at the same address: %d %s", code, body)
	}
	be.grant(false)
	waitPair(t, second, func(s PairStatus) bool { return s.Refused })
	clock.add(DefaultPairCooldown)
	phone.do("POST", "/api/pair", "", "{}")
	be.grant(true)
	waitPair(t, phone, func(s PairStatus) bool { return s.Paired })
	for _, c := range controls {
		if code, body := phone.do("POST", c.path, "", c.body); code != http.StatusOK {
			t.Errorf("paired %s: %d %s", c.path, code, body)
		}
		if code, _ := other.do("POST", c.path, "", c.body); code != http.StatusForbidden {
			t.Errorf("another browser %s: %d", c.path, code)
		}
	}
	if !be.engines["north"] {
		t.Error("the paired phone's AI seat was not set")
	}
	cookies := jar.Cookies(mustURL(t, srv.URL))
	if len(cookies) != 1 || cookies[0].Name != CookieName || len(cookies[0].Value) < 40 {
		t.Errorf("cookie %v", cookies)
	}
	// a forged cookie is no session
	forged := &client{t: t, c: &http.Client{}, url: srv.URL}
	req, _ := http.NewRequest("POST", srv.URL+"/api/hint", nil)
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(&http.Cookie{Name: CookieName, Value: cookies[0].Value[:len(cookies[0].Value)-1] + "x"})
	resp, _ := forged.c.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("forged cookie: %d", resp.StatusCode)
	}
	// giving control back
	phone.do("POST", "/api/unpair", "", "{}")
	if code, _ := phone.do("POST", "/api/hint", "", ""); code != http.StatusForbidden {
		t.Errorf("after unpairing: %d", code)
	}
}

// TestPairingExpiry: a session ends on the server when its time is up,
// whatever the cookie says.
func TestPairingExpiry(t *testing.T) {
	clock := newClock()
	be := &tableBackend{engines: map[string]bool{}}
	p := &Pairing{Request: be.request, Now: clock.now, TTL: time.Hour}
	srv := httptest.NewServer(Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"}, Pairing: p}))
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	phone := &client{t: t, c: &http.Client{Jar: jar}, url: srv.URL}
	phone.do("POST", "/api/pair", "", "{}")
	be.grant(true)
	waitPair(t, phone, func(s PairStatus) bool { return s.Paired })
	if code, _ := phone.do("POST", "/api/hint", "", ""); code != http.StatusOK {
		t.Fatalf("paired: %d", code)
	}
	clock.add(time.Hour + time.Second)
	if code, body := phone.do("POST", "/api/hint", "", ""); code != http.StatusForbidden || !strings.Contains(body, `"reason":"session_ended"`) {
		t.Errorf("after the session's time: %d %s", code, body)
	}
	if st := phone.pair(); !st.Ended || st.Paired {
		t.Errorf("status after the session's time: %+v, want ended", st)
	}
	// no token configured: scripts get 403 too
	if code, _ := phone.do("POST", "/api/hint", "any", ""); code != http.StatusUnauthorized {
		t.Errorf("a token where none is configured: %d", code)
	}
}

// fakeClock is an injected clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

func waitPair(t *testing.T, c *client, ok func(PairStatus) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := c.pair()
		if ok(s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pairing stuck at %+v", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
