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

// SessionsFile is the file, in the journal directory, that keeps the
// paired browsers' sessions across restarts of `tabla run`.
const SessionsFile = ".tabla-sessions.json"

// Defaults of a Pairing.
const (
	DefaultPairWindow   = 30 * time.Second
	DefaultPairTTL      = 12 * time.Hour
	DefaultPairCooldown = time.Minute // from one request of a client to its next
	MaxPaired           = 64          // sessions kept; the one expiring first goes
	maxAsking           = 256         // clients remembered for the cooldown
	maxSessionsFile     = 64 << 10    // bytes of SessionsFile read at most
)

// Errors of Pairing.Request (wrapped) and Pairing.Start.
var (
	// ErrPairBusy: another request stands.
	ErrPairBusy = errors.New("webui: another phone is asking to control the board")
	// ErrPairNoButton: the board has no confirm button to grant requests.
	ErrPairNoButton = errors.New("webui: the board has no confirm button, so no phone can be paired")
)

// CooldownError is Start's error when the client asked too recently.
type CooldownError struct{ Left time.Duration }

func (e *CooldownError) Error() string {
	return fmt.Sprintf("webui: this client asked to control the board less than %v ago; ask again in %v", DefaultPairCooldown, e.Left.Round(time.Second))
}

// Pairing gives browsers control of the table: a phone asks (POST
// /api/pair), the board signals it (Request: a corner LED pulses) and a
// press of the board's confirm button within Window grants that browser a
// session: a random token in an HttpOnly, SameSite=Strict cookie, valid on
// the server for TTL. The token of the config keeps working for scripts.
//
// A client (by remote address) asks at most once per Cooldown, so that a
// request cannot be repeated back to back. The server keeps the SHA-256 of
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
	asked    map[string]time.Time // client → when it may ask again
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
// not know (Ended) or that asked in vain (Refused) is cleared.
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
		return PairStatus{Refused: true}
	}
	left := int(s.expires.Sub(p.now()).Round(time.Second) / time.Second)
	return PairStatus{Paired: s.granted, Pending: !s.granted, Seconds: max(left, 0)}
}

// Start asks the table to pair the browser and sets its cookie; the
// session is granted when the confirm button is pressed in time. A client
// that asked less than Cooldown ago gets a *CooldownError.
func (p *Pairing) Start(w http.ResponseWriter, r *http.Request) (PairStatus, error) {
	p.mu.Lock()
	if s, _, _ := p.sessionLocked(r); s != nil && !s.refused {
		p.mu.Unlock()
		return p.Status(w, r), nil
	}
	client := clientOf(r)
	now := p.now()
	for c, at := range p.asked {
		if !now.Before(at) {
			delete(p.asked, c)
		}
	}
	if at, ok := p.asked[client]; ok {
		p.mu.Unlock()
		return PairStatus{}, &CooldownError{Left: at.Sub(now)}
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
		p.asked = map[string]time.Time{}
	}
	if len(p.asked) >= maxAsking {
		clear(p.asked) // a LAN of hundreds of clients: forget the cooldowns
	}
	p.asked[client] = now.Add(p.cooldown())
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
	return PairStatus{Pending: true, Seconds: int(p.window() / time.Second)}, nil
}

// clientOf is the client a cooldown counts for: the remote address
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
	p.asked = map[string]time.Time{}
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
