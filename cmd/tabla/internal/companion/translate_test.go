package companion

import (
	"testing"

	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// The translation relies on equal numbering of codes, buttons, links and
// blinks on both sides.
func TestTranslationTables(t *testing.T) {
	if referee.CodeEmpty != hardware.Empty || referee.CodeOccupied != hardware.Occupied {
		t.Errorf("sensor codes differ")
	}
	for b := hardware.ButtonRoll; b <= hardware.ButtonNew; b++ {
		if got := referee.Button(b).String(); got != b.String() {
			t.Errorf("button %d: referee %s, hardware %s", b, got, b)
		}
	}
	for c := hardware.Connected; c <= hardware.Reconnecting; c++ {
		if got := referee.Link(c).String(); got != c.String() {
			t.Errorf("link %d: referee %s, hardware %s", c, got, c)
		}
	}
	for k := hardware.Snapshot; k <= hardware.Fault; k++ {
		in := refInput(hardware.Event{Kind: k})
		if in.Kind == 0 {
			t.Errorf("event kind %s has no referee input", k)
		}
	}
	if got := refInput(hardware.Event{Kind: hardware.Status, Conn: hardware.Disconnected}); got.Kind != referee.LinkStatus || got.Link != referee.Disconnected {
		t.Errorf("status: got %+v", got)
	}
	f := hwFrame(nil, []referee.Light{{R: 1, G: 2, B: 3, Blink: referee.Fast}})
	if f[0] != (hardware.LED{R: 1, G: 2, B: 3, Blink: hardware.Fast}) {
		t.Errorf("frame: got %+v", f[0])
	}
}
