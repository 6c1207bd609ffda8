package hil_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/firmware-protocol/fwboard"
	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim/script"
)

const (
	// actionTime is how long each physical action takes, as on the virtual
	// board (sim.ActionTime): longer than the firmware's debounce (30 ms)
	// plus the daemon's settle window (100 ms).
	actionTime = 200 * time.Millisecond
	// expectTimeout bounds the wait for an expect line or a matching LED
	// frame; a cable plugged back may wait for the driver's redial backoff.
	expectTimeout = 15 * time.Second
	// ledTimeout bounds the wait for the pin to show the referee's frame.
	ledTimeout = 5 * time.Second
	// pressTime is how long a button is held, as a finger does: the board
	// debounces it over 3 scans (30 ms), and a board driving 841 LEDs and
	// answering a reconnecting host can be busy for some 80 ms.
	pressTime = 150
)

// need skips the test when a tool is missing on a developer's machine and
// fails it when CI is set: CI must never skip silently.
func need(t *testing.T, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	msg := what + " missing (apt-get install make gcc gcc-avr avr-libc binutils-avr libsimavr-dev gcc-arm-none-eabi nodejs npm arduino-builder arduino-core-avr; npm ci --prefix firmware-protocol/hil/rp2040)"
	if os.Getenv("CI") == "" {
		t.Skip(msg)
	}
	t.Fatal(msg + "; CI is set")
}

type env struct {
	build, tabla, harness string
	// The RP2040 builds' harness: node running rp2040/hil_rp2040.mjs (the
	// rp2040js emulator), with firmware/hil_cable for the serial line.
	node, rp2040, cable string
}

