package companion

import (
	"errors"
	"fmt"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A journal is the truth, or the game stops. Every line goes through the
// journal's backlog: it is written to the file at once and kept in memory
// until an fsync has put it on disk. When a write or an fsync fails (the
// card is full, read-only or gone), the file is cut back to what is known
// to be on disk, the journal is paused (Problem), and every line from then
// on is kept in memory, in order, until a retry writes them all: at the
// next line after RetryEvery, or on Retry. Nothing counts as recorded
// (the session publishes nothing, the page says the game is paused) until
// it is on disk.
//
// The backlog is bounded: past MaxBacklog bytes a board event, tick or
// command (the inputs) is refused with ErrBacklogFull and the session no
// longer follows the board; the decisions the referee takes on inputs
// already kept are always kept, so the journal replays as it was played.

// RetryEvery is how often a paused journal tries to write its backlog
// again when lines keep coming (Run also retries on a timer).
const RetryEvery = 2 * time.Second

// MaxBacklog bounds the bytes a paused journal keeps in memory (some
// 20,000 board events: thousands of moves).
const MaxBacklog = 1 << 20

// maxUnsynced is how many bytes of board events may wait for the next
// move's fsync before one is forced: the memory kept for a rewrite after
// a failed fsync stays small.
const maxUnsynced = 64 << 10

// ErrBacklogFull: the journal is paused and its backlog is full; the
// input was neither journalled nor kept.
var ErrBacklogFull = errors.New("companion: the journal cannot be written and its backlog in memory is full: input refused")

// heldLine is a line of the backlog: bytes buf[prev.end:end] of the
// journal, or a takeback's rewrite of the journal (tb).
type heldLine struct {
	end      int
	sync     bool
	decision bool // a move, roll, takeback or marker line: counted as held
	tb       *takebackOp
}

type takebackOp struct {
	plies, ops int
	t          time.Time
}

// JournalProblem says why a journal cannot be written: the journal is
// paused since Since, Held decisions (moves, rolls, takebacks) are kept in
// memory only, and Refused board inputs were not followed since the
// backlog filled.
type JournalProblem struct {
	Path    string
	Err     error
	Since   time.Time
	Held    int
	Refused int
}

// Kind names the failure: "full", "read-only" or "unreachable".
func (p *JournalProblem) Kind() string {
	switch {
	case errors.Is(p.Err, syscall.ENOSPC), errors.Is(p.Err, syscall.EDQUOT):
		return "full"
	case errors.Is(p.Err, syscall.EROFS), errors.Is(p.Err, os.ErrPermission):
		return "read-only"
	}
	return "unreachable"
}

// Error says what failed and where, for the log.
func (p *JournalProblem) Error() string {
	return fmt.Sprintf("journal %s cannot be written (%s): %v", p.Path, p.Kind(), p.Err)
}

// Do says what to do, for the log: a person who looks after the table.
func (p *JournalProblem) Do() string {
	dir := filepath.Dir(p.Path)
	switch p.Kind() {
	case "full":
		return "free space on the filesystem of " + dir + " (df -h " + dir + "; delete or move old files); the game goes on by itself once there is space, do not stop tabla: the moves kept in memory would be lost"
	case "read-only":
		return "make the filesystem of " + dir + " writable again (it may have been remounted read-only after errors: the card may be failing; copy the games off it); do not stop tabla: the moves kept in memory would be lost"
	}
	return "check that the card or disk of " + dir + " is there and works (dmesg); the game goes on by itself once the journal can be written"
}

// People says it for the players, in words, with what to do (English).
func (p *JournalProblem) People() string { return p.Words().English() }

// Words says it for the players in the page's words: why the game is
// paused, what to do, and what happens to the moves made meanwhile.
func (p *JournalProblem) Words() i18n.Text {
	kind := p.Kind()
	if kind != "full" && kind != "read-only" {
		kind = "gone"
	}
	kept := i18n.T("paused.kept")
	switch {
	case p.Refused > 0:
		kept = i18n.T("paused.kept.stop", "n", p.Held)
	case p.Held >= 1:
		kept = i18n.T("paused.kept.held", "n", p.Held)
	}
	return i18n.T("paused", "why", i18n.T("paused.why."+kind), "do", i18n.T("paused.do."+kind), "kept", kept)
}

// add puts one line in the backlog and writes what it can. input lines
// (board events, ticks, commands) are refused with ErrBacklogFull when
// the journal is paused and the backlog full; other lines always go in.
// A failure to write is not returned: it pauses the journal (Problem).
func (j *Journal) add(b []byte, sync, input, decision bool) error {
	if j == nil || j.closed {
		return nil
	}
	if j.failed != nil && input && len(j.buf)+len(b) > j.backlog() {
		j.refused++
		return ErrBacklogFull
	}
	j.buf = append(j.buf, b...)
	j.items = append(j.items, heldLine{end: len(j.buf), sync: sync, decision: decision})
	j.flushDue()
	return nil
}

// addTakeback puts a takeback's rewrite in the backlog.
func (j *Journal) addTakeback(op takebackOp) {
	if j == nil || j.closed {
		return
	}
	j.items = append(j.items, heldLine{end: len(j.buf), sync: true, decision: true, tb: &op})
	j.flushDue()
}

func (j *Journal) backlog() int {
	if j.Backlog > 0 {
		return j.Backlog
	}
	return MaxBacklog
}

// flushDue writes the backlog, unless the journal is paused and its
// next retry is not due.
func (j *Journal) flushDue() {
	if j.failed != nil && j.clock().Before(j.nextTry) {
		return
	}
	j.flush()
}

// Retry writes a paused journal's backlog now; nil once it is on disk.
func (j *Journal) Retry() error {
	if j == nil || j.closed {
		return nil
	}
	return j.flush()
}

// Paused reports whether lines wait in memory for the journal to be
// written again.
func (j *Journal) Paused() bool { return j != nil && j.failed != nil }

// Problem says why the journal is paused (nil while it writes).
func (j *Journal) Problem() *JournalProblem {
	if j == nil || j.failed == nil {
		return nil
	}
	held := 0
	for _, it := range j.items {
		if it.decision {
			held++
		}
	}
	return &JournalProblem{Path: j.path, Err: j.failed, Since: j.failedAt, Held: held, Refused: j.refused}
}

// flush writes the backlog's lines in order, each with one write, and
// fsyncs where a line asks for it (or maxUnsynced bytes wait); a takeback
// rewrites the file once everything before it is on disk. After a failure
// the file is first opened again and cut back to the bytes known on disk.
func (j *Journal) flush() error {
	if j.failed != nil {
		if err := j.recover(); err != nil {
			return j.fail(err)
		}
	}
	for j.written < len(j.items) {
		it := j.items[j.written]
		if it.tb != nil {
			if err := j.commit(); err != nil {
				return j.fail(err)
			}
			done, err := j.takeback(it.tb.plies, it.tb.ops, it.tb.t)
			if done {
				j.drop(1) // swapIn set good to the new file's size
			}
			if err != nil {
				return j.fail(err)
			}
			continue
		}
		start := j.start(j.written)
		if _, err := j.f.Write(j.buf[start:it.end]); err != nil {
			return j.fail(err)
		}
		j.written++
		if it.sync || j.start(j.written) > maxUnsynced {
			if err := j.commit(); err != nil {
				return j.fail(err)
			}
		}
	}
	j.failed, j.refused = nil, 0
	return nil
}

// start is the offset in buf of item i's bytes.
func (j *Journal) start(i int) int {
	if i == 0 {
		return 0
	}
	return j.items[i-1].end
}

// commit fsyncs the lines written and lets them go.
func (j *Journal) commit() error {
	if j.written == 0 {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.good += int64(j.start(j.written))
	j.drop(j.written)
	return nil
}

// drop lets the first n items go, keeping buf's memory.
func (j *Journal) drop(n int) {
	cut := j.start(n)
	m := copy(j.buf, j.buf[cut:])
	j.buf = j.buf[:m]
	k := copy(j.items, j.items[n:])
	clear(j.items[k:])
	j.items = j.items[:k]
	for i := range j.items {
		j.items[i].end -= cut
	}
	j.written = max(0, j.written-n)
}

// fail pauses the journal on err: what was written since the last fsync
// will be written again, after the file is cut back to good.
func (j *Journal) fail(err error) error {
	if j.failed == nil {
		j.failedAt = j.clock()
	}
	j.failed = err
	j.written = 0
	j.nextTry = j.clock().Add(RetryEvery)
	if j.f != nil && j.f.Truncate(j.good) != nil {
		// the file is not in a state to append to: open it again next time
		j.f.Close()
		j.f = nil
	}
	return err
}

// recover opens the journal again if it was let go and cuts it back to
// the bytes known on disk. A journal that never had a byte on disk is
// created; one shorter than those bytes (replaced or cut by someone else)
// is not written to.
func (j *Journal) recover() error {
	if j.f == nil {
		flags := os.O_WRONLY | os.O_APPEND
		if j.good == 0 {
			flags |= os.O_CREATE
		}
		f, err := j.openFile(j.path, flags, 0o644)
		if err != nil {
			return err
		}
		j.f = f
		if j.good == 0 {
			syncDir(filepath.Dir(j.path))
		}
	}
	fi, err := j.f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < j.good {
		return fmt.Errorf("the file is %d bytes, shorter than the %d bytes written to it: it was changed by something else", fi.Size(), j.good)
	}
	return j.f.Truncate(j.good)
}
