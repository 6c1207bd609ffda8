package firmwareprotocol_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/firmware-protocol/fwboard"
)

// TestArduinoSketch: the sketch folder holds tabla.ino, DAHA's header as
// gen -arduino writes it today, and links to the firmware's own sources
// (one source for the Makefile and the IDE), every link resolving to the
// file of its name in firmware/. The HIL test builds and runs it.
func TestArduinoSketch(t *testing.T) {
	const dir = "arduino/tabla"
	def, err := boards.Open("daha")
	if err != nil {
		t.Fatal(err)
	}
	l, err := fwboard.New(def, fwboard.Options{Arduino: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "tabla_board.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, fwboard.Header(l)) {
		t.Errorf("%s/tabla_board.h is not what gen -arduino writes for daha: run go run ./firmware-protocol/firmware/gen -arduino -o firmware-protocol/%s/tabla_board.h daha", dir, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "tabla.ino")); err != nil {
		t.Error(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]bool{}
	for _, e := range ents {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if want := "../../firmware/" + e.Name(); target != want {
			t.Errorf("%s/%s links to %s, want %s", dir, e.Name(), target, want)
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name())); err != nil {
			t.Errorf("%s/%s: %v", dir, e.Name(), err)
		}
		links[e.Name()] = true
	}
	for _, f := range []string{"hal.h", "hal_165.c", "main_165.c", "tabla_fw.c", "tabla_fw.h", "tabla_proto.c", "tabla_proto.h"} {
		if !links[f] {
			t.Errorf("%s has no link to firmware/%s", dir, f)
		}
	}
}
