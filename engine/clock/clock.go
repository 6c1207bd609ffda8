// Package clock keeps a game's chess clocks: a time control per seat
// (a base time plus a Fischer increment, or a simple delay), the time left
// on each seat's clock, and the one clock that runs. It is pure: every
// method takes the time it happens at (the referee's board time, a
// time.Duration since any origin), so a clock is driven, tested and
// replayed without a wall clock.
//
// A turn's time is measured from the moment the seat's clock started (the
// previous press, or the start of the game) to the press that ends it,
// pauses left out. With an increment the seat's time left loses the turn's
// time and then gains the increment; with a delay the clock only starts
// running once the delay has passed, and a turn shorter than the delay
// costs nothing. A seat's flag falls when its turn's time reaches its time
// left (plus the delay): at that instant, not at the press after it.
//
// Turns are counted in whole milliseconds (Press truncates), so that a
// game replayed from the turn times a journal keeps (Charge) has exactly
// the clocks the live game had.
package clock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Control is one seat's time control.
type Control struct {
	Base  time.Duration // the time on the clock at the start
	Inc   time.Duration // Fischer increment: added after each of the seat's turns
	Delay time.Duration // simple delay: each turn's first Delay costs nothing
}

// Limits of a time control.
const (
	MaxBase = 24 * time.Hour
	MaxInc  = time.Hour
)

// ErrControl is wrapped by the errors of Parse.
var ErrControl = errors.New("clock: bad time control")

// Parse reads a time control: BASE, BASE+INC (Fischer increment) or
// BASE/dDELAY (simple delay), each a Go duration: "10m+5s", "90m+30s",
// "5m/d3s", "1h". BASE is 1s to 24h; INC and DELAY 0 to 1h.
func Parse(s string) (Control, error) {
	bad := func(format string, args ...any) (Control, error) {
		return Control{}, fmt.Errorf("%w %q: %s", ErrControl, s, fmt.Sprintf(format, args...))
	}
	base, rest, inc := s, "", false
	if i := strings.IndexAny(s, "+/"); i >= 0 {
		base, rest, inc = s[:i], s[i+1:], s[i] == '+'
		if !inc {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, "d"); !ok {
				return bad("a delay is written BASE/dDELAY, e.g. 10m/d5s")
			}
		}
	}
	var c Control
	var err error
	if c.Base, err = time.ParseDuration(base); err != nil {
		return bad("want BASE, BASE+INCREMENT or BASE/dDELAY, e.g. 10m+5s or 10m/d5s")
	}
	if c.Base < time.Second || c.Base > MaxBase {
		return bad("the base time %v is out of range: want 1s to %v", c.Base, MaxBase)
	}
	if c.Base%time.Millisecond != 0 {
		return bad("the base time %v is finer than a millisecond", c.Base)
	}
	if rest != "" || strings.ContainsAny(s, "+/") {
		d, err := time.ParseDuration(rest)
		switch {
		case err != nil:
			return bad("want BASE, BASE+INCREMENT or BASE/dDELAY, e.g. 10m+5s or 10m/d5s")
		case d < 0 || d > MaxInc:
			return bad("%v is out of range: want 0 to %v", d, MaxInc)
		case d%time.Millisecond != 0:
			return bad("%v is finer than a millisecond", d)
		}
		if inc {
			c.Inc = d
		} else {
			c.Delay = d
		}
	}
	return c, nil
}

// String is the control in Parse's notation, shortest form.
func (c Control) String() string {
	s := short(c.Base)
	switch {
	case c.Inc > 0:
		s += "+" + short(c.Inc)
	case c.Delay > 0:
		s += "/d" + short(c.Delay)
	}
	return s
}

// short writes 10m rather than 10m0s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Low is the time left under which a seat's clock shows as low: a tenth
// of the base time, at least 10 s and at most 60 s.
func (c Control) Low() time.Duration {
	return min(max(c.Base/10, 10*time.Second), time.Minute)
}

// Controls are a game's time controls, as a record header keeps them
// ("clock"): one for every seat (the key "", JSON a string: "10m+5s"), or
// one per seat (JSON an object seat → control, naming every seat).
type Controls map[string]Control

// For is a seat's control.
func (cs Controls) For(seat string) Control {
	if c, ok := cs[seat]; ok {
		return c
	}
	return cs[""]
}

