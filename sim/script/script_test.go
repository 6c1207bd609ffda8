package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

func TestParseErrors(t *testing.T) {
	const hdr = `{"tabla-script":1,"game":"gyges","seed":1}` + "\n"
	const daha = `{"tabla-script":1,"game":"daha"}` + "\n"
	const ray = `{"tabla-script":1,"game":"ray"}` + "\n"
	const star = `{"tabla-script":1,"game":"star","first":"red"}` + "\n"
	tests := []struct {
		name, text string
		line       int
		want       string
	}{
		{"empty", "", 1, "empty script"},
		{"no header", `{"lift":"a1"}`, 1, "first line must be the header"},
		{"version", `{"tabla-script":2,"game":"gyges"}`, 1, "version 2"},
		{"unknown header key", `{"tabla-script":1,"game":"gyges","colour":"red"}`, 1, `unknown field "colour"`},
		{"unknown game", `{"tabla-script":1,"game":"chess"}`, 1, `unknown game "chess"`},
		{"sensors", `{"tabla-script":1,"game":"gyges","sensors":"magic"}`, 1, `sensors "magic"`},
		{"board of another game", `{"tabla-script":1,"game":"gyges","board":"six"}`, 1, "is for six"},
		{"bad json", hdr + `{"lift":"a1"}` + "\n" + `{"lift":}`, 3, "bad JSON"},
		{"not an object", hdr + `["lift","a1"]`, 2, "want a JSON object"},
		{"trailing text", hdr + `{"lift":"a1"} x`, 2, "text after the JSON object"},
		{"duplicate key", hdr + `{"place":"a1","place":"a2"}`, 2, `key "place" given twice`},
		{"two actions", hdr + `{"lift":"a1","wait":5}`, 2, "two actions on one line"},
		{"no action", hdr + `{"move":"a1"}`, 2, "no action"},
		{"unknown key", hdr + `{"place":"a1","colour":"2"}`, 2, `place: unknown key "colour"`},
		{"unknown cell", hdr + `{"lift":"z9"}`, 2, `no cell "z9"`},
		{"cell not a string", hdr + `{"lift":3}`, 2, "want a cell name"},
		{"unknown piece", hdr + `{"place":"a1","piece":"red"}`, 2, `unknown gyges piece "red"`},
		{"roll 7", daha + `{"roll":7}`, 2, "roll: a d6 shows 1 to 6, got 7"},
		{"roll x", daha + `{"roll":"X"}`, 2, "roll: a d6 shows 1 to 6, got X"},
		{"roll N on a d6", daha + `{"roll":"N"}`, 2, "a d6 shows 1 to 6, got N"},
		{"roll 4 on ray", ray + `{"roll":4}`, 2, "roll: ray's die shows N, S, E, W, got 4"},
		{"roll true on ray", ray + `{"roll":true}`, 2, "want a face of ray's die (N, S, E, W), got true"},
		{"roll in star", star + `{"lift":"a4"}` + "\n" + `{"roll":4}`, 3, "roll: star has no die (nothing to roll)"},
		{"roll in gyges", hdr + `{"roll":"1"}`, 2, "roll: gyges has no die"},
		{"press", hdr + `{"press":"jump"}`, 2, `unknown button "jump"`},
		{"wait negative", hdr + `{"wait":-5}`, 2, "wait: want a whole number from 0 to 3600000, got -5"},
		{"wait a day", hdr + `{"wait":86400000}`, 2, "wait: want a whole number from 0 to 3600000, got 86400000"},
		{"wait 1e9", hdr + `{"wait":1e9}`, 2, "wait: want a whole number from 0 to 3600000, got 1e9"},
		{"wait fraction", hdr + `{"wait":1.5}`, 2, "whole number"},
		{"fault unknown", hdr + `{"fault":"fire"}`, 2, `unknown fault "fire"`},
		{"bounce without times", hdr + `{"fault":"bounce","cell":"a1"}`, 2, `missing "times"`},
		{"bounce zero", hdr + `{"fault":"bounce","cell":"a1","times":0}`, 2, "bounce: times: want a whole number from 1 to 100, got 0"},
		{"bounce 5000000", hdr + `{"fault":"bounce","cell":"a1","times":5000000}`, 2, "bounce: times: want a whole number from 1 to 100, got 5000000"},
		{"bounce 1e9", hdr + `{"fault":"bounce","cell":"a1","times":1000000000}`, 2, "from 1 to 100, got 1000000000"},
		{"bounce huge", hdr + `{"fault":"bounce","cell":"a1","times":1` + strings.Repeat("0", 400) + `}`, 2, "from 1 to 100, got 1000000000"},
		{"garbage 1 GB", hdr + `{"fault":"garbage","bytes":1000000000}`, 2, "garbage: bytes: want a whole number from 1 to 4096, got 1000000000"},
		{"corrupt zero", hdr + `{"fault":"corrupt","bytes":0}`, 2, "corrupt: bytes: want a whole number from 1 to 4096"},
		{"slow an hour", hdr + `{"fault":"slow","ms":3600000}`, 2, "slow: ms: want a whole number from 0 to 60000, got 3600000"},
		{"delay negative", hdr + `{"fault":"delay","ms":-1}`, 2, "delay: ms: want a whole number from 0 to 60000, got -1"},
		{"garbage extra key", hdr + `{"fault":"garbage","bytes":4,"cell":"a1"}`, 2, `unexpected key "cell"`},
		{"slide one cell", hdr + `{"fault":"slide","cells":["a1"]}`, 2, "from two to 1024 cell names"},
		{"slide too long", hdr + `{"fault":"slide","cells":[` + strings.Repeat(`"a1",`, 1024) + `"a1"]}`, 2, "from two to 1024 cell names"},
		{"expect empty", hdr + `{"expect":{}}`, 2, "empty assertion"},
		{"expect not object", hdr + `{"expect":true}`, 2, "want an object"},
		{"lit unknown cell", hdr + `{"expect":{"lit":["q9"]}}`, 2, `lit: no cell "q9"`},
		{"lit by role unknown cell", hdr + `{"expect":{"lit":{"dest":["a2","q9"]}}}`, 2, `lit: no cell "q9"`},
		{"lit by role not cells", hdr + `{"expect":{"lit":{"dest":"a2"}}}`, 2, "lit must be a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.jsonl", strings.NewReader(tc.text))
			var se *Error
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
				t.Fatalf("got %v, want a syntax *Error", err)
			}
			if se.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, se.Line, tc.line, tc.want)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("t.jsonl:%d: ", tc.line)) {
				t.Errorf("error %q does not start with FILE:LINE", err)
			}
		})
	}
}

