package library

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tabla-board/tabla/engine/record/recordtest"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReplayStops: replay looks at its stop channel while it reads a long
// record (a 4 MB journal of ticks): closed, it returns ErrClosed having
// read a small part of the file; open or nil, it reads it all.
func TestReplayStops(t *testing.T) {
	var buf bytes.Buffer
	if err := recordtest.Chatter(&buf, 4<<20, recordtest.Ticks); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	stopped := make(chan struct{})
	close(stopped)
	for _, tc := range []struct {
		name string
		stop chan struct{}
		want error
	}{
		{"nil", nil, nil},
		{"open", make(chan struct{}), nil},
		{"closed", stopped, ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{r: bytes.NewReader(buf.Bytes())}
			g, _, err := replay(r, "chatter.jsonl", tc.stop, nil, 0)
			if !errors.Is(err, tc.want) && err != tc.want {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.want == nil {
				if r.n != size || g.State.Plies() != 2 {
					t.Errorf("read %d of %d bytes, %d plies; want all, 2", r.n, size, g.State.Plies())
				}
				return
			}
			if r.n > size/8 {
				t.Errorf("read %d of %d bytes before stopping; want at most an eighth", r.n, size)
			}
		})
	}
}
