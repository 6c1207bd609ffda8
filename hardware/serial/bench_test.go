package serial

import (
	"bytes"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
	"github.com/tabla-board/tabla/hardware"
)

// BenchmarkReceiveChange measures host CPU per received cell change: frame
// decoding, sequence check, state update and the hardware.Event handed to
// the Events channel.
func BenchmarkReceiveChange(b *testing.B) {
	const frames = 1024
	var stream []byte
	var m wire.CellChange
	for i := range frames {
		code := byte(255)
		if i%2 == 1 {
			code = 0
		}
		m.Time = uint32(i)
		m.Changes = append(m.Changes[:0], wire.Change{Cell: 400, Code: code})
		stream, _ = wire.AppendFrame(stream, uint16(i), &m)
	}
	board := &Board{events: make(chan hardware.Event, 1), closing: make(chan struct{}), clock: clockwork.NewRealClock()}
	s := &session{b: board, hello: true, state: make([]byte, 841), ctl: make(chan ctl, 8), dead: make(chan struct{})}
	r := bytes.NewReader(stream)
	s.dec = wire.NewDecoder(r)
	b.ReportAllocs()
	b.SetBytes(int64(len(stream) / frames))
	n := 0
	for b.Loop() {
		if n%frames == 0 {
			r.Reset(stream)
			s.dec.Reset(r)
			s.lastSeq, s.haveSeq = 65535, true
		}
		f, err := s.dec.Next()
		if err != nil {
			b.Fatal(err)
		}
		s.handle(f)
		if ev := <-board.events; ev.Kind != hardware.Change {
			b.Fatal(ev)
		}
		n++
	}
	if board.stats.Gaps != 0 {
		b.Fatalf("%d gaps", board.stats.Gaps)
	}
}
