package serial_test

import (
	"testing"
	"time"

	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/sim"
)

// TestPTYFaults plays every fault the simulator knows against the driver
// and checks that the consumer never sees a lost or invented change and
// ends with the board's truth.
func TestPTYFaults(t *testing.T) {
	type rig = ptyRig
	moves := func(r *rig) {
		r.do(r.vb.Place("a1", "1"))
		r.do(r.vb.Place("b2", "2"))
		r.vb.Advance(sim.ActionTime)
		r.do(r.vb.Lift("a1"))
		r.do(r.vb.Place("a2", ""))
	}
	tests := []struct {
		name string
		run  func(r *rig)
	}{
		{"bounce", func(r *rig) {
			r.do(r.vb.Place("c3", "1"))
			r.do(r.vb.Bounce("c3", 3))
			r.do(r.vb.Bounce("d4", 2))
			moves(r)
		}},
		{"slide", func(r *rig) {
			r.do(r.vb.Place("a1", "1"))
			r.do(r.vb.Place("a3", "2"))
			r.do(r.vb.Slide("a1", "a2", "a3", "a4", "a5"))
			moves(r)
		}},
		{"reorder", func(r *rig) {
			r.do(r.vb.Line("reorder", 0))
			moves(r)
			r.do(r.vb.Line("reorder", 0))
			r.do(r.vb.Place("e5", "1"))
			r.do(r.vb.Place("e4", "1"))
		}},
		{"delay", func(r *rig) {
			r.vb.Delay(300 * time.Millisecond)
			moves(r)
			r.vb.Advance(time.Second)
		}},
		{"drop", func(r *rig) {
			r.do(r.vb.Line("drop", 1))
			moves(r)
			r.do(r.vb.Line("drop", 3))
			r.do(r.vb.Place("e5", "1"))
		}},
		{"corrupt", func(r *rig) {
			r.do(r.vb.Line("corrupt", 1))
			moves(r)
			r.do(r.vb.Line("corrupt", 2))
			r.do(r.vb.Place("e5", "1"))
		}},
		{"garbage", func(r *rig) {
			r.do(r.vb.Line("garbage", 16))
			moves(r)
			r.do(r.vb.Line("garbage", 300))
			r.do(r.vb.Place("e5", "1"))
			r.do(r.vb.Line("garbage", 5))
		}},
		{"slow", func(r *rig) {
			r.vb.Slow(50 * time.Millisecond)
			moves(r)
			r.vb.Advance(time.Second)
			r.vb.Slow(0)
		}},
		{"pull-and-replug", func(r *rig) {
			r.do(r.vb.Place("a1", "1"))
			r.settle()
			r.do(r.vb.Unplug())
			// Changes while the cable is out are seen only via the
			// snapshot on replug.
			r.do(r.vb.Lift("a1"))
			r.do(r.vb.Place("b1", ""))
			r.do(r.vb.Place("f6", "2"))
			waitFor(r.t, func() bool { return hasStatus(r, hardware.Disconnected) })
			r.do(r.vb.Replug())
			r.settle()
			waitFor(r.t, func() bool { return countStatus(r, hardware.Connected) >= 1 })
			moves(r)
		}},
		{"everything", func(r *rig) {
			r.do(r.vb.Line("garbage", 40))
			r.do(r.vb.Place("a1", "1"))
			r.do(r.vb.Bounce("a1", 2))
			r.do(r.vb.Line("drop", 2))
			r.do(r.vb.Line("reorder", 0))
			r.do(r.vb.Slide("a1", "b1", "c1"))
			r.do(r.vb.Line("corrupt", 1))
			r.do(r.vb.Place("d4", "2"))
			r.do(r.vb.Unplug())
			r.do(r.vb.Lift("d4"))
			r.do(r.vb.Replug())
			r.do(r.vb.Line("garbage", 7))
			moves(r)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newPTYRig(t, "gyges", sim.Identifying)
			r.settle()
			tc.run(r)
			r.settle()
			st := r.hw.Stats()
			t.Logf("stats %+v", st)
			switch tc.name {
			case "drop", "corrupt", "garbage":
				if st.BadFrames == 0 {
					t.Error("the fault damaged no frame")
				}
			case "reorder":
				if st.Gaps == 0 {
					t.Error("reordering made no sequence gap")
				}
			case "pull-and-replug", "everything":
				if st.Connects < 2 {
					t.Errorf("%d connections, want a reconnection", st.Connects)
				}
			}
		})
	}
}

func hasStatus(r *ptyRig, c hardware.Conn) bool { return countStatus(r, c) > 0 }

func countStatus(r *ptyRig, c hardware.Conn) int {
	n := 0
	for _, e := range r.eventsOf(hardware.Status) {
		if e.Conn == c {
			n++
		}
	}
	return n
}
