package referee

import (
	"testing"

	"github.com/tabla-board/tabla/engine"
)

func TestShowNoHint(t *testing.T) {
	tb := newTable(t, "star", engine.Config{First: "red"}, false, 1)
	if err := tb.r.ShowHint("b1-f3"); err != nil {
		t.Fatal(err)
	}
	if st := tb.r.State(); st.Hint != "b1-f3" || st.LEDs["f3"].Role != RoleHint.String() {
		t.Fatalf("hint %q, f3 lit %+v", st.Hint, st.LEDs["f3"])
	}
	v := tb.r.Version()
	tb.r.ShowNoHint()
	if tb.r.Version() == v {
		t.Error("ShowNoHint did not bump the version")
	}
	st := tb.r.State()
	if st.Hint != "" || st.Message != NoHintMessage {
		t.Errorf("hint %q message %q, want no hint", st.Hint, st.Message)
	}
	for c, l := range st.LEDs {
		if l.Role == RoleHint.String() {
			t.Errorf("%s still lit as a hint", c)
		}
	}
	// The game goes on; the next move clears the message.
	tb.do("lift b1", "place f3")
	tb.expect("to_move=white", "ply=1")
	if m := tb.r.State().Message; m != "" {
		t.Errorf("message %q after the next move", m)
	}
}
