package firmwareprotocol_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// requireTools skips the test when a tool is missing on a developer's
// machine, but fails it in CI (CI set): CI must never skip silently.
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s not installed (apt-get install gcc-avr avr-libc binutils-avr gcc-arm-none-eabi make gcc): %v", tool, err)
			}
			t.Fatalf("%s not installed, and CI is set: install gcc-avr avr-libc binutils-avr gcc-arm-none-eabi make gcc: %v", tool, err)
		}
	}
}

func runMake(t *testing.T, target string, vars ...string) string {
	t.Helper()
	args := append([]string{"--no-print-directory", "-C", "firmware", target, "BUILD=" + t.TempDir(),
		"GO=" + filepath.Join(runtime.GOROOT(), "bin", "go")}, vars...)
	cmd := exec.Command("make", args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", target, err, out.String())
	}
	return out.String()
}

// TestFirmwareHostTests builds the firmware with the host compiler
// (-std=c99 -Wall -Wextra -Werror -pedantic) and runs its unit tests,
// which check every vector in testdata/vectors.txt.
func TestFirmwareHostTests(t *testing.T) {
	requireTools(t, "make", "cc")
	out := runMake(t, "host-test")
	// Three programs: test_host (vectors, board logic), the same built as
	// the RP2040's (a HAL that tells unchanged scans, hal_scan_same) and
	// test_compact (the packed storage of the board-file builds).
	ms := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`).FindAllStringSubmatch(out, -1)
	if len(ms) != 3 {
		t.Fatalf("want the results of test_host, test_host_same and test_compact:\n%s", out)
	}
	for _, m := range ms {
		if m[2] != "0" || m[1] == "0" {
			t.Fatalf("firmware host tests did not pass:\n%s", out)
		}
	}
	if !strings.Contains(out, "ok   vector coverage") || !strings.Contains(out, "ok   packed snapshot") {
		t.Errorf("firmware tests did not check the vectors and the packed storage:\n%s", out)
	}
	t.Logf("firmware host tests: %s, %s and %s passed", ms[0][1], ms[1][1], ms[2][1])
}

// TestFirmwareAVR cross-compiles the firmware for the ATmega328P and logs
// its flash and RAM use.
func TestFirmwareAVR(t *testing.T) {
	requireTools(t, "make", "avr-gcc", "avr-objcopy", "avr-size")
	out := runMake(t, "avr")
	i := strings.Index(out, "   text")
	if i < 0 {
		t.Fatalf("no avr-size output:\n%s", out)
	}
	t.Logf("avr-size:\n%s", out[i:])
	m := regexp.MustCompile(`ram:\s+(\d+) of 2048`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no RAM figure:\n%s", out)
	}
	// Static RAM must leave room for the stack (about 300 bytes deep).
	if ram, err := strconv.Atoi(m[1]); err != nil || ram > 1700 {
		t.Errorf("static RAM %s bytes leaves too little for the stack of 2048", m[1])
	}
}

// TestFirmwareAVRSimulated runs the ATmega328P build in simavr and talks
// to it over the simulated UART: handshake, scanning, LED frames (checking
// the WS2812 waveform bit by bit), the die, a corrupted frame, heartbeat.
func TestFirmwareAVRSimulated(t *testing.T) {
	requireTools(t, "make", "cc", "avr-gcc", "avr-objcopy", "avr-size")
	probe := exec.Command("cc", "-fsyntax-only", "-x", "c", "-")
	probe.Stdin = strings.NewReader("#include <simavr/sim_avr.h>\nint main(void) { return 0; }\n")
	if out, err := probe.CombinedOutput(); err != nil {
		msg := "simavr headers missing (apt-get install libsimavr-dev): " + strings.TrimSpace(string(out))
		if os.Getenv("CI") == "" {
			t.Skip(msg)
		}
		t.Fatal(msg + "; CI is set")
	}
	out := runMake(t, "avr-sim")
	m := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`).FindStringSubmatch(out)
	if m == nil || m[2] != "0" || m[1] == "0" {
		t.Fatalf("simulated AVR tests did not pass:\n%s", out)
	}
	t.Logf("simulated AVR: %s checks passed", m[1])
}

