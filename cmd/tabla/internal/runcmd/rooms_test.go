package runcmd

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// internal is where tabla's own packages live.
const internal = "github.com/tabla-board/tabla/cmd/tabla/internal/"

// tableRooms are the hub's rooms `tabla run` may use (issue 37): the
// table's link, remote play and the names both sides share.
var tableRooms = []string{internal + "hub/link", internal + "hub/remote", internal + "hub/wire"}

// clubPackage says why path, a package `tabla run` depends on, is the
// club's and not the table's ("": it is not): the hub's service and pages
// (hub), its NATS server (hub/natsrv) or any other room of the hub but
// the table's, the club's pairing and scoring (club, club/…), or the
// commands that run them.
func clubPackage(path string) string {
	rel, ok := strings.CutPrefix(path, internal)
	if !ok || slices.Contains(tableRooms, path) {
		return ""
	}
	switch {
	case rel == "hub" || strings.HasPrefix(rel, "hub/"):
		return "a room of the hub that is not the table's"
	case rel == "club" || strings.HasPrefix(rel, "club/"):
		return "the club's pairing and scoring"
	case rel == "hubcmd" || rel == "clubcmd":
		return "a command of the hub"
	}
	return ""
}

// TestRunImportsNoClubService: `tabla run` depends on the hub's rooms of
// the table (link, remote play, the shared names) and on no package of
// the club's service, its pages or its NATS server (`go list -deps`).
// A failure names each such package and the chain of imports that
// brings it in.
func TestRunImportsNoClubService(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json", ".").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	type pkg struct {
		ImportPath string
		Imports    []string
	}
	imports := map[string][]string{}
	var order []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list -deps -json: %v", err)
		}
		imports[p.ImportPath] = p.Imports
		order = append(order, p.ImportPath)
	}
	self := internal + "runcmd"
	if imports[self] == nil {
		t.Fatalf("go list -deps does not list %s: %d packages", self, len(order))
	}
	var rooms []string
	for _, p := range order {
		if why := clubPackage(p); why != "" {
			t.Errorf("tabla run depends on %s, %s: %s", p, why, strings.Join(chain(imports, self, p), " → "))
		}
		if slices.Contains(tableRooms, p) {
			rooms = append(rooms, p)
		}
	}
	if !slices.Contains(rooms, internal+"hub/link") || !slices.Contains(rooms, internal+"hub/remote") {
		t.Errorf("tabla run links no table to a hub: of the table's rooms it depends on only %v", rooms)
	}
}

// chain is a shortest chain of imports from one package to another.
func chain(imports map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var out []string
			for ; p != ""; p = prev[p] {
				out = append(out, strings.TrimPrefix(p, internal))
			}
			slices.Reverse(out)
			return out
		}
		for _, q := range imports[p] {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return []string{to}
}
