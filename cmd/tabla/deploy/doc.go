// Package deploy holds what installs tabla on a Raspberry Pi: the systemd
// unit (tabla.service), the config example (tabla.conf.example) and the
// Avahi service file that announces the live board page on the LAN
// (tabla.service.avahi, for /etc/avahi/services/tabla.service). Its
// tests check the unit's sandbox with systemd-analyze security (overall
// exposure 2.5 or lower) and its syntax with systemd-analyze verify;
// runcmd's tests read the config example; TestAvahiService checks that
// the Avahi file announces the port the config example listens on.
//
// The same files go into the Raspberry Pi's Debian packages (Unit, Avahi
// and ConfigExample embed them): `go run ./cmd/tabla/deploy/deb -o DIR`,
// logic in cmd/tabla/internal/debpkg.
package deploy