// TestFirmwareBoards builds every builtin board from its board file for the
// ATmega2560 (and the ATmega328P where it fits) and for the RP2040, and
// checks the static RAM budget: at most 7 KiB on the 2560's 8 KiB, 1.5 KiB
// on the 328P's 2 KiB, 256 KiB on the RP2040's 264. A board file of one's
// own builds the same way (BOARD=, BOARD_MCU=).
func TestFirmwareBoards(t *testing.T) {
	requireTools(t, "make", "cc", "avr-gcc", "avr-objcopy", "avr-size",
		"arm-none-eabi-gcc", "arm-none-eabi-objcopy", "arm-none-eabi-size")
	out := runMake(t, "all")
	re := regexp.MustCompile(`(?m)/(mega2560|uno|rp2040)/(\w+)\.elf\s+flash\s+(\d+) bytes, static RAM\s+(\d+) bytes$`)
	limit := map[string]int{"mega2560": 7168, "uno": 1536, "rp2040": 262144}
	got := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		ram, _ := strconv.Atoi(m[4])
		got[m[1]+"/"+m[2]] = true
		if ram > limit[m[1]] {
			t.Errorf("%s/%s: %d bytes of static RAM, limit %d", m[1], m[2], ram, limit[m[1]])
		}
		t.Logf("%-8s %-6s flash %5s bytes, static RAM %4d bytes", m[1], m[2], m[3], ram)
	}
	for _, b := range []string{"mega2560/daha", "mega2560/gyges", "mega2560/star", "mega2560/six", "mega2560/ray",
		"uno/daha", "uno/gyges", "uno/star", "uno/six",
		"rp2040/daha", "rp2040/gyges", "rp2040/star", "rp2040/six", "rp2040/ray"} {
		if !got[b] {
			t.Errorf("no build of %s:\n%s", b, out)
		}
	}

	// A board file of one's own, a size no builtin has.
	dir := t.TempDir()
	file := filepath.Join(dir, "big.board")
	if err := os.WriteFile(file, []byte("board big\ngame star\ngrid square 20 20\ncode 1 red\ncode 2 white\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = runMake(t, "all", "BOARD="+file)
	if !regexp.MustCompile(`/mega2560/big\.elf\s+flash`).MatchString(out) {
		t.Errorf("BOARD=%s built nothing:\n%s", file, out)
	}
	out = runMake(t, "all", "BOARD="+file, "BOARD_MCU=rp2040")
	if !regexp.MustCompile(`/rp2040/big\.elf\s+flash`).MatchString(out) {
		t.Errorf("BOARD=%s BOARD_MCU=rp2040 built nothing:\n%s", file, out)
	}
}

// TestFirmwareRP2040Image checks what the RP2040's boot ROM and BOOTSEL
// drive will check, which the emulator of the HIL test never runs: the
// second-stage boot loader's CRC32 in bytes 252–255 of the flash image
// (CRC-32/MPEG-2 of bytes 0–251, as the boot ROM computes it), the vector
// table at 0x10000100 (stack top in SRAM, a Thumb reset address in the
// image), and the UF2 file: 256-byte blocks for the RP2040 family at
// consecutive flash addresses, holding the image byte for byte.
func TestFirmwareRP2040Image(t *testing.T) {
	requireTools(t, "make", "cc", "arm-none-eabi-gcc", "arm-none-eabi-objcopy", "arm-none-eabi-size")
	build := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "-C", "firmware", "rp2040-boards", "BUILD="+build,
		"GO="+filepath.Join(runtime.GOROOT(), "bin", "go"), "RP2040_BOARDS=daha")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make rp2040-boards: %v\n%s", err, out)
	}
	img, err := os.ReadFile(filepath.Join(build, "rp2040", "daha.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(img) < 0x200 {
		t.Fatalf("image of %d bytes", len(img))
	}
	crc := uint32(0xffffffff)
	for _, b := range img[:252] {
		crc ^= uint32(b) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04c11db7
			} else {
				crc <<= 1
			}
		}
	}
	le := func(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }
	if got := le(img[252:256]); got != crc {
		t.Errorf("boot2 checksum %08x, the boot ROM computes %08x", got, crc)
	}
	sp, reset := le(img[0x100:]), le(img[0x104:])
	if sp < 0x20000000 || sp > 0x20042000 {
		t.Errorf("initial stack pointer %08x is not in SRAM", sp)
	}
	if reset&1 == 0 || reset < 0x10000100 || reset >= 0x10000000+uint32(len(img)) {
		t.Errorf("reset vector %08x is not a Thumb address in the image", reset)
	}

	uf2, err := os.ReadFile(filepath.Join(build, "rp2040", "daha.uf2"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := (len(img) + 255) / 256
	if len(uf2) != 512*blocks {
		t.Fatalf("UF2 of %d bytes, want %d blocks of 512", len(uf2), blocks)
	}
	for i := range blocks {
		b := uf2[512*i : 512*i+512]
		if le(b) != 0x0a324655 || le(b[4:]) != 0x9e5d5157 || le(b[508:]) != 0x0ab16f30 {
			t.Fatalf("UF2 block %d: bad magic", i)
		}
		if le(b[8:]) != 0x2000 || le(b[28:]) != 0xe48bff56 {
			t.Errorf("UF2 block %d: flags %x family %x, want the RP2040 family (0xe48bff56)", i, le(b[8:]), le(b[28:]))
		}
		if le(b[12:]) != 0x10000000+uint32(256*i) || le(b[16:]) != 256 || le(b[20:]) != uint32(i) || le(b[24:]) != uint32(blocks) {
			t.Errorf("UF2 block %d: address %x, %d bytes, block %d of %d", i, le(b[12:]), le(b[16:]), le(b[20:]), le(b[24:]))
		}
		end := min(256*i+256, len(img))
		if !bytes.Equal(b[32:32+end-256*i], img[256*i:end]) {
			t.Errorf("UF2 block %d does not hold the image's bytes %d–%d", i, 256*i, end)
		}
	}
}
