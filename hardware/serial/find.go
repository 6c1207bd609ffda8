//go:build !darwin || cgo

package serial

import (
	"fmt"
	"strings"

	"go.bug.st/serial/enumerator"
)

// FindPort returns the first port whose USB ids match one of ids (compared
// without case: go.bug.st/serial reports them upper-case on some systems
// and lower-case on others).
func FindPort(ids []USBID) (string, error) {
	ports, err := enumerator.GetDetailedPortsList()
	if err != nil {
		return "", fmt.Errorf("serial: listing ports: %w", err)
	}
	return matchPort(ports, ids)
}

func matchPort(ports []*enumerator.PortDetails, ids []USBID) (string, error) {
	var seen []string
	for _, id := range ids {
		for _, p := range ports {
			if p.IsUSB && strings.EqualFold(p.VID, id.VID) && strings.EqualFold(p.PID, id.PID) {
				return p.Name, nil
			}
		}
	}
	for _, p := range ports {
		if p.IsUSB {
			seen = append(seen, fmt.Sprintf("%s (%s:%s)", p.Name, p.VID, p.PID))
		} else {
			seen = append(seen, p.Name)
		}
	}
	if len(seen) == 0 {
		return "", fmt.Errorf("%w: no serial ports at all", ErrNoPort)
	}
	return "", fmt.Errorf("%w among %s (use serial:PATH)", ErrNoPort, strings.Join(seen, ", "))
}