// The firmware, the harness and tabla are built once for every test of the
// package, into a directory TestMain removes.
var (
	buildOnce sync.Once
	built     *env
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	parallelRuns()
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// firmwareDir is the firmware source to build: TABLA_HIL_FIRMWARE (the
// mutation script's mutants, see mutate.sh) or ../firmware.
func firmwareDir() string {
	if d := os.Getenv("TABLA_HIL_FIRMWARE"); d != "" {
		return d
	}
	return "../firmware"
}

func setup(t *testing.T) *env {
	t.Helper()
	for _, tool := range []string{"make", "cc", "avr-gcc", "avr-objcopy", "avr-size",
		"arm-none-eabi-gcc", "arm-none-eabi-objcopy", "arm-none-eabi-size"} {
		_, err := exec.LookPath(tool)
		need(t, tool, err == nil)
	}
	probe := exec.Command("cc", "-fsyntax-only", "-x", "c", "-")
	probe.Stdin = strings.NewReader("#include <simavr/sim_avr.h>\nint main(void) { return 0; }\n")
	need(t, "simavr headers", probe.Run() == nil)
	_, err := exec.LookPath("node")
	need(t, "node", err == nil)
	_, err = os.Stat("rp2040/node_modules/rp2040js/package.json")
	need(t, "the rp2040js package", err == nil)
	_, err = os.Stat(arduinoHardware)
	need(t, "arduino-core-avr", err == nil)
	_, err = exec.LookPath("arduino-builder")
	need(t, "arduino-builder", err == nil)
	buildOnce.Do(func() { built, buildErr = build() })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// build makes every builtin board for the Mega and the four that fit for
// the Uno, the harness, and tabla.
func build() (*env, error) {
	var err error
	if buildDir, err = os.MkdirTemp("", "tabla-hil-"); err != nil {
		return nil, err
	}
	top, err := filepath.Abs("../..")
	if err != nil {
		return nil, err
	}
	e := &env{build: filepath.Join(buildDir, "fw"), tabla: filepath.Join(buildDir, "tabla")}
	e.harness = filepath.Join(e.build, "host", "hil_sim")
	e.cable = filepath.Join(e.build, "host", "hil_cable")
	if e.node, err = exec.LookPath("node"); err != nil {
		return nil, err
	}
	if e.rp2040, err = filepath.Abs("rp2040/hil_rp2040.mjs"); err != nil {
		return nil, err
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	mk := exec.Command("make", "--no-print-directory", "-j2", "-C", firmwareDir(), "all", "hil-sim", "hil-cable",
		"BUILD="+e.build, "GO="+goBin, "TOP="+top)
	if out, err := mk.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make: %v\n%s", err, out)
	}
	// The RP2040 images on UART0 too (build/rp2040 holds the default, USB).
	mk = exec.Command("make", "--no-print-directory", "-j2", "-C", firmwareDir(), "rp2040-boards",
		"RP2040_LINK=uart", "BUILD="+e.build, "GO="+goBin, "TOP="+top)
	if out, err := mk.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make RP2040_LINK=uart: %v\n%s", err, out)
	}
	gb := exec.Command(goBin, "build", "-o", e.tabla, "./cmd/tabla")
	gb.Dir = top
	if out, err := gb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build tabla: %v\n%s", err, out)
	}
	for _, b := range arduinoBuilds {
		if err := buildSketch(e, goBin, top, b.fqbn, b.dir, "daha"); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// arduinoHardware is where Debian's arduino-core-avr puts the Arduino AVR
// platform (boards.txt, the core), arduinoTools arduino-builder's own
// platform file (the ctags recipe).
const (
	arduinoHardware = "/usr/share/arduino/hardware"
	arduinoTools    = "/usr/share/arduino-builder"
)

// arduinoBuilds are the Arduino sketch's builds (../arduino/tabla) the
// driver test runs: the IDE's board name and the build directory.
var arduinoBuilds = []struct{ fqbn, dir string }{
	{"arduino:avr:mega:cpu=atmega2560", "arduino-mega"},
	{"arduino:avr:uno", "arduino-uno"},
}

// buildSketch builds the Arduino sketch for a board (the IDE's fqbn) with
// arduino-builder, as the Arduino IDE does, into e.build/dir/BOARD.elf: a
// copy of ../arduino/tabla whose links to the firmware sources point into
// firmwareDir() (so that the mutants of mutate.sh are built too), with
// the header gen -arduino writes for the board.
func buildSketch(e *env, goBin, top, fqbn, dir, board string) error {
	sketch := filepath.Join(buildDir, "sketch-"+dir, "tabla")
	if err := os.MkdirAll(sketch, 0o755); err != nil {
		return err
	}
	fw, err := filepath.Abs(firmwareDir())
	if err != nil {
		return err
	}
	ents, err := os.ReadDir("../arduino/tabla")
	if err != nil {
		return err
	}
	for _, ent := range ents {
		src := filepath.Join("../arduino/tabla", ent.Name())
		switch {
		case ent.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(filepath.Join(fw, filepath.Base(target)), filepath.Join(sketch, ent.Name())); err != nil {
				return err
			}
		case ent.Name() == "tabla.ino":
			data, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(sketch, ent.Name()), data, 0o644); err != nil {
				return err
			}
		}
	}
	gen := exec.Command(goBin, "run", "./firmware-protocol/firmware/gen", "-arduino",
		"-o", filepath.Join(sketch, "tabla_board.h"), board)
	gen.Dir = top
	if out, err := gen.CombinedOutput(); err != nil {
		return fmt.Errorf("gen -arduino %s: %v\n%s", board, err, out)
	}
	out := filepath.Join(buildDir, "arduino-"+dir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	ab := exec.Command("arduino-builder", "-compile", "-hardware", arduinoHardware,
		"-hardware", arduinoTools, "-tools", arduinoTools, "-fqbn", fqbn, "-build-path", out,
		// Debian 12's arduino-core-avr 1.8.7 needs DECIMAL_DIG in C++,
		// which its avr-gcc 5.4 defines for C only (the core's
		// WString.cpp; the sketch is C).
		"-prefs=compiler.cpp.extra_flags=-DDECIMAL_DIG=__DECIMAL_DIG__",
		filepath.Join(sketch, "tabla.ino"))
	if msg, err := ab.CombinedOutput(); err != nil {
		return fmt.Errorf("arduino-builder %s: %v\n%s", fqbn, err, msg)
	}
	if err := os.MkdirAll(filepath.Join(e.build, dir), 0o755); err != nil {
		return err
	}
	return os.Rename(filepath.Join(out, "tabla.ino.elf"), filepath.Join(e.build, dir, board+".elf"))
}

// gameMCUs are the builds TestHIL plays the scripts on: the Mega's and the
// Uno's under simavr (the Uno's for the four boards it holds: not RAY),
// the RP2040's under rp2040js, on its USB port (rp2040, the default build)
// and on UART0 (rp2040-uart).
var gameMCUs = []string{"atmega2560", "atmega328p", "rp2040", "rp2040-uart"}

// unoBoards are the boards whose firmware fits the Uno (the Makefile's
// UNO_BOARDS).
var unoBoards = map[string]bool{"daha": true, "gyges": true, "star": true, "six": true}

// TestHIL plays a game on every builtin board's firmware with the daemon on
// its serial line, on the Mega (simavr) and the RP2040 (rp2040js) builds
// (see the package comment).
func TestHIL(t *testing.T) {
	if testing.Short() {
		t.Skip("the hardware-in-the-loop test runs for about half a minute")
	}
	t.Parallel() // beside TestHILDriver, in the same places
	e := setup(t)
	scripts, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	// The games take their places from lanes (lanes_test.go), shared with
	// TestHILDriver's runs: three at a time, a RAY run beside one other at
	// most, and more of the cheap ones while the host has a core to spare.
	games := map[string]bool{}
	for _, path := range scripts {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var h script.Header
		if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &h); err != nil {
			t.Fatalf("%s: header: %v", path, err)
		}
		games[h.Game] = true
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		for _, mcu := range gameMCUs {
			if mcu == "atmega328p" && !unoBoards[h.Game] {
				continue
			}
			sub := name
			if mcu != "atmega2560" {
				sub = mcu + "/" + name
			}
			t.Run(sub, func(t *testing.T) {
				t.Parallel()
				place(t, runWeight(mcu, h.Game, h.Board))
				play(t, e, mcu, path, data, h)
			})
		}
	}
	for g := range boards.Games {
		if !games[g] {
			t.Errorf("no HIL script for %s", g)
		}
	}
}

// ---- The simulated board ----

type harness struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser

	mu     sync.Mutex
	last   time.Time // when the last timed command was sent
	leds   []byte    // r, g, b per LED, the latest frame decoded from the pin
	frames int
	pin    []pinFrame  // every frame the strip showed, in order
	line   []lineFrame // every intact frame on the line, bad frames, and resets
	scans  []scanEvent // "scans on": latches of the chain, sets, CellChanges, in order
	scanOn bool
	errs   []string
	usb    []string // "VID:PID MANUFACTURER|PRODUCT|SERIAL" of each USB enumeration
	stats  string
	ready  chan struct{}
	done   chan struct{}
	news   chan struct{} // a value after each line the harness printed (coalesced)
}

