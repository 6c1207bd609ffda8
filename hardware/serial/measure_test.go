package serial_test

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tabla-board/tabla/hardware"
	"github.com/tabla-board/tabla/hardware/serial"
)

// TestMeasureWatchdog measures, in real time, how long the driver takes to
// notice a board that stops: `tabla sim --pty` is stopped with SIGSTOP at a
// random moment between two heartbeats, and the time to the Disconnected
// event is taken, then the board is continued and reconnects. It only runs
// with TABLA_MEASURE_WATCHDOG=TRIALS and reports figures, asserting nothing
// about time (the unit test TestWatchdogAtDeadline checks the deadline on
// a fake clock).
func TestMeasureWatchdog(t *testing.T) {
	trials, _ := strconv.Atoi(os.Getenv("TABLA_MEASURE_WATCHDOG"))
	if trials <= 0 {
		t.Skip("set TABLA_MEASURE_WATCHDOG=TRIALS to measure the watchdog in real time")
	}
	bin := filepath.Join(t.TempDir(), "tabla")
	gb := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "./cmd/tabla")
	gb.Dir = "../.."
	if out, err := gb.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sim := exec.Command(bin, "sim", "--pty", "--game", "gyges")
	stdin, err := sim.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sim.Process.Signal(syscall.SIGCONT)
		stdin.Close()
		sim.Process.Kill()
		sim.Wait()
	})
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("the simulator printed no path")
	}
	path := sc.Text()
	go func() {
		for sc.Scan() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := serial.Open(ctx, serial.Config{Dial: serial.PortDialer(path, 0, nil), BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	status := make(chan hardware.Event, 16)
	go func() {
		for ev := range b.Events() {
			if ev.Kind == hardware.Status {
				status <- ev
			}
		}
	}()
	await := func(c hardware.Conn) hardware.Event {
		for {
			select {
			case ev := <-status:
				if ev.Conn == c {
					return ev
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("no %v", c)
			}
		}
	}
	quietRE := regexp.MustCompile(`no frame for ([0-9.]+m?s)`)
	var afterStop, quiet []time.Duration
	for i := range trials {
		if i > 0 {
			await(hardware.Connected)
		}
		time.Sleep(time.Duration(1000+rand.IntN(1000)) * time.Millisecond)
		sim.Process.Signal(syscall.SIGSTOP)
		stopped := time.Now()
		ev := await(hardware.Disconnected)
		d := time.Since(stopped)
		sim.Process.Signal(syscall.SIGCONT)
		m := quietRE.FindStringSubmatch(ev.Err.Error())
		if m == nil {
			t.Fatalf("trial %d: disconnected by %v, not the watchdog", i, ev.Err)
		}
		q, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		afterStop, quiet = append(afterStop, d), append(quiet, q)
	}
	stat := func(ds []time.Duration) (time.Duration, time.Duration, time.Duration) {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[0], s[len(s)/2], s[len(s)-1]
	}
	lo, med, hi := stat(afterStop)
	t.Logf("%d trials, SIGSTOP to Disconnected: min %v, median %v, max %v", trials, lo.Round(time.Millisecond), med.Round(time.Millisecond), hi.Round(time.Millisecond))
	lo, med, hi = stat(quiet)
	t.Logf("last frame to Disconnected (the driver's own count): min %v, median %v, max %v", lo.Round(time.Millisecond), med.Round(time.Millisecond), hi.Round(time.Millisecond))
}
