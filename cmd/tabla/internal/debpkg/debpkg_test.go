package debpkg

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/cmd/tabla/deploy"
)

// acceptedLintian are the lintian warnings and infos the packages may
// have, each with its reason; any other tag, and every error, fails.
var acceptedLintian = map[string]string{
	// tabla --help and the README are its documentation; no man page is
	// written.
	"no-manual-page": "no man page: tabla --help and the README document it",
	// The unit is for systemd only (Type=notify, its sandbox); Raspberry
	// Pi OS runs systemd.
	"package-supports-alternative-init-but-no-init.d-script": "systemd only (Type=notify)",
	"systemd-service-file-missing-documentation-key":         "the unit's comments say where its documentation is",
}

// machineBytes reports whether a lintian tag is a "spelling error" that
// lintian read in a binary's machine code or data rather than in a text:
// a misspelt word with a capital after its first letter ("WhE", found in
// the armhf build at f15a6e2), which no message of tabla's holds. A real
// misspelling in a message (all lower case, or capitalised like a word)
// still fails.
func machineBytes(tag, rest string) bool {
	if tag != "spelling-error-in-binary" {
		return false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return false
	}
	w := f[0]
	return len(w) > 1 && strings.ToLower(w[1:]) != w[1:]
}

// need skips on a developer's machine without the tool and fails in CI.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s missing (apt-get install dpkg lintian)", tool)
			}
			t.Fatalf("%s missing, and CI is set (apt-get install dpkg lintian)", tool)
		}
	}
}

