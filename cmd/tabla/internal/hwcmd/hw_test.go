package hwcmd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

// swappedGyges writes a GYGES board file whose wiring swaps the sensors of
// a1 and b1 compared with the builtin board.
func swappedGyges(t *testing.T) string {
	def := boards.Default("gyges")
	var b strings.Builder
	b.WriteString("board gyges-test\ngame gyges\ngrid square 6 6\n")
	b.WriteString("goal N 2.5 6.5 a6 b6 c6 d6 e6 f6\ngoal S 2.5 -1.5 a1 b1 c1 d1 e1 f1\n")
	for s, c := range def.Sensors {
		name := def.Cells[c].Name
		switch name {
		case "a1":
			name = "b1"
		case "b1":
			name = "a1"
		}
		fmt.Fprintf(&b, "sensor %d %s\n", s, name)
	}
	path := filepath.Join(t.TempDir(), "gyges-test.board")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHWTestFindsWiringFaults(t *testing.T) {
	vb, err := sim.New(sim.Options{Board: boards.Default("gyges")})
	if err != nil {
		t.Fatal(err)
	}
	// The physical board: c1's sensor is dead, d1's stuck on.
	must(t, vb.Dead("c1", true))
	must(t, vb.Stuck("d1", true))
	pr, pw := io.Pipe()
	var out bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the person at the table
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			out.WriteString(line + "\n")
			if cell, ok := strings.CutPrefix(line, "Put a piece on "); ok {
				vb.Place(cell, "1")
			}
			if cell, ok := strings.CutPrefix(line, "Lift it from "); ok {
				vb.Lift(cell)
			}
		}
	}()
	o := &TestOptions{
		IO: &cmdutil.IO{Out: pw, Err: io.Discard}, Board: "sim", BoardFile: swappedGyges(t),
		Timeout: 200 * time.Millisecond,
		Open: func(ctx context.Context, spec string, def *boards.Board) (hardware.Board, error) {
			return vb, nil
		},
	}
	err = TestRun(context.Background(), o)
	pw.Close()
	wg.Wait()
	if cmdutil.CodeOf(err) != cmdutil.ExitError {
		t.Fatalf("got %v, want exit 1\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"a1: SWAPPED: sensor 0 fired, which the board file wires to b1 (want sensor 1)",
		"b1: SWAPPED: sensor 1 fired, which the board file wires to a1 (want sensor 0)",
		"c1: DEAD: sensor 2 never fired",
		"d1: stuck on",
		"e1: ok",
		"result: 34 ok, 1 dead, 2 swapped, 1 stuck",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestHWTestLEDsOnly(t *testing.T) {
	vb, err := sim.New(sim.Options{Board: boards.Default("daha")})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lit []string
	def := vb.Def()
	vb.OnLEDs(func(f []hardware.LED) {
		mu.Lock()
		defer mu.Unlock()
		for c := range def.Cells {
			if l := def.LEDs[c]; l >= 0 && f[l].Lit() {
				lit = append(lit, def.Cells[c].Name)
			}
		}
	})
	var out bytes.Buffer
	o := &TestOptions{IO: &cmdutil.IO{Out: &out, Err: io.Discard}, Board: "sim", BoardFile: "daha", LEDsOnly: true, Step: time.Microsecond,
		Open: func(context.Context, string, *boards.Board) (hardware.Board, error) { return vb, nil }}
	if err := TestRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var want []string
	for c, cell := range def.Cells {
		if def.LEDs[c] >= 0 {
			want = append(want, cell.Name)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(lit, want) {
		t.Errorf("LED walk lit %v, want %v", lit, want)
	}
	if strings.Contains(out.String(), "Put a piece") {
		t.Error("--leds-only asked for pieces")
	}
}

func TestHWTestUsage(t *testing.T) {
	err := TestRun(context.Background(), &TestOptions{IO: &cmdutil.IO{Out: io.Discard}})
	if cmdutil.CodeOf(err) != cmdutil.ExitUsage {
		t.Errorf("got %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
