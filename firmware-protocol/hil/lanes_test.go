package hil_test

import (
	"flag"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each emulated board runs in real time, and a harness starved of CPU
// falls behind the daemon's (and the driver's) wall clock. What a run
// costs the host is mostly its LEDs: RAY's 841 (a frame of 20,184 bits on
// the pin, decoded by simavr or by rp2040js's PIO stepping) made the Mega
// RAY harness's MCU 86% busy and rp2040js's RAY fall a second behind the
// wall clock with two other RAY runs beside it (four runs at once, load
// 5), and four runs at once at a load of 19 starved a harness for 40 s
// (BENCHMARKS.md, "Issue 41: the waiting packages (session 15)"). So the
// runs take places from a budget:
//
//   - baseBudget places always: a RAY run takes baseRay of them (it plays
//     beside one other run at most), any other run one;
//   - more when the host has a core to spare (spareCPU: a whole core idle
//     over the last second), by what the runs cost it (sampled with ps:
//     rp2040js 40-55% of a core for any board, 55-80% for RAY; simavr
//     5-20% for the boards but RAY, 36% for RAY): weights from
//     gameBudget, rayWeight for a RAY run, rp2040Weight for another run
//     under rp2040js, avrWeight for one under simavr. Then the cheap
//     simavr runs play two beside a RAY run and up to six at once, and the
//     host's CPU at once stays under what three rp2040js runs take.
//
// On an otherwise idle host (the README's command ends with this package
// alone) the package took 80-90 s instead of 99-105 s; with two busy loops
// beside them (load 8) the weights alone starved three driver runs, so
// they apply only while a core is spare (BENCHMARKS.md, "Issue 41: the
// hub's quiet test and the command's tail").
const (
	baseBudget = 3
	baseRay    = 2

	gameBudget   = 6
	rayWeight    = 4
	rp2040Weight = 2
	avrWeight    = 1
)

// runWeight is the weight of a run of board (or game) on mcu.
func runWeight(mcu string, board ...string) int {
	switch {
	case slices.Contains(board, "ray"):
		return rayWeight
	case isRP2040(mcu):
		return rp2040Weight
	}
	return avrWeight
}

// lanes hands out the budget. A RAY run waiting is served before the
// other runs as soon as it fits: the RAY runs, one after another, are
// the package's longest chain (six of them, some 45 s), so they play back
// to back while the other runs share what is left, and take the whole
// budget once the RAY runs are done.
var lanes = newLaneSet()

type laneSet struct {
	mu           sync.Mutex
	free         *sync.Cond
	used         int // weights taken by the runs playing
	base         int // places taken (RAY baseRay, others 1)
	heavyWaiting int // RAY runs waiting
	gauge        sync.Once
	spare        bool // a core was idle over the last second
}

func newLaneSet() *laneSet {
	l := &laneSet{}
	l.free = sync.NewCond(&l.mu)
	return l
}

// take waits for a place for a run of weight w (runWeight) and returns the
// function that gives it back, and whether the place is beyond the base
// places (a core was spare).
func (l *laneSet) take(w int) (done func(), extra bool) {
	l.gauge.Do(func() { go l.watchCPU() })
	l.mu.Lock()
	defer l.mu.Unlock()
	heavy, b := w == rayWeight, basePlaces(w)
	if heavy {
		l.heavyWaiting++
	}
	for !l.fits(w) {
		l.free.Wait()
	}
	if heavy {
		l.heavyWaiting--
	}
	extra = l.base+b > baseBudget
	l.used += w
	l.base += b
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.used -= w
		l.base -= b
		l.free.Broadcast()
	}, extra
}

// place takes a run's place in lanes for the rest of test t.
func place(t *testing.T, w int) {
	done, extra := lanes.take(w)
	t.Cleanup(done)
	if extra {
		t.Log("playing beside more runs than the base places: a core is spare")
	}
}

// basePlaces is how many of the base places a run of weight w takes.
func basePlaces(w int) int {
	if w == rayWeight {
		return baseRay
	}
	return 1
}

// fits reports whether a run of weight w may play now (l.mu held): by
// weight while a core is spare, in the base places otherwise; a RAY run
// waiting first.
func (l *laneSet) fits(w int) bool {
	heavy, b := w == rayWeight, basePlaces(w)
	if l.used+w > gameBudget || (!heavy && l.heavyWaiting > 0 && l.used+w+rayWeight > gameBudget) {
		return false
	}
	if l.spare {
		return true
	}
	if !heavy && l.heavyWaiting > 0 && l.base+b+baseRay > baseBudget {
		return false
	}
	return l.base+b <= baseBudget
}

