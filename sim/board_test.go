package sim

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
)

// collect reads events in the background.
type collector struct {
	vb  *Board
	evs chan hardware.Event
}

func newBoard(t *testing.T, game string, opts Options) (*Board, *collector) {
	t.Helper()
	opts.Board = boards.Default(game)
	vb, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{vb: vb, evs: make(chan hardware.Event, 1024)}
	go func() {
		for ev := range vb.Events() {
			c.evs <- ev
		}
		close(c.evs)
	}()
	t.Cleanup(func() { vb.Close() })
	return vb, c
}

// take returns the events delivered so far.
func (c *collector) take(t *testing.T) []hardware.Event {
	t.Helper()
	if err := c.vb.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Flush means the collector goroutine received them; it forwards at once.
	var out []hardware.Event
	deadline := time.After(50 * time.Millisecond)
	for {
		select {
		case ev := <-c.evs:
			out = append(out, ev)
		case <-deadline:
			return out
		}
	}
}

func kinds(evs []hardware.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.String())
	}
	return out
}

func TestStartAndMoves(t *testing.T) {
	vb, c := newBoard(t, "six", Options{})
	evs := c.take(t)
	if len(evs) != 2 || evs[0].Kind != hardware.Snapshot || evs[1].Conn != hardware.Connected {
		t.Fatalf("first events %v", kinds(evs))
	}
	def := vb.Def()
	red, black := def.Sensors[def.MustIndex("0,0")], def.Sensors[def.MustIndex("1,0")]
	_ = red
	occupied := 0
	for _, code := range evs[0].Codes {
		if code != 0 {
			occupied++
			if code != hardware.Occupied {
				t.Errorf("presence sensor reports %d", code)
			}
		}
	}
	if occupied != 2 {
		t.Errorf("%d pieces at the start, want 2", occupied)
	}
	if err := vb.Place("0,0", "red"); err == nil {
		t.Error("placed on an occupied cell")
	}
	if err := vb.Place("2,2", ""); err == nil {
		t.Error("placed from an empty hand")
	}
	if err := vb.Lift("5,5"); err == nil {
		t.Error("lifted from an empty cell")
	}
	if err := vb.Place("zz", "red"); err == nil {
		t.Error("placed on a cell that does not exist")
	}
	vb.Advance(ActionTime)
	must(t, vb.Lift("1,0"))
	vb.Advance(ActionTime)
	must(t, vb.Place("2,0", ""))
	evs = c.take(t)
	s20 := def.Sensors[def.MustIndex("2,0")]
	want := []hardware.Event{
		{Kind: hardware.Change, At: 200 * time.Millisecond, Seq: 1, Sensor: black, Code: 0},
		{Kind: hardware.Change, At: 400 * time.Millisecond, Seq: 2, Sensor: s20, Code: hardware.Occupied},
	}
	if !slices.EqualFunc(evs, want, func(a, b hardware.Event) bool {
		return a.Kind == b.Kind && a.At == b.At && a.Seq == b.Seq && a.Sensor == b.Sensor && a.Code == b.Code
	}) {
		t.Errorf("got %+v\nwant %+v", evs, want)
	}
}

func TestIdentifyingCodes(t *testing.T) {
	vb, c := newBoard(t, "gyges", Options{Sensors: Identifying})
	c.take(t)
	must(t, vb.Place("c3", "2"))
	evs := c.take(t)
	if len(evs) != 1 || evs[0].Code != 2 {
		t.Fatalf("got %v", kinds(evs))
	}
	if vb.Info().Identifying != true || vb.Info().Sensors != len(vb.Def().Sensors) {
		t.Errorf("info %+v", vb.Info())
	}
}

func TestUnplugReplug(t *testing.T) {
	vb, c := newBoard(t, "gyges", Options{})
	c.take(t)
	must(t, vb.Place("a1", "1"))
	must(t, vb.Unplug())
	must(t, vb.Lift("a1"))
	must(t, vb.Place("b2", ""))
	must(t, vb.SetLEDs([]hardware.LED{{R: 1}}))
	if err := vb.RequestSnapshot(); !errors.Is(err, ErrUnplugged) {
		t.Errorf("snapshot while unplugged: %v", err)
	}
	evs := c.take(t)
	if len(evs) != 2 || evs[1].Kind != hardware.Status || evs[1].Conn != hardware.Disconnected {
		t.Fatalf("got %v, want the change then disconnected and nothing else", kinds(evs))
	}
	if vb.LEDs()[0].Lit() {
		t.Error("a frame set while unplugged shows at once")
	}
	must(t, vb.Replug())
	evs = c.take(t)
	if len(evs) != 2 || evs[0].Kind != hardware.Snapshot || evs[1].Conn != hardware.Connected {
		t.Fatalf("got %v, want snapshot then connected", kinds(evs))
	}
	if !slices.Equal(evs[0].Codes, vb.Truth()) {
		t.Error("replug snapshot is not the truth")
	}
	if !vb.LEDs()[0].Lit() {
		t.Error("the frame set while unplugged is not shown on replug")
	}
}