// TestPackages builds both packages with the README's command (go run
// ./cmd/tabla/deploy/deb, which calls Build) and checks them as Debian's
// tools see them: dpkg-deb's fields, conffiles and contents, the binary for
// the right machine, the unit running /usr/bin/tabla, the config example
// and Avahi file as they are in cmd/tabla/deploy, the maintainer scripts,
// and lintian (no error; no warning but the accepted ones).
//
// The command runs as go run builds it, without the race detector even
// under go test -race: Build is one goroutine (the detector has nothing to
// watch), and gzip -9 of two 15 MB binaries under the detector took about
// 70 s of CPU (BENCHMARKS.md, "Issue 41").
func TestPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds tabla twice and runs lintian")
	}
	need(t, "dpkg-deb", "lintian", "git")
	out := t.TempDir()
	const version = "1.2.3~test"
	deb := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "run", "./cmd/tabla/deploy/deb", "-o", out, "-version", version)
	deb.Dir = "../../../.."
	// the deb command's own go (go env GOMOD, the cross-builds) is this one
	deb.Env = append(os.Environ(), "PATH="+filepath.Join(runtime.GOROOT(), "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr bytes.Buffer
	deb.Stderr = &stderr
	printed, err := deb.Output()
	if err != nil {
		t.Fatalf("go run ./cmd/tabla/deploy/deb: %v\n%s", err, stderr.Bytes())
	}
	want := []string{filepath.Join(out, "tabla_1.2.3~test_arm64.deb"), filepath.Join(out, "tabla_1.2.3~test_armhf.deb")}
	if paths := strings.Fields(string(printed)); !slices.Equal(paths, want) {
		t.Fatalf("the command printed %q, want the packages %q", paths, want)
	}
	paths := want
	machines := map[string]elf.Machine{"arm64": elf.EM_AARCH64, "armhf": elf.EM_ARM}
	for i, a := range Arches {
		t.Run(a.Debian, func(t *testing.T) {
			checkPackage(t, paths[i], a, machines[a.Debian], version)
		})
	}

	cmd := exec.Command("lintian", "--tag-display-limit", "0", "-I", "-E", paths[0], paths[1])
	msg, _ := cmd.CombinedOutput() // exit 1 for errors and 2 for warnings: judged below
	tags := regexp.MustCompile(`(?m)^([EWIXP]): tabla: ([a-z0-9.+-]+)(.*)$`).FindAllStringSubmatch(string(msg), -1)
	var bad []string
	for _, m := range tags {
		if m[1] == "E" {
			bad = append(bad, "error "+m[2]+m[3])
		} else if _, ok := acceptedLintian[m[2]]; !ok && m[1] != "P" && m[1] != "X" && !machineBytes(m[2], m[3]) {
			bad = append(bad, m[1]+" "+m[2]+m[3])
		}
	}
	if len(bad) > 0 || cmd.ProcessState.ExitCode() > 2 {
		t.Errorf("lintian (exit %d):\n%s\nnot accepted: %q", cmd.ProcessState.ExitCode(), msg, bad)
	}
	if len(tags) == 0 && cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("lintian failed:\n%s", msg)
	}
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func checkPackage(t *testing.T, path string, a Arch, machine elf.Machine, version string) {
	// The control fields.
	for field, want := range map[string]string{"Package": "tabla", "Version": version, "Architecture": a.Debian,
		"Depends": "adduser, init-system-helpers (>= 1.56)", "Recommends": "avahi-daemon"} {
		if got := strings.TrimSpace(dpkgDeb(t, "-f", path, field)); got != want {
			t.Errorf("%s: %s %q, want %q", filepath.Base(path), field, got, want)
		}
	}
	info := dpkgDeb(t, "-I", path)
	for _, script := range []string{"postinst", "prerm", "postrm", "conffiles"} {
		if !strings.Contains(info, " "+script) {
			t.Errorf("dpkg-deb -I: no %s:\n%s", script, info)
		}
	}

	// The files, their modes and owners.
	contents := dpkgDeb(t, "--contents", path)
	for file, mode := range map[string]string{
		"./usr/bin/tabla":                     "-rwxr-xr-x root/root",
		"./lib/systemd/system/tabla.service":  "-rw-r--r-- root/root",
		"./etc/avahi/services/tabla.service":  "-rw-r--r-- root/root",
		"./etc/tabla/tabla.conf":              "-rw-r--r-- root/root",
		"./usr/share/doc/tabla/copyright":     "-rw-r--r-- root/root",
		"./usr/share/doc/tabla/changelog.gz":  "-rw-r--r-- root/root",
		"./usr/share/lintian/overrides/tabla": "-rw-r--r-- root/root",
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(mode) + ` .* ` + regexp.QuoteMeta(file) + `$`).MatchString(contents) {
			t.Errorf("dpkg-deb --contents: no %s %s:\n%s", mode, file, contents)
		}
	}
	if strings.Contains(contents, "./usr/local") {
		t.Errorf("the package writes /usr/local:\n%s", contents)
	}

	// What the files hold.
	root := t.TempDir()
	dpkgDeb(t, "-x", path, root)
	ctl := t.TempDir()
	dpkgDeb(t, "-e", path, ctl)
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	unit := read("lib/systemd/system/tabla.service")
	if !bytes.Contains(unit, []byte("\nExecStart=/usr/bin/tabla run --config /etc/tabla/tabla.conf ")) {
		t.Errorf("the unit does not run /usr/bin/tabla with /etc/tabla/tabla.conf:\n%s", unit)
	}
	if want := bytes.Replace(deploy.Unit, []byte("ExecStart=/usr/local/bin/tabla "), []byte("ExecStart=/usr/bin/tabla "), 1); !bytes.Equal(unit, want) {
		t.Error("the unit differs from cmd/tabla/deploy/tabla.service beyond ExecStart")
	}
	if !bytes.Equal(read("etc/tabla/tabla.conf"), deploy.ConfigExample) {
		t.Error("/etc/tabla/tabla.conf is not cmd/tabla/deploy/tabla.conf.example")
	}
	if !bytes.Equal(read("etc/avahi/services/tabla.service"), deploy.Avahi) {
		t.Error("/etc/avahi/services/tabla.service is not cmd/tabla/deploy/tabla.service.avahi")
	}
	conffiles, err := os.ReadFile(filepath.Join(ctl, "conffiles"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(conffiles)); !slices.Equal(got, []string{"/etc/avahi/services/tabla.service", "/etc/tabla/tabla.conf"}) {
		t.Errorf("conffiles %q", got)
	}

	// The binary: for the package's machine, built as said.
	bin := filepath.Join(root, "usr/bin/tabla")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != machine {
		t.Errorf("/usr/bin/tabla is for %v, want %v", f.Machine, machine)
	}
	bi, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, bi)
	}
	// (with -trimpath, go records no -ldflags: -s -w show as the
	// sections they drop)
	for _, s := range []string{"CGO_ENABLED=0", "GOARCH=" + a.GOARCH, "-trimpath=true"} {
		if !strings.Contains(string(bi), s) {
			t.Errorf("/usr/bin/tabla not built with %s:\n%s", s, bi)
		}
	}
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("/usr/bin/tabla has a %s section: not stripped (-ldflags=\"-s -w\")", s.Name)
		}
	}
	if a.GOARM != "" && !strings.Contains(string(bi), "GOARM="+a.GOARM) {
		t.Errorf("/usr/bin/tabla not built with GOARM=%s:\n%s", a.GOARM, bi)
	}

	// The maintainer scripts: valid sh; the user, its groups, the service.
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		if out, err := exec.Command("sh", "-n", filepath.Join(ctl, s)).CombinedOutput(); err != nil {
			t.Errorf("%s: sh -n: %v\n%s", s, err, out)
		}
	}
	post, err := os.ReadFile(filepath.Join(ctl, "postinst"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"adduser --system --group", "for group in dialout gpio spi", "deb-systemd-helper enable tabla.service", "deb-systemd-invoke \"$action\" tabla.service"} {
		if !bytes.Contains(post, []byte(s)) {
			t.Errorf("postinst lacks %q", s)
		}
	}
}

func TestMachineBytes(t *testing.T) {
	for _, c := range []struct {
		tag, rest string
		want      bool
	}{
		{"spelling-error-in-binary", " WhE When [usr/bin/tabla]", true},
		{"spelling-error-in-binary", " recieve receive [usr/bin/tabla]", false},
		{"spelling-error-in-binary", " Recieve Receive [usr/bin/tabla]", false},
		{"no-manual-page", " WhE [usr/bin/tabla]", false},
		{"spelling-error-in-binary", "", false},
	} {
		if got := machineBytes(c.tag, c.rest); got != c.want {
			t.Errorf("machineBytes(%q, %q) = %v, want %v", c.tag, c.rest, got, c.want)
		}
	}
}
