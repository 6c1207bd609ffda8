package webui

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CookieName is the cookie of a paired browser's session.
const CookieName = "tabla_session"

// AskedCookieName is the cookie a refused browser keeps for the rest of its
// cooldown: the token of its request, so that it asks again no sooner
// however it was refused. It names no session, so a restart does not take
// it for one that ended.
const AskedCookieName = "tabla_asked"

// SessionsFile is the file, in the journal directory, that keeps the
// paired browsers' sessions across restarts of `tabla run`.
const SessionsFile = ".tabla-sessions.json"

// Defaults of a Pairing.
const (
	DefaultPairWindow   = 30 * time.Second
	DefaultPairTTL      = 12 * time.Hour
	DefaultPairCooldown = time.Minute // from one request of a browser to its next
	MaxPaired           = 64          // sessions kept; the one expiring first goes
	MaxPairPerAddress   = 4           // requests from one address in a cooldown window
	maxAsking           = 256         // browsers and addresses remembered for the cooldown
	maxSessionsFile     = 64 << 10    // bytes of SessionsFile read at most
)

// Errors of Pairing.Request (wrapped) and Pairing.Start.
var (
	// ErrPairBusy: another request stands.
	ErrPairBusy = errors.New("webui: another phone is asking to control the board")
	// ErrPairNoButton: the board has no confirm button to grant requests.
	ErrPairNoButton = errors.New("webui: the board has no confirm button, so no phone can be paired")
)

// CooldownError is Start's error when the browser asked too recently, or
// its address has asked MaxPairPerAddress times in the window.
type CooldownError struct {
	Left    time.Duration
	Address bool // the address's cap, not the browser's own cooldown
}

func (e *CooldownError) Error() string {
	if e.Address {
		return fmt.Sprintf("webui: %d phones at this address asked to control the board in the last %v; ask again in %v", MaxPairPerAddress, DefaultPairCooldown, e.Left.Round(time.Second))
	}
	return fmt.Sprintf("webui: this browser asked to control the board less than %v ago; ask again in %v", DefaultPairCooldown, e.Left.Round(time.Second))
}

// Pairing gives browsers control of the table: a phone asks (POST
// /api/pair), the board signals it (Request: a corner LED pulses) and a
// press of the board's confirm button within Window grants that browser a
// session: a random token in an HttpOnly, SameSite=Strict cookie, valid on
// the server for TTL. The token of the config keeps working for scripts.
//
// A browser (by the cookie it got with its earlier request) asks at most
// once per Cooldown, so that a request cannot be repeated back to back, and
// an address (without its port) at most MaxPairPerAddress times in a
// Cooldown window: several phones behind one address (a household's NAT, a
// reverse proxy, an SSH tunnel) can pair, a stranger dropping its cookies
// cannot flood. A refused browser's session cookie is swapped for
// AskedCookieName until its cooldown passes. The server keeps the SHA-256 of
// each session's token, never the token, and with File set keeps the
// granted sessions there (mode 0600), loaded by Load at start: phones stay
// paired across a restart. At most MaxPaired sessions are kept.
type Pairing struct {
	// Request asks the person at the table; the channel receives true when
	// the confirm button grants it, false when the window passes or the
	// request is cancelled. Its errors wrap ErrPairBusy or ErrPairNoButton
	// when they are those.
	Request  func(window time.Duration) (<-chan bool, error)
	Window   time.Duration // 0: DefaultPairWindow
	TTL      time.Duration // 0: DefaultPairTTL
	Cooldown time.Duration // 0: DefaultPairCooldown
	// File keeps the granted sessions across restarts ("": memory only).
	File string
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
	// Logger logs what the file could not do (nil: discard).
	Logger *slog.Logger

	mu       sync.Mutex
	sessions map[[sha256.Size]byte]*pairSession
	asked    map[string]*asking // "b:"+browser's key or "a:"+address
}

// asking is a browser's or an address's cooldown: until when, and how
// many requests (an address's) it counts.
type asking struct {
	until time.Time
	n     int
}

type pairSession struct {
	granted bool
	refused bool // a request refused or cancelled, said once by Status
	expires time.Time
}

// PairStatus is GET /api/pair's answer for the asking browser.
type PairStatus struct {
	Paired  bool `json:"paired"`
	Pending bool `json:"pending"`
	// Seconds left: of the session when paired, to press confirm when
	// pending.
	Seconds int `json:"seconds"`
	// Ended: the browser's cookie names a session the board no longer
	// knows (expired, or lost): it controlled and does not any more.
	Ended bool `json:"ended,omitempty"`
	// Refused: its request passed without a press of the confirm button,
	// or a move on the board cancelled it.
	Refused bool `json:"refused,omitempty"`
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

func (p *Pairing) cooldown() time.Duration {
	if p.Cooldown > 0 {
		return p.Cooldown
	}
	return DefaultPairCooldown
}

func (p *Pairing) log() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// cookieKey is the hash of the request's cookie; ok is false without one.
func cookieKey(r *http.Request) (key [sha256.Size]byte, ok bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return key, false
	}
	return sha256.Sum256([]byte(c.Value)), true
}