// pinFrame is what the strip showed from MCU time ms on.
type pinFrame struct {
	ms  int64
	rgb []byte
}

// lineFrame is a frame on the serial line as the MCU sent (up) or received
// (down) it; ref and refType the frame an Ack or Error answers. A reset of
// the MCU is a lineFrame with reset set; a frame that failed to decode
// (bad COBS, CRC or length) one with bad set, and no type.
type lineFrame struct {
	up           bool
	typ          int
	seq, ref     int
	refType      int
	ms           int64
	reset, isRef bool
	bad          bool
}

// scanEvent is what hil_sim reports while "scans on": a latch of the
// sensor chain (the MCU starts a scan), a sensor set by the test, or a
// CellChange the MCU sent, in the order they happened.
type scanEvent struct {
	kind string // "scan", "set", "change"
	ms   int64
}

// Wire types the checks look for (PROTOCOL.md §4.1).
const (
	typeCellChange = 0x03
	typeHeartbeat  = 0x06
	typeError      = 0x07
	typeAck        = 0x20
	typeConfig     = 0x42
	typeLEDFrame   = 0x43
	typeLEDSet     = 0x44
)

// startHarnessOn runs the build for mcu: atmega2560 or atmega328p under
// simavr (firmware/hil_sim.c), rp2040 under rp2040js (rp2040/hil_rp2040.mjs);
// both harnesses take the same commands and print the same lines.
func startHarnessOn(t *testing.T, e *env, mcu string, l *fwboard.Layout, link string) *harness {
	dir := map[string]string{"atmega2560": "mega2560", "atmega328p": "uno", "rp2040": "rp2040", "rp2040-uart": "rp2040-uart",
		"arduino-mega": "arduino-mega", "arduino-uno": "arduino-uno"}[mcu]
	elfPath := filepath.Join(e.build, dir, l.Board.Name+".elf")
	// The Arduino sketch's builds run in simavr as the Makefile's do.
	if m, ok := map[string]string{"arduino-mega": "atmega2560", "arduino-uno": "atmega328p"}[mcu]; ok {
		mcu = m
	}
	args := []string{"-link", link, "-cells", strconv.Itoa(l.Cells),
		"-bits", strconv.Itoa(l.SensorBits), "-leds", strconv.Itoa(l.LEDs), "-frames"}
	if faces := map[string]int{fwboard.DieD6: 6, fwboard.DieNSEW: 4}[l.Die]; faces > 0 {
		addr, err := dataSymbol(elfPath, "rng_state")
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "-die", strconv.Itoa(faces), "-rng", fmt.Sprintf("0x%x", addr))
	}
	var cmd *exec.Cmd
	if mcu == "rp2040" {
		// The USB build: the harness is its USB host and checks the ids.
		args = append(args, "-usb", strings.ToLower(usbID.VID+":"+usbID.PID))
	}
	if isRP2040(mcu) {
		args = append([]string{e.rp2040, "-cable", e.cable}, args...)
		cmd = exec.Command(e.node, append(args, strings.TrimSuffix(elfPath, ".elf")+".bin")...)
	} else {
		cmd = exec.Command(e.harness, append(append([]string{"-mcu", mcu}, args...), elfPath)...)
	}
	h := &harness{t: t, cmd: cmd,
		ready: make(chan struct{}), done: make(chan struct{}), news: make(chan struct{}, 1)}
	var err error
	if h.in, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h.cmd.Stderr = os.Stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go h.read(out)
	t.Cleanup(func() {
		h.in.Close()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			h.cmd.Process.Kill()
		}
		h.cmd.Wait()
	})
	return h
}

