package companion

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// BenchmarkClockSwitch plays STAR moves on a board whose events come in
// real time (the session's own Run loop, settle window 100 ms, the
// journal on disk with an fsync per move) and measures, per move, when
// the clock switched after the move's last placement, on the board's
// clock: the referee reads the board once its sensors have been quiet for
// the settle window (the Run loop's timer, a little after) and accepts the
// move; the press is stamped with the instant that reading settled.
// Metrics: switch-ms (mean) and switch-max-ms, the press's board time
// after the placement; settle-ms for comparison; host-ms, the wall time
// from handing the placement to the session to the clocks having
// switched, and host-after-settle-ms, that less the settle window.
// No assertion: run it with -bench and read the figures.
func BenchmarkClockSwitch(b *testing.B) {
	for _, journal := range []bool{true, false} {
		name := "journal"
		if !journal {
			name = "no-journal"
		}
		b.Run(name, func(b *testing.B) { benchClockSwitch(b, journal) })
	}
}

func benchClockSwitch(b *testing.B, journal bool) {
	def := boards.Default("star")
	hw := newHWFake(def)
	h := record.Header{Game: "star", First: "red", Clock: controls(b, "90m+30s")}
	dir := ""
	if journal {
		dir = b.TempDir()
	}
	s, err := Open(Options{Header: h, Board: def, HW: hw, JournalDir: dir, NoResume: true, Source: "sim"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	changed := s.Subscribe(ctx)

	sensorOf := make(map[string]int)
	for i, c := range def.Sensors {
		if c >= 0 {
			sensorOf[def.Cells[c].Name] = i
		}
	}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	codes := make([]byte, len(def.Sensors))
	for cell := range s.ref.Game().Position().Pieces {
		codes[sensorOf[cell]] = 255
	}
	hw.events <- hardware.Event{Kind: hardware.Status, Conn: hardware.Connected, At: now()}
	hw.events <- hardware.Event{Kind: hardware.Snapshot, Codes: codes, At: now()}
	for st := s.State(); !st.InSync || st.Conn != "connected"; st = s.State() {
		<-changed
	}
	running := func() (string, time.Duration) {
		s.mu.Lock()
		defer s.mu.Unlock()
		run, _ := s.clocks.clk.Running()
		x := s.nowLocked()
		if run < 0 {
			return "", 0
		}
		return s.clocks.seats[run], x - s.clocks.clk.Turn(x) // when it started
	}
	// red b1-d9 and white b12-d6, then both back: a cycle of four moves
	moves := [][2]string{{"b1", "d9"}, {"b12", "d6"}, {"d9", "b1"}, {"d6", "b12"}}
	var total, worst, host time.Duration
	b.ResetTimer()
	for i := range b.N {
		m := moves[i%len(moves)]
		seat, _ := running()
		place := now()
		hostAt := time.Now()
		hw.events <- hardware.Event{Kind: hardware.Change, Sensor: sensorOf[m[0]], Code: 0, At: place}
		hw.events <- hardware.Event{Kind: hardware.Change, Sensor: sensorOf[m[1]], Code: 255, At: place}
		for {
			select {
			case <-changed:
			case <-time.After(10 * time.Second): // against hanging only
				b.Fatalf("move %d (%s-%s): no switch: %+v", i, m[0], m[1], s.State())
			}
			if now, since := running(); now != seat && now != "" {
				d := since - place
				total += d
				worst = max(worst, d)
				host += time.Since(hostAt)
				break
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "switch-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "switch-max-ms")
	b.ReportMetric(float64(referee.DefaultSettle.Milliseconds()), "settle-ms")
	b.ReportMetric(float64(host.Microseconds())/1000/float64(b.N), "host-ms")
	b.ReportMetric(float64(host.Microseconds())/1000/float64(b.N)-float64(referee.DefaultSettle.Milliseconds()), "host-after-settle-ms")
	if st := s.State(); st.Ply != b.N || !slices.Contains([]string{"red", "white"}, *st.ToMove) {
		b.Fatalf("ply %d after %d moves: %+v", st.Ply, b.N, st.Message)
	}
	cancel()
	<-done
}
