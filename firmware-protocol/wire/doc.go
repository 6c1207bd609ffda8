// Package wire encodes and decodes the tabla sensor-board serial protocol,
// version 1.0, specified byte for byte in ../PROTOCOL.md.
//
// A frame on the wire is a COBS-encoded body followed by one 0x00 byte. A
// body is
//
//	type u8 | seq u16 | payload | crc u16
//
// with every integer little-endian and the CRC-16/CCITT-FALSE of type, seq
// and payload. A receiver that sees garbage or loses a byte loses at most
// the frames around it and resynchronises at the next 0x00.
//
// # Encoding
//
// Every message type is a struct implementing [Message]. [AppendFrame]
// appends the whole frame to a caller's buffer; with enough capacity it
// does not allocate:
//
//	buf := make([]byte, 0, wire.MaxFrameLen)
//	var ch wire.CellChange // reuse it: storing a fresh &T{} in an
//	                       // interface costs one allocation per call
//	ch.Time = now
//	ch.Changes = append(ch.Changes[:0], wire.Change{Cell: 12, Code: 255})
//	buf, err := wire.AppendFrame(buf[:0], seq, &ch)
//	port.Write(buf)
//
// # Decoding
//
// A [Decoder] reads frames from an io.Reader:
//
//	d := wire.NewDecoder(port)
//	for {
//		f, err := d.Next()
//		var fe *wire.FrameError
//		switch {
//		case errors.As(err, &fe):
//			log.Print(fe) // bad frame; the next call continues after it
//			continue
//		case err != nil:
//			return err // io.EOF, a port error, io.ErrNoProgress
//		}
//		switch m := f.Msg.(type) {
//		case *wire.CellChange:
//			...
//		}
//	}
//
// Bad frames come back as *[FrameError] with the stream offset where they
// began, wrapping [ErrCOBS], [ErrCRC], [ErrTooLong], [ErrTooShort],
// [ErrUnknownType], [ErrTruncated], [ErrInvalid] or io.ErrUnexpectedEOF.
// The decoder does not allocate per frame: the returned message and its
// slices belong to the decoder and are overwritten by the next call.
//
// [Splitter] and [Parser] do the same job piecewise, for a bufio.Scanner.
// [CRC16], [AppendCOBS] and [AppendDecodedCOBS] are exported for
// simulators and tests that need to build or damage frames by hand.
//
// # Versions
//
// A host refuses a board whose [Hello] has another major version
// ([Hello.CheckVersion]). From a board with a newer minor version it
// ignores frames failing with ErrUnknownType (still counting their
// sequence numbers, which FrameError carries) and payload bytes past the
// fields it knows, which the decoder skips.
package wire
