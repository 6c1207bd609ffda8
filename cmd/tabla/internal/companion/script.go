package companion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

// ScriptHeader is a script's first line (SCRIPTS.md).
type ScriptHeader struct {
	Version int    `json:"tabla-script"`
	Game    string `json:"game"`
	Variant string `json:"variant,omitempty"`
	First   string `json:"first,omitempty"`
	N       int    `json:"n,omitempty"`
	Players int    `json:"players,omitempty"`
	Board   string `json:"board,omitempty"`
	Sensors string `json:"sensors,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
}

// Record returns the game record header the script describes.
func (h *ScriptHeader) Record() record.Header {
	return record.Header{Tabla: record.Version, Game: h.Game, Variant: h.Variant, First: h.First, N: h.N,
		Players: h.Players, Board: h.Board}
}

// ScriptAction is one action line.
type ScriptAction struct {
	Line int
	Kind string // lift, place, remove, roll, press, wait, fault, expect, slide
	Obj  map[string]json.RawMessage
}

// Script is a parsed physical-action script.
type Script struct {
	Name    string
	Header  ScriptHeader
	Actions []ScriptAction
}

// ScriptError is a malformed script or a failed expectation, with its line.
type ScriptError struct {
	File string
	Line int
	Msg  string
	// Expect is set for a failed expectation (not a malformed line).
	Expect bool
}

func (e *ScriptError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

var actionKinds = []string{"lift", "place", "remove", "roll", "press", "wait", "fault", "expect", "slide"}

// ParseScript reads a script; errors name the 1-based line.
func ParseScript(r io.Reader, name string) (*Script, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	s := &Script{Name: name}
	line := 0
	bad := func(format string, args ...any) error {
		return &ScriptError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&s.Header); err != nil {
				return nil, bad("header: %v", strings.TrimPrefix(err.Error(), "json: "))
			}
			if s.Header.Version != 1 {
				return nil, bad(`header: want "tabla-script": 1`)
			}
			if s.Header.Game == "" {
				return nil, bad("header: no game")
			}
			if s.Header.Sensors != "" && s.Header.Sensors != "presence" && s.Header.Sensors != "identifying" {
				return nil, bad("header: sensors %q: want presence or identifying", s.Header.Sensors)
			}
			continue
		}
		if len(text) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(text, &obj); err != nil {
			return nil, bad("not a JSON object: %v", err)
		}
		a := ScriptAction{Line: line, Obj: obj}
		for _, k := range actionKinds {
			if _, ok := obj[k]; ok {
				if a.Kind != "" && !(a.Kind == "place" || k == "place") {
					return nil, bad("two actions in one line (%s and %s)", a.Kind, k)
				}
				if a.Kind == "" || k != "place" {
					a.Kind = k
				}
			}
		}
		if _, ok := obj["place"]; ok {
			a.Kind = "place"
		}
		if a.Kind == "" {
			return nil, bad("unknown action %s (want lift, place, remove, roll, press, wait, fault or expect)", text)
		}
		if err := checkAction(&a); err != nil {
			return nil, bad("%s: %v", a.Kind, err)
		}
		s.Actions = append(s.Actions, a)
	}
	if err := sc.Err(); err != nil {
		return nil, &ScriptError{File: name, Line: line + 1, Msg: err.Error()}
	}
	if line == 0 {
		return nil, &ScriptError{File: name, Line: 1, Msg: "empty script: the header line is missing"}
	}
	return s, nil
}

func (a *ScriptAction) str(k string) (string, error) {
	var s string
	if err := json.Unmarshal(a.Obj[k], &s); err != nil {
		return "", fmt.Errorf("%s: want a string, got %s", k, a.Obj[k])
	}
	return s, nil
}

func (a *ScriptAction) int(k string) (int, error) {
	var n int
	if err := json.Unmarshal(a.Obj[k], &n); err != nil {
		return 0, fmt.Errorf("%s: want an integer, got %s", k, a.Obj[k])
	}
	return n, nil
}

func checkAction(a *ScriptAction) error {
	var err error
	switch a.Kind {
	case "lift", "remove":
		_, err = a.str(a.Kind)
	case "place":
		if _, err = a.str("place"); err == nil {
			if _, ok := a.Obj["piece"]; ok {
				_, err = a.str("piece")
			}
		}
	case "press":
		var s string
		if s, err = a.str("press"); err == nil {
			_, err = hardware.ParseButton(s)
		}
	case "wait":
		var n int
		if n, err = a.int("wait"); err == nil && n < 0 {
			err = errors.New("negative wait")
		}
	case "roll":
		raw := a.Obj["roll"]
		var s string
		var n int
		if json.Unmarshal(raw, &s) != nil && json.Unmarshal(raw, &n) != nil {
			err = fmt.Errorf("want a die face, got %s", raw)
		}
	case "fault":
		var s string
		if s, err = a.str("fault"); err == nil {
			switch s {
			case "unplug", "replug", "garbage":
			case "bounce":
				if _, err = a.str("cell"); err == nil {
					_, err = a.int("times")
				}
			default:
				err = fmt.Errorf("unknown fault %q (want unplug, replug, bounce or garbage)", s)
			}
		}
	case "expect":
		var obj map[string]json.RawMessage
		if err = json.Unmarshal(a.Obj["expect"], &obj); err != nil {
			err = errors.New("want an object")
		}
	case "slide":
		var cells []string
		if json.Unmarshal(a.Obj["slide"], &cells) != nil || len(cells) < 2 {
			err = errors.New("want a list of at least two cells")
		}
	}
	return err
}

// Player plays a script on a virtual board feeding a session, on virtual
// time: each action takes sim.ActionTime, then the session reads the
// settled board.
type Player struct {
	Sim  *sim.Board
	Sess *Session
	// Expect receives every expect action's failure (nil: a failure stops
	// the script with a ScriptError).
	Expect func(line int, err error)
	events <-chan hardware.Event
}

// NewPlayer starts a player; the sim's first events (snapshot, status) are
// fed at once.
func NewPlayer(b *sim.Board, s *Session) *Player {
	p := &Player{Sim: b, Sess: s, events: b.Events()}
	p.sync()
	return p
}

// sync feeds every event the virtual board has emitted so far.
func (p *Player) sync() {
	done := make(chan error, 1)
	go func() { done <- p.Sim.Flush(context.Background()) }()
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				return
			}
			p.Sess.Handle(ev)
		case <-done:
			for {
				select {
				case ev, ok := <-p.events:
					if !ok {
						return
					}
					p.Sess.Handle(ev)
				default:
					return
				}
			}
		}
	}
}

// pass lets board time go by and reads the settled board.
func (p *Player) pass(d time.Duration) {
	p.Sim.Advance(d)
	p.sync()
	p.Sess.Tick(p.Sim.Now())
}

// Run plays every action of s.
func (p *Player) Run(s *Script) error {
	for _, a := range s.Actions {
		if err := p.Do(&a); err != nil {
			var se *ScriptError
			if errors.As(err, &se) {
				se.File = s.Name
				return se
			}
			return &ScriptError{File: s.Name, Line: a.Line, Msg: err.Error()}
		}
	}
	return nil
}

// Act performs one action given as a JSON object (the page's POST).
func (p *Player) Act(raw json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return err
	}
	s, err := ParseScript(strings.NewReader(`{"tabla-script":1,"game":"x"}`+"\n"+string(raw)), "action")
	if err != nil {
		return err
	}
	return p.Do(&s.Actions[0])
}

// Do performs one action.
func (p *Player) Do(a *ScriptAction) error {
	switch a.Kind {
	case "wait":
		n, _ := a.int("wait")
		p.pass(time.Duration(n) * time.Millisecond)
		return nil
	case "expect":
		p.sync()
		p.Sess.Tick(p.Sim.Now())
		var obj map[string]json.RawMessage
		json.Unmarshal(a.Obj["expect"], &obj)
		st := p.Sess.State()
		if e := st.Expect(obj); e != nil {
			if p.Expect != nil {
				p.Expect(a.Line, e)
				return nil
			}
			return &ScriptError{Line: a.Line, Msg: "expect: " + e.Error(), Expect: true}
		}
		return nil
	}
	if err := p.perform(a); err != nil {
		return err
	}
	p.sync()
	p.pass(sim.ActionTime)
	return nil
}

// perform carries a physical action out on the virtual board.
func (p *Player) perform(a *ScriptAction) error {
	b := p.Sim
	var err error
	switch a.Kind {
	case "lift":
		c, _ := a.str("lift")
		err = b.Lift(c)
	case "remove":
		c, _ := a.str("remove")
		err = b.Remove(c)
	case "place":
		c, _ := a.str("place")
		piece := ""
		if _, ok := a.Obj["piece"]; ok {
			piece, _ = a.str("piece")
		}
		err = b.Place(c, piece)
	case "slide":
		var cells []string
		json.Unmarshal(a.Obj["slide"], &cells)
		err = b.Slide(cells...)
	case "roll":
		raw := a.Obj["roll"]
		var face string
		if json.Unmarshal(raw, &face) != nil {
			var n int
			json.Unmarshal(raw, &n)
			face = strconv.Itoa(n)
		}
		err = b.Roll(face)
	case "press":
		s, _ := a.str("press")
		bt, _ := hardware.ParseButton(s)
		err = b.Press(bt)
	case "fault":
		f, _ := a.str("fault")
		switch f {
		case "unplug":
			err = b.Unplug()
		case "replug":
			err = b.Replug()
		case "bounce":
			c, _ := a.str("cell")
			n, _ := a.int("times")
			err = b.Bounce(c, n)
		case "garbage":
			n, _ := a.int("bytes")
			b.Line("garbage", n) // only meaningful on a pty
		}
	}
	if err != nil {
		return &ScriptError{Line: a.Line, Msg: err.Error()}
	}
	return nil
}

// LivePlayer performs actions on a virtual board whose events a running
// session (Session.Run) reads itself, on the board's own clock: the
// simulator page's way in, and `tabla run --board sim`'s /api/action.
type LivePlayer struct {
	b    *sim.Board
	sess *Session
}

// NewLivePlayer returns a live player.
func NewLivePlayer(b *sim.Board, s *Session) *LivePlayer { return &LivePlayer{b: b, sess: s} }

// Act performs one SCRIPTS.md action (expect and wait included: wait
// advances the board clock, expect checks the state now).
func (p *LivePlayer) Act(raw json.RawMessage) error {
	s, err := ParseScript(strings.NewReader(`{"tabla-script":1,"game":"x"}`+"\n"+string(raw)), "action")
	if err != nil {
		return err
	}
	if len(s.Actions) != 1 {
		return errors.New("companion: want one action")
	}
	a := &s.Actions[0]
	switch a.Kind {
	case "expect":
		var obj map[string]json.RawMessage
		json.Unmarshal(a.Obj["expect"], &obj)
		st := p.sess.State()
		return st.Expect(obj)
	case "wait":
		n, _ := a.int("wait")
		p.b.Advance(time.Duration(n) * time.Millisecond)
		return nil
	}
	pl := &Player{Sim: p.b, Sess: p.sess}
	return pl.perform(a)
}
