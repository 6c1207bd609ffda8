package boards

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestBuiltinBoardsParse(t *testing.T) {
	want := map[string]int{"daha": 25, "star": 169, "gyges": 38, "ray": 841, "six": 217}
	for _, name := range Builtin() {
		b, err := Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := len(b.Cells); got != want[name] {
			t.Errorf("%s: %d cells, want %d", name, got, want[name])
		}
		if b.LEDCount == 0 || len(b.Sensors) == 0 {
			t.Errorf("%s: no wiring", name)
		}
		// Writing and re-reading gives the same board.
		var buf bytes.Buffer
		if _, err := b.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		b2, err := Parse("rewritten", buf.Bytes())
		if err != nil {
			t.Fatalf("%s rewritten: %v\n%s", name, err, buf.String())
		}
		if len(b2.Cells) != len(b.Cells) || len(b2.Sensors) != len(b.Sensors) || b2.LEDCount != b.LEDCount {
			t.Errorf("%s: rewritten board differs", name)
		}
		for i, c := range b.Cells {
			c2 := b2.Cells[b2.MustIndex(c.Name)]
			if len(c2.Adj) != len(c.Adj) || c2.Goal != c.Goal || c2.Mark != c.Mark {
				t.Errorf("%s: cell %s differs after rewrite", name, c.Name)
			}
			if b2.LEDs[b2.MustIndex(c.Name)] != b.LEDs[i] {
				t.Errorf("%s: LED of %s differs after rewrite", name, c.Name)
			}
		}
	}
	if len(want) != len(Builtin()) {
		t.Errorf("builtin boards %v, want %d", Builtin(), len(want))
	}
}

