package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/games" // every game's die
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

// Bounds of the numbers an action may give: a script line, the simulator
// page or an API client alike. Beyond them an action would cost time or
// memory out of all proportion (a bounce emits 2×times events at once).
const (
	MaxBounce    = 100       // fault bounce: times (a chattering reed switch makes a few)
	MaxLineBytes = 4096      // fault garbage, drop, corrupt: bytes
	MaxWaitMs    = 3_600_000 // wait: one hour of board time
	MaxDelayMs   = 60_000    // fault delay, slow: ms
	MaxSlide     = 1024      // fault slide: cells crossed
)

// Sentinel errors, wrapped by *Error.
var (
	// ErrSyntax: the script is malformed (exit status 2 in the CLI).
	ErrSyntax = errors.New("malformed script")
	// ErrAction: an action could not be done on the board (lift from an
	// empty cell, …).
	ErrAction = errors.New("action failed")
	// ErrExpect: an expect line did not hold (its message reads
	// "FILE:LINE: expect: KEY: got …, want …").
	ErrExpect = errors.New("expect")
)

// Error says where a script went wrong.
type Error struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Header is a script's first line.
type Header struct {
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

// Action is one line of a script.
type Action struct {
	Line int
	Kind string // lift, place, remove, roll, press, wait, fault, expect

	Cell   string          // lift, place, remove; bounce, dead, stuck, heal
	Piece  string          // place from outside the board
	Face   string          // roll: "1".."6", "N", "E", "S", "W"
	Button hardware.Button // press
	Wait   time.Duration   // wait; delay and slow faults
	Fault  string          // unplug, replug, bounce, garbage, drop, corrupt, reorder, delay, slow, slide, dead, stuck, heal
	Times  int             // bounce
	Bytes  int             // garbage, drop, corrupt
	Cells  []string        // slide
	// Expect holds an expect line's assertions by key, values raw.
	Expect map[string]json.RawMessage
	// Text is the line as written.
	Text string
}

// Script is a parsed script.
type Script struct {
	File    string
	Header  Header
	Board   *boards.Board
	Sensors sim.SensorKind
	Actions []Action
}

// ParseFile reads a script file.
func ParseFile(path string) (*Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

type lineParser struct {
	file string
	line int
	game string
	b    *boards.Board
}

var (
	diesMu sync.Mutex
	dies   = map[string]*engine.Die{}
)

// gameDie is a game's die from its engine (nil: the game has none).
func gameDie(game string) (*engine.Die, error) {
	diesMu.Lock()
	defer diesMu.Unlock()
	if d, ok := dies[game]; ok {
		return d, nil
	}
	st, err := engine.New(game, engine.Config{})
	if err != nil {
		return nil, err
	}
	d := st.Info().Die
	dies[game] = d
	return d, nil
}

func (p *lineParser) errf(format string, args ...any) error {
	err := &syntaxError{fmt.Sprintf(format, args...)}
	if p.file == "" { // ParseAction: one line, no file
		return fmt.Errorf("bad action: %w", err)
	}
	return &Error{File: p.file, Line: p.line, Err: err}
}

// syntaxError says what is malformed; it wraps ErrSyntax without repeating
// it ("FILE:LINE: lift: no cell …").
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }
func (e *syntaxError) Unwrap() error { return ErrSyntax }

// ParseAction reads one action line on its own, as the simulator page or an
// HTTP API sends it: a JSON object such as {"lift":"c1"}, checked as Parse
// checks a script's lines against board b (cells, and pieces of its game).
// Errors wrap ErrSyntax and say what is wrong ("bad action: lift: no cell
// …").
func ParseAction(b *boards.Board, line []byte) (Action, error) {
	p := &lineParser{line: 1, game: b.Game, b: b}
	return p.action(strings.TrimSpace(string(line)))
}

// Parse reads a script; name is used in errors and to find a relative
// board file.
func Parse(name string, r io.Reader) (*Script, error) {
	p := &lineParser{file: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	s := &Script{File: name}
	header := false
	for sc.Scan() {
		p.line++
		text := sc.Text()
		if p.line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if !header {
			if err := p.header(s, text); err != nil {
				return nil, err
			}
			header = true
			continue
		}
		a, err := p.action(text)
		if err != nil {
			return nil, err
		}
		s.Actions = append(s.Actions, a)
	}
	if err := sc.Err(); err != nil {
		p.line++
		return nil, p.errf("%v", err)
	}
	if !header {
		p.line = max(p.line, 1)
		return nil, p.errf(`empty script: want a header line {"tabla-script":1,"game":...}`)
	}
	return s, nil
}

// object decodes one line into its keys, rejecting anything but a single
// JSON object with distinct keys.
func (p *lineParser) object(text string) (map[string]json.RawMessage, []string, error) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, nil, p.errf("want a JSON object, got %q", clip(text))
	}
	m := map[string]json.RawMessage{}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil, p.errf("bad JSON: %v", err)
		}
		k := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, p.errf("bad JSON value for %q: %v", k, err)
		}
		if _, dup := m[k]; dup {
			return nil, nil, p.errf("key %q given twice", k)
		}
		m[k] = v
		keys = append(keys, k)
	}
	if _, err := d.Token(); err != nil {
		return nil, nil, p.errf("bad JSON: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, nil, p.errf("text after the JSON object")
	}
	return m, keys, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func (p *lineParser) header(s *Script, text string) error {
	m, _, err := p.object(text)
	if err != nil {
		return err
	}
	if _, ok := m["tabla-script"]; !ok {
		return p.errf(`the first line must be the header {"tabla-script":1,"game":...}`)
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.DisallowUnknownFields()
	if err := d.Decode(&s.Header); err != nil {
		return p.errf("header: %v", err)
	}
	h := &s.Header
	if h.Version != 1 {
		return p.errf("header: tabla-script version %d, this tabla reads version 1", h.Version)
	}
	if _, ok := boards.Games[h.Game]; !ok {
		return p.errf("header: unknown game %q (want daha, star, gyges, ray or six)", h.Game)
	}
	kind, err := sim.ParseSensorKind(h.Sensors)
	if err != nil {
		return p.errf("header: sensors %q (want presence or identifying)", h.Sensors)
	}
	s.Sensors = kind
	if h.Board == "" {
		s.Board = boards.Default(h.Game)
	} else {
		b, err := boards.Open(h.Board)
		if err != nil && strings.ContainsAny(h.Board, "/\\.") && !filepath.IsAbs(h.Board) {
			b, err = boards.Open(filepath.Join(filepath.Dir(p.file), h.Board))
		}
		if err != nil {
			return p.errf("header: board: %v", err)
		}
		if b.Game != h.Game {
			return p.errf("header: board %s is for %s, the script plays %s", b.Name, b.Game, h.Game)
		}
		s.Board = b
	}
	p.game, p.b = h.Game, s.Board
	return nil
}

var actionKeys = map[string][]string{
	"lift": nil, "place": {"piece"}, "remove": nil, "roll": nil, "press": nil,
	"wait": nil, "fault": {"cell", "times", "bytes", "ms", "cells"}, "expect": nil,
}

var faultKeys = map[string][]string{
	"unplug": nil, "replug": nil, "reorder": nil,
	"bounce": {"cell", "times"}, "garbage": {"bytes"}, "drop": {"bytes"}, "corrupt": {"bytes"},
	"delay": {"ms"}, "slow": {"ms"}, "slide": {"cells"},
	"dead": {"cell"}, "stuck": {"cell"}, "heal": {"cell"},
}

func (p *lineParser) action(text string) (Action, error) {
	m, keys, err := p.object(text)
	if err != nil {
		return Action{}, err
	}
	a := Action{Line: p.line, Text: text}
	for _, k := range keys {
		if _, ok := actionKeys[k]; ok {
			if a.Kind != "" {
				return a, p.errf("two actions on one line (%s and %s)", a.Kind, k)
			}
			a.Kind = k
		}
	}
	if a.Kind == "" {
		return a, p.errf("unknown action %s: no action key (want lift, place, remove, roll, press, wait, fault or expect)", clip(text))
	}
	allowed := actionKeys[a.Kind]
	for _, k := range keys {
		if k != a.Kind && !slices.Contains(allowed, k) {
			return a, p.errf("%s: unknown key %q", a.Kind, k)
		}
	}
	v := m[a.Kind]
	switch a.Kind {
	case "lift", "remove":
		a.Cell, err = p.cell(a.Kind, v)
	case "place":
		if a.Cell, err = p.cell("place", v); err == nil {
			if raw, ok := m["piece"]; ok {
				if err = json.Unmarshal(raw, &a.Piece); err != nil {
					return a, p.errf("place: piece must be a string")
				}
				if !slices.Contains(boards.Games[p.game], a.Piece) {
					return a, p.errf("place: unknown %s piece %q (want %s)", p.game, a.Piece, strings.Join(boards.Games[p.game], ", "))
				}
			}
		}
	case "roll":
		a.Face, err = p.face(v)
	case "press":
		var name string
		if json.Unmarshal(v, &name) != nil {
			return a, p.errf("press: want a button name")
		}
		if a.Button, err = hardware.ParseButton(name); err != nil {
			return a, p.errf("press: unknown button %q (want roll, takeback, hint, confirm or new)", name)
		}
	case "wait":
		ms, e := p.count("wait", v, 0, MaxWaitMs)
		a.Wait, err = time.Duration(ms)*time.Millisecond, e
	case "expect":
		if err = json.Unmarshal(v, &a.Expect); err != nil || a.Expect == nil {
			return a, p.errf("expect: want an object such as {\"to_move\":\"north\"}")
		}
		if len(a.Expect) == 0 {
			return a, p.errf("expect: an empty assertion")
		}
		if raw, ok := a.Expect["lit"]; ok {
			var cells []string
			if litByRole(raw) {
				var roles map[string][]string
				if json.Unmarshal(raw, &roles) != nil {
					return a, p.errf("expect: lit must be a list of cell names or an object role → cell names")
				}
				for _, cs := range roles {
					cells = append(cells, cs...)
				}
			} else if json.Unmarshal(raw, &cells) != nil {
				return a, p.errf("expect: lit must be a list of cell names or an object role → cell names")
			}
			for _, c := range cells {
				if _, ok := p.b.Index(c); !ok {
					return a, p.errf("expect: lit: no cell %q on board %s", c, p.b.Name)
				}
			}
		}
	case "fault":
		err = p.fault(&a, m, keys)
	}
	return a, err
}

// litByRole reports whether an expect's lit is an object role → cells
// (which the Handler checks) rather than a list of cells (checked against
// the board's LED frame).
func litByRole(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func (p *lineParser) cell(what string, v json.RawMessage) (string, error) {
	var c string
	if json.Unmarshal(v, &c) != nil {
		return "", p.errf("%s: want a cell name", what)
	}
	if _, ok := p.b.Index(c); !ok {
		return "", p.errf("%s: no cell %q on board %s", what, c, p.b.Name)
	}
	return c, nil
}

// count reads a whole number from least to most.
func (p *lineParser) count(what string, v json.RawMessage, least, most int) (int, error) {
	var n json.Number
	if json.Unmarshal(v, &n) != nil {
		return 0, p.errf("%s: want a whole number from %d to %d", what, least, most)
	}
	i, err := n.Int64()
	if err != nil || i < int64(least) || i > int64(most) {
		return 0, p.errf("%s: want a whole number from %d to %d, got %s", what, least, most, clip(n.String()))
	}
	return int(i), nil
}

// face reads a roll of the game's die: 1–6 (a number or a string) for a
// d6, "N", "E", "S", "W" for RAY's; a game without a die has nothing to
// roll (as `tabla rules check` says of a record).
func (p *lineParser) face(v json.RawMessage) (string, error) {
	die, err := gameDie(p.game)
	if err != nil {
		return "", p.errf("roll: %v", err)
	}
	if die == nil {
		return "", p.errf("roll: %s has no die (nothing to roll)", p.game)
	}
	var f string
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		f = n.String()
		if !die.Numeric {
			return "", p.errf("roll: %s's die shows %s, got %s", p.game, strings.Join(die.Faces, ", "), clip(f))
		}
	} else if json.Unmarshal(v, &f) != nil {
		return "", p.errf("roll: want a face of %s's die (%s), got %s", p.game, strings.Join(die.Faces, ", "), clip(string(v)))
	}
	if !slices.Contains(die.Faces, f) {
		if die.Numeric {
			return "", p.errf("roll: a d6 shows 1 to 6, got %s", clip(f))
		}
		return "", p.errf("roll: %s's die shows %s, got %q", p.game, strings.Join(die.Faces, ", "), clip(f))
	}
	return f, nil
}

func (p *lineParser) fault(a *Action, m map[string]json.RawMessage, keys []string) error {
	if json.Unmarshal(m["fault"], &a.Fault) != nil {
		return p.errf("fault: want a fault name")
	}
	allowed, ok := faultKeys[a.Fault]
	if !ok {
		names := make([]string, 0, len(faultKeys))
		for k := range faultKeys {
			names = append(names, k)
		}
		sort.Strings(names)
		return p.errf("fault: unknown fault %q (want %s)", a.Fault, strings.Join(names, ", "))
	}
	for _, k := range keys {
		if k != "fault" && !slices.Contains(allowed, k) {
			return p.errf("fault %s: unexpected key %q", a.Fault, k)
		}
	}
	for _, k := range allowed {
		if _, ok := m[k]; !ok {
			return p.errf("fault %s: missing %q", a.Fault, k)
		}
	}
	var err error
	if v, ok := m["cell"]; ok {
		if a.Cell, err = p.cell("fault "+a.Fault, v); err != nil {
			return err
		}
	}
	if v, ok := m["times"]; ok {
		if a.Times, err = p.count("bounce: times", v, 1, MaxBounce); err != nil {
			return err
		}
	}
	if v, ok := m["bytes"]; ok {
		if a.Bytes, err = p.count(a.Fault+": bytes", v, 1, MaxLineBytes); err != nil {
			return err
		}
	}
	if v, ok := m["ms"]; ok {
		ms, err := p.count(a.Fault+": ms", v, 0, MaxDelayMs)
		if err != nil {
			return err
		}
		a.Wait = time.Duration(ms) * time.Millisecond
	}
	if v, ok := m["cells"]; ok {
		if json.Unmarshal(v, &a.Cells) != nil || len(a.Cells) < 2 || len(a.Cells) > MaxSlide {
			return p.errf("slide: cells must list from two to %d cell names", MaxSlide)
		}
		for _, c := range a.Cells {
			if _, ok := p.b.Index(c); !ok {
				return p.errf("slide: no cell %q on board %s", c, p.b.Name)
			}
		}
	}
	return nil
}

// NewBoard makes the virtual board a script plays on: its board, sensor
// kind and seed, with the game's start layout.
func NewBoard(s *Script) (*sim.Board, error) {
	return sim.New(sim.Options{Board: s.Board, Sensors: s.Sensors, Seed: s.Header.Seed})
}

// Handler judges the referee's side of a script.
type Handler interface {
	// Expect checks an expect line's assertions (all keys but a list of
	// cells under "lit", which the player checks against the LED frame;
	// "lit" as an object role → cells is the Handler's). It is called
	// after every event so far has been received from the board's Events
	// channel; a handler that reads Events in the same loop that answers
	// Expect has processed them. A failed assertion returns an error
	// saying what was found.
	Expect(ctx context.Context, a Action, assertions map[string]json.RawMessage) error
}

// Syncer is optionally implemented by a Handler whose consumer acts on
// events asynchronously (for instance lighting LEDs): Sync returns once
// every event received so far has been processed. The player calls it
// before checking an expect line, "lit" included.
type Syncer interface {
	Sync(ctx context.Context) error
}

// PressHandler is optionally implemented by a Handler that wants to know
// of button presses once their event has been received (for a roll button,
// to roll with sim.Board.TablaRoll).
type PressHandler interface {
	Pressed(ctx context.Context, a Action) error
}

// Ticker is optionally implemented by a Handler that follows the board on
// virtual time: told the board's time rather than watching a clock (a
// referee reads the board once its sensors have been quiet for a settle
// window). For a Ticker the player brings the handler up to date around
// every action: once the action is done and before its board time passes
// (the board flushed, then Sync if the Handler is a Syncer), so that
// events are acted on at the board time they happened, and again once the
// time has passed, followed by Tick with the board's new time. Before an
// expect line it is brought up to date and ticked too.
type Ticker interface {
	Tick(ctx context.Context, now time.Duration) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, a Action, assertions map[string]json.RawMessage) error

// Expect calls f.
func (f HandlerFunc) Expect(ctx context.Context, a Action, as map[string]json.RawMessage) error {
	return f(ctx, a, as)
}

// Run plays s on vb. Errors are *Error with the line: ErrAction when the
// board refused an action, ErrExpect when an assertion failed, or the
// context's error.
func Run(ctx context.Context, s *Script, vb *sim.Board, h Handler) error {
	for _, a := range s.Actions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := Step(ctx, vb, h, a); err != nil {
			var se *Error
			if errors.As(err, &se) {
				return err
			}
			return &Error{File: s.File, Line: a.Line, Err: err}
		}
	}
	return vb.Flush(ctx)
}

func actionErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrAction, err)
}

