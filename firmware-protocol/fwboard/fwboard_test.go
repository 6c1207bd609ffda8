package fwboard

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/boards"
)

func TestBuiltinLayouts(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		cells, sensorBits, cb int
		die                   string
		identifying           bool
		chips                 int
		valueOf               string
		value                 uint8
	}{
		{"daha", 25, 3, 4, DieD6, true, 10, "blue", 3},
		{"gyges", 38, 2, 2, DieNone, true, 10, "3", 3},
		{"star", 169, 2, 2, DieNone, true, 43, "white", 2},
		{"six", 217, 2, 2, DieNone, true, 55, "black", 2},
		{"ray", 841, 3, 4, DieNSEW, true, 316, "red", 1},
	} {
		l, err := New(boards.Default(tc.name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Cells != tc.cells || l.LEDs != tc.cells || l.SensorBits != tc.sensorBits || l.CodeBits != tc.cb ||
			l.Die != tc.die || l.Identifying() != tc.identifying || l.ChainChips() != tc.chips {
			t.Errorf("%s: %d cells, %d LEDs, %d/%d bits, die %s, identifying %v, %d chips", tc.name, l.Cells, l.LEDs,
				l.SensorBits, l.CodeBits, l.Die, l.Identifying(), l.ChainChips())
		}
		if v := l.Value(tc.valueOf); v != tc.value {
			t.Errorf("%s: value of %s = %d, want %d", tc.name, tc.valueOf, v, tc.value)
		}
		if l.Value("") != 0 {
			t.Errorf("%s: empty is not 0", tc.name)
		}
		h := string(Header(l))
		for _, want := range []string{"#define TABLA_BOARD_CELLS " + strconv.Itoa(tc.cells) + "u", "#define TABLA_CODE_TABLE {",
			"#define TABLA_MAX_LEDS " + strconv.Itoa(tc.cells) + "u"} {
			if !strings.Contains(h, want) {
				t.Errorf("%s: header lacks %q", tc.name, want)
			}
		}
	}
}

func TestPresenceAndDie(t *testing.T) {
	l, err := New(boards.Default("ray"), Options{Presence: true, Die: DieNone, Model: "my ray"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Identifying() || l.SensorBits != 1 || l.CodeBits != 1 || l.Value("red") != 1 || l.Abilities() != "(TABLA_AB_BUTTONS)" {
		t.Errorf("presence ray: %+v, abilities %s", l, l.Abilities())
	}
	h := string(Header(l))
	if !strings.Contains(h, `#define TABLA_BOARD_MODEL "my ray"`) || strings.Contains(h, "TABLA_CODE_TABLE") {
		t.Errorf("header:\n%.600s", h)
	}
	if _, err := New(boards.Default("ray"), Options{Die: "d20"}); err == nil {
		t.Error("a d20 was accepted")
	}
	if _, err := New(boards.Default("ray"), Options{Model: `a"b`}); err == nil {
		t.Error("a quote in the model was accepted")
	}
}

func TestChainListing(t *testing.T) {
	l, err := New(boards.Default("daha"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := string(Header(l))
	// Sensor 2 (A1) takes chain bits 6, 7, 8: chip 0 inputs B, A, chip 1 input H.
	if !strings.Contains(h, " *      2   0-1  BAH     A1\n") {
		t.Errorf("chain listing:\n%s", h)
	}
	if !strings.Contains(h, " *    0  O\n") {
		t.Errorf("LED listing:\n%s", h)
	}
}

func TestCString(t *testing.T) {
	if got := cString("a\"b\\c?é"); got != `"a\"b\\c\077\303\251"` {
		t.Errorf("cString = %s", got)
	}
}
