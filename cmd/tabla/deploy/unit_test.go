package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxExposure is the highest overall exposure systemd-analyze security may
// give the unit (0 safest, 10 unprotected; the unit was 8.3 before it was
// hardened).
const maxExposure = 2.5

// systemdAnalyze finds systemd-analyze: without it the test fails in CI
// (.ci/run installs Debian's systemd) and skips elsewhere.
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("systemd-analyze is not installed (.ci/run installs Debian's systemd)")
		}
		t.Skip("systemd-analyze is not installed; apt-get install systemd")
	}
	return path
}

var overall = regexp.MustCompile(`Overall exposure level for \S+: ([0-9]+(?:\.[0-9]+)?) (\S+)`)

// TestUnitSecurity rates the unit's sandbox offline.
func TestUnitSecurity(t *testing.T) {
	sa := systemdAnalyze(t)
	cmd := exec.Command(sa, "security", "--offline=true", "--no-pager", "tabla.service")
	cmd.Env = append(os.Environ(), "SYSTEMD_COLORS=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := overall.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no overall exposure level in:\n%s", out)
	}
	score, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	if score > maxExposure {
		var exposed []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "✗") {
				exposed = append(exposed, strings.Join(strings.Fields(l), " "))
			}
		}
		t.Fatalf("tabla.service: overall exposure %.1f %s, want %.1f or lower; exposed:\n%s", score, m[2], maxExposure,
			strings.Join(exposed, "\n"))
	}
	t.Logf("tabla.service: overall exposure %.1f %s", score, m[2])
}

// TestUnitVerify checks the unit's syntax: every key known and every value
// parsed (systemd-analyze verify warns on stderr and still exits 0, so any
// output fails). The binary is not installed here: ExecStart points at an
// executable that exists for the check.
func TestUnitVerify(t *testing.T) {
	sa := systemdAnalyze(t)
	text, err := os.ReadFile("tabla.service")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(text, []byte("ExecStart=/usr/local/bin/tabla ")) {
		t.Fatal("ExecStart no longer runs /usr/local/bin/tabla: update this test")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	text = bytes.Replace(text, []byte("ExecStart=/usr/local/bin/tabla "), []byte("ExecStart="+self+" "), 1)
	unit := filepath.Join(t.TempDir(), "tabla.service")
	if err := os.WriteFile(unit, text, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sa, "verify", "--man=no", unit)
	cmd.Env = append(os.Environ(), "SYSTEMD_COLORS=0", "SYSTEMD_LOG_LEVEL=notice")
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