// Step plays one action as Run does: the action, then its board time
// (sim.ActionTime, a wait its own, an expect none). Errors are not
// *Error: the caller knows where the action came from.
func Step(ctx context.Context, vb *sim.Board, h Handler, a Action) error {
	if a.Kind == "expect" {
		return expect(ctx, vb, h, a)
	}
	t, ticks := h.(Ticker)
	if err := Perform(vb, a); err != nil {
		return err
	}
	if a.Kind != "wait" {
		if ph, ok := h.(PressHandler); ok && a.Kind == "press" {
			if err := vb.Flush(ctx); err != nil {
				return err
			}
			if err := ph.Pressed(ctx, a); err != nil {
				return err
			}
		}
		if ticks {
			if err := catchUp(ctx, vb, h); err != nil {
				return err
			}
		}
		vb.Advance(sim.ActionTime)
	}
	if !ticks {
		return nil
	}
	if err := catchUp(ctx, vb, h); err != nil {
		return err
	}
	return t.Tick(ctx, vb.Now())
}

// catchUp waits until h has received, and if it is a Syncer processed,
// every event so far.
func catchUp(ctx context.Context, vb *sim.Board, h Handler) error {
	if err := vb.Flush(ctx); err != nil {
		return err
	}
	if sy, ok := h.(Syncer); ok {
		return sy.Sync(ctx)
	}
	return nil
}

