package clock

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Control
		str  string
	}{
		{"10m+5s", Control{Base: 10 * time.Minute, Inc: 5 * s}, "10m+5s"},
		{"10m/d5s", Control{Base: 10 * time.Minute, Delay: 5 * s}, "10m/d5s"},
		{"90m+30s", Control{Base: 90 * time.Minute, Inc: 30 * s}, "1h30m+30s"},
		{"5m", Control{Base: 5 * time.Minute}, "5m"},
		{"1h", Control{Base: time.Hour}, "1h"},
		{"3m+0s", Control{Base: 3 * time.Minute}, "3m"},
		{"2m30s+1.5s", Control{Base: 150 * s, Inc: 1500 * ms}, "2m30s+1.5s"},
	} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want || got.String() != tc.str {
			t.Errorf("Parse(%q) = %+v %v, %q; want %+v, %q", tc.in, got, err, got.String(), tc.want, tc.str)
		}
	}
	for _, in := range []string{"", "10", "10m+", "10m/5s", "10m/dx", "0s", "25h", "10m+2h", "10m+-1s", "-5m", "1.5ms", "10m+5s+1s", "10m/d5s+1s"} {
		if _, err := Parse(in); !errors.Is(err, ErrControl) {
			t.Errorf("Parse(%q): %v, want ErrControl", in, err)
		}
	}
}

func TestControlsJSON(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`"10m+5s"`, `"10m+5s"`},
		{`{"red":"10m+5s","white":"5m/d2s"}`, `{"red":"10m+5s","white":"5m/d2s"}`},
	} {
		var cs Controls
		if err := json.Unmarshal([]byte(tc.in), &cs); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(cs)
		if string(b) != tc.out {
			t.Errorf("%s: round trip %s", tc.in, b)
		}
	}
	for _, in := range []string{`3`, `null`, `"x"`, `{"red":"x"}`, `{"":"5m"}`, `["5m"]`} {
		var cs Controls
		if err := json.Unmarshal([]byte(in), &cs); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	seats := []string{"red", "white"}
	for _, tc := range []struct {
		vals []string
		err  string
	}{
		{[]string{"10m+5s"}, ""},
		{[]string{"red=10m+5s", "white=5m"}, ""},
		{[]string{"red=10m+5s"}, "no control for white"},
		{[]string{"red=10m", "green=5m", "white=5m"}, "green is not a seat"},
		{[]string{"10m", "red=5m"}, "not both"},
		{[]string{"10m", "5m"}, "two controls"},
	} {
		cs, err := ParseControls(tc.vals)
		if err == nil {
			err = cs.Check(seats)
		}
		if (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %q", tc.vals, err, tc.err)
		}
	}
}

// TestFischer: a turn costs its time, then the increment is added; the
// flag falls at the instant the time is used up, not at a later press.
func TestFischer(t *testing.T) {
	c := New([]Control{{Base: 60 * s, Inc: 2 * s}, {Base: 60 * s, Inc: 2 * s}})
	c.Start(0, 1*s)
	if got := c.Left(0, 11*s); got != 50*s {
		t.Errorf("left while running: %v", got)
	}
	turn, ok := c.Press(1, 11*s+999_999) // truncated to whole ms
	if !ok || turn != 10*s || c.Left(0, 100*s) != 52*s {
		t.Errorf("press: %v %v, left %v; want 10s, 52s", turn, ok, c.Left(0, 100*s))
	}
	if flag, ok := c.FlagAt(); !ok || flag != 11*s+999_999+60*s {
		t.Errorf("flag at %v %v", flag, ok)
	}
	if low, ok := c.LowAt(12 * s); !ok || low != 11*s+999_999+50*s {
		t.Errorf("low at %v %v", low, ok)
	}
	if _, fell := c.Fell(70 * s); fell {
		t.Error("fell early")
	}
	if seat, fell := c.Fell(200 * s); !fell || seat != 1 || c.Left(1, 300*s) != 0 {
		t.Errorf("fell %d %v", seat, fell)
	}
	if _, ok := c.Press(0, 300*s); ok {
		t.Error("a press after the flag fell was taken")
	}
}

// TestDelay: a turn within the delay costs nothing; beyond, only what
// exceeds it; no increment.
func TestDelay(t *testing.T) {
	c := New([]Control{{Base: 30 * s, Delay: 5 * s}, {Base: 30 * s, Delay: 5 * s}})
	c.Start(0, 0)
	if got := c.Left(0, 4*s); got != 30*s {
		t.Errorf("within the delay: %v", got)
	}
	c.Press(1, 4*s)
	c.Press(0, 4*s+12*s)
	if c.Left(0, 0) != 30*s || c.Left(1, 0) != 23*s {
		t.Errorf("left %v %v, want 30s 23s", c.Left(0, 0), c.Left(1, 0))
	}
	if flag, _ := c.FlagAt(); flag != 16*s+35*s {
		t.Errorf("flag at %v, want 51s (30s + the 5s delay after 16s)", flag)
	}
}

// TestPause: a pause leaves its time out of the turn.
func TestPause(t *testing.T) {
	c := New([]Control{{Base: 60 * s}, {Base: 60 * s}})
	c.Start(0, 0)
	c.Pause(10 * s)
	c.Pause(11 * s) // no-op
	if _, ok := c.FlagAt(); ok {
		t.Error("a paused clock has a flag time")
	}
	c.Resume(40 * s)
	turn, _ := c.Press(1, 45*s)
	if turn != 15*s || c.Left(0, 0) != 45*s {
		t.Errorf("turn %v left %v, want 15s 45s", turn, c.Left(0, 0))
	}
}

// TestReplayMatches: charging the turns a press returned rebuilds the
// same clocks, to the nanosecond.
func TestReplayMatches(t *testing.T) {
	ctl := []Control{{Base: 5 * time.Minute, Inc: 3 * s}, {Base: 4 * time.Minute, Delay: 2 * s}}
	live, again := New(ctl), New(ctl)
	live.Start(0, 0)
	at, seat := time.Duration(0), 0
	for i := range 40 {
		at += time.Duration(i*7919%13000)*ms + 123_456
		turn, ok := live.Press(1-seat, at)
		if !ok {
			t.Fatal("flag")
		}
		again.Charge(seat, turn)
		seat = 1 - seat
	}
	for i := range 2 {
		if i != seat && live.Left(i, at) != again.Left(i, 0) {
			t.Errorf("seat %d: live %v, replayed %v", i, live.Left(i, at), again.Left(i, 0))
		}
	}
}