// referee is a tiny consumer: it tracks the board from events, lights a
// lifted piece's cell, and answers expectations.
type referee struct {
	vb    *sim.Board
	reqs  chan func()
	state []byte
	conn  bool
	rolls []string
	press []string
	done  chan struct{}
}

func newReferee(vb *sim.Board) *referee {
	r := &referee{vb: vb, reqs: make(chan func()), done: make(chan struct{})}
	go r.loop()
	return r
}

func (r *referee) loop() {
	defer close(r.done)
	def := r.vb.Def()
	for {
		select {
		case ev, ok := <-r.vb.Events():
			if !ok {
				return
			}
			switch ev.Kind {
			case hardware.Snapshot:
				r.state = ev.Codes
			case hardware.Change:
				r.state[ev.Sensor] = ev.Code
				frame := make([]hardware.LED, def.LEDCount)
				if ev.Code == 0 {
					frame[def.LEDs[def.Sensors[ev.Sensor]]] = hardware.LED{G: 255}
				}
				r.vb.SetLEDs(frame)
			case hardware.Status:
				r.conn = ev.Conn == hardware.Connected
			case hardware.Roll:
				r.rolls = append(r.rolls, ev.Face)
			case hardware.Press:
				r.press = append(r.press, ev.Button.String())
			}
		case f := <-r.reqs:
			f()
		}
	}
}

func (r *referee) do(f func()) {
	done := make(chan struct{})
	r.reqs <- func() { f(); close(done) }
	<-done
}

func (r *referee) Sync(ctx context.Context) error { r.do(func() {}); return nil }

