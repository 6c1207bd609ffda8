package hil_test

import (
	"flag"
	"strconv"
	"sync"
)

// Each emulated board runs in real time, and a harness starved of CPU
// falls behind the daemon's (and the driver's) wall clock. What a run
// costs the host is mostly its LEDs: RAY's 841 (a frame of 20,184 bits on
// the pin, decoded by simavr or by rp2040js's PIO stepping) made the Mega
// RAY harness's MCU 86% busy and rp2040js's RAY fall a second behind the
// wall clock with two other RAY runs beside it (four runs at once, load
// 5), and four runs at once at a load of 19 starved a harness for 40 s
// (BENCHMARKS.md, "Issue 41: the waiting packages (session 15)"). So the
// runs take weights from a budget:
//
//   - gameBudget is the budget: three light runs at once;
//   - heavyWeight is what a RAY run takes: it plays beside one light run
//     at most, as every run did when two played at a time.
const (
	gameBudget  = 3
	heavyWeight = 2
)

// heavyBoard tells the boards whose runs take heavyWeight.
func heavyBoard(board string) bool { return board == "ray" }

// lanes hands out the budget. A heavy run waiting is served before the
// light runs as soon as it fits: the heavy runs, one after another, are
// the package's longest chain (six of them, some 50 s), so they play back
// to back while the light runs share what is left, and take the whole
// budget once the heavy runs are done.
var lanes = newLaneSet(gameBudget, heavyWeight)

type laneSet struct {
	mu           sync.Mutex
	free         *sync.Cond
	budget       int // what all runs at once may take
	heavy        int // what a heavy run takes
	used         int // taken by the runs playing
	heavyWaiting int // heavy runs waiting
}

func newLaneSet(budget, heavy int) *laneSet {
	l := &laneSet{budget: budget, heavy: heavy}
	l.free = sync.NewCond(&l.mu)
	return l
}

// take waits for a run's place (a heavy run's when heavy) and returns the
// function that gives it back.
func (l *laneSet) take(heavy bool) (done func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := 1
	if heavy {
		w = l.heavy
		l.heavyWaiting++
		for l.used+w > l.budget {
			l.free.Wait()
		}
		l.heavyWaiting--
	} else {
		// leave room for a waiting heavy run
		for l.used+w > l.budget || (l.heavyWaiting > 0 && l.used+w+l.heavy > l.budget) {
			l.free.Wait()
		}
	}
	l.used += w
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.used -= w
		l.free.Broadcast()
	}
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
