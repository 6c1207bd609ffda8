package deploy

import _ "embed"

// The installed files, for the Debian package (cmd/tabla/deploy/deb): the
// same bytes the README's manual steps copy.
var (
	//go:embed tabla.service
	Unit []byte
	//go:embed tabla.service.avahi
	Avahi []byte
	//go:embed tabla.conf.example
	ConfigExample []byte
)
