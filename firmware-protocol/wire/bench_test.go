package wire_test

import (
	"testing"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

// Run with: go test ./firmware-protocol/wire -run '^$' -bench . -count 6
// and compare with benchstat; these 2-core machines are noisy.

func reportFrames(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "frames/s")
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, s := range samples() {
		b.Run(s.name, func(b *testing.B) {
			buf := make([]byte, 0, wire.MaxFrameLen)
			m := s.msg
			buf, _ = wire.AppendFrame(buf, 0, m)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			var seq uint16
			for b.Loop() {
				var err error
				buf, err = wire.AppendFrame(buf[:0], seq, m)
				if err != nil {
					b.Fatal(err)
				}
				seq++
			}
			reportFrames(b)
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, s := range samples() {
		b.Run(s.name, func(b *testing.B) {
			in := stream(0, s.msg)
			d := wire.NewDecoder(&loopReader{b: in, n: 4096})
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			if _, err := d.Next(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := d.Next(); err != nil {
					b.Fatal(err)
				}
			}
			reportFrames(b)
		})
	}
}

// BenchmarkDecodeByteAtATime reads a change event one byte per Read, the
// worst case of a serial port.
func BenchmarkDecodeByteAtATime(b *testing.B) {
	in := stream(0, &wire.CellChange{Time: 1, Changes: []wire.Change{{Cell: 420, Code: 255}}})
	d := wire.NewDecoder(&loopReader{b: in, n: 1})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Next(); err != nil {
			b.Fatal(err)
		}
	}
	reportFrames(b)
}

func BenchmarkCRC16(b *testing.B) {
	buf := make([]byte, 1024)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		wire.CRC16(buf)
	}
}
