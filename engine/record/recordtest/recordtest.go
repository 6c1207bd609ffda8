// Package recordtest writes the large journals and records that the
// readers' benchmarks and tests read: issue 25's budget is any record or
// journal up to the library's 64 MB cap in under 100 MB and 2 s.
package recordtest

import (
	"bufio"
	"fmt"
	"io"
	"testing"
	"time"
)

// StarStart is the snapshot of STAR's start position, as `tabla sim`
// journals it.
const StarStart = "00ff000000ff000000ff000000000000ff000000ff000000ff0000000000000000000000000000ff000000ff000000ff000000000000ff000000ff000000ff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000ff000000ff000000ff000000000000ff000000ff000000ff0000000000000000000000000000ff000000ff000000ff000000000000ff000000ff000000ff00"

// Kinds of chatter a long evening's journal may hold.
const (
	// Toggle: a sensor under the empty cell a5 reads a piece and none
	// again, each reading lasting past the settle window: the referee
	// reads the board at every event (the worst case).
	Toggle = iota
	// Repeat: the sensor under f3, where a piece stands, reports it again
	// and again.
	Repeat
	// Ticks: nothing but the daemon's ticks.
	Ticks
)

// Chatter writes to w a STAR journal of about size bytes (at most size): a
// connected board, red's b1-f3, board events of the kind given until the
// size is reached, and white's d13-h11 at the end. It is what `tabla run`
// journals over a long evening with a faulty sensor.
func Chatter(w io.Writer, size int, kind int) error {
	bw := bufio.NewWriter(w)
	n := 0
	p := func(format string, args ...any) {
		k, _ := fmt.Fprintf(bw, format, args...)
		n += k
	}
	p(`{"tabla":1,"game":"star","first":"red","meta":{"companion":{"board":"star","identifying":false,"settle_ms":100,"takeback":2,"source":"sim"}}}` + "\n")
	p(`{"snapshot":"%s","at":0}`+"\n", StarStart)
	p(`{"conn":"connected","at":0}` + "\n")
	p(`{"snapshot":"%s","at":0}`+"\n", StarStart)
	p("{\"sensor\":\"b1\",\"code\":0,\"at\":0}\n{\"tick\":200}\n{\"sensor\":\"f3\",\"code\":255,\"at\":200}\n{\"tick\":400}\n")
	p(`{"move":"b1-f3","by":"red","t":"2026-11-01T10:00:00.4Z","source":"sim"}` + "\n")
	const tail = 300 // bytes the last move takes, at most
	at := 1000
	for n < size-tail-100 {
		switch kind {
		case Toggle:
			p("{\"sensor\":\"a5\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n{\"sensor\":\"a5\",\"code\":0,\"at\":%d}\n{\"tick\":%d}\n", at, at+100, at+200, at+300)
		case Repeat:
			p("{\"sensor\":\"f3\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n{\"sensor\":\"f3\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n", at, at+100, at+200, at+300)
		default:
			p("{\"tick\":%d}\n{\"tick\":%d}\n{\"tick\":%d}\n{\"tick\":%d}\n", at, at+100, at+200, at+300)
		}
		at += 400
	}
	p("{\"sensor\":\"d13\",\"code\":0,\"at\":%d}\n{\"tick\":%d}\n{\"sensor\":\"h11\",\"code\":255,\"at\":%d}\n{\"tick\":%d}\n", at, at+200, at+400, at+600)
	p(`{"move":"d13-h11","by":"white","t":"2026-11-01T12:00:00Z","source":"sim"}` + "\n")
	return bw.Flush()
}

// Budget reports, after a benchmark's loop begun at cpu0 (Usage's first
// value then), the CPU seconds an op took (user and system: the wall time
// of a loaded machine says more of its other work) and the process's peak
// resident memory, the two figures of issue 25's budget.
func Budget(b *testing.B, cpu0 time.Duration) {
	cpu, peak := Usage()
	if cpu > 0 {
		b.ReportMetric((cpu-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	}
}

// BackAndForth writes to w a legal STAR record of moves moves (a
// multiple of 4 keeps the start position): red's b1-f3, white's d13-h11
// and both back, again and again, as a game of STAR may go on for ever.
// header is the header line without its newline ("" is a plain STAR
// record's). A million moves make 18 MB.
func BackAndForth(w io.Writer, header string, moves int) error {
	bw := bufio.NewWriter(w)
	if header == "" {
		header = `{"tabla":1,"game":"star","first":"red"}`
	}
	bw.WriteString(header + "\n")
	cycle := [4]string{`{"move":"b1-f3"}` + "\n", `{"move":"d13-h11"}` + "\n", `{"move":"f3-b1"}` + "\n", `{"move":"h11-d13"}` + "\n"}
	for i := 0; i < moves; i++ {
		bw.WriteString(cycle[i%4])
	}
	return bw.Flush()
}