// New is a clock for seats (in turn order), each on its control.
func (cs Controls) New(seats []string) *Clock {
	ctl := make([]Control, len(seats))
	for i, seat := range seats {
		ctl[i] = cs.For(seat)
	}
	return New(ctl)
}

// Check checks that the controls fit a game with these seats: either one
// for all, or one for each seat and no other.
func (cs Controls) Check(seats []string) error {
	if len(cs) == 0 {
		return fmt.Errorf("%w: no control", ErrControl)
	}
	if _, all := cs[""]; all {
		if len(cs) != 1 {
			return fmt.Errorf("%w: one control for every seat or one per seat, not both", ErrControl)
		}
		return nil
	}
	for _, seat := range slices.Sorted(maps.Keys(cs)) {
		if !slices.Contains(seats, seat) {
			return fmt.Errorf("%w: %s is not a seat (%s)", ErrControl, seat, strings.Join(seats, ", "))
		}
	}
	for _, seat := range seats {
		if _, ok := cs[seat]; !ok {
			return fmt.Errorf("%w: no control for %s (give one per seat, or one for all)", ErrControl, seat)
		}
	}
	return nil
}

// ParseControls reads --clock values: one CONTROL for every seat, or
// SEAT=CONTROL for each seat.
func ParseControls(vals []string) (Controls, error) {
	cs := Controls{}
	for _, v := range vals {
		seat, ctl, ok := strings.Cut(v, "=")
		if !ok {
			seat, ctl = "", v
		}
		seat = strings.TrimSpace(seat)
		if _, dup := cs[seat]; dup {
			if seat == "" {
				return nil, fmt.Errorf("%w: two controls for every seat", ErrControl)
			}
			return nil, fmt.Errorf("%w: two controls for %s", ErrControl, seat)
		}
		c, err := Parse(strings.TrimSpace(ctl))
		if err != nil {
			return nil, err
		}
		cs[seat] = c
	}
	return cs, nil
}

// String lists the controls: "10m+5s", or "red 10m+5s, white 5m".
func (cs Controls) String() string {
	if c, ok := cs[""]; ok && len(cs) == 1 {
		return c.String()
	}
	var parts []string
	for _, seat := range slices.Sorted(maps.Keys(cs)) {
		parts = append(parts, seat+" "+cs[seat].String())
	}
	return strings.Join(parts, ", ")
}

// MarshalJSON writes a string for one control for all, else an object.
func (cs Controls) MarshalJSON() ([]byte, error) {
	if c, ok := cs[""]; ok && len(cs) == 1 {
		return json.Marshal(c.String())
	}
	m := make(map[string]string, len(cs))
	for seat, c := range cs {
		m[seat] = c.String()
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a string or an object seat → control.
func (cs *Controls) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	out := Controls{}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c, err := Parse(s)
		if err != nil {
			return err
		}
		out[""] = c
		*cs = out
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return fmt.Errorf("%w: want a control such as \"10m+5s\", or an object seat → control", ErrControl)
	}
	for seat, s := range m {
		if seat == "" {
			return fmt.Errorf("%w: an empty seat name", ErrControl)
		}
		c, err := Parse(s)
		if err != nil {
			return fmt.Errorf("%s: %w", seat, err)
		}
		out[seat] = c
	}
	*cs = out
	return nil
}

// Clock is the clocks of a game's seats. The zero value has no seats; use
// New.
type Clock struct {
	ctl    []Control
	left   []time.Duration
	run    int           // the seat whose clock runs, -1: none
	since  time.Duration // when it last started running (not paused)
	used   time.Duration // the turn's time before since
	paused bool
	flag   int           // the seat whose flag fell, -1: none
	fellAt time.Duration // when it fell
}

// New sets the clocks of seats with these controls (in seat order) to
// their base times, none running.
func New(ctl []Control) *Clock {
	c := &Clock{ctl: slices.Clone(ctl), left: make([]time.Duration, len(ctl)), run: -1, flag: -1}
	for i, x := range ctl {
		c.left[i] = x.Base
	}
	return c
}

// Seats is the number of seats.
func (c *Clock) Seats() int { return len(c.ctl) }

// Control is a seat's control.
func (c *Clock) Control(seat int) Control { return c.ctl[seat] }

// Start starts seat's turn at at (no clock runs before; a running one is
// stopped without a charge). seat -1 stops every clock.
func (c *Clock) Start(seat int, at time.Duration) {
	c.run, c.since, c.used, c.paused = seat, at, 0, false
}