// dataSymbol is the RAM address of a variable in an ELF file: an AVR's SRAM
// address (its ELF offsets data addresses by 0x800000), or an RP2040's.
func dataSymbol(path, name string) (uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return 0, err
	}
	for _, s := range syms {
		if s.Name == name {
			if f.Machine == elf.EM_AVR {
				return s.Value &^ 0x800000, nil
			}
			return s.Value, nil
		}
	}
	return 0, fmt.Errorf("%s: no symbol %s", path, name)
}

func (h *harness) read(r io.Reader) {
	defer close(h.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, " ")
		h.mu.Lock()
		switch kind {
		case "ready":
			h.last = time.Now()
			close(h.ready)
		case "leds":
			f := strings.Fields(rest)
			var b []byte
			var ms int64
			err := fmt.Errorf("%d fields", len(f))
			if len(f) == 3 {
				if b, err = hex.DecodeString(f[1]); err == nil {
					ms, err = strconv.ParseInt(f[2], 10, 64)
				}
			}
			if err == nil {
				h.leds = b
				h.frames, _ = strconv.Atoi(f[0])
				h.pin = append(h.pin, pinFrame{ms, b})
			} else {
				h.errs = append(h.errs, "bad leds line: "+line)
			}
		case "frame", "reset", "bad":
			if lf, err := parseLineFrame(kind, rest); err == nil {
				h.line = append(h.line, lf)
				if h.scanOn && lf.up && lf.typ == typeCellChange {
					h.scans = append(h.scans, scanEvent{"change", lf.ms})
				}
			} else {
				h.errs = append(h.errs, fmt.Sprintf("bad %s line: %s: %v", kind, line, err))
			}
		case "scan", "set":
			f := strings.Fields(rest)
			ms, err := strconv.ParseInt(f[len(f)-1], 10, 64)
			if err != nil {
				h.errs = append(h.errs, "bad "+kind+" line: "+line)
			} else if h.scanOn {
				h.scans = append(h.scans, scanEvent{kind, ms})
			}
		case "usb":
			h.usb = append(h.usb, rest)
		case "error":
			h.errs = append(h.errs, rest)
		case "stats":
			h.stats = rest
		}
		h.mu.Unlock()
		select {
		case h.news <- struct{}{}:
		default:
		}
	}
}

// next waits for the harness's next line; false at the deadline or when the
// harness has ended.
func (h *harness) next(deadline <-chan time.Time) bool {
	select {
	case <-h.news:
		return true
	case <-h.done:
		return false
	case <-deadline:
		return false
	}
}

// send gives the harness a command. Once it runs, each command carries the
// time since the previous one, so that a harness that fell behind the wall
// clock (a busy machine) and reads several at once still spaces the
// physical actions as the test did, in the MCU's time.
func (h *harness) send(format string, args ...any) {
	h.t.Helper()
	h.mu.Lock()
	if !h.last.IsZero() {
		now := time.Now()
		format = fmt.Sprintf("@%d ", now.Sub(h.last).Milliseconds()) + format
		h.last = now
	}
	h.mu.Unlock()
	if _, err := fmt.Fprintf(h.in, format+"\n", args...); err != nil {
		h.t.Fatalf("harness: %v", err)
	}
}

// scanLog turns hil_sim's reports of the chain's latches on or off ("scans
// on|off", taking effect at once) and returns what was reported so far,
// which it then forgets.
func (h *harness) scanLog(on bool) []scanEvent {
	h.t.Helper()
	h.untimed()
	if on {
		h.send("scans on")
	} else {
		h.send("scans off")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	log := h.scans
	h.scans, h.scanOn = nil, on
	return log
}

// untimed makes the following commands take effect as soon as the harness
// reads them, without the time since the previous one.
func (h *harness) untimed() {
	h.mu.Lock()
	h.last = time.Time{}
	h.mu.Unlock()
}

func parseLineFrame(kind, rest string) (lineFrame, error) {
	f := strings.Fields(rest)
	var n []int64
	start := 0
	var lf lineFrame
	if kind == "bad" {
		if len(f) != 3 || f[0] != "up" && f[0] != "down" {
			return lf, errors.New("want DIR CODE MS")
		}
		ms, err := strconv.ParseInt(f[2], 10, 64)
		lf.up, lf.bad, lf.ms = f[0] == "up", true, ms
		return lf, err
	}
	if kind == "frame" {
		if len(f) < 4 || f[0] != "up" && f[0] != "down" {
			return lf, errors.New("want DIR TYPE SEQ MS")
		}
		lf.up, start = f[0] == "up", 1
	} else {
		lf.reset = true
	}
	for _, x := range f[start:] {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return lf, err
		}
		n = append(n, v)
	}
	if lf.reset {
		if len(n) != 1 {
			return lf, errors.New("want MS")
		}
		lf.ms = n[0]
		return lf, nil
	}
	lf.typ, lf.seq, lf.ms = int(n[0]), int(n[1]), n[2]
	if len(n) == 5 {
		lf.ref, lf.refType, lf.isRef = int(n[3]), int(n[4]), true
	}
	return lf, nil
}

