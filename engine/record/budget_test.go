package record_test

import (
	"bytes"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// BenchmarkRead64MB: the reading `tabla rules check|moves`, `hint` and
// `analyze` do (record.Replay) of a journal at the library's 64 MB cap,
// for each kind of chatter. Issue 25's budget: under 2 s and 100 MB.
func BenchmarkRead64MB(b *testing.B) {
	for _, k := range []struct {
		name string
		kind int
	}{{"toggle", recordtest.Toggle}, {"repeat", recordtest.Repeat}, {"ticks", recordtest.Ticks}} {
		b.Run(k.name, func(b *testing.B) {
			var buf bytes.Buffer
			if err := recordtest.Chatter(&buf, 64<<20, k.kind); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				g, err := record.Replay(bytes.NewReader(data), "journal.jsonl")
				if err != nil || len(g.Applied) != 2 {
					b.Fatal(err)
				}
			}
		})
	}
}
