// Package deploy holds what installs tabla on a Raspberry Pi: the systemd
// unit (tabla.service) and the config example (tabla.conf.example). Its
// tests check the unit's sandbox with systemd-analyze security (overall
// exposure 2.5 or lower) and its syntax with systemd-analyze verify;
// runcmd's tests read the config example.
package deploy