// watchCPU sets spare every second from /proc/stat: whether the host's
// CPUs were idle for at least a whole core's time. Where there is no
// /proc/stat, spare stays false (the base places only).
func (l *laneSet) watchCPU() {
	idle, total, ok := cpuTimes()
	if !ok {
		return
	}
	for range time.Tick(time.Second) {
		i, t, ok := cpuTimes()
		if !ok || t <= total {
			continue
		}
		spare := float64(i-idle)/float64(t-total)*float64(runtime.NumCPU()) >= 1
		idle, total = i, t
		l.mu.Lock()
		l.spare = spare
		l.mu.Unlock()
		l.free.Broadcast()
	}
}

// cpuTimes reads the idle (idle and iowait) and total times of all CPUs
// from /proc/stat's first line.
func cpuTimes() (idle, total uint64, ok bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	for k, s := range f[1:9] { // user nice system idle iowait irq softirq steal
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += n
		if k == 3 || k == 4 {
			idle += n
		}
	}
	return idle, total, true
}

// parallelRuns raises -test.parallel (by default GOMAXPROCS, 2 here) for
// this package unless the command line gives it: the lanes above decide
// how many boards play, and a run waiting for its place must not hold one
// of the testing package's parallel slots meanwhile.
func parallelRuns() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(64))
	}
}

// TestLanes: the places lanes hands out, the host's CPU set by hand (no
// /proc/stat): three runs at once and a RAY run beside one other, as
// before issue 41's session 16, unless a core is spare; then by weight —
// two simavr runs or one rp2040js run beside a RAY run, six simavr or
// three rp2040js runs, never two RAY runs — and a waiting RAY run before
// the runs that come after it.
func TestLanes(t *testing.T) {
	avr, rp, ray := runWeight("atmega2560", "daha"), runWeight("rp2040", "daha"), runWeight("rp2040-uart", "ray")
	if runWeight("arduino-uno", "daha") != avr || runWeight("atmega328p", "six") != avr || runWeight("atmega2560", "ray") != ray {
		t.Fatal("weights by MCU and board")
	}
	for _, c := range []struct {
		spare   bool
		playing []int
		waiting bool // a RAY run waits
		w       int
		want    bool
	}{
		{false, []int{avr, avr}, false, avr, true},
		{false, []int{avr, avr, avr}, false, avr, false},
		{false, []int{rp, avr, avr}, false, avr, false},
		{false, []int{ray}, false, avr, true},
		{false, []int{ray}, false, rp, true},
		{false, []int{ray, avr}, false, avr, false},
		{false, []int{ray}, false, ray, false},
		{false, []int{avr}, true, avr, false}, // the waiting RAY run first
		{false, []int{avr}, true, ray, true},
		{false, []int{avr, avr}, true, ray, false},
		{true, []int{ray, avr}, false, avr, true},
		{true, []int{ray, avr, avr}, false, avr, false},
		{true, []int{ray, rp}, false, avr, false},
		{true, []int{ray}, false, ray, false},
		{true, []int{avr, avr, avr, avr, avr}, false, avr, true},
		{true, []int{avr, avr, avr, avr, avr, avr}, false, avr, false},
		{true, []int{rp, rp}, false, rp, true},
		{true, []int{rp, rp, rp}, false, avr, false},
		{true, []int{avr, avr}, true, avr, false}, // room kept for the RAY run
		{true, []int{avr, avr}, true, ray, true},
	} {
		l := newLaneSet()
		l.gauge.Do(func() {}) // the CPU as set here
		l.spare = c.spare
		for _, w := range c.playing {
			l.used += w
			l.base += basePlaces(w)
		}
		if c.waiting {
			l.heavyWaiting = 1
		}
		if got := l.fits(c.w); got != c.want {
			t.Errorf("spare %v, playing %v, a RAY run waiting %v: a run of weight %d fits %v, want %v", c.spare, c.playing, c.waiting, c.w, got, c.want)
		}
	}
	// take and its release, as the runs call them
	l := newLaneSet()
	l.gauge.Do(func() {})
	var dones []func()
	for range baseBudget {
		done, extra := l.take(avr)
		if extra {
			t.Error("a base place counted as a spare one")
		}
		dones = append(dones, done)
	}
	got := make(chan bool)
	go func() {
		done, extra := l.take(avr)
		done()
		got <- extra
	}()
	l.mu.Lock()
	l.spare = true // a core idle: the fourth run plays, on a spare place
	l.mu.Unlock()
	l.free.Broadcast()
	if !<-got {
		t.Error("the fourth run's place was not a spare one")
	}
	for _, done := range dones {
		done()
	}
	if l.used != 0 || l.base != 0 {
		t.Errorf("after every release: used %d, base %d", l.used, l.base)
	}
}