// sessionLocked finds the request's session, dropping expired ones; hasCookie
// says whether the request named one.
func (p *Pairing) sessionLocked(r *http.Request) (s *pairSession, key [sha256.Size]byte, hasCookie bool) {
	key, hasCookie = cookieKey(r)
	now := p.now()
	for k, s := range p.sessions {
		// a pending request ends by its channel (Request's window)
		if (s.granted || s.refused) && now.After(s.expires) {
			delete(p.sessions, k)
		}
	}
	if !hasCookie {
		return nil, key, false
	}
	return p.sessions[key], key, true
}

// Check says whether the request comes from a paired browser, and if not
// whether its cookie names a session the board no longer knows (ended).
func (p *Pairing) Check(r *http.Request) (paired, ended bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, _, has := p.sessionLocked(r)
	if s != nil {
		return s.granted, false
	}
	return false, has
}

// Paired reports whether the request comes from a paired browser.
func (p *Pairing) Paired(r *http.Request) bool {
	ok, _ := p.Check(r)
	return ok
}

// Status is where the requesting browser stands. A cookie the board does
// not know (Ended) or that asked in vain (Refused) is cleared; the latter
// lives on as AskedCookieName for the rest of the browser's cooldown.
func (p *Pairing) Status(w http.ResponseWriter, r *http.Request) PairStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, key, has := p.sessionLocked(r)
	switch {
	case !has:
		return PairStatus{}
	case s == nil:
		clearCookie(w)
		return PairStatus{Ended: true}
	case s.refused:
		delete(p.sessions, key)
		clearCookie(w)
		if a, ok := p.asked[browserOf(key)]; ok {
			if left := a.until.Sub(p.now()); left > 0 {
				c, _ := r.Cookie(CookieName) // there: has
				http.SetCookie(w, &http.Cookie{Name: AskedCookieName, Value: c.Value, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
					MaxAge: int((left + time.Second - 1) / time.Second)})
			}
		}
		return PairStatus{Refused: true}
	}
	left := int(s.expires.Sub(p.now()).Round(time.Second) / time.Second)
	return PairStatus{Paired: s.granted, Pending: !s.granted, Seconds: max(left, 0)}
}

// Start asks the table to pair the browser and sets its cookie; the
// session is granted when the confirm button is pressed in time. A browser
// that asked less than Cooldown ago, or one at an address that has asked
// MaxPairPerAddress times in its window, gets a *CooldownError.
func (p *Pairing) Start(w http.ResponseWriter, r *http.Request) (PairStatus, error) {
	p.mu.Lock()
	old, oldKey, hasCookie := p.sessionLocked(r)
	if old != nil && !old.refused {
		p.mu.Unlock()
		return p.Status(w, r), nil
	}
	addr := "a:" + clientOf(r)
	now := p.now()
	for c, a := range p.asked {
		if !now.Before(a.until) {
			delete(p.asked, c)
		}
	}
	var names []string // the browser's names: its session's, its refused request's
	if hasCookie {
		names = append(names, browserOf(oldKey))
	}
	if c, err := r.Cookie(AskedCookieName); err == nil && c.Value != "" {
		names = append(names, browserOf(sha256.Sum256([]byte(c.Value))))
	}
	for _, b := range names {
		if a, ok := p.asked[b]; ok {
			p.mu.Unlock()
			return PairStatus{}, &CooldownError{Left: a.until.Sub(now)}
		}
	}
	if a, ok := p.asked[addr]; ok && a.n >= MaxPairPerAddress {
		p.mu.Unlock()
		return PairStatus{}, &CooldownError{Left: a.until.Sub(now), Address: true}
	}
	p.mu.Unlock()
	granted, err := p.Request(p.window())
	if err != nil {
		return PairStatus{}, err
	}
	var raw [32]byte
	rand.Read(raw[:]) // never fails (crypto/rand)
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	key := sha256.Sum256([]byte(tok))
	s := &pairSession{expires: now.Add(p.window())}
	p.mu.Lock()
	if p.sessions == nil {
		p.sessions = map[[sha256.Size]byte]*pairSession{}
	}
	if p.asked == nil {
		p.asked = map[string]*asking{}
	}
	if len(p.asked) >= maxAsking-1 {
		clear(p.asked) // a LAN of hundreds of phones: forget the cooldowns
	}
	p.asked[browserOf(key)] = &asking{until: now.Add(p.cooldown()), n: 1}
	if a := p.asked[addr]; a != nil {
		a.n++
	} else {
		p.asked[addr] = &asking{until: now.Add(p.cooldown()), n: 1}
	}
	if old != nil && p.sessions[oldKey] == old {
		delete(p.sessions, oldKey) // the refused request this one replaces
	}
	p.evictLocked()
	p.sessions[key] = s
	p.mu.Unlock()
	go func() {
		ok := <-granted
		p.mu.Lock()
		defer p.mu.Unlock()
		if ok {
			s.granted, s.expires = true, p.now().Add(p.ttl())
			p.saveLocked()
		} else {
			// kept until the browser hears of it (Status), as long as
			// its cookie lives, so that it is not taken for an ended
			// session; the first evicted
			s.refused, s.expires = true, p.now().Add(p.ttl())
		}
	}()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		MaxAge: int(p.ttl() / time.Second)})
	if _, err := r.Cookie(AskedCookieName); err == nil { // its cooldown passed: the new session names it
		http.SetCookie(w, &http.Cookie{Name: AskedCookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
	}
	return PairStatus{Pending: true, Seconds: int(p.window() / time.Second)}, nil
}

// browserOf names a browser in Pairing.asked by its session's key.
func browserOf(key [sha256.Size]byte) string {
	return "b:" + hex.EncodeToString(key[:])
}

// clientOf is the address a request counts for: the remote address
// without its port.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// evictLocked keeps fewer than MaxPaired sessions, dropping requests that
// came to nothing first, then the one that expires first.
func (p *Pairing) evictLocked() {
	for k, s := range p.sessions {
		if s.refused && len(p.sessions) >= MaxPaired {
			delete(p.sessions, k)
		}
	}
	for len(p.sessions) >= MaxPaired {
		var first [sha256.Size]byte
		var firstS *pairSession
		for k, s := range p.sessions {
			if firstS == nil || s.expires.Before(firstS.expires) {
				first, firstS = k, s
			}
		}
		delete(p.sessions, first)
	}
}

// Forget ends the requesting browser's session.
func (p *Pairing) Forget(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if key, ok := cookieKey(r); ok {
		if s := p.sessions[key]; s != nil {
			delete(p.sessions, key)
			if s.granted {
				p.saveLocked()
			}
		}
	}
	p.mu.Unlock()
	clearCookie(w)
}

func clearCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1})
}

