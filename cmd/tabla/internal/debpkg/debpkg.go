// Package debpkg builds tabla's Debian packages for the Raspberry Pi
// (`go run ./cmd/tabla/deploy/deb -o DIR`): tabla_VERSION_arm64.deb for
// the 64-bit Raspberry Pi OS (Pi 3, 4, 5, Zero 2) and
// tabla_VERSION_armhf.deb for the 32-bit one (every Pi: built for ARMv6,
// GOARM=6, as Raspberry Pi OS's armhf is, so that a Pi Zero or 1 runs it
// too; Debian's own armhf is ARMv7, which ARMv6 code also runs on).
//
// A package holds the cross-built binary (/usr/bin/tabla, CGO off,
// stripped, -trimpath), the systemd unit
// (/lib/systemd/system/tabla.service), the Avahi service that announces
// the live page (/etc/avahi/services/tabla.service) and the example configuration as
// /etc/tabla/tabla.conf, both conffiles (an edited one survives upgrades),
// with the copyright and changelog files Debian asks for, and lintian's
// override of the one error it reports for any Go binary packaged without
// a Debian source package (see lintianOverrides). These are the
// files of cmd/tabla/deploy, which the README's manual steps copy, taken
// as they are but for the unit's ExecStart, which names /usr/bin/tabla
// instead of /usr/local/bin/tabla (a package does not write /usr/local).
//
// The maintainer scripts: postinst creates the system user and group
// tabla (adduser --system), adds it to the dialout, gpio and spi groups
// that exist (serial boards; the Pi's GPIO and SPI), and enables and
// starts the service as debhelper's snippets do (deb-systemd-helper,
// deb-systemd-invoke; restart on upgrade); prerm stops it on removal;
// postrm reloads systemd, and on purge forgets the unit's enablement.
// Games journalled in /var/lib/tabla and the user stay after a purge:
// they are the players' records.
//
// The packages are written with nfpm (github.com/goreleaser/nfpm/v2) as a
// library: no hand-written ar or tar.
package debpkg

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"

	"github.com/tabla-board/tabla/cmd/tabla/deploy"
)

// Arch is a Debian architecture the packages are built for, with the Go
// target that builds its binary.
type Arch struct {
	Debian string // arm64, armhf
	GOARCH string
	GOARM  string // "" but for arm
}

// Arches are the two packages: the 64-bit and the 32-bit Raspberry Pi OS.
var Arches = []Arch{
	{Debian: "arm64", GOARCH: "arm64"},
	{Debian: "armhf", GOARCH: "arm", GOARM: "6"},
}

// Options say what to build.
type Options struct {
	// Version is the package version (Debian syntax: it starts with a
	// digit); "" takes Version(Top).
	Version string
	// Top is the tabla module's root (go.mod), where the binary is built.
	Top string
	// Go is the go command that cross-builds the binary ["go"].
	Go string
	// Out is the directory the packages are written to.
	Out string
	// Time stamps the files and the package [the last commit's time, or
	// now]: the same tree gives the same package.
	Time time.Time
}

const (
	unitPath   = "/lib/systemd/system/tabla.service"
	avahiPath  = "/etc/avahi/services/tabla.service"
	configPath = "/etc/tabla/tabla.conf"
	binPath    = "/usr/bin/tabla"
	docDir     = "/usr/share/doc/tabla"

	maintainer = "tabla maintainers <maintainers@users.noreply.a-seed-1d593688.example>"
)