func TestPitch(t *testing.T) {
	for game, mm := range DefaultPitch {
		if got := Default(game).Pitch; got != mm {
			t.Errorf("%s: pitch %g, want the default %g", game, got, mm)
		}
	}
	if len(DefaultPitch) != len(Games) {
		t.Errorf("DefaultPitch has %d games, Games %d", len(DefaultPitch), len(Games))
	}
	b, err := Parse("p.board", []byte("board x\ngame six\ngrid hex 1\npitch 22.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Pitch != 22.5 {
		t.Errorf("pitch %g, want 22.5", b.Pitch)
	}
	var buf bytes.Buffer
	b.WriteTo(&buf)
	if b2, err := Parse("again", buf.Bytes()); err != nil || b2.Pitch != 22.5 {
		t.Errorf("rewritten: pitch %v, %v\n%s", b2, err, buf.String())
	}
}

func TestDahaGraph(t *testing.T) {
	b := Default("daha")
	edges := 0
	for _, c := range b.Cells {
		edges += len(c.Adj)
	}
	if edges/2 != 48 {
		t.Errorf("daha has %d edges, want 48", edges/2)
	}
	if got := len(b.Cells[b.MustIndex("O")].Adj); got != 8 {
		t.Errorf("O has %d neighbours, want 8", got)
	}
}

func TestGygesGoals(t *testing.T) {
	b := Default("gyges")
	n := b.Cells[b.MustIndex("N")]
	if !n.Goal || len(n.Adj) != 6 {
		t.Fatalf("N goal: %+v", n)
	}
	for _, j := range n.Adj {
		if !strings.HasSuffix(b.Cells[j].Name, "6") {
			t.Errorf("N joined to %s", b.Cells[j].Name)
		}
	}
	// Goals come last in sensor and LED order.
	if got := b.Cells[b.Sensors[len(b.Sensors)-1]].Name; got != "S" {
		t.Errorf("last sensor is %s, want S", got)
	}
}

func TestSerpentineLEDs(t *testing.T) {
	b := Default("ray")
	for _, tc := range []struct {
		cell string
		led  int
	}{{"a1", 0}, {"ac1", 28}, {"ac2", 29}, {"a2", 57}, {"a3", 58}} {
		if got := b.LEDs[b.MustIndex(tc.cell)]; got != tc.led {
			t.Errorf("LED of %s: got %d want %d", tc.cell, got, tc.led)
		}
	}
	if b.LEDCount != 841 {
		t.Errorf("LEDCount %d", b.LEDCount)
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		col  int
		name string
	}{{1, "a"}, {26, "z"}, {27, "aa"}, {29, "ac"}, {52, "az"}, {53, "ba"}} {
		if got := ColumnName(tc.col); got != tc.name {
			t.Errorf("ColumnName(%d) = %s, want %s", tc.col, got, tc.name)
		}
		c, r, ok := ParseSquare(tc.name + "7")
		if !ok || c != tc.col || r != 7 {
			t.Errorf("ParseSquare(%s7) = %d %d %v", tc.name, c, r, ok)
		}
	}
	for _, bad := range []string{"", "a", "7", "a0", "a07", "A1", "a-1", "abcd1"} {
		if _, _, ok := ParseSquare(bad); ok {
			t.Errorf("ParseSquare(%q) accepted", bad)
		}
	}
}

func TestInvalidFiles(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"unknown directive", "board x\ngame ray\nfoo 1\n", 3, "unknown directive"},
		{"unknown cell", "board x\ngame ray\ngrid square 3 3\nmark b2 target\nstart d9 red\n", 5, "not on the board"},
		{"duplicate sensor", "board x\ngame ray\ngrid square 2 1\nmark a1 target\nsensor 0 a1\nsensor 0 b1\n", 6, "duplicate sensor 0"},
		{"sensor gap", "board x\ngame ray\ngrid square 2 1\nmark a1 target\nsensor 1 a1\nsensor 2 b1\n", 0, "sensor 0 is missing"},
		{"asymmetric edge", "board x\ngame daha\ncell A 0 0\ncell B 1 0\nadj A B\nadj B\n", 5, "asymmetric edge: A lists B"},
		{"start off board", "board x\ngame gyges\ngrid square 6 6\ngoal N 0 7 a6\ngoal S 0 0 a1\nstart g1 1\n", 6, "not on the board"},
		{"bad piece", "board x\ngame ray\ngrid square 3 3\nmark b2 target\nstart a1 green\n", 5, "unknown piece"},
		{"star group", "board x\ngame star\ngrid square 5 5\nstart a1 red\nstart b2 red\nstart c1 red\nstart e5 red\nstart a5 white\nstart c5 white\nstart e1 white\nstart e3 white\n", 0, "connected group of 3"},
		{"star count", "board x\ngame star\ngrid square 5 5\nstart a1 red\n", 0, "red has 1 start pieces"},
		{"two grids", "board x\ngame ray\ngrid square 3 3\ngrid hex 2\n", 4, "one grid"},
		{"code twice", "board x\ngame six\ngrid hex 2\ncode 1 red\ncode 1 black\n", 5, "already means red"},
		{"led twice", "board x\ngame six\ngrid hex 1\nled 0,0 3\nled 1,0 3\n", 0, "LED 3 is given to both"},
		{"missing game", "board x\ngrid hex 1\n", 0, "missing \"game GAME\""},
		{"bad pitch", "board x\ngame six\npitch 0\ngrid hex 1\n", 3, "bad pitch \"0\""},
		{"pitch in inches", "board x\ngame six\npitch 1in\ngrid hex 1\n", 3, "bad pitch"},
		{"pitch twice", "board x\ngame six\npitch 20\ngrid hex 1\npitch 21\n", 5, "pitch given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("test.board", []byte(tc.text))
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want a ParseError", err)
			}
			if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("got %v, want line %d and %q", err, tc.line, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "boards: test.board") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range Builtin() {
		data, _ := builtin.ReadFile("data/" + name + ".board")
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse("fuzz", data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		b.WriteTo(&buf)
		if _, err := Parse("again", buf.Bytes()); err != nil {
			t.Fatalf("a valid board does not read back: %v", err)
		}
	})
}
