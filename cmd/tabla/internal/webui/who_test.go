package webui

import (
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
)

// TestWhoAPI: POST /api/who is a control like the others — refused to a
// browser that is not paired, taken from a paired one (or the token); a
// malformed body is 400, a value the session refuses 422 with its detail.
func TestWhoAPI(t *testing.T) {
	be := &tableBackend{engines: map[string]bool{}}
	var got record.Who
	setWho := func(w record.Who) error {
		if w.Round == "x" {
			return &record.FieldError{Field: "round", Msg: `"x": want a round number`}
		}
		got = w
		return nil
	}
	clock := newClock()
	p := &Pairing{Request: be.request, Now: clock.now}
	srv := httptest.NewServer(Handler(be, Options{Mode: ModeTable, Command: be.Command, Commands: []string{"hint"},
		SetWho: setWho, Pairing: p, Token: "sesame"}))
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	phone := &client{t: t, c: &http.Client{Jar: jar}, url: srv.URL}
	body := `{"names":{"north":"Ayşe"},"event":"club","round":"3"}`
	if code, resp := phone.do("POST", "/api/who", "", body); code != http.StatusForbidden || !strings.Contains(resp, "not_paired") {
		t.Errorf("unpaired: %d %s", code, resp)
	}
	if got.Event != "" {
		t.Fatalf("an unpaired browser set %+v", got)
	}
	if code, resp := phone.do("GET", "/api/board", "", ""); !strings.Contains(resp, `"who":true`) {
		t.Errorf("board view does not offer who: %d %s", code, resp)
	}
	phone.do("POST", "/api/pair", "", "{}")
	be.grant(true)
	waitPair(t, phone, func(s PairStatus) bool { return s.Paired })
	if code, resp := phone.do("POST", "/api/who", "", body); code != http.StatusOK {
		t.Fatalf("paired: %d %s", code, resp)
	}
	if got.Names["north"] != "Ayşe" || got.Event != "club" || got.Round != "3" {
		t.Errorf("set %+v", got)
	}
	if code, resp := phone.do("POST", "/api/who", "", `{"players":{"north":"Ayşe"}}`); code != http.StatusBadRequest || !strings.Contains(resp, "bad_request") {
		t.Errorf("unknown field: %d %s", code, resp)
	}
	code, resp := phone.do("POST", "/api/who", "", `{"round":"x"}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(resp, "refused") || !strings.Contains(resp, "round") {
		t.Errorf("refused value: %d %s", code, resp)
	}
	var fe *record.FieldError
	if !errors.As(setWho(record.Who{Round: "x"}), &fe) {
		t.Fatal("the fake's error")
	}
}