// lineLog returns the frames on the line so far.
func (h *harness) lineLog() []lineFrame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.line)
}

// pinLog returns the frames the strip showed so far.
func (h *harness) pinLog() []pinFrame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.pin)
}

// unanswered lists the host commands (Config, LEDFrame, LEDSet) the MCU
// received intact and never answered with an Ack or an Error naming them,
// and Acks that answer no command received: PROTOCOL.md §5.2 wants one
// reply per intact command (a command sent twice gets two). An Error
// bad-frame answers a frame the harness saw fail to decode, or else the
// latest command received (a frame the harness saw whole may reach the
// MCU damaged: one cut by a reset). A reset forgives
// the commands received before it (the harness reports a frame when it
// feeds its last byte to the UART, which the MCU may read only after the
// reset); the last grace ms of the log are not judged (replies may still
// be due). It also counts the commands and how many were copies of one
// received before (the host sent them again).
func unanswered(log []lineFrame, grace int64) (missing, stray []string, commands, copies int) {
	type key struct{ seq, typ int }
	pending, forgiven := map[key]int{}, map[key]int{}
	at := map[key]int64{}
	seen := map[key]bool{}
	badDown := 0    // frames to the MCU that failed to decode, not yet answered
	var order []key // commands received, latest last
	var end int64
	if len(log) > 0 {
		end = log[len(log)-1].ms
	}
	for _, f := range log {
		switch {
		case f.reset:
			for k, n := range pending {
				forgiven[k] += n
			}
			clear(pending)
			clear(seen)
			badDown = 0
		case f.bad:
			if !f.up {
				badDown++
			}
		case !f.up && (f.typ == typeConfig || f.typ == typeLEDFrame || f.typ == typeLEDSet):
			k := key{f.seq, f.typ}
			pending[k]++
			at[k] = f.ms
			order = append(order, k)
			commands++
			if seen[k] {
				copies++
			}
			seen[k] = true
		case !f.up && f.typ == 0x40: // HelloRequest: the host opened the port, its seq starts again
			clear(seen)
		case f.up && f.typ == typeError && f.isRef && f.refType == 0 && badDown > 0:
			badDown--
		case f.up && f.typ == typeError && f.isRef && f.refType == 0:
			for i := len(order) - 1; i >= 0; i-- {
				if k := order[i]; pending[k] > 0 {
					pending[k]--
					break
				}
			}
		case f.up && (f.typ == typeAck || f.typ == typeError) && f.isRef && f.refType != 0:
			k := key{f.ref, f.refType}
			switch {
			case pending[k] > 0:
				pending[k]--
			case forgiven[k] > 0:
				forgiven[k]--
			case f.typ == typeAck:
				stray = append(stray, fmt.Sprintf("Ack of frame %d type 0x%02x at %d ms, which the MCU did not receive (or had answered)", f.ref, f.refType, f.ms))
			}
		}
	}
	for k, n := range pending {
		if n > 0 && at[k] < end-grace {
			missing = append(missing, fmt.Sprintf("type 0x%02x seq %d at %d ms (%d unanswered)", k.typ, k.seq, at[k], n))
		}
	}
	slices.Sort(missing)
	return missing, stray, commands, copies
}

func (h *harness) shown() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.leds)
}

func (h *harness) problems() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.errs)
}

// ---- The daemon ----

type daemon struct {
	cmd  *exec.Cmd
	api  string
	mu   sync.Mutex
	logs []string
	addr chan string
	done chan struct{}
}