func (r *referee) Expect(ctx context.Context, a Action, as map[string]json.RawMessage) error {
	var err error
	r.do(func() {
		for k, raw := range as {
			var got any
			switch k {
			case "in_sync":
				got = r.conn && slices.Equal(r.state, r.vb.Truth())
			case "occupied":
				n := 0
				for _, c := range r.state {
					if c != 0 {
						n++
					}
				}
				got = n
			case "rolls":
				got = r.rolls
			case "presses":
				got = r.press
			default:
				err = fmt.Errorf("unknown assertion %q", k)
				return
			}
			g, _ := json.Marshal(got)
			var want any
			json.Unmarshal(raw, &want)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				err = fmt.Errorf("%s: got %s, want %s", k, g, w)
				return
			}
		}
	})
	return err
}

func TestExampleScripts(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no example scripts")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			vb, err := NewBoard(s)
			if err != nil {
				t.Fatal(err)
			}
			r := newReferee(vb)
			defer func() { vb.Close(); <-r.done }()
			if err := Run(context.Background(), s, vb, r); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRunErrorsNameTheLine(t *testing.T) {
	text := `{"tabla-script":1,"game":"gyges"}
{"place":"a1","piece":"1"}
{"expect":{"lit":["a1"]}}
`
	s, err := Parse("x.jsonl", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := NewBoard(s)
	r := newReferee(vb)
	defer func() { vb.Close(); <-r.done }()
	err = Run(context.Background(), s, vb, r)
	if !errors.Is(err, ErrExpect) || !strings.HasPrefix(err.Error(), "x.jsonl:3: ") || !strings.Contains(err.Error(), "lit: got [], want [a1]") {
		t.Fatalf("got %v", err)
	}

	s, _ = Parse("y.jsonl", strings.NewReader(`{"tabla-script":1,"game":"gyges"}
{"lift":"c3"}
`))
	vb2, _ := NewBoard(s)
	r2 := newReferee(vb2)
	defer func() { vb2.Close(); <-r2.done }()
	err = Run(context.Background(), s, vb2, r2)
	if !errors.Is(err, ErrAction) || !strings.HasPrefix(err.Error(), "y.jsonl:2: ") || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("got %v", err)
	}
}

func TestVirtualTime(t *testing.T) {
	s, err := Parse("t.jsonl", strings.NewReader(`{"tabla-script":1,"game":"gyges"}
{"place":"a1","piece":"1"}
{"wait":500}
{"lift":"a1"}
{"expect":{"lit":["a1"]}}
{"place":"a2"}
`))
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := NewBoard(s)
	r := newReferee(vb)
	defer func() { vb.Close(); <-r.done }()
	if err := Run(context.Background(), s, vb, r); err != nil {
		t.Fatal(err)
	}
	if got := vb.Now().Milliseconds(); got != 200+500+200+200 {
		t.Errorf("board time %d ms, want 1100", got)
	}
}

func TestParseAction(t *testing.T) {
	b := boards.Default("gyges")
	a, err := ParseAction(b, []byte(` {"place":"c3","piece":"2"} `))
	if err != nil || a.Kind != "place" || a.Cell != "c3" || a.Piece != "2" || a.Line != 1 {
		t.Fatalf("got %+v, %v", a, err)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"lift":"z9"}`, `bad action: lift: no cell "z9" on board gyges`},
		{`{"jump":"c3"}`, "bad action: unknown action"},
		{`{"place":"c3","piece":"red"}`, `unknown gyges piece "red"`},
		{`lift c3`, "want a JSON object"},
	} {
		_, err := ParseAction(b, []byte(tc.line))
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.line, err, tc.want)
		}
	}
}

// ticker follows the board on virtual time: it logs when it is synced and
// ticked, and the assertions it is given.
type ticker struct {
	*referee
	log []string
}

func (t *ticker) Sync(ctx context.Context) error {
	t.log = append(t.log, fmt.Sprint("sync ", t.vb.Now().Milliseconds()))
	return t.referee.Sync(ctx)
}

func (t *ticker) Tick(ctx context.Context, now time.Duration) error {
	t.log = append(t.log, fmt.Sprint("tick ", now.Milliseconds()))
	return nil
}

func (t *ticker) Expect(ctx context.Context, a Action, as map[string]json.RawMessage) error {
	for k, v := range as {
		t.log = append(t.log, fmt.Sprintf("expect %s %s", k, v))
	}
	return nil
}

func TestTicker(t *testing.T) {
	s, err := Parse("t.jsonl", strings.NewReader(`{"tabla-script":1,"game":"gyges"}
{"place":"a1","piece":"1"}
{"wait":500}
{"expect":{"lit":{"dest":["a2"]}}}
{"lift":"a1"}
{"expect":{"lit":["a1"]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := NewBoard(s)
	r := &ticker{referee: newReferee(vb)}
	defer func() { vb.Close(); <-r.done }()
	if err := Run(context.Background(), s, vb, r); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sync 0", "sync 200", "tick 200", // place: before and after its time
		"sync 700", "tick 700", // wait
		"sync 700", "tick 700", `expect lit {"dest":["a2"]}`, // lit by role: the handler's
		"sync 700", "sync 900", "tick 900", // lift
		"sync 900", "tick 900", // lit as cells: the LED frame's
	}
	if !slices.Equal(r.log, want) {
		t.Errorf("got\n%q\nwant\n%q", r.log, want)
	}
}

func TestPerformTakesNoTime(t *testing.T) {
	s, _ := Parse("t.jsonl", strings.NewReader(`{"tabla-script":1,"game":"gyges"}`))
	vb, _ := NewBoard(s)
	r := newReferee(vb)
	defer func() { vb.Close(); <-r.done }()
	for _, line := range []string{`{"place":"a1","piece":"1"}`, `{"wait":300}`, `{"lift":"a1"}`} {
		a, err := ParseAction(s.Board, []byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := Perform(vb, a); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	if got := vb.Now(); got != 300*time.Millisecond {
		t.Errorf("board time %v, want 300ms (the wait only)", got)
	}
	a, _ := ParseAction(s.Board, []byte(`{"lift":"a1"}`))
	if err := Perform(vb, a); !errors.Is(err, ErrAction) {
		t.Errorf("lift from an empty cell: %v", err)
	}
	a, _ = ParseAction(s.Board, []byte(`{"expect":{"in_sync":true}}`))
	if err := Perform(vb, a); err == nil {
		t.Error("Perform did an expect")
	}
}

// TestBounds: the largest numbers allowed parse; the page's and the API's
// one-line actions are held to the same bounds and dice as scripts.
func TestBounds(t *testing.T) {
	text := `{"tabla-script":1,"game":"daha"}` + "\n" +
		`{"fault":"bounce","cell":"A1","times":100}` + "\n" +
		`{"fault":"garbage","bytes":4096}` + "\n" +
		`{"fault":"slow","ms":60000}` + "\n" +
		`{"wait":3600000}` + "\n" +
		`{"roll":"6"}` + "\n" + `{"roll":1}` + "\n"
	s, err := Parse("max.jsonl", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Actions; a[0].Times != MaxBounce || a[1].Bytes != MaxLineBytes || a[2].Wait != time.Minute || a[3].Wait != time.Hour ||
		a[4].Face != "6" || a[5].Face != "1" {
		t.Errorf("%+v", a)
	}
	for _, tc := range []struct{ game, line, want string }{
		{"star", `{"roll":4}`, "bad action: roll: star has no die (nothing to roll)"},
		{"six", `{"roll":"1"}`, "bad action: roll: six has no die (nothing to roll)"},
		{"ray", `{"roll":"X"}`, `bad action: roll: ray's die shows N, S, E, W, got "X"`},
		{"gyges", `{"fault":"bounce","cell":"a1","times":5000000}`, "bad action: bounce: times: want a whole number from 1 to 100, got 5000000"},
		{"gyges", `{"wait":-1}`, "bad action: wait: want a whole number from 0 to 3600000, got -1"},
	} {
		_, err := ParseAction(boards.Default(tc.game), []byte(tc.line))
		if !errors.Is(err, ErrSyntax) || err.Error() != tc.want {
			t.Errorf("%s %s: %v, want %q", tc.game, tc.line, err, tc.want)
		}
	}
	if a, err := ParseAction(boards.Default("ray"), []byte(`{"roll":"W"}`)); err != nil || a.Face != "W" {
		t.Errorf("ray W: %+v %v", a, err)
	}
}
