package debpkg

// The maintainer scripts, in the shape of debhelper's snippets
// (dh_installsystemd) with the user created first.

const postinst = `#!/bin/sh
set -e

if [ "$1" = configure ]; then
	# The system user the service runs as (the unit's DynamicUser= takes
	# a static user of its name when there is one), with the groups that
	# open the board's devices: serial (dialout), the Pi's GPIO and SPI.
	if ! getent passwd tabla >/dev/null; then
		adduser --system --group --quiet --home /var/lib/tabla --no-create-home \
			--gecos "tabla board-game companion" tabla
	fi
	for group in dialout gpio spi; do
		if getent group "$group" >/dev/null; then
			adduser --quiet tabla "$group"
		fi
	done
fi

if [ "$1" = configure ] || [ "$1" = abort-upgrade ] || [ "$1" = abort-deconfigure ] || [ "$1" = abort-remove ]; then
	# Enabled on the first installation (was-enabled is true then); an
	# administrator's "systemctl disable" is kept across upgrades.
	deb-systemd-helper unmask tabla.service >/dev/null || true
	if deb-systemd-helper --quiet was-enabled tabla.service; then
		deb-systemd-helper enable tabla.service >/dev/null || true
	else
		deb-systemd-helper update-state tabla.service >/dev/null || true
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
		if [ -n "$2" ]; then
			action=restart
		else
			action=start
		fi
		deb-systemd-invoke "$action" tabla.service >/dev/null || true
	fi
fi
`

const prerm = `#!/bin/sh
set -e

if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
	deb-systemd-invoke stop tabla.service >/dev/null || true
fi
`

const postrm = `#!/bin/sh
set -e

if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
	systemctl --system daemon-reload >/dev/null || true
fi

if [ "$1" = remove ] && command -v deb-systemd-helper >/dev/null; then
	deb-systemd-helper mask tabla.service >/dev/null || true
fi

if [ "$1" = purge ] && command -v deb-systemd-helper >/dev/null; then
	deb-systemd-helper purge tabla.service >/dev/null || true
	deb-systemd-helper unmask tabla.service >/dev/null || true
fi
`

// changelogText: version, maintainer, date (RFC 1123 with a numeric zone).
const changelogText = `tabla (%s) unstable; urgency=medium

  * Built from the tabla tree by go run ./cmd/tabla/deploy/deb; the
    project's history is its git log.

 -- %s  %s
`

const copyrightText = `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tabla
Comment: tabla is built from its git tree with the Go modules its go.mod
 lists, which are linked into /usr/bin/tabla under their own licences
 (BSD, MIT, Apache-2.0). The tabla project has not yet named a licence
 for its own code.

Files: *
Copyright: 2025-2026 the tabla maintainers
License: none-yet
 No licence has been granted for tabla's own code yet; all rights are
 reserved by its authors until the project names one.
`

// lintianOverrides: lintian exempts Go binaries from statically-linked-binary
// only when the source package build-depends on golang-go, and these
// packages have no Debian source package. A Go binary built with CGO off is
// static by design (no C library of a given version needed on the Pi).
const lintianOverrides = `# Go binary, CGO off: static by design; lintian exempts Go only through a
# source package's Build-Depends, which this package has none of.
tabla: statically-linked-binary [usr/bin/tabla]
`