// Perform carries out what a person does at the table, on vb: lift,
// place, remove, roll, press or fault, taking no board time of its own (a
// wait lets its time pass; Step adds sim.ActionTime to the others). An
// expect is not a physical action: Step checks it. A refusal of the board
// wraps ErrAction.
func Perform(vb *sim.Board, a Action) error {
	var err error
	switch a.Kind {
	case "wait":
		vb.Advance(a.Wait)
	case "lift":
		err = vb.Lift(a.Cell)
	case "remove":
		err = vb.Remove(a.Cell)
	case "place":
		err = vb.Place(a.Cell, a.Piece)
	case "roll":
		err = vb.Roll(a.Face)
	case "press":
		err = vb.Press(a.Button)
	case "fault":
		err = fault(vb, a)
	default:
		err = fmt.Errorf("%s is not a physical action", a.Kind)
	}
	return actionErr(err)
}

func fault(vb *sim.Board, a Action) error {
	switch a.Fault {
	case "unplug":
		return vb.Unplug()
	case "replug":
		return vb.Replug()
	case "bounce":
		return vb.Bounce(a.Cell, a.Times)
	case "garbage", "drop", "corrupt":
		return vb.Line(a.Fault, a.Bytes)
	case "reorder":
		return vb.Line("reorder", 0)
	case "delay":
		vb.Delay(a.Wait)
	case "slow":
		vb.Slow(a.Wait)
	case "slide":
		return vb.Slide(a.Cells...)
	case "dead":
		return vb.Dead(a.Cell, true)
	case "stuck":
		return vb.Stuck(a.Cell, true)
	case "heal":
		if err := vb.Dead(a.Cell, false); err != nil {
			return err
		}
		return vb.Stuck(a.Cell, false)
	}
	return nil
}

func expect(ctx context.Context, vb *sim.Board, h Handler, a Action) error {
	if err := catchUp(ctx, vb, h); err != nil {
		return err
	}
	if t, ok := h.(Ticker); ok {
		if err := t.Tick(ctx, vb.Now()); err != nil {
			return err
		}
	}
	rest := map[string]json.RawMessage{}
	for k, v := range a.Expect {
		if k != "lit" || litByRole(v) {
			rest[k] = v
		}
	}
	if raw, ok := a.Expect["lit"]; ok && !litByRole(raw) {
		var want []string
		json.Unmarshal(raw, &want) // checked by Parse
		got := vb.Lit()
		sort.Strings(want)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("%w: lit: got %s, want %s", ErrExpect, list(got), list(want))
		}
	}
	if len(rest) == 0 {
		return nil
	}
	if h == nil {
		keys := make([]string, 0, len(rest))
		for k := range rest {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Errorf("%w: nothing to check %s against (no handler)", ErrExpect, strings.Join(keys, ", "))
	}
	if err := h.Expect(ctx, a, rest); err != nil {
		if errors.Is(err, ErrExpect) || errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrExpect, err)
	}
	return nil
}

func list(cells []string) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c)
	}
	b.WriteByte(']')
	return b.String()
}
