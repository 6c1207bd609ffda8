package runcmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/cmd/tabla/internal/companion"
)

// post sends a request to the API and returns its status and body.
func post(t *testing.T, method, url, host string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
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

// TestAPIOrigin: tabla run's API acts only for its own origin: a
// cross-site POST and a foreign Host are refused with a message, a
// same-origin POST and a script with the token work.
func TestAPIOrigin(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ready struct {
		s    *companion.Session
		addr string
	}
	rc := make(chan ready, 1)
	var errb bytes.Buffer
	o := &Options{IO: &cmdutil.IO{Out: &errb, Err: &errb}, Game: "star", First: "red", Board: "sim", Journal: t.TempDir(),
		Listen: "127.0.0.1:0", Token: "sesame", Seed: 1, AllowHosts: []string{"tabla.local"},
		Ready: func(s *companion.Session, addr string) { rc <- ready{s, addr} }}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var r ready
	select {
	case r = <-rc:
	case err := <-done:
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	base := "http://" + r.addr
	self := map[string]string{"Origin": base, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json",
		"Authorization": "Bearer sesame"}
	script := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer sesame"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for _, tc := range []struct {
		name, method, path, host string
		header                   map[string]string
		body                     string
		code                     int
		msg                      string
	}{
		{"state", "GET", "/api/state", "", nil, "", 200, `"board"`},
		{"state by configured name", "GET", "/api/state", "tabla.local:7420", nil, "", 200, `"board"`},
		{"state by rebound name", "GET", "/api/state", "evil.example:7420", nil, "", 403, `Host "evil.example:7420" is not a name of this server`},
		{"cross-site action", "POST", "/api/action", "", with(self, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), `{"lift":"a4"}`, 403, "cross-site request refused"},
		{"cross-origin command", "POST", "/api/takeback", "", with(script, "Origin", "http://evil.example"), "", 403, "Origin http://evil.example is not this server"},
		{"form action", "POST", "/api/action", "", with(script, "Content-Type", "text/plain"), `{"lift":"a4"}`, 415, "want Content-Type: application/json"},
		{"wrong host action", "POST", "/api/action", "evil.example", script, `{"lift":"a4"}`, 403, "is not a name of this server"},
		{"same-origin action", "POST", "/api/action", "", self, `{"lift":"a4"}`, 200, `"state"`},
		{"script action", "POST", "/api/action", "", script, `{"place":"a4"}`, 200, `"state"`},
		{"script without token", "POST", "/api/action", "", with(script, "Authorization", ""), `{"lift":"a4"}`, 403, "this browser is not paired with the board"},
		{"command without token", "POST", "/api/hint", "", with(script, "Authorization", ""), "", 403, "press the board's confirm button within 30 s"},
		{"wrong token", "POST", "/api/hint", "", with(script, "Authorization", "Bearer nope"), "", 401, "bad token"},
		{"pairing request", "POST", "/api/pair", "", with(self, "Authorization", ""), "{}", 202, `"pending":true`},
		{"live page", "GET", "/", "", nil, "", 200, "live.js"},
		{"library", "GET", "/library/api/games", "", nil, "", 200, `"id":"game-`},
		{"script command", "POST", "/api/new", "", script, "", 200, `"state"`},
		{"5 KB action", "POST", "/api/action", "", script, `{"expect":{"lit":[` + strings.Repeat(`"a4",`, 1000) + `"a4"]}}`, 422, "expect"},
		{"huge action", "POST", "/api/action", "", script, `{"wait":1` + strings.Repeat(" ", 1<<20) + `}`, 413, "over the limit"},
		{"bounce 5000000", "POST", "/api/action", "", script, `{"fault":"bounce","cell":"a4","times":5000000}`, 422, "times: want a whole number from 1 to 100, got 5000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, tc.method, base+tc.path, tc.host, tc.header, tc.body)
			if code != tc.code || !strings.Contains(body, tc.msg) {
				t.Errorf("%d %q, want %d and %q", code, body, tc.code, tc.msg)
			}
		})
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRejectedOptions: settle and log format out of range, from flags and
// from the config file, and a config line too long, are refused naming
// what and where.
func TestRejectedOptions(t *testing.T) {
	var errb bytes.Buffer
	io := &cmdutil.IO{Out: &errb, Err: &errb}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Settle: 1000000 * time.Hour}, "--settle 1000000h0m0s is out of range: want 1ms to 10s"},
		{Options{Settle: -time.Second}, "--settle -1s is out of range"},
		{Options{LogFormat: "xml"}, `--log-format "xml": want text or json`},
	} {
		o := tc.o
		o.IO, o.Game, o.Board, o.Listen, o.Journal = io, "star", "sim", "off", t.TempDir()
		err := Run(context.Background(), &o)
		if cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want exit 2 and %q", tc.o, err, tc.want)
		}
	}
	err := Run(context.Background(), &Options{IO: io, Game: "star", Board: "sim", Listen: "127.0.0.1:0", Journal: t.TempDir(),
		AllowHosts: []string{"http://tabla.local/"}})
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `allowed host 1 "http://tabla.local/"`) {
		t.Errorf("--allow-host URL: %v", err)
	}

	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"game = star\nsettle = 1000000h\n", "tabla.conf:2: settle: 1000000h0m0s is out of range"},
		{"settle = -5ms\n", "tabla.conf:1: settle: -5ms is out of range"},
		{"settle = soon\n", "tabla.conf:1: settle:"},
		{"game = star\n\nlog-format = xml\n", `tabla.conf:3: log-format: "xml": want text or json`},
		{"game = star\n# " + strings.Repeat("x", 70<<10) + "\n", "tabla.conf:2: line longer than 64 KB"},
		{"allow-host = tabla.local, 192.168.1.20\n", ""},
	} {
		p := filepath.Join(dir, "tabla.conf")
		os.WriteFile(p, []byte(tc.text), 0o644)
		o := &Options{}
		err := o.load(p, func(string) bool { return false })
		if tc.want == "" {
			if err != nil || strings.Join(o.AllowHosts, " ") != "tabla.local 192.168.1.20" {
				t.Errorf("allow-host: %v %v", err, o.AllowHosts)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: %v, want %q", tc.text, err, tc.want)
		}
	}
}