var versionRE = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`)

// Version is the version of the tree at top: 0.0~gitYYYYMMDD.HASH, from
// its last commit (git), "~" so that a tagged 0.0 release would sort
// after it. It fails outside a git checkout: give the version then.
func Version(ctx context.Context, top string) (string, time.Time, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", top, "log", "-1", "--format=%ct %h")
	out, err := cmd.Output()
	if err != nil {
		return "", time.Time{}, fmt.Errorf("debpkg: the version from git (give -version outside a git checkout): %w", err)
	}
	var sec int64
	var hash string
	if _, err := fmt.Sscan(string(out), &sec, &hash); err != nil {
		return "", time.Time{}, fmt.Errorf("debpkg: git log says %q: %w", out, err)
	}
	t := time.Unix(sec, 0).UTC()
	return fmt.Sprintf("0.0~git%s.%s", t.Format("20060102"), hash), t, nil
}

// Build writes both packages into o.Out and returns their paths.
func Build(ctx context.Context, o Options) ([]string, error) {
	if o.Go == "" {
		o.Go = "go"
	}
	if o.Version == "" || o.Time.IsZero() {
		v, t, err := Version(ctx, o.Top)
		if err != nil && o.Version == "" {
			return nil, err
		}
		if o.Version == "" {
			o.Version = v
		}
		if o.Time.IsZero() {
			o.Time = t
		}
	}
	if o.Time.IsZero() {
		o.Time = time.Now().UTC().Truncate(time.Second)
	}
	if !versionRE.MatchString(o.Version) {
		return nil, fmt.Errorf("debpkg: version %q: a Debian version starts with a digit and holds only letters, digits and . + ~", o.Version)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "tabla-deb-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if err := writeShared(work, o); err != nil {
		return nil, err
	}
	var paths []string
	for _, a := range Arches {
		bin := filepath.Join(work, "tabla-"+a.Debian)
		if err := crossBuild(ctx, o, a, bin); err != nil {
			return nil, err
		}
		p, err := pack(work, bin, a, o)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// crossBuild builds tabla for a: CGO off (the Pi needs no C library of a
// given version), stripped (-s -w), without the build machine's paths
// (-trimpath: the same tree gives the same binary wherever it is checked
// out). Otherwise built as .ci/run's cross-builds are, so that those
// compiled packages are reused, and so are a checkout's elsewhere.
func crossBuild(ctx context.Context, o Options, a Arch, out string) error {
	cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/tabla")
	cmd.Dir = o.Top
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+a.GOARCH, "GOARM="+a.GOARM)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("debpkg: go build for %s (GOARCH=%s GOARM=%s): %v\n%s", a.Debian, a.GOARCH, a.GOARM, err, msg)
	}
	return nil
}

// Unit is deploy's unit as the package installs it: ExecStart runs
// /usr/bin/tabla.
func Unit() ([]byte, error) {
	const manual, packaged = "ExecStart=/usr/local/bin/tabla ", "ExecStart=" + binPath + " "
	if n := bytes.Count(deploy.Unit, []byte(manual)); n != 1 {
		return nil, fmt.Errorf("debpkg: cmd/tabla/deploy/tabla.service has %d lines %q, want 1", n, manual)
	}
	return bytes.Replace(deploy.Unit, []byte(manual), []byte(packaged), 1), nil
}

// writeShared writes into work what both packages hold besides the binary.
func writeShared(work string, o Options) error {
	unit, err := Unit()
	if err != nil {
		return err
	}
	changelog, err := gzipped(fmt.Sprintf(changelogText, o.Version, maintainer, o.Time.Format(time.RFC1123Z)))
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"tabla.service":       unit,
		"tabla.service.avahi": deploy.Avahi,
		"tabla.conf":          deploy.ConfigExample,
		"copyright":           []byte(copyrightText),
		"changelog.gz":        changelog,
		"postinst":            []byte(postinst),
		"prerm":               []byte(prerm),
		"postrm":              []byte(postrm),
		"lintian-overrides":   []byte(lintianOverrides),
	} {
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pack writes the package for a: tabla_VERSION_ARCH.deb.
func pack(work, bin string, a Arch, o Options) (string, error) {
	src := func(name string) string { return filepath.Join(work, name) }
	fi := func(mode os.FileMode) *files.ContentFileInfo {
		return &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: o.Time}
	}
	info := &nfpm.Info{
		Name:          "tabla",
		Arch:          a.Debian,
		Platform:      "linux",
		Version:       o.Version,
		VersionSchema: "none",
		Section:       "misc",
		Priority:      "optional",
		Maintainer:    maintainer,
		Homepage:      "https://tabla.local/",
		Description: "board-game companion for five physical board games\n" +
			"tabla follows a physical game of DAHA, STAR, GYGES, RAY or six on a\n" +
			"sensor board: a referee checks every move, LEDs light where a piece\n" +
			"may go, games are journalled and analysed, and phones on the LAN\n" +
			"watch the board on a live page announced by Avahi.",
		MTime: o.Time,
		Overridables: nfpm.Overridables{
			Depends:    []string{"adduser", "init-system-helpers (>= 1.56)"},
			Recommends: []string{"avahi-daemon"},
			Contents: files.Contents{
				{Source: bin, Destination: binPath, FileInfo: fi(0o755)},
				{Source: src("tabla.service"), Destination: unitPath, FileInfo: fi(0o644)},
				{Source: src("tabla.service.avahi"), Destination: avahiPath, Type: files.TypeConfig, FileInfo: fi(0o644)},
				{Source: src("tabla.conf"), Destination: configPath, Type: files.TypeConfig, FileInfo: fi(0o644)},
				{Source: src("copyright"), Destination: docDir + "/copyright", FileInfo: fi(0o644)},
				{Source: src("changelog.gz"), Destination: docDir + "/changelog.gz", FileInfo: fi(0o644)},
				{Source: src("lintian-overrides"), Destination: "/usr/share/lintian/overrides/tabla", FileInfo: fi(0o644)},
			},
			Scripts: nfpm.Scripts{
				PostInstall: src("postinst"),
				PreRemove:   src("prerm"),
				PostRemove:  src("postrm"),
			},
		},
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return "", fmt.Errorf("debpkg: %s: %w", a.Debian, err)
	}
	path := filepath.Join(o.Out, fmt.Sprintf("tabla_%s_%s.deb", o.Version, a.Debian))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := deb.Default.Package(info, f); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("debpkg: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, nil
}

// gzipped is text compressed as gzip -9n does: the best compression, no
// name or time in the header (Debian's documentation files).
func gzipped(text string) ([]byte, error) {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write([]byte(text)); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
