package companion

import (
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// The referee speaks its own vocabulary (engine/ never imports a driver);
// these translate between it and hardware's.

var inputKinds = [...]referee.InputKind{
	hardware.Snapshot: referee.SensorSnapshot,
	hardware.Change:   referee.SensorChange,
	hardware.Roll:     referee.DieRoll,
	hardware.Press:    referee.ButtonPress,
	hardware.Status:   referee.LinkStatus,
	hardware.Fault:    referee.BoardFault,
}

// refInput translates a board event for the referee. Sensor codes and
// button numbers are the same on both sides (pinned by a test).
func refInput(ev hardware.Event) referee.Input {
	in := referee.Input{At: ev.At, Sensor: ev.Sensor, Code: ev.Code, Codes: ev.Codes, Face: ev.Face,
		Button: referee.Button(ev.Button), Link: referee.Link(ev.Conn), Err: ev.Err}
	if int(ev.Kind) < len(inputKinds) {
		in.Kind = inputKinds[ev.Kind]
	}
	return in
}

// hwFrame translates the referee's lights into an LED frame, reusing dst.
func hwFrame(dst []hardware.LED, src []referee.Light) []hardware.LED {
	dst = dst[:0]
	for _, l := range src {
		dst = append(dst, hardware.LED{R: l.R, G: l.G, B: l.B, Blink: hardware.Blink(l.Blink)})
	}
	return dst
}