func startDaemon(t *testing.T, e *env, h script.Header, link, journal string) *daemon {
	args := []string{"run", "--game", h.Game, "--board", "serial:" + link, "--journal", journal,
		"--listen", "127.0.0.1:0", "--new", "--log-format", "json", "--seed", strconv.FormatUint(h.Seed, 10)}
	if h.Variant != "" {
		args = append(args, "--variant", h.Variant)
	}
	if h.First != "" {
		args = append(args, "--first", h.First)
	}
	if h.Players != 0 {
		args = append(args, "--players", strconv.Itoa(h.Players))
	}
	if h.N != 0 {
		args = append(args, "--n", strconv.Itoa(h.N))
	}
	d := &daemon{cmd: exec.Command(e.tabla, args...), addr: make(chan string, 1), done: make(chan struct{})}
	errPipe, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go d.read(errPipe)
	t.Cleanup(func() {
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(5 * time.Second):
			d.cmd.Process.Kill()
		}
		d.cmd.Wait()
		if t.Failed() {
			t.Logf("daemon log:\n%s", strings.Join(d.log(), "\n"))
		}
	})
	select {
	case d.api = <-d.addr:
	case <-d.done:
		t.Fatalf("tabla run ended:\n%s", strings.Join(d.log(), "\n"))
	case <-time.After(30 * time.Second):
		t.Fatalf("tabla run did not serve its status API:\n%s", strings.Join(d.log(), "\n"))
	}
	return d
}

func (d *daemon) read(r io.Reader) {
	defer close(d.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		d.mu.Lock()
		d.logs = append(d.logs, line)
		d.mu.Unlock()
		var rec struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "status API" && rec.Addr != "" {
			d.addr <- strings.TrimSuffix(rec.Addr, "/")
		}
	}
}

func (d *daemon) log() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.logs)
}

var client = &http.Client{Timeout: 5 * time.Second}

func (d *daemon) state() (referee.State, error) {
	var doc struct {
		State referee.State `json:"state"`
	}
	resp, err := client.Get(d.api + "/api/state")
	if err != nil {
		return doc.State, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return doc.State, fmt.Errorf("GET /api/state: %s: %s", resp.Status, b)
	}
	err = json.NewDecoder(resp.Body).Decode(&doc)
	return doc.State, err
}

// ---- A game ----

type game struct {
	t      *testing.T
	h      *harness
	d      *daemon
	def    *boards.Board
	lay    *fwboard.Layout
	sensor map[int]int       // cell index → sensor index
	table  map[string]string // cell name → piece kind on it
	hand   []string          // lifted pieces, most recent last
	moves  int               // moves whose LEDs were checked
	ledChk int               // LED comparisons made
}

func play(t *testing.T, e *env, mcu, path string, data []byte, h script.Header) {
	start := time.Now()
	def, err := boards.Open(h.Game)
	if h.Board != "" {
		def, err = boards.Open(h.Board)
	}
	if err != nil {
		t.Fatal(err)
	}
	lay, err := fwboard.New(def, fwboard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "ttyTABLA")
	g := &game{t: t, def: def, lay: lay, sensor: map[int]int{}, table: map[string]string{}}
	for s, c := range def.Sensors {
		g.sensor[c] = s
	}
	g.h = startHarnessOn(t, e, mcu, lay, link)
	// The game's start position is on the table when the board powers up.
	for _, p := range def.Start {
		g.put(p.Cell, p.Piece)
	}
	g.h.send("go")
	select {
	case <-g.h.ready:
	case <-g.h.done:
		t.Fatalf("harness ended: %q", g.h.problems())
	case <-time.After(10 * time.Second):
		t.Fatal("harness not ready")
	}
	g.d = startDaemon(t, e, h, link, filepath.Join(dir, "journal"))

	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, line := range lines[1:] {
		where := fmt.Sprintf("%s:%d", filepath.Base(path), i+2)
		if err := g.step(where, []byte(line)); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if p := g.h.problems(); len(p) > 0 {
			t.Fatalf("%s: the simulated board reports: %q", where, p)
		}
	}
	g.checkLEDs(filepath.Base(path) + ": end")
	if mcu == "atmega2560" && h.Game == "daha" {
		g.endSilent()
	}
	g.h.send("quit")
	select {
	case <-g.h.done:
	case <-time.After(5 * time.Second):
	}
	if p := g.h.problems(); len(p) > 0 {
		t.Errorf("the simulated board reports: %q", p)
	}
	// Every command the MCU received was answered once (PROTOCOL.md §5.2).
	missing, stray, commands, copies := unanswered(g.h.lineLog(), 300)
	if len(missing) > 0 || len(stray) > 0 {
		t.Errorf("commands the MCU received and never answered: %q; Acks of nothing: %q", missing, stray)
	}
	acks := 0
	for _, f := range g.h.lineLog() {
		if f.up && f.typ == typeAck {
			acks++
		}
	}
	if acks == 0 {
		t.Error("the MCU acknowledged no command")
	}
	g.h.checkUSB(mcu, def.Name)
	g.h.mu.Lock()
	stats := g.h.stats
	g.h.mu.Unlock()
	t.Logf("%s on %s: %d script lines, %d moves, %d LED frames compared with the pin; %d commands answered (%d sent again); %s; %.1f s",
		def.Name, mcu, len(lines)-1, g.moves, g.ledChk, commands, copies, stats, time.Since(start).Seconds())
}

