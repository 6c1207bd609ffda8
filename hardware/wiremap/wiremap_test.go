package wiremap

import (
	"testing"
	"time"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

func TestFaces(t *testing.T) {
	for _, face := range []string{"1", "2", "3", "4", "5", "6", "N", "E", "S", "W"} {
		d, v, err := Roll(face)
		if err != nil {
			t.Fatalf("Roll(%q): %v", face, err)
		}
		if got := Face(d, v); got != face {
			t.Errorf("Face(Roll(%q)) = %q", face, got)
		}
	}
	for _, bad := range []string{"", "0", "7", "n", "NE"} {
		if _, _, err := Roll(bad); err == nil {
			t.Errorf("Roll(%q): no error", bad)
		}
	}
	if got := Face(9, 3); got != "d9:3" {
		t.Errorf("unknown die: got %q", got)
	}
}

func TestButtons(t *testing.T) {
	for b := hardware.ButtonRoll; b <= hardware.ButtonNew; b++ {
		got, ok := Button(ButtonID(b))
		if !ok || got != b {
			t.Errorf("button %v: got %v %v", b, got, ok)
		}
		if ButtonID(b).String() != b.String() {
			t.Errorf("names differ: %v %v", ButtonID(b), b)
		}
	}
	if _, ok := Button(9); ok {
		t.Error("button 9 known")
	}
}

func TestClockWraps(t *testing.T) {
	var c Clock
	c.At(1<<32 - 10)
	if got, want := c.At(5), time.Duration(1<<32+5)*time.Millisecond; got != want {
		t.Errorf("got %v want %v", got, want)
	}
	c.Reset()
	if got := c.At(7); got != 7*time.Millisecond {
		t.Errorf("after reset got %v", got)
	}
}

func TestBlink(t *testing.T) {
	for _, b := range []hardware.Blink{hardware.Steady, hardware.Slow, hardware.Fast} {
		if got := Blink(BlinkUnits(b)); got != b {
			t.Errorf("blink %v: got %v", b, got)
		}
	}
	info := Info(&wire.Hello{Major: 1, Cells: 36, LEDs: 38, Abilities: wire.AbilityIdentify | wire.AbilityButtons, Vendor: "tabla", Model: "G"})
	if info.Name != "tabla/G" || !info.Identifying || !info.Buttons || info.DieD6 || info.Sensors != 36 {
		t.Errorf("info %+v", info)
	}
}
