package firmwareprotocol_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFirmwareDoesNotFit: a board too big for the MCU it is built for
// (RAY's 841 cells on the Uno's 2 KiB) ends in the Makefile's own message,
// naming the ELF, its static RAM and the limit, not in the linker's
// "section .bss is not within region data"; and no ELF is left behind.
func TestFirmwareDoesNotFit(t *testing.T) {
	requireTools(t, "make", "avr-gcc", "avr-objcopy", "avr-size")
	build := t.TempDir()
	board, err := filepath.Abs(filepath.Join("..", "boards", "data", "ray.board"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "--no-print-directory", "-C", "firmware", "all", "BUILD="+build,
		"GO="+filepath.Join(runtime.GOROOT(), "bin", "go"),
		"BOARD="+board, "BOARD_MCU=atmega328p")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil {
		t.Fatalf("RAY built for the ATmega328P:\n%s", out.String())
	}
	want := filepath.Join(build, "uno", "ray.elf") + ": "
	if s := out.String(); !strings.Contains(s, want) || !strings.Contains(s, "bytes of static RAM, more than 1536: this board does not fit this MCU") ||
		strings.Contains(s, "not within region") || strings.Contains(s, "collect2") {
		t.Errorf("want the Makefile's message %q… \"does not fit this MCU\", not the linker's; got:\n%s", want, s)
	}
	if _, err := os.Stat(filepath.Join(build, "uno", "ray.elf")); err == nil {
		t.Error("the ELF that does not fit was left behind")
	}
}
