package trf

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

const sample = "012 sample\nXXR 3\nXXC white1\n" +
	"001    1 m    A                                 2100                             1.5    1     3 w 1  0000 - H\n" +
	"001    2 m    B                                 2000                             1.5    2     4 b =     3 w 1\n" +
	"001    3 m    C                                 1900                             0.0    3     1 b 0     2 b 0\n" +
	"001    4 m    D                                 1800                             1.5    4     2 w =  0000 - U\n"

func TestRead(t *testing.T) {
	tour, err := Read(iotest.OneByteReader(strings.NewReader(sample)))
	if err != nil {
		t.Fatal(err)
	}
	if tour.Name != "sample" || tour.Rounds != 3 || tour.FirstSeat != 'w' || len(tour.Players) != 4 {
		t.Fatalf("%+v", tour)
	}
	d := tour.Players[3]
	want := []Cell{{2, 'w', '='}, {0, '-', 'U'}}
	if d.ID != 4 || d.Name != "D" || d.Rating != 1800 || d.Points != 1.5 || !reflect.DeepEqual(d.Cells, want) || d.Line != 7 {
		t.Fatalf("player 4: %+v", d)
	}
	if !d.Cells[1].PairingBye() || tour.Players[0].Cells[1].PairingBye() || !tour.Players[0].Cells[0].Played() {
		t.Error("bye kinds")
	}
	var out bytes.Buffer
	if err := Write(&out, tour); err != nil {
		t.Fatal(err)
	}
	if out.String() != sample {
		t.Errorf("written\n%s\nread\n%s", out.String(), sample)
	}
}

func TestReadErrors(t *testing.T) {
	line := func(n int) string { return strings.Split(sample, "\n")[n-1] }
	for _, c := range []struct {
		name, from, to string
		line, col      int
		err            error
	}{
		{"start number", line(4), "001    x" + line(4)[8:], 4, 5, ErrSyntax},
		{"rating", "2100", "21o0", 4, 49, ErrSyntax},
		{"points", "1900                             0.0", "1900                             0.3", 6, 81, ErrSyntax},
		{"points sum", "1900                             0.0", "1900                             1.0", 6, 81, ErrConflict},
		{"colour", "3 w 1", "3 x 1", 4, 97, ErrSyntax},
		{"result", "3 w 1", "3 w 7", 4, 99, ErrSyntax},
		{"bye result", "0000 - U", "0000 - 1", 7, 109, ErrSyntax},
		{"both first seat", "1 b 0", "1 w 0", 4, 97, ErrConflict},
		{"result mismatch", "1 b 0", "1 b =", 4, 99, ErrConflict},
		{"cell shape", "3 w 1", "3w 1 ", 4, 92, ErrSyntax},
		{"XXR", "XXR 3", "XXR three", 2, 5, ErrSyntax},
		{"XXC", "XXC white1", "XXC red1", 3, 5, ErrSyntax},
		{"twice", line(5), strings.Replace(line(5), "   2 m", "   1 m", 1), 5, 5, ErrConflict},
		{"beyond n", line(7), strings.Replace(line(7), "   4 m", "   9 m", 1), 7, 5, ErrConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(sample, c.from, c.to, 1)
			if in == sample {
				t.Fatal("the case changes nothing")
			}
			_, err := Read(strings.NewReader(in))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != c.line || pe.Column != c.col || !errors.Is(err, c.err) {
				t.Fatalf("%v, want line %d column %d (%v)", err, c.line, c.col, c.err)
			}
		})
	}
}

// TestOracleRoundTrip: every TRF of the pairing oracle (shared/pairings
// beside the module) reads and writes back byte for byte.
func TestOracleRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "..", "..", "shared", "pairings", "dutch", "*.trf"))
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no pairing oracle in CI")
		}
		t.Skip("no pairing oracle")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tour, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var out bytes.Buffer
		if err := Write(&out, tour); err != nil {
			t.Fatal(err)
		}
		if out.String() != string(b) {
			t.Fatalf("%s: written differently:\n%s", f, out.String())
		}
	}
}

// FuzzRead: whatever Read accepts, Write writes back to the same
// tournament.
func FuzzRead(f *testing.F) {
	f.Add(sample)
	f.Add("001    1\n")
	f.Fuzz(func(t *testing.T, s string) {
		tour, err := Read(strings.NewReader(s))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Write(&out, tour); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&out)
		if err != nil {
			t.Fatalf("written %q does not read: %v", out.String(), err)
		}
		for i := range tour.Players {
			tour.Players[i].Line, again.Players[i].Line = 0, 0
		}
		if !reflect.DeepEqual(tour, again) {
			t.Fatalf("%+v\nbecame\n%+v", tour, again)
		}
	})
}
