package record

import (
	"encoding/json"
	"strconv"
	"time"

	"io"
)

// Writer writes a record one whole line per Write call, so that a power cut
// tears at most the last line. If the destination has a Sync method (an
// *os.File), Sync is called after every line when SyncEach is set.
type Writer struct {
	w        io.Writer
	SyncEach bool
	buf      []byte
}

// NewWriter writes a record to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Line is a rules event to write. Roll holds the die face's text; Numeric
// says whether it is written as a JSON integer (DAHA) or string (RAY).
type Line struct {
	Move    string
	Roll    string
	Numeric bool
	By      string
	T       time.Time
	Source  string
	// MS is the turn's time in milliseconds (written as "ms" when Timed):
	// how long the mover's clock ran for the turn the line ends.
	MS    int64
	Timed bool
}

// WriteHeader writes the header line.
func (w *Writer) WriteHeader(h *Header) error {
	if h.Tabla == 0 {
		h.Tabla = Version
	}
	return w.WriteObject(h)
}

// WriteObject writes any JSON object as one line (other event kinds).
func (w *Writer) WriteObject(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.buf = append(append(w.buf[:0], b...), '\n')
	return w.flush()
}

// Write writes one move or roll line.
func (w *Writer) Write(l Line) error {
	b := w.buf[:0]
	if l.Roll != "" {
		b = append(b, `{"roll":`...)
		if l.Numeric {
			b = append(b, l.Roll...)
		} else {
			b = strconv.AppendQuote(b, l.Roll)
		}
	} else {
		b = append(b, `{"move":`...)
		b = strconv.AppendQuote(b, l.Move)
	}
	if l.By != "" {
		b = append(b, `,"by":`...)
		b = strconv.AppendQuote(b, l.By)
	}
	if !l.T.IsZero() {
		b = append(b, `,"t":"`...)
		b = l.T.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if l.Source != "" {
		b = append(b, `,"source":`...)
		b = strconv.AppendQuote(b, l.Source)
	}
	if l.Timed {
		b = append(b, `,"ms":`...)
		b = strconv.AppendInt(b, l.MS, 10)
	}
	w.buf = append(b, "}\n"...)
	return w.flush()
}

func (w *Writer) flush() error {
	if _, err := w.w.Write(w.buf); err != nil {
		return err
	}
	if s, ok := w.w.(interface{ Sync() error }); ok && w.SyncEach {
		return s.Sync()
	}
	return nil
}
