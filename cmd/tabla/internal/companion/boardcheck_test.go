//go:build unix

package companion

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/serial"
	"github.com/tabla-board/tabla/sim"
)

func TestAcceptBoardMessages(t *testing.T) {
	star := boards.Default("star")
	right := hardware.Info{Sensors: len(star.Sensors), LEDs: star.LEDCount}
	tests := []struct {
		name string
		info hardware.Info
		want string // "" accepted
	}{
		{"right board", right, ""},
		{"right board identifying", hardware.Info{Sensors: right.Sensors, LEDs: right.LEDs, Identifying: true}, ""},
		{"841 cells", hardware.Info{Sensors: 841, LEDs: right.LEDs},
			"the board says 841 sensors, the board file star has 169: start tabla with --board-file for this board, or flash the firmware built for star"},
		{"cells and LEDs", hardware.Info{Sensors: 841, LEDs: 841},
			"the board says 841 sensors, the board file star has 169; and 841 LEDs, the board file star has 169: start tabla with --board-file for this board, or flash the firmware built for star"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := acceptBoard(star)(tt.info)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	noCodes := *star
	noCodes.Codes = nil
	if err := acceptBoard(&noCodes)(hardware.Info{Sensors: right.Sensors, LEDs: right.LEDs, Identifying: true}); err == nil ||
		!strings.Contains(err.Error(), "its sensors identify pieces, the board file star names no piece codes") {
		t.Errorf("identifying board on a file without codes: got %v", err)
	}
}

// servePTY serves a virtual board of def on a pseudo-terminal whose clock
// follows the host's and returns its device path.
func servePTY(t *testing.T, def *boards.Board) string {
	t.Helper()
	vb, err := sim.New(sim.Options{Board: def, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); vb.Close() })
	p, err := sim.NewPTY(ctx, vb)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tk.C:
				vb.Advance(now.Sub(last))
				last = now
			}
		}
	}()
	return p.Path()
}

// TestOpenSerialRefusesAnotherBoard: `tabla run --board serial:…` with the
// STAR board file refuses a GYGES board on the line, saying what differs
// and what to do — and does not fail: the board comes back disconnected,
// described as the board file's until a STAR board is accepted — and
// accepts a STAR board.
func TestOpenSerialRefusesAnotherBoard(t *testing.T) {
	star := boards.Default("star")
	gyges := boards.Default("gyges")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	hw, err := OpenBoard(ctx, "serial:"+servePTY(t, gyges), BoardOptions{Def: star})
	if err != nil {
		t.Fatalf("a GYGES board on the line: %v, want the board disconnected", err)
	}
	if got := hw.Info(); got.Sensors != len(star.Sensors) || got.LEDs != star.LEDCount || got.Name != "star" {
		t.Errorf("Info %+v, want the STAR board file's until a board is accepted", got)
	}
	want := "the board says 38 sensors, the board file star has 169"
	var wrong *BoardMismatch
	for ev := range hw.Events() {
		if ev.Kind == hardware.Snapshot || ev.Kind == hardware.Change || ev.Conn == hardware.Connected && ev.Kind == hardware.Status {
			t.Fatalf("the GYGES board reached Events: %v", ev)
		}
		if ev.Kind == hardware.Fault {
			if !errors.Is(ev.Err, serial.ErrWrongBoard) || !errors.As(ev.Err, &wrong) || !strings.Contains(ev.Err.Error(), want) ||
				!strings.Contains(ev.Err.Error(), "--board-file") {
				t.Fatalf("got %v, want ErrWrongBoard saying %q and what to do", ev.Err, want)
			}
			break
		}
	}
	if wrong == nil || wrong.Announced.Sensors != len(gyges.Sensors) {
		t.Fatalf("the refusal %+v does not say what the board announced", wrong)
	}
	if p := wrong.People(); !strings.Contains(p, "not the star board") || !strings.Contains(p, "38 cells") || !strings.Contains(p, "plug in the star board") {
		t.Errorf("words for the page: %q", p)
	}
	hw.Close()

	hw, err = OpenBoard(ctx, "serial:"+servePTY(t, star), BoardOptions{Def: star})
	if err != nil {
		t.Fatalf("the STAR board: %v", err)
	}
	defer hw.Close()
	if n := hw.Info().Sensors; n != len(star.Sensors) {
		t.Errorf("got %d sensors, want %d", n, len(star.Sensors))
	}
}
