package firmwareprotocol_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stackTarget is an MCU the stack's worst case is computed for.
type stackTarget struct {
	dir     string // under $(BUILD)/stack
	objdump string
	ram     int // bytes of RAM the stack shares with static RAM (0: a region of its own)
	stack   int // the stack's own region (RP2040: scratch banks X and Y)
	// ret is what a call pushes (the return address; ARM keeps it in lr
	// and the callee's .su counts the push), irq what taking an interrupt
	// pushes before the handler's prologue.
	ret, irq int
	isr      *regexp.Regexp // interrupt handlers: roots of their own
}

var stackTargets = []stackTarget{
	{dir: "mega2560", objdump: "avr-objdump", ram: 8192, ret: 3, irq: 3, isr: regexp.MustCompile(`^__vector_\d+$`)},
	{dir: "uno", objdump: "avr-objdump", ram: 2048, ret: 2, irq: 2, isr: regexp.MustCompile(`^__vector_\d+$`)},
	// Cortex-M0+: an exception stacks 8 words (32 bytes, 36 when it
	// realigns the stack to 8 bytes).
	{dir: "rp2040", objdump: "arm-none-eabi-objdump", stack: 8192, ret: 0, irq: 36, isr: regexp.MustCompile(`^isr_[a-z0-9_]+$`)},
}

// TestFirmwareStack computes the static worst case of the firmware's
// stack: every function's frame from gcc's -fstack-usage (make
// stack-usage), the calls between them from the linked image's
// disassembly (calls and jumps to another function; functions of libgcc
// and avr-libc without a .su counted by their pushes), the deepest path
// from main plus the deepest interrupt handler on top (the handlers do not
// nest). It fails on recursion, an indirect call, a frame gcc could not
// bound, or a worst case that does not fit beside the static RAM. The
// figures are the README's (firmware/README.md, "Stack").
func TestFirmwareStack(t *testing.T) {
	requireTools(t, "make", "cc", "avr-gcc", "avr-objdump", "avr-size", "arm-none-eabi-gcc", "arm-none-eabi-objdump")
	build := t.TempDir()
	runMakeIn(t, build, "stack-usage")
	for _, tg := range stackTargets {
		elfs, err := filepath.Glob(filepath.Join(build, "stack", tg.dir, "*.elf"))
		if err != nil || len(elfs) == 0 {
			t.Fatalf("no %s builds: %v", tg.dir, err)
		}
		for _, path := range elfs {
			name := strings.TrimSuffix(filepath.Base(path), ".elf")
			t.Run(tg.dir+"/"+name, func(t *testing.T) {
				main, isr, mainPath, isrPath, static := stackWorst(t, tg, path)
				worst := main + isr
				switch {
				case tg.ram > 0 && static+worst > tg.ram:
					t.Errorf("static RAM %d + stack %d = %d bytes, more than the MCU's %d", static, worst, static+worst, tg.ram)
				case tg.stack > 0 && worst > tg.stack:
					t.Errorf("stack %d bytes, more than its %d-byte region", worst, tg.stack)
				}
				t.Logf("%s %s: static worst case %d B = main %d (%s) + interrupt %d (%s); static RAM %d B",
					tg.dir, name, worst, main, strings.Join(mainPath, " > "), isr, strings.Join(isrPath, " > "), static)
			})
		}
	}
}

// runMakeIn is runMake into a given build directory.
func runMakeIn(t *testing.T, build, target string) {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-C", "firmware", target, "BUILD="+build,
		"GO="+filepath.Join(runtime.GOROOT(), "bin", "go"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make %s: %v\n%s", target, err, out)
	}
}

// stackWorst returns the deepest stack from main (with main's own return
// address) and the deepest interrupt handler (with what the interrupt
// pushes), the paths to them, and the image's static RAM.
func stackWorst(t *testing.T, tg stackTarget, path string) (main, isr int, mainPath, isrPath []string, static int) {
	t.Helper()
	frames := suFrames(t, path)
	calls, pushes, indirect := disassemble(t, tg.objdump, path)
	// The firmware's one call through a pointer: tabla_frame_emit calls
	// the byte sink it is given; the sources say which.
	sinks := putSinks(t)
	for _, f := range indirect {
		if f != "tabla_frame_emit" {
			t.Fatalf("an indirect call in %s: the call graph is not known", f)
		}
		for _, s := range sinks {
			if _, ok := calls[s]; ok && !slices.Contains(calls[f], s) {
				calls[f] = append(calls[f], s) // (a sink not linked has no caller either)
			}
		}
		if len(calls[f]) == 0 {
			t.Fatalf("none of tabla_frame_emit's sinks %q is in the image", sinks)
		}
	}
	frame := func(f string) int {
		if n, ok := frames[f]; ok {
			return n
		}
		return pushes[f] // libgcc, avr-libc: no .su
	}
	// depth: the deepest stack below f's caller, f's frame included.
	memo := map[string]int{}
	best := map[string]string{}
	onPath := map[string]bool{}
	var depth func(f string) int
	depth = func(f string) int {
		if d, ok := memo[f]; ok {
			return d
		}
		if onPath[f] {
			t.Fatalf("recursion through %s: no static bound", f)
		}
		onPath[f] = true
		d := 0
		for _, c := range calls[f] {
			if x := tg.ret + depth(c); x > d {
				d, best[f] = x, c
			}
		}
		onPath[f] = false
		memo[f] = frame(f) + d
		return memo[f]
	}
	chain := func(f string) []string {
		var p []string
		for ; f != ""; f = best[f] {
			p = append(p, fmt.Sprintf("%s %d", f, frame(f)))
		}
		return p
	}
	if _, ok := calls["main"]; !ok {
		t.Fatal("no main in the disassembly")
	}
	main, mainPath = tg.ret+depth("main"), chain("main")
	// The start-up code that calls main (RP2040: crt0's reset handler; the
	// AVR's has no frame).
	for f, cs := range calls {
		if slices.Contains(cs, "main") && frames[f] > 0 {
			main += frames[f]
			mainPath = append([]string{fmt.Sprintf("%s %d", f, frames[f])}, mainPath...)
			break
		}
	}
	for f := range calls {
		if tg.isr.MatchString(f) {
			if d := tg.irq + depth(f); d > isr {
				isr, isrPath = d, chain(f)
			}
		}
	}
	if isr == 0 {
		t.Fatal("no interrupt handler found")
	}
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	for _, s := range ef.Sections {
		if s.Name == ".data" || s.Name == ".bss" || s.Name == ".noinit" {
			static += int(s.Size)
		}
	}
	return main, isr, mainPath, isrPath, static
}

