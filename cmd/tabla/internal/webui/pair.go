package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"
	"time"
)

// CookieName is the cookie of a paired browser's session.
const CookieName = "tabla_session"

// Defaults of a Pairing.
const (
	DefaultPairWindow = 30 * time.Second
	DefaultPairTTL    = 12 * time.Hour
	maxPaired         = 32 // sessions kept; the oldest goes first
)

// Pairing gives browsers control of the table: a phone asks (POST
// /api/pair), the board signals it (Request: every LED pulses) and a press
// of the board's confirm button within Window grants that browser a
// session: a random token in an HttpOnly, SameSite=Strict cookie, valid on
// the server for TTL. The token of the config keeps working for scripts.
type Pairing struct {
	// Request asks the person at the table; the channel receives true when
	// the confirm button grants it, false when the window passes.
	Request func(window time.Duration) (<-chan bool, error)
	Window  time.Duration // 0: DefaultPairWindow
	TTL     time.Duration // 0: DefaultPairTTL
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time

	mu       sync.Mutex
	sessions map[string]*pairSession
}

type pairSession struct {
	granted bool
	expires time.Time
}

// PairStatus is GET /api/pair's answer for the asking browser.
type PairStatus struct {
	Paired  bool `json:"paired"`
	Pending bool `json:"pending"`
	// Seconds left: of the session when paired, to press confirm when
	// pending.
	Seconds int `json:"seconds"`
}

func (p *Pairing) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Pairing) window() time.Duration {
	if p.Window > 0 {
		return p.Window
	}
	return DefaultPairWindow
}

func (p *Pairing) ttl() time.Duration {
	if p.TTL > 0 {
		return p.TTL
	}
	return DefaultPairTTL
}

// session finds the request's session, dropping expired ones.
func (p *Pairing) sessionLocked(r *http.Request) *pairSession {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	now := p.now()
	for tok, s := range p.sessions {
		if now.After(s.expires) {
			delete(p.sessions, tok)
			continue
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(c.Value)) == 1 {
			return s
		}
	}
	return nil
}

// Paired reports whether the request comes from a paired browser.
func (p *Pairing) Paired(r *http.Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sessionLocked(r)
	return s != nil && s.granted
}

// Status is where the requesting browser stands.
func (p *Pairing) Status(r *http.Request) PairStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.sessionLocked(r)
	if s == nil {
		return PairStatus{}
	}
	left := int(s.expires.Sub(p.now()).Round(time.Second) / time.Second)
	return PairStatus{Paired: s.granted, Pending: !s.granted, Seconds: max(left, 0)}
}

// errPairBusy is what Start says when a request already stands.
var errPairBusy = errors.New("busy")

// Start asks the table to pair the browser and sets its cookie; the
// session is granted when the confirm button is pressed in time.
func (p *Pairing) Start(w http.ResponseWriter, r *http.Request) (PairStatus, error) {
	if st := p.Status(r); st.Paired || st.Pending {
		return st, nil
	}
	granted, err := p.Request(p.window())
	if err != nil {
		return PairStatus{}, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return PairStatus{}, err
	}
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	s := &pairSession{expires: p.now().Add(p.window())}
	p.mu.Lock()
	if p.sessions == nil {
		p.sessions = map[string]*pairSession{}
	}
	p.evictLocked()
	p.sessions[tok] = s
	p.mu.Unlock()
	go func() {
		ok := <-granted
		p.mu.Lock()
		defer p.mu.Unlock()
		if ok {
			s.granted, s.expires = true, p.now().Add(p.ttl())
		} else {
			delete(p.sessions, tok)
		}
	}()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		MaxAge: int(p.ttl() / time.Second)})
	return PairStatus{Pending: true, Seconds: int(p.window() / time.Second)}, nil
}

// evictLocked keeps at most maxPaired sessions, dropping the one that
// expires first.
func (p *Pairing) evictLocked() {
	for len(p.sessions) >= maxPaired {
		var first string
		for tok, s := range p.sessions {
			if first == "" || s.expires.Before(p.sessions[first].expires) {
				first = tok
			}
		}
		delete(p.sessions, first)
	}
}

// Forget ends the requesting browser's session.
func (p *Pairing) Forget(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if c, err := r.Cookie(CookieName); err == nil {
		delete(p.sessions, c.Value)
	}
	p.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
}
