package hil_test

import (
	"flag"
	"strconv"
	"sync"
)

// gameLanes is how many emulated boards run at once, across TestHILDriver
// and TestHIL: each runs in real time, and a harness starved of CPU falls
// behind the daemon's (and the driver's) wall clock. At most one of them is
// an RP2040 (rp2040js costs a tenth to half a core for every second of the
// board's time, BENCHMARKS.md; simavr far less).
const gameLanes = 2

// lanes hands out the places to play in. An RP2040 run waiting for a place
// is served before the AVR runs as soon as no other RP2040 run plays: the
// RP2040 runs, one after another, are the package's longest chain (13 of
// them, some 65 s at idle), so they play back to back in one place while
// the AVR runs share the others, and take every place once the RP2040 runs
// are done.
var lanes = newLaneSet(gameLanes)

type laneSet struct {
	mu        sync.Mutex
	free      *sync.Cond
	n         int // places
	running   int // runs playing
	rp        int // RP2040 runs playing (0 or 1)
	rpWaiting int // RP2040 runs waiting for a place
}

func newLaneSet(n int) *laneSet {
	l := &laneSet{n: n}
	l.free = sync.NewCond(&l.mu)
	return l
}

// take waits for a place for a run (on rp2040js when rp) and returns the
// function that gives it back.
func (l *laneSet) take(rp bool) (done func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rp {
		l.rpWaiting++
		for l.rp > 0 || l.running >= l.n {
			l.free.Wait()
		}
		l.rpWaiting--
		l.rp++
	} else {
		// keep a place for a waiting RP2040 run that could play now
		for l.running >= l.n || (l.rpWaiting > 0 && l.rp == 0 && l.running >= l.n-1) {
			l.free.Wait()
		}
	}
	l.running++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.running--
		if rp {
			l.rp--
		}
		l.free.Broadcast()
	}
}

// parallelRuns raises -test.parallel (by default GOMAXPROCS, 2 here) for
// this package unless the command line gives it: the lanes above decide
// how many boards play, and a run waiting for the RP2040's place must not
// hold one of the testing package's parallel slots meanwhile (with 2
// slots, two RP2040 runs in a row left one AVR run playing alone).
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
