package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tabla-board/tabla/firmware-protocol/wire"
)

func ExampleAppendFrame() {
	buf := make([]byte, 0, wire.MaxFrameLen)
	ch := &wire.CellChange{Time: 1000, Changes: []wire.Change{{Cell: 12, Code: 255}}}
	buf, err := wire.AppendFrame(buf, 5, ch)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", buf)
	// Output: 03 03 05 03 e8 03 01 03 01 0c 04 ff c1 c5 00
}

func ExampleDecoder() {
	var stream []byte
	stream, _ = wire.AppendFrame(stream, 1, &wire.Button{Time: 10, Button: wire.ButtonHint})
	stream = append(stream, 0x13, 0x37, 0x00) // line noise
	stream, _ = wire.AppendFrame(stream, 2, &wire.Roll{Time: 20, Die: wire.DieD6, Value: 4})

	d := wire.NewDecoder(bytes.NewReader(stream))
	for {
		f, err := d.Next()
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			fmt.Println("skipped:", fe)
			continue
		case err == io.EOF:
			return
		case err != nil:
			panic(err)
		}
		switch m := f.Msg.(type) {
		case *wire.Button:
			fmt.Printf("seq %d: button %v\n", f.Seq, m.Button)
		case *wire.Roll:
			fmt.Printf("seq %d: rolled %d on the %v\n", f.Seq, m.Value, m.Die)
		}
	}
	// Output:
	// seq 1: button hint
	// skipped: wire: bad frame at offset 12: invalid COBS encoding
	// seq 2: rolled 4 on the d6
}

func ExampleHello_CheckVersion() {
	h := &wire.Hello{Major: 2, Minor: 0}
	fmt.Println(h.CheckVersion())
	// Output: wire: board speaks protocol 2.0, host speaks 1.0: major versions differ; update the host software
}