// putSinks are the functions the sources pass to tabla_frame_emit.
func putSinks(t *testing.T) []string {
	t.Helper()
	re := regexp.MustCompile(`tabla_frame_emit\([^,;]+,[^,;]+,\s*(\w+)\s*,`)
	var sinks []string
	for _, f := range []string{"firmware/tabla_fw.c", "firmware/tabla_proto.c"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			sinks = append(sinks, m[1])
		}
	}
	if len(sinks) == 0 {
		t.Fatal("no calls of tabla_frame_emit in the sources")
	}
	return sinks
}

// suFrames reads the .su files gcc wrote for the build at path: every
// function's frame in bytes.
func suFrames(t *testing.T, path string) map[string]int {
	t.Helper()
	base := strings.TrimSuffix(path, ".elf")
	files, _ := filepath.Glob(filepath.Join(base, "*.su")) // avr-gcc 5: in the directory it ran in
	more, _ := filepath.Glob(path + "-*.su")               // gcc 12: beside the output
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatalf("no .su files for %s", path)
	}
	frames := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			// file:line:col:function <tab> bytes <tab> static|dynamic|dynamic,bounded
			fields := strings.Split(line, "\t")
			if len(fields) != 3 {
				t.Fatalf("%s:%d: %q: want 3 tab-separated fields", f, i+1, line)
			}
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("%s:%d: %v", f, i+1, err)
			}
			if fields[2] != "static" {
				t.Errorf("%s:%d: %s: a frame gcc calls %s", f, i+1, fields[0], fields[2])
			}
			name := fields[0][strings.LastIndex(fields[0], ":")+1:]
			frames[name] = max(frames[name], n)
		}
	}
	return frames
}

var (
	funcLine = regexp.MustCompile(`^[0-9a-f]+ <([^>]+)>:$`)
	insnLine = regexp.MustCompile(`^\s+[0-9a-f]+:\t(?:[0-9a-f]{2,8} ?)+\s*\t(\S+)\s*(.*)$`)
	target   = regexp.MustCompile(`<([^>+]+)(\+0x[0-9a-f]+)?>`)
	armPush  = regexp.MustCompile(`\{([^}]*)\}`)
	armSubSP = regexp.MustCompile(`^sp, #(\d+)`)
	// Thumb branches, conditional or not (not bl, blx, bx, bic, bkpt).
	armBranch = regexp.MustCompile(`^b(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?(\.n|\.w)?$`)
)

// disassemble returns, from objdump -d, the functions each function calls
// or jumps to, what each pushes (for the functions with no .su), and the
// indirect calls.
func disassemble(t *testing.T, objdump, path string) (calls map[string][]string, pushes map[string]int, indirect []string) {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		// older objdumps lack --no-show-raw-insn
		if out, err = exec.Command(objdump, "-d", path).Output(); err != nil {
			t.Fatalf("%s -d: %v", objdump, err)
		}
	}
	calls, pushes = map[string][]string{}, map[string]int{}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := funcLine.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if _, ok := calls[cur]; !ok {
				calls[cur] = nil
			}
			continue
		}
		f := strings.SplitN(strings.TrimSpace(line), "\t", 3)
		if cur == "" || len(f) < 2 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		op, args := f[1], ""
		if len(f) == 3 {
			args = f[2]
		}
		if i := strings.IndexAny(op, " "); i >= 0 { // "--no-show-raw-insn" puts op and args in one field
			op, args = op[:i], strings.TrimSpace(op[i:])+" "+args
		}
		switch op {
		case "push":
			if m := armPush.FindStringSubmatch(args); m != nil {
				pushes[cur] += 4 * len(strings.Split(m[1], ","))
			} else {
				pushes[cur]++
			}
		case "sub":
			if m := armSubSP.FindStringSubmatch(args); m != nil {
				n, _ := strconv.Atoi(m[1])
				pushes[cur] += n
			}
		case "icall", "eicall", "ijmp", "eijmp", "blx":
			if !slices.Contains(indirect, cur) {
				indirect = append(indirect, cur)
			}
		default:
			// A call (to a function's start or into one), or a jump to
			// another function's start (a tail call, counted as a call:
			// an over-estimate, the caller's frame is gone by then).
			isCall := op == "call" || op == "rcall" || op == "bl"
			if !isCall && !armBranch.MatchString(op) && op != "jmp" && op != "rjmp" {
				continue
			}
			m := target.FindStringSubmatch(args)
			if m == nil || m[1] == cur || !isCall && m[2] != "" {
				continue // within the function
			}
			if !slices.Contains(calls[cur], m[1]) {
				calls[cur] = append(calls[cur], m[1])
			}
		}
	}
	return calls, pushes, indirect
}