func TestReorderDelayBounce(t *testing.T) {
	vb, c := newBoard(t, "gyges", Options{})
	c.take(t)
	must(t, vb.Line("reorder", 0))
	must(t, vb.Place("a1", "1"))
	must(t, vb.Place("a2", "1"))
	evs := c.take(t)
	if len(evs) != 2 || evs[0].Seq < evs[1].Seq {
		t.Errorf("reorder: got %+v", evs)
	}
	vb.Delay(300 * time.Millisecond)
	must(t, vb.Lift("a1"))
	must(t, vb.Lift("a2"))
	if evs := c.take(t); len(evs) != 0 {
		t.Errorf("delayed events came early: %v", kinds(evs))
	}
	vb.Advance(300 * time.Millisecond)
	if evs := c.take(t); len(evs) != 2 || evs[0].Sensor >= evs[1].Sensor {
		t.Errorf("after the delay: %v", kinds(evs))
	}
	must(t, vb.Place("c3", "2"))
	c.take(t)
	must(t, vb.Bounce("c3", 3))
	evs = c.take(t)
	if len(evs) != 6 {
		t.Fatalf("bounce: %d events, want 6", len(evs))
	}
	for i, e := range evs {
		if e.At-vb.Now() >= BounceWindow || (i%2 == 0) != (e.Code == 0) {
			t.Errorf("bounce event %d: %v at %v", i, e, e.At)
		}
	}
}

func TestSlideDeadStuck(t *testing.T) {
	vb, c := newBoard(t, "gyges", Options{})
	c.take(t)
	must(t, vb.Place("a1", "1"))
	must(t, vb.Place("a3", "1"))
	c.take(t)
	must(t, vb.Slide("a1", "a2", "a3", "a4"))
	evs := c.take(t)
	// a1 off, a2 on, a2 off, (a3 occupied: nothing), a4 on
	if len(evs) != 4 {
		t.Fatalf("slide: %v", kinds(evs))
	}
	must(t, vb.Dead("b1", true))
	must(t, vb.Place("b1", "2"))
	must(t, vb.Stuck("c1", true))
	evs = c.take(t)
	if len(evs) != 1 || evs[0].Code != hardware.Occupied {
		t.Errorf("dead and stuck: %v", kinds(evs))
	}
}

func TestLitAndDice(t *testing.T) {
	vb, c := newBoard(t, "ray", Options{Seed: 5})
	c.take(t)
	def := vb.Def()
	frame := make([]hardware.LED, def.LEDCount)
	frame[def.LEDs[def.MustIndex("c3")]] = hardware.LED{G: 1}
	frame[def.LEDs[def.MustIndex("o15")]] = hardware.LED{R: 1, Blink: hardware.Fast}
	must(t, vb.SetLEDs(frame))
	if got := vb.Lit(); !slices.Equal(got, []string{"c3", "o15"}) {
		t.Errorf("lit %v", got)
	}
	if !vb.Info().DieNSEW || vb.Info().DieD6 {
		t.Errorf("ray dice: %+v", vb.Info())
	}
	must(t, vb.Roll(""))
	must(t, vb.Roll("S"))
	if err := vb.Roll("7"); err == nil {
		t.Error("rolled a 7")
	}
	evs := c.take(t)
	if len(evs) != 2 || !slices.Contains([]string{"N", "E", "S", "W"}, evs[0].Face) || evs[1].Face != "S" {
		t.Errorf("rolls %v", kinds(evs))
	}
	vb2, _ := New(Options{Board: def, Seed: 5})
	defer vb2.Close()
	for range 10 {
		if a, b := vb.TablaRoll(false), vb2.TablaRoll(false); a != b {
			t.Fatalf("seeded rolls differ: %s %s", a, b)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