// silentQuiet is how long endSilent leaves the line quiet with the board
// talking: past the daemon's watchdog (3 heartbeat intervals, 3 s).
const silentQuiet = 4 * time.Second

// endSilent ends a game with the board's heartbeats stopped. First the
// line is left quiet for silentQuiet: the firmware's heartbeats must keep
// the daemon connected (a board that sends none is called silent here).
// Then the cable's MCU-to-host wire is cut ("mute": the MCU runs on, its
// frames are lost) and the daemon must call the board silent (its
// heartbeat watchdog, hardware/serial.ErrWatchdog) and show it
// disconnected; mended, the game is back.
func (g *game) endSilent() {
	t := g.t
	silent := func() []string {
		var l []string
		for _, line := range g.d.log() {
			if strings.Contains(line, "board silent") {
				l = append(l, line)
			}
		}
		return l
	}
	from := int64(-1)
	if lf := g.h.lineLog(); len(lf) > 0 {
		from = lf[len(lf)-1].ms
	}
	// The daemon's watchdog runs on the wall clock: so does this wait.
	time.Sleep(silentQuiet)
	if l := silent(); len(l) > 0 {
		t.Fatalf("on a quiet line the daemon called the board silent (no heartbeats?): %q", l)
	}
	beats := 0
	for _, f := range g.h.lineLog() {
		if f.up && f.typ == typeHeartbeat && f.ms > from {
			beats++
		}
	}
	if beats < 2 {
		t.Fatalf("%d heartbeats in %v of quiet line, want one a second", beats, silentQuiet)
	}
	g.h.untimed()
	g.h.send("mute")
	wait := func(what string, ok func(referee.State) bool) {
		deadline := time.Now().Add(expectTimeout)
		for {
			st, err := g.d.state()
			if err == nil && ok(st) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: state conn %q (%v); daemon's board silent lines: %q", what, st.Conn, err, silent())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("heartbeats stopped: the daemon never called the board silent", func(st referee.State) bool {
		return st.Conn == "disconnected" && len(silent()) > 0
	})
	t.Logf("heartbeats stopped: %s", silent()[0])
	g.h.send("unmute")
	wait("the wire mended: the daemon never reconnected", func(st referee.State) bool { return st.Conn == "connected" })
}

func (g *game) put(cell, kind string) {
	c, ok := g.def.Index(cell)
	if !ok {
		g.t.Fatalf("no cell %s", cell)
	}
	s, ok := g.sensor[c]
	if !ok {
		g.t.Fatalf("cell %s has no sensor", cell)
	}
	if kind == "" {
		delete(g.table, cell)
	} else {
		g.table[cell] = kind
	}
	g.h.send("set %d %d", s, g.lay.Value(kind))
}

var buttonIndex = map[hardware.Button]int{hardware.ButtonRoll: 0, hardware.ButtonTakeback: 1,
	hardware.ButtonHint: 2, hardware.ButtonConfirm: 3, hardware.ButtonNew: 4}

func (g *game) step(where string, line []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return err
	}
	if f, ok := raw["fault"]; ok && string(f) == `"reset"` && len(raw) == 1 {
		// This test's own fault: the MCU's reset line. Like a player, wait
		// for the board to come back (the Arduino bootloader alone takes a
		// second) before touching it again.
		g.h.send("reset")
		time.Sleep(time.Second)
		return nil
	}
	a, err := script.ParseAction(g.def, line)
	if err != nil {
		return err
	}
	switch a.Kind {
	case "lift", "remove":
		kind, ok := g.table[a.Cell]
		if !ok {
			return fmt.Errorf("%s: nothing on %s", a.Kind, a.Cell)
		}
		g.put(a.Cell, "")
		if a.Kind == "lift" {
			g.hand = append(g.hand, kind)
		}
	case "place":
		kind := a.Piece
		if kind == "" {
			if len(g.hand) == 0 {
				return fmt.Errorf("place %s: no piece in hand", a.Cell)
			}
			kind = g.hand[len(g.hand)-1]
			g.hand = g.hand[:len(g.hand)-1]
		}
		g.put(a.Cell, kind)
	case "roll":
		face := map[string]int{"N": 1, "E": 2, "S": 3, "W": 4}[a.Face]
		if face == 0 {
			face, _ = strconv.Atoi(a.Face)
		}
		g.h.send("roll %d", face)
		g.h.send("tap 0 %d", pressTime)
	case "press":
		g.h.send("tap %d %d", buttonIndex[a.Button], pressTime)
	case "wait":
		time.Sleep(a.Wait)
		return nil
	case "fault":
		switch a.Fault {
		case "unplug", "replug":
			g.h.send(a.Fault)
		case "bounce":
			kind := g.table[a.Cell]
			for range a.Times {
				g.put(a.Cell, "")
				time.Sleep(3 * time.Millisecond)
				g.put(a.Cell, kind)
				time.Sleep(3 * time.Millisecond)
			}
		default:
			return fmt.Errorf("fault %q is not emulated on the hardware", a.Fault)
		}
	case "expect":
		return g.expect(where, a.Expect)
	default:
		return fmt.Errorf("action %q is not emulated on the hardware", a.Kind)
	}
	time.Sleep(actionTime)
	return g.afterMove(where)
}