// Running is the seat whose clock runs (-1: none) and whether it is
// paused.
func (c *Clock) Running() (seat int, paused bool) { return c.run, c.paused }

// Pause stops the running clock at at without ending the turn; Resume
// starts it again. Either is a no-op when it changes nothing.
func (c *Clock) Pause(at time.Duration) {
	if c.run < 0 || c.paused {
		return
	}
	c.used += max(at-c.since, 0)
	c.paused = true
}

// Resume starts a paused clock again at at.
func (c *Clock) Resume(at time.Duration) {
	if !c.paused {
		return
	}
	c.since, c.paused = at, false
}

// Turn is the running seat's time in this turn so far at at (pauses left
// out), 0 when no clock runs.
func (c *Clock) Turn(at time.Duration) time.Duration {
	if c.run < 0 {
		return 0
	}
	if c.paused {
		return c.used
	}
	return c.used + max(at-c.since, 0)
}

// cost is what a turn of t costs seat's clock.
func (c *Clock) cost(seat int, t time.Duration) time.Duration {
	return max(t-c.ctl[seat].Delay, 0)
}

// Left is seat's time left at at (its running turn counted).
func (c *Clock) Left(seat int, at time.Duration) time.Duration {
	if seat == c.flag {
		return 0
	}
	left := c.left[seat]
	if seat == c.run {
		left -= c.cost(seat, c.Turn(at))
	}
	return max(left, 0)
}

// FlagAt is the instant the running seat's flag falls if nothing happens
// before; ok is false when no clock runs (or it is paused, or a flag fell).
func (c *Clock) FlagAt() (at time.Duration, ok bool) {
	if c.run < 0 || c.paused || c.flag >= 0 {
		return 0, false
	}
	return c.since + c.left[c.run] + c.ctl[c.run].Delay - c.used, true
}

// LowAt is the instant the running seat's clock shows low time
// (Control.Low) if nothing happens before; ok is false when no clock runs,
// it is paused, or it is already low.
func (c *Clock) LowAt(at time.Duration) (time.Duration, bool) {
	flag, ok := c.FlagAt()
	if !ok {
		return 0, false
	}
	low := flag - c.ctl[c.run].Low()
	return low, low > at
}

// Low reports whether seat's time left at at is low (Control.Low).
func (c *Clock) Low(seat int, at time.Duration) bool {
	return c.Left(seat, at) <= c.ctl[seat].Low()
}

// Fell checks the running seat's flag at at: once its turn has used all
// its time the flag falls (at FlagAt, whatever at is after it), the clock
// stops and Fell returns the seat and true. A flag that fell before is
// reported again.
func (c *Clock) Fell(at time.Duration) (seat int, fell bool) {
	if c.flag >= 0 {
		return c.flag, true
	}
	when, ok := c.FlagAt()
	if !ok || at < when {
		return -1, false
	}
	c.flag, c.fellAt = c.run, when
	c.used, c.since = c.left[c.run]+c.ctl[c.run].Delay, when
	c.left[c.run] = 0
	c.paused = false
	c.run = -1
	return c.flag, true
}

// Flag is the seat whose flag fell, -1 if none, and when it fell.
func (c *Clock) Flag() int { return c.flag }

// FellAt is when the flag fell (ok false if none has).
func (c *Clock) FellAt() (time.Duration, bool) { return c.fellAt, c.flag >= 0 }

// Press ends the running seat's turn at at and starts next's (-1: none,
// the game is over). It returns the turn's time in whole milliseconds, as
// a journal keeps it. If the running seat's flag fell before at, nothing
// is charged and ok is false (see Fell).
func (c *Clock) Press(next int, at time.Duration) (turn time.Duration, ok bool) {
	if _, fell := c.Fell(at); fell {
		return 0, false
	}
	seat := c.run
	if seat >= 0 {
		turn = c.Turn(at).Truncate(time.Millisecond)
		c.Charge(seat, turn)
	}
	c.Start(next, at)
	return turn, true
}

// Charge applies one of seat's turns of time turn to its clock: what a
// press does, for a turn replayed from a journal. It reports false (and
// leaves the seat's clock at 0) if the turn took all the seat's time.
func (c *Clock) Charge(seat int, turn time.Duration) bool {
	cost := c.cost(seat, turn)
	if cost >= c.left[seat] {
		c.left[seat] = 0
		return false
	}
	c.left[seat] += c.ctl[seat].Inc - cost
	return true
}
