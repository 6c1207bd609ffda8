package link

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/wire"
	"github.com/tabla-board/tabla/engine/record"
)

// tail follows one journal file and turns its header and decision lines
// into record events, in file order. Lines are taken only when complete
// (a torn last line waits); a takeback that rewrote the file (a new file
// renamed over the old) is noticed and the file read again from the
// start, skipping the decision lines already taken: the rewrite only
// wraps them as {"undone":…}, so the events stay numbered as they were.
type tail struct {
	path   string
	name   string // the journal's file name
	gid    string
	remote *wire.Ref // the game this journal plays seats of, if any

	f       *os.File    // the file read (kept open)
	fi      os.FileInfo // its size when last read
	off     int64
	partial []byte
	events  [][]byte   // event bodies by number
	game    *wire.Game // the game as the events make it (nil until the header)
	skip    int        // after a rewrite: events to skip before taking new ones
	lines   int        // lines read in this pass over the file
	// over is the journal line of the first decision beyond
	// wire.MaxSteps (0: none); overSaid once the table said so
	over     int
	overSaid bool
	long     bool // in a line longer than record.MaxLine, left out

	// publishing state (the table's loop only)
	synced   bool
	hubN     int    // the hub's last event (-1: none)
	seq      uint64 // the stream sequence of the hub's last event of this game
	uploaded int64  // journal size last uploaded (0: none)
	retired  bool   // a newer journal exists (guarded by Table.mu)
}

func newTail(path string, remote *wire.Ref) *tail {
	return &tail{path: path, name: filepath.Base(path), gid: wire.GameID(path), remote: remote, hubN: -1}
}

// read takes the lines written since the last read. It reports whether
// new events were taken. The file read stays open, so that a rewrite is
// always noticed: its inode cannot be reused by a later rewrite while it
// is open (two quick takebacks would otherwise look like no change).
func (t *tail) read(table string) (bool, error) {
	if t.f == nil {
		f, err := os.Open(t.path)
		if err != nil {
			return false, err
		}
		t.f, t.off, t.partial, t.lines, t.long = f, 0, nil, 0, false
	}
	pfi, err := os.Stat(t.path)
	if err != nil {
		return false, err
	}
	if ffi, err := t.f.Stat(); err != nil || !os.SameFile(pfi, ffi) {
		// rewritten (a takeback): read it again, skipping what was taken
		f, err := os.Open(t.path)
		if err != nil {
			return false, err
		}
		t.f.Close()
		t.f, t.off, t.partial, t.skip, t.lines, t.long = f, 0, nil, len(t.events), 0, false
	}
	if fi, err := t.f.Stat(); err == nil {
		t.fi = fi
	}
	// a chunk at a time: the memory of a read is the chunk's and a line's,
	// whatever was written since the last one (a whole journal at first)
	before := len(t.events)
	buf := make([]byte, readChunk)
	for {
		n, err := t.f.ReadAt(buf, t.off)
		if n == 0 {
			if err != nil && err != io.EOF {
				return len(t.events) > before, err
			}
			break
		}
		t.off += int64(n)
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				if t.long || len(t.partial)+len(data) > record.MaxLine {
					t.partial, t.long = nil, true // no line of a journal: left out to its end
				} else {
					t.partial = append(t.partial, data...)
				}
				break
			}
			if t.long {
				t.long = false
				t.lines++
				data = data[i+1:]
				continue
			}
			line := data[:i]
			if len(t.partial) > 0 {
				line = append(t.partial, line...)
				t.partial = nil
			}
			data = data[i+1:]
			t.take(table, line)
		}
		if n < len(buf) {
			break
		}
	}
	return len(t.events) > before, nil
}

// readChunk is how much of a journal read takes at a time.
const readChunk = 256 << 10

// close closes the file read.
func (t *tail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// take takes one complete line: the header (the file's first line), a
// decision line, or an {"undone":…} line as the decision it wraps; board
// events are left out.
func (t *tail) take(table string, line []byte) {
	first := t.lines == 0
	t.lines++
	var inner []byte
	if !first {
		switch kind := wire.LineKind(line); {
		case kind == wire.UndoneKind:
			var w map[string]json.RawMessage
			if json.Unmarshal(line, &w) != nil || len(w[wire.UndoneKind]) == 0 {
				return
			}
			inner = w[wire.UndoneKind]
		case wire.RecordKinds[kind]:
			inner = line
		default:
			return // a board event, a command, a marker
		}
	}
	if t.skip > 0 {
		t.skip--
		return
	}
	n := len(t.events)
	if n > wire.MaxSteps {
		if t.over == 0 {
			t.over = t.lines
		}
		return
	}
	var body []byte
	if first {
		ev := wire.Event{N: 0, Table: table, Game: t.gid, Journal: t.name, Header: bytes.Clone(line), Remote: t.remote}
		body, _ = json.Marshal(ev)
		if g, err := wire.NewGame(&ev); err == nil {
			t.game = g
		}
	} else {
		body, _ = json.Marshal(wire.Event{N: n, Line: json.RawMessage(bytes.Clone(inner))})
		if t.game != nil {
			t.game.Apply(n, inner)
		}
	}
	t.events = append(t.events, body)
}

// JournalRecord is a journal's game as a table's link publishes it.
type JournalRecord struct {
	Game   string   // its id on the hub (wire.GameID)
	Events [][]byte // its record events by number, the header first
}

// ReadJournal reads the journal at path as the link of table reads it
// (tail.read) and gives the events it would publish: what a hub should
// hold of that game.
func ReadJournal(path, table string) (*JournalRecord, error) {
	tl := newTail(path, nil)
	defer tl.close()
	if _, err := tl.read(table); err != nil {
		return nil, err
	}
	return &JournalRecord{Game: tl.gid, Events: tl.events}, nil
}
