// Package sameorigin holds the HTTP middleware that the simulator page's
// server (`tabla sim`) and the daemon's API (`tabla run`) share: they act
// only on requests from their own origin.
//
//   - The Host header must name this server: the listen address, the
//     loopback names for a loopback listener, and for a LAN listener any IP
//     literal (an address cannot be rebound), the machine's host name with
//     and without ".local" (mDNS, as in http://tabla.local:7420/) and the
//     names configured (Config.Hosts). A name an attacker's DNS points at
//     127.0.0.1 (DNS rebinding) is refused on every request, reads too.
//   - A state-changing request (any method but GET, HEAD and OPTIONS) is
//     refused when the browser says it comes from another site
//     (Sec-Fetch-Site other than same-origin or none) or when its Origin is
//     not this server, and it must carry Content-Type: application/json (a
//     cross-site form cannot send that without a CORS preflight, which this
//     server never grants). Tools that send neither header (curl, scripts
//     with the token) are not browsers and pass.
//   - Request bodies are capped (Config.MaxBody).
//
// Every refusal is 403 (415 for the content type) with a message saying
// which header was wrong and what was expected.
package sameorigin

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
)

// DefaultMaxBody bounds request bodies when Config.MaxBody is 0.
const DefaultMaxBody = 64 << 10

// Config describes the server being guarded.
type Config struct {
	// Addr is the address the server listens on, as bound (host:port;
	// an empty host or 0.0.0.0/[::] is every interface).
	Addr string
	// Hosts are further names (or addresses) the server may be reached by:
	// a LAN name such as tabla.local when the host name is not tabla, a
	// reverse proxy's name. No scheme, port or path.
	Hosts []string
	// MaxBody bounds request bodies in bytes (0: DefaultMaxBody).
	MaxBody int64
}

// Guard checks requests against a Config; Wrap puts it in front of a
// handler.
type Guard struct {
	names   map[string]bool // allowed Host names, normalised
	anyIP   bool            // any IP literal is allowed (LAN listener)
	maxBody int64
	addr    string
}

// New checks c and returns its guard.
func New(c Config) (*Guard, error) {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, fmt.Errorf("sameorigin: listen address %q: %v", c.Addr, err)
	}
	g := &Guard{names: map[string]bool{}, maxBody: c.MaxBody, addr: c.Addr}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBody
	}
	host = normalise(host)
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || ip != nil && ip.IsLoopback():
		for _, n := range []string{"localhost", "127.0.0.1", "::1", host} {
			g.names[n] = true
		}
	default:
		// a LAN listener (one address, or every interface)
		g.anyIP = true
		for _, n := range []string{"localhost", host} {
			g.names[n] = true
		}
		if hn, err := os.Hostname(); err == nil && hn != "" {
			hn = normalise(hn)
			g.names[hn] = true
			if short, _, _ := strings.Cut(hn, "."); short != "" {
				g.names[short+".local"] = true
			}
		}
	}
	delete(g.names, "")
	for i, h := range c.Hosts {
		h = strings.TrimSpace(h)
		if err := checkName(h); err != nil {
			return nil, fmt.Errorf("sameorigin: allowed host %d %q: %v", i+1, h, err)
		}
		g.names[normalise(h)] = true
	}
	return g, nil
}

// checkName accepts a DNS name or an IP address (IPv6 with or without
// brackets), nothing else.
func checkName(h string) error {
	if h == "" {
		return errors.New("empty")
	}
	if net.ParseIP(strings.Trim(h, "[]")) != nil {
		return nil
	}
	if strings.Contains(h, "://") || strings.ContainsAny(h, "/:@?#") {
		return errors.New("want a host name or an IP address, without scheme, port or path")
	}
	if len(h) > 253 {
		return errors.New("longer than 253 characters")
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 {
			return errors.New("not a host name (empty or over-long label)")
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return fmt.Errorf("not a host name (character %q)", r)
			}
		}
	}
	return nil
}

// normalise lower-cases a host name, drops IPv6 brackets and a trailing
// dot, and writes IP addresses canonically.
func normalise(h string) string {
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if ip := net.ParseIP(h); ip != nil {
		return ip.String()
	}
	return h
}

// Allowed lists the Host names accepted (for logs and messages); "any IP
// address" stands for the IP literals of a LAN listener.
func (g *Guard) Allowed() []string {
	var out []string
	for n := range g.names {
		out = append(out, n)
	}
	sort.Strings(out)
	if g.anyIP {
		out = append(out, "any IP address")
	}
	return out
}

// CheckHost reports whether a Host header (host or host:port) names this
// server, with the reason when it does not.
func (g *Guard) CheckHost(hostHeader string) error {
	if hostHeader == "" {
		return errors.New("no Host header")
	}
	h := hostHeader
	if hh, _, err := net.SplitHostPort(hostHeader); err == nil {
		h = hh
	}
	n := normalise(h)
	if g.names[n] || g.anyIP && net.ParseIP(n) != nil {
		return nil
	}
	return fmt.Errorf("Host %q is not a name of this server (allowed: %s; add names with allow-host)",
		hostHeader, strings.Join(g.Allowed(), ", "))
}

// safe methods change nothing and are not checked for their origin.
var safe = []string{http.MethodGet, http.MethodHead, http.MethodOptions}

// CheckOrigin reports whether a state-changing request comes from this
// server's own origin (or from no browser at all), with the reason when it
// does not. It does not look at the method.
func CheckOrigin(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Errorf("cross-site request refused (Sec-Fetch-Site: %s): actions are taken only from this server's own page", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if origin == "null" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("cross-origin request refused (Origin: %s): actions are taken only from this server's own page", origin)
	}
	if hostPort(u.Host, u.Scheme) != hostPort(r.Host, u.Scheme) {
		return fmt.Errorf("cross-origin request refused: Origin %s is not this server (http://%s)", origin, r.Host)
	}
	return nil
}

// hostPort normalises host[:port] with the scheme's default port.
func hostPort(hp, scheme string) string {
	h, p, err := net.SplitHostPort(hp)
	if err != nil {
		h, p = hp, map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return net.JoinHostPort(normalise(h), p)
}

// CheckContentType reports whether a state-changing request says its body
// is JSON.
func CheckContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		if ct == "" {
			ct = "none"
		}
		return fmt.Errorf("want Content-Type: application/json on %s %s (got %s)", r.Method, r.URL.Path, ct)
	}
	return nil
}

// Wrap returns h behind the guard.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.CheckHost(r.Host); err != nil {
			http.Error(w, "tabla: "+err.Error(), http.StatusForbidden)
			return
		}
		if !slices.Contains(safe, r.Method) {
			if err := CheckOrigin(r); err != nil {
				http.Error(w, "tabla: "+err.Error(), http.StatusForbidden)
				return
			}
			if err := CheckContentType(r); err != nil {
				http.Error(w, "tabla: "+err.Error(), http.StatusUnsupportedMediaType)
				return
			}
		}
		if r.ContentLength > g.maxBody {
			http.Error(w, fmt.Sprintf("tabla: request body of %d bytes is over the limit of %d", r.ContentLength, g.maxBody),
				http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, g.maxBody)
		h.ServeHTTP(w, r)
	})
}