// afterMove compares the LEDs with the referee's frame once a move was
// recognised since the last comparison.
func (g *game) afterMove(where string) error {
	st, err := g.d.state()
	if err != nil {
		return err
	}
	if len(st.Moves) != g.moves {
		g.moves = len(st.Moves)
		g.checkLEDs(where + fmt.Sprintf(" (after move %d)", g.moves))
	}
	return nil
}

func (g *game) expect(where string, as map[string]json.RawMessage) error {
	as = maps.Clone(as)
	occupied := -1
	if v, ok := as["occupied"]; ok {
		if err := json.Unmarshal(v, &occupied); err != nil {
			return fmt.Errorf("expect occupied: %v", err)
		}
		delete(as, "occupied")
	}
	deadline := time.Now().Add(expectTimeout)
	for {
		st, err := g.d.state()
		if err == nil {
			err = st.Expect(as)
		}
		if err == nil && occupied >= 0 && len(st.Sensed) != occupied {
			err = fmt.Errorf("occupied: got %d cells, want %d", len(st.Sensed), occupied)
		}
		if err == nil {
			if err := g.afterMove(where); err != nil {
				return err
			}
			g.checkLEDs(where)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("expect: %w (state: moves %q, mode %s, conn %s, in sync %v, pending %q)",
				err, st.Moves, st.Mode, st.Conn, st.InSync, st.Pending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkLEDs waits until the colours decoded from the WS2812 pin equal the
// referee's LED frame: steady LEDs exactly, blinking ones on or off and
// seen on at least once while waiting.
func (g *game) checkLEDs(where string) {
	g.t.Helper()
	deadline := time.Now().Add(ledTimeout)
	seenOn := map[int]bool{}
	var diff error
	for {
		st, err := g.d.state()
		if err != nil {
			diff = err
		} else if st.Conn != "connected" {
			// With the cable out the pin keeps the last frame that got
			// through, and whether the frame after the last action got
			// through before the pull depends on the emulator's pace.
			// The first expect after the replug compares them again.
			return
		} else {
			diff = g.compare(st, g.h.shown(), seenOn)
		}
		if diff == nil {
			g.ledChk++
			return
		}
		if time.Now().After(deadline) {
			g.t.Errorf("%s: LEDs on the pin differ from the referee's frame: %v", where, diff)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (g *game) compare(st referee.State, shown []byte, seenOn map[int]bool) error {
	if len(shown) != 3*g.lay.LEDs {
		return fmt.Errorf("%d LED bytes decoded, want %d", len(shown), 3*g.lay.LEDs)
	}
	type want struct {
		r, g, b uint8
		blink   bool
		cell    string
	}
	frame := make([]want, g.lay.LEDs)
	for c, n := range g.def.LEDs {
		if n >= 0 {
			frame[n].cell = g.def.Cells[c].Name
		}
	}
	for name, l := range st.LEDs {
		c, ok := g.def.Index(name)
		if !ok || g.def.LEDs[c] < 0 {
			continue
		}
		frame[g.def.LEDs[c]] = want{l.R, l.G, l.B, l.Blink != 0, name}
	}
	var bad []string
	for i, w := range frame {
		r, gg, b := shown[3*i], shown[3*i+1], shown[3*i+2]
		on := r == w.r && gg == w.g && b == w.b
		off := r == 0 && gg == 0 && b == 0
		if on && w.blink {
			seenOn[i] = true
		}
		if on && !w.blink || w.blink && seenOn[i] && (on || off) {
			continue
		}
		bad = append(bad, fmt.Sprintf("LED %d (%s): pin #%02x%02x%02x, referee #%02x%02x%02x blink %v (seen on %v)",
			i, w.cell, r, gg, b, w.r, w.g, w.b, w.blink, seenOn[i]))
	}
	if len(bad) > 0 {
		if len(bad) > 6 {
			bad = append(bad[:6], fmt.Sprintf("and %d more", len(bad)-6))
		}
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}
