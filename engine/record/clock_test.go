package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/engine/clock"
	"github.com/tabla-board/tabla/engine/record"
)

// TestTimedLines: a move's "ms" is written and read back, and the game's
// clocks are rebuilt from the header's control and the lines' turn times.
func TestTimedLines(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	ctl, _ := clock.ParseControls([]string{"1m+2s"})
	if err := w.WriteHeader(&record.Header{Game: "star", First: "red", Clock: ctl}); err != nil {
		t.Fatal(err)
	}
	w.Write(record.Line{Move: "b1-d9", By: "red", MS: 12345, Timed: true})
	w.Write(record.Line{Move: "b12-d6", By: "white"})
	if !strings.Contains(buf.String(), `"clock":"1m+2s"`) || !strings.Contains(buf.String(), `{"move":"b1-d9","by":"red","ms":12345}`) {
		t.Fatalf("written:\n%s", buf.String())
	}
	g, err := record.Replay(&buf, "timed")
	if err != nil {
		t.Fatal(err)
	}
	if a := g.Applied; !a[0].Timed || a[0].MS != 12345 || a[1].Timed {
		t.Errorf("applied %+v", a)
	}
	c := g.Clock()
	if c.Left(0, 0) != 60*time.Second-12345*time.Millisecond+2*time.Second || c.Left(1, 0) != time.Minute {
		t.Errorf("clocks %v %v", c.Left(0, 0), c.Left(1, 0))
	}
}

// TestClockErrors: a wrong control or turn time says where.
func TestClockErrors(t *testing.T) {
	for _, tc := range []struct {
		text, field, msg string
		line             int
	}{
		{`{"tabla":1,"game":"star","first":"red","clock":"10m+5"}`, "clock", "bad time control", 1},
		{`{"tabla":1,"game":"star","first":"red","clock":{"red":"5m","blue":"5m"}}`, "clock", "blue is not a seat", 1},
		{`{"tabla":1,"game":"star","first":"red","clock":null}`, "clock", "want a control", 1},
		{`{"tabla":1,"game":"star","first":"red"}` + "\n" + `{"move":"b1-d9","ms":1.5}`, "", "ms: want the turn's time", 2},
		{`{"tabla":1,"game":"star","first":"red"}` + "\n" + `{"move":"b1-d9","ms":"5"}`, "", "ms: want the turn's time", 2},
	} {
		_, err := record.Replay(strings.NewReader(tc.text+"\n"), "c.jsonl")
		var re *record.Error
		if !errors.As(err, &re) || re.Line != tc.line || re.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v (field %q), want line %d field %q %q", tc.text, err, fieldOf(re), tc.line, tc.field, tc.msg)
		}
	}
}

func fieldOf(e *record.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}
