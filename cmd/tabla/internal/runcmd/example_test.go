package runcmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConfigExample: deploy/tabla.conf.example reads as it is, and with
// every commented-out "# key = value" line switched on (the values it
// suggests are valid, and it documents only keys tabla run knows).
func TestConfigExample(t *testing.T) {
	const example = "../../deploy/tabla.conf.example"
	text, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{}
	if err := o.load(example, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	commented := regexp.MustCompile(`(?m)^# ([a-z-]+) = `)
	on := commented.ReplaceAllStringFunc(string(text), func(l string) string {
		if configKeys[commented.FindStringSubmatch(l)[1]] == "" {
			return l // prose that happens to look like a key
		}
		return strings.TrimPrefix(l, "# ")
	})
	if on == string(text) {
		t.Fatal("no commented-out keys found: update this test")
	}
	p := filepath.Join(t.TempDir(), "tabla.conf")
	os.WriteFile(p, []byte(on), 0o644)
	o = &Options{}
	if err := o.load(p, func(string) bool { return false }); err != nil {
		t.Fatalf("%v\n%s", err, on)
	}
	if len(o.AllowHosts) == 0 || o.Settle == 0 || o.LogFormat != "json" || o.Token == "" {
		t.Errorf("keys not read: %+v", o)
	}
}
