package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestARMCheckQemuNames runs .ci/arm-check with each naming of qemu-user's
// emulators on PATH and nothing else: Debian's qemu-user-static
// (qemu-aarch64-static, qemu-arm-static) and qemu-user (qemu-aarch64,
// qemu-arm). The emulators and the three tabla builds are stand-ins (a
// script printing its arguments, run for every architecture), so the test
// checks that the script finds and uses the emulators, not what the ARM
// builds print (CI's own arm-check run does that). It runs the script's
// 156 cases three times each, a few seconds; -short skips it.
func TestARMCheckQemuNames(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs .ci/arm-check twice")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", ".ci", "arm-check"))
	if err != nil {
		t.Fatal(err)
	}
	// the tools the script uses besides the emulators
	tools := []string{"bash", "env", "dirname", "basename", "mktemp", "mkdir", "rm", "rmdir", "mv", "sed", "cmp", "diff", "find", "wc", "cat", "sh"}
	for _, names := range [][2]string{
		{"qemu-aarch64", "qemu-arm"},
		{"qemu-aarch64-static", "qemu-arm-static"},
	} {
		t.Run(names[0], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "path")
			bin := filepath.Join(dir, "bin")
			for _, d := range []string{path, bin} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, tool := range tools {
				p, err := exec.LookPath(tool)
				if err != nil {
					t.Skipf("%s: %v", tool, err)
				}
				if err := os.Symlink(p, filepath.Join(path, tool)); err != nil {
					t.Fatal(err)
				}
			}
			write := func(name, text string) {
				t.Helper()
				if err := os.WriteFile(name, []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// tabla: prints its arguments, writes the record it is asked for
			tabla := "#!/bin/sh\necho \"tabla $*\"\n" +
				"case \" $* \" in *\" --record record.jsonl \"*) echo '{}' >record.jsonl ;; esac\n"
			for _, b := range []string{"tabla-native", "tabla-arm64", "tabla-armv6"} {
				write(filepath.Join(bin, b), tabla)
			}
			// an emulator: notes that it ran, drops -cpu CPU and runs the
			// program
			for _, q := range names {
				write(filepath.Join(path, q), "#!/bin/sh\n: >\""+filepath.Join(dir, q+".ran")+"\"\n"+
					"[ \"$1\" = -cpu ] && shift 2\nexec \"$@\"\n")
			}
			cmd := exec.Command(script, bin)
			cmd.Env = []string{"PATH=" + path, "HOME=" + dir, "TMPDIR=" + dir}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "arm-check: arm64 and armv6 match native") {
				t.Fatalf("arm-check with %s and %s on PATH: %v\n%s", names[0], names[1], err, out)
			}
			for _, q := range names {
				if _, err := os.Stat(filepath.Join(dir, q+".ran")); err != nil {
					t.Errorf("%s was never run", q)
				}
			}
		})
	}
}
