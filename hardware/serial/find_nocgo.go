//go:build darwin && !cgo

package serial

import "fmt"

// FindPort needs cgo on macOS (go.bug.st/serial's enumerator uses IOKit):
// name the port with serial:PATH instead.
func FindPort(ids []USBID) (string, error) {
	return "", fmt.Errorf("%w: finding USB boards needs a cgo build on macOS (use serial:PATH)", ErrNoPort)
}
