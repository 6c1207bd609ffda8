package simcmd

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// servePage starts the simulator page on a free port and returns its
// address and session.
func servePage(t *testing.T, o PageOptions) (string, *PageSession) {
	t.Helper()
	sctx, stop := context.WithCancel(context.Background())
	type ready struct {
		addr string
		ps   *PageSession
	}
	rc := make(chan ready, 1)
	o.Listen = "127.0.0.1:0"
	o.Ready = func(a string, ps *PageSession) { rc <- ready{a, ps} }
	done := make(chan error, 1)
	go func() { done <- ServePage(sctx, &o, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	select {
	case r := <-rc:
		t.Cleanup(func() { stop(); <-done })
		return r.addr, r.ps
	case err := <-done:
		stop()
		t.Fatalf("ServePage: %v", err)
	}
	return "", nil
}

// TestPageOrigin: the simulator page's server takes actions only from its
// own page (or a tool with no browser headers), and answers only to its
// own names.
func TestPageOrigin(t *testing.T) {
	addr, ps := servePage(t, PageOptions{Game: "gyges", Sensors: "identifying", Seed: 1, Token: "sesame", AllowHosts: []string{"tabla.local"}})
	base := "http://" + addr
	do := func(method, path, host string, header map[string]string, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if host != "" {
			req.Host = host
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	page := map[string]string{"Origin": base, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
	for _, tc := range []struct {
		name, method, path, host string
		header                   map[string]string
		body                     string
		code                     int
		msg                      string
	}{
		{"page", "GET", "/", "", nil, "", 200, "<"},
		{"page by localhost", "GET", "/api/board", "localhost" + addr[strings.LastIndex(addr, ":"):], nil, "", 200, `"cells"`},
		{"page by configured name", "GET", "/api/state", "tabla.local:7421", nil, "", 200, `"pieces"`},
		{"rebound name", "GET", "/api/state", "attacker.example:7421", nil, "", 403, `Host "attacker.example:7421" is not a name of this server`},
		{"rebound action", "POST", "/api/action", "attacker.example:7421", page, `{"place":"c1","piece":"3"}`, 403, "is not a name of this server"},
		{"cross-site action", "POST", "/api/action", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}, `{"place":"c1","piece":"3"}`, 403, "cross-site request refused (Sec-Fetch-Site: cross-site)"},
		{"cross-origin action", "POST", "/api/action", "", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, `{"place":"c1","piece":"3"}`, 403, "Origin http://evil.example is not this server"},
		{"form action", "POST", "/api/action", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, `{"place":"c1","piece":"3"}`, 415, "want Content-Type: application/json"},
		{"cross-site command", "POST", "/api/new", "", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json", "Authorization": "Bearer sesame"}, "", 403, "cross-site request refused"},
		{"same-origin action", "POST", "/api/action", "", page, `{"place":"c1","piece":"3"}`, 200, `"c1":"3"`},
		{"script action", "POST", "/api/action", "", map[string]string{"Content-Type": "application/json"}, `{"place":"d6","piece":"2"}`, 200, `"d6":"2"`},
		{"script command with the token", "POST", "/api/takeback", "", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer sesame"}, "", 409, ""},
		{"script command without the token", "POST", "/api/new", "", map[string]string{"Content-Type": "application/json"}, "", 401, "bad or missing token"},
		{"5 KB action", "POST", "/api/action", "", page, `{"expect":{"lit":[` + strings.Repeat(`"c1",`, 1000) + `"c1"]}}`, 422, "expect: lit"},
		{"bounce 5000000", "POST", "/api/action", "", page, `{"fault":"bounce","cell":"c1","times":5000000}`, 422, "times: want a whole number from 1 to 100, got 5000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(tc.method, tc.path, tc.host, tc.header, tc.body)
			if code != tc.code || !strings.Contains(body, tc.msg) {
				t.Errorf("%d %q, want %d and %q", code, clip(body), tc.code, tc.msg)
			}
		})
	}
	pieces := ps.State().(PageState).Pieces
	if pieces["c1"] != "3" || pieces["d6"] != "2" || len(pieces) != 2 {
		t.Errorf("pieces %v: only the same-origin and the script action should have acted", pieces)
	}
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
