package engine_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPure keeps engine/ pure: nothing under it depends on a driver, the
// simulator or a command (DESIGN.md: the referee speaks its own vocabulary).
func TestPure(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, out)
	}
	const mod = "github.com/tabla-board/tabla/"
	for _, p := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(p, mod)
		if !ok {
			continue
		}
		for _, bad := range []string{"hardware", "sim", "cmd"} {
			if rest == bad || strings.HasPrefix(rest, bad+"/") {
				t.Errorf("engine/ depends on %s", p)
			}
		}
	}
}