// sessionsFile is SessionsFile's content: the SHA-256 of each granted
// session's token (hex) and when it expires.
type sessionsFile struct {
	Version  int            `json:"tabla_sessions"`
	Sessions []savedSession `json:"sessions"`
}

type savedSession struct {
	SHA256  string    `json:"sha256"`
	Expires time.Time `json:"expires"`
}

// Load reads File (a missing file is no session). Expired sessions are
// dropped; at most MaxPaired are kept. On an error no session is loaded:
// the phones pair again.
func (p *Pairing) Load() error {
	if p.File == "" {
		return nil
	}
	f, err := os.Open(p.File)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("webui: sessions: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSessionsFile+1))
	if err != nil {
		return fmt.Errorf("webui: sessions: %s: %w", p.File, err)
	}
	if len(b) > maxSessionsFile {
		return fmt.Errorf("webui: sessions: %s is over %d KB; want at most %d sessions", p.File, maxSessionsFile>>10, MaxPaired)
	}
	var sf sessionsFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf); err != nil {
		return fmt.Errorf("webui: sessions: %s: %v", p.File, err)
	}
	if sf.Version != 1 {
		return fmt.Errorf("webui: sessions: %s: version %d, want 1", p.File, sf.Version)
	}
	loaded := make(map[[sha256.Size]byte]*pairSession, len(sf.Sessions))
	now := p.now()
	for i, s := range sf.Sessions {
		var key [sha256.Size]byte
		if n, err := hex.Decode(key[:], []byte(s.SHA256)); err != nil || n != sha256.Size || len(s.SHA256) != 2*sha256.Size {
			return fmt.Errorf("webui: sessions: %s: session %d: sha256 %q is not 64 hex digits", p.File, i+1, s.SHA256)
		}
		if now.After(s.Expires) {
			continue
		}
		loaded[key] = &pairSession{granted: true, expires: s.Expires}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessions = loaded
	p.asked = map[string]*asking{}
	if len(p.sessions) > MaxPaired {
		p.evictLocked()
	}
	return nil
}

// saveLocked writes the granted sessions to File, replacing it whole
// (a file of mode 0600 renamed over it); an error is logged.
func (p *Pairing) saveLocked() {
	if p.File == "" {
		return
	}
	sf := sessionsFile{Version: 1, Sessions: []savedSession{}}
	now := p.now()
	for k, s := range p.sessions {
		if s.granted && !now.After(s.expires) {
			sf.Sessions = append(sf.Sessions, savedSession{SHA256: hex.EncodeToString(k[:]), Expires: s.expires.UTC()})
		}
	}
	if err := writeFile0600(p.File, sf); err != nil {
		p.log().Warn("pairing: the sessions could not be saved; phones paired now must pair again after a restart", "file", p.File, "err", err)
	}
}

func writeFile0600(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tabla-sessions-*.tmp") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
