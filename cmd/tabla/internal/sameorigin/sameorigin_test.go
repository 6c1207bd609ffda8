package sameorigin

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// echo answers 200 with the body it read (so body limits show).
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	w.Write(b)
})

type req struct {
	name, method, host string
	header             map[string]string
	body               string
	code               int
	msg                string // in the body of a refusal
}

func run(t *testing.T, g *Guard, tests []req) {
	t.Helper()
	h := g.Wrap(echo)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "http://x/api/action", strings.NewReader(tc.body))
			r.Host = tc.host
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.code, w.Body.String())
			}
			if tc.msg != "" && !strings.Contains(w.Body.String(), tc.msg) {
				t.Errorf("message %q lacks %q", w.Body.String(), tc.msg)
			}
		})
	}
}

var jsonCT = map[string]string{"Content-Type": "application/json"}

func with(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestLoopback(t *testing.T) {
	g, err := New(Config{Addr: "127.0.0.1:7421"})
	if err != nil {
		t.Fatal(err)
	}
	const self = "http://127.0.0.1:7421"
	run(t, g, []req{
		// reads: only the Host matters
		{"get", "GET", "127.0.0.1:7421", nil, "", 200, ""},
		{"get localhost", "GET", "localhost:7421", nil, "", 200, ""},
		{"get LOCALHOST.", "GET", "LOCALHOST.:7421", nil, "", 200, ""},
		{"get ::1", "GET", "[::1]:7421", nil, "", 200, ""},
		{"get rebinding", "GET", "evil.example:7421", nil, "", 403, `Host "evil.example:7421" is not a name of this server`},
		{"get LAN IP", "GET", "192.168.1.20:7421", nil, "", 403, "is not a name"},
		{"post no Host", "POST", "", jsonCT, "{}", 403, "no Host header"},
		{"post rebinding", "POST", "evil.example:7421", jsonCT, "{}", 403, "allow-host"},
		// the page's own fetch
		{"same origin", "POST", "127.0.0.1:7421", with(jsonCT, "Origin", self, "Sec-Fetch-Site", "same-origin"), `{"lift":"c1"}`, 200, ""},
		{"same origin via localhost", "POST", "localhost:7421", with(jsonCT, "Origin", "http://localhost:7421"), "{}", 200, ""},
		// a script with the token: no browser headers
		{"script", "POST", "127.0.0.1:7421", with(jsonCT, "Authorization", "Bearer t"), "{}", 200, ""},
		// cross-site
		{"cross site", "POST", "127.0.0.1:7421", with(jsonCT, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), "{}", 403, "cross-site request refused (Sec-Fetch-Site: cross-site)"},
		{"same site other port", "POST", "127.0.0.1:7421", with(jsonCT, "Origin", "http://127.0.0.1:8080", "Sec-Fetch-Site", "same-site"), "{}", 403, "Sec-Fetch-Site: same-site"},
		{"origin only", "POST", "127.0.0.1:7421", with(jsonCT, "Origin", "http://evil.example"), "{}", 403, "Origin http://evil.example is not this server"},
		{"origin other port", "POST", "127.0.0.1:7421", with(jsonCT, "Origin", "http://127.0.0.1:8080"), "{}", 403, "is not this server"},
		{"origin null", "POST", "127.0.0.1:7421", with(jsonCT, "Origin", "null"), "{}", 403, "Origin: null"},
		{"form post", "POST", "127.0.0.1:7421", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "a=b", 415, "want Content-Type: application/json on POST /api/action (got application/x-www-form-urlencoded)"},
		{"text post", "POST", "127.0.0.1:7421", map[string]string{"Content-Type": "text/plain"}, "{}", 415, "got text/plain"},
		{"no content type", "POST", "127.0.0.1:7421", nil, "", 415, "got none"},
		{"json charset", "POST", "127.0.0.1:7421", map[string]string{"Content-Type": "application/json; charset=utf-8"}, "{}", 200, ""},
		// bodies
		{"5 KB body", "POST", "127.0.0.1:7421", jsonCT, strings.Repeat(" ", 5000) + "{}", 200, ""},
		{"huge body", "POST", "127.0.0.1:7421", jsonCT, strings.Repeat(" ", DefaultMaxBody+1), 413, "over the limit of 65536"},
	})
}

func TestLAN(t *testing.T) {
	g, err := New(Config{Addr: "0.0.0.0:7420", Hosts: []string{"tabla.local", "Board.Example."}})
	if err != nil {
		t.Fatal(err)
	}
	hn, _ := os.Hostname()
	short, _, _ := strings.Cut(strings.ToLower(hn), ".")
	run(t, g, []req{
		{"configured name", "GET", "tabla.local:7420", nil, "", 200, ""},
		{"configured name, any case", "GET", "board.example:7420", nil, "", 200, ""},
		{"host name", "GET", hn + ":7420", nil, "", 200, ""},
		{"host name .local", "GET", short + ".local:7420", nil, "", 200, ""},
		{"IP", "GET", "192.168.1.20:7420", nil, "", 200, ""},
		{"IPv6", "GET", "[fe80::1]:7420", nil, "", 200, ""},
		{"rebinding", "GET", "evil.example:7420", nil, "", 403, "tabla.local"},
		{"page by name", "POST", "tabla.local:7420", with(jsonCT, "Origin", "http://tabla.local:7420", "Sec-Fetch-Site", "same-origin"), "{}", 200, ""},
		{"page by IP", "POST", "192.168.1.20:7420", with(jsonCT, "Origin", "http://192.168.1.20:7420"), "{}", 200, ""},
		{"other name's page", "POST", "192.168.1.20:7420", with(jsonCT, "Origin", "http://tabla.local:7420"), "{}", 403, "is not this server"},
	})
	for _, bad := range []string{"http://tabla.local", "tabla.local:80", "a/b", "", "a..b", "-x y"} {
		if _, err := New(Config{Addr: ":7420", Hosts: []string{bad}}); err == nil || !strings.Contains(err.Error(), "allowed host 1") {
			t.Errorf("host %q: %v", bad, err)
		}
	}
	if _, err := New(Config{Addr: "7420"}); err == nil || !strings.Contains(err.Error(), `listen address "7420"`) {
		t.Errorf("bad addr: %v", err)
	}
}
