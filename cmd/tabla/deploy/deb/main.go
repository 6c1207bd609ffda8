// Command deb writes tabla's Debian packages for the Raspberry Pi,
// tabla_VERSION_arm64.deb and tabla_VERSION_armhf.deb (package
// cmd/tabla/internal/debpkg says what they hold):
//
//	go run ./cmd/tabla/deploy/deb -o DIR [-version V]
//
// Run it from anywhere in the tabla tree; on the Pi, sudo apt install
// ./tabla_VERSION_ARCH.deb.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tabla-board/tabla/cmd/tabla/internal/debpkg"
)

func main() {
	out := flag.String("o", "", "directory the packages are written to (required)")
	version := flag.String("version", "", "package version (default: 0.0~gitDATE.HASH of the last commit)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: deb -o DIR [-version V]")
		os.Exit(2)
	}
	if err := run(*out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "deb:", err)
		os.Exit(1)
	}
}

func run(out, version string) error {
	ctx := context.Background()
	top, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(top))
	if mod == "" || mod == os.DevNull {
		return fmt.Errorf("not in the tabla module (go env GOMOD is empty): run it from the tabla tree")
	}
	paths, err := debpkg.Build(ctx, debpkg.Options{Version: version, Top: filepath.Dir(mod), Out: out})
	for _, p := range paths {
		fmt.Println(p)
	}
	return err
}
