package companion

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// Journal line kinds besides the record's move and roll lines. Board events
// carry "at", the board time in milliseconds.
//
//	{"sensor":"c3","code":255,"at":1200}     a sensor change (cell name; "#17" for an unwired sensor)
//	{"snapshot":"00ff…","at":0}               every sensor's code, two hex digits each, sensor order
//	{"die":"4","at":1400}                     the board's electronic die
//	{"press":"roll","at":1500}                a board button
//	{"conn":"disconnected","at":1600,"err":"…"} the connection changed
//	{"fault":"…","at":1700}                   the board reported a problem
//	{"tick":1800}                             the board was read for quiet sensors at this board time
//	{"command":"takeback","at":1900}          a control command (status API; "choose" has "arg")
//	{"takeback":1,"ops":2,"t":"…"}            the referee took back moves; the undone lines
//	                                          above were rewritten as {"undone":{…}}
//	{"resume":"2026-…"}                       a daemon started again on this journal
//	{"end":"new"}                             the game was abandoned for a new one
//
// The header's meta holds {"companion":{…}}: the board definition's name,
// the sensor kind, the settle window and the takeback depth, so that replay
// rebuilds the same referee.

// Meta is the companion's part of a journal header's meta.
type Meta struct {
	Board       string `json:"board"`
	Identifying bool   `json:"identifying"`
	SettleMs    int    `json:"settle_ms"`
	Takeback    int    `json:"takeback"`
	Source      string `json:"source"`
	// ClockPause: a confirm question or correction mode pauses the
	// running clock (clock.go).
	ClockPause bool `json:"clock_pause,omitempty"`
}

type metaWrap struct {
	Companion *Meta `json:"companion"`
}

// Journal appends one game's record with the board events behind it.
// Its lines go through a backlog in memory (backlog.go): a line is
// recorded once it is on disk, and when the file cannot be written the
// journal pauses and keeps its lines until it can.
type Journal struct {
	path string
	f    journalFile // nil while the file could not be opened (backlog.go)
	// openFile opens the journal and its rewrites' copies (osOpen; a
	// test's files fail as a full card does)
	openFile func(name string, flag int, perm os.FileMode) (journalFile, error)
	w        *record.Writer
	board    *boards.Board
	clock    func() time.Time
	ev       []byte // an event line being built (reused)

	// Backlog bounds the bytes kept in memory while paused (0: MaxBacklog).
	Backlog int

	closed   bool
	good     int64      // the file's bytes known to be on disk
	buf      []byte     // the backlog's lines, back to back
	items    []heldLine // the backlog, oldest first
	written  int        // items[:written] are written, not yet synced
	failed   error      // why the journal is paused; nil while it writes
	failedAt time.Time
	nextTry  time.Time
	refused  int // inputs refused since the backlog filled
}

// recordSink gives the journal's record.Writer its lines (the header,
// moves, rolls, other objects), each synced.
type recordSink struct{ j *Journal }

func (s recordSink) Write(b []byte) (int, error) {
	move := bytes.HasPrefix(b, []byte(`{"move":`)) || bytes.HasPrefix(b, []byte(`{"roll":`))
	return len(b), s.j.add(b, true, false, move)
}

// journalFile is what a journal writes through: an *os.File.
type journalFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
	Close() error
}

var _ journalFile = (*os.File)(nil)

func osOpen(name string, flag int, perm os.FileMode) (journalFile, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // not a nil *os.File in an interface
	}
	return f, nil
}

func newJournal(path string, f journalFile, good int64, b *boards.Board, clock func() time.Time) *Journal {
	j := &Journal{path: path, f: f, good: good, board: b, clock: clock, openFile: osOpen}
	j.w = record.NewWriter(recordSink{j})
	return j
}

// JournalName is the file name of a game started at t.
func JournalName(game string, t time.Time) string {
	return "game-" + t.UTC().Format("20060102T150405.000000000Z") + "-" + game + ".jsonl"
}

// CreateJournal starts a journal for a new game in dir. A journal whose
// file cannot be created or written (the card is full) starts paused,
// its header kept in memory (backlog.go).
func CreateJournal(dir string, h *record.Header, m *Meta, b *boards.Board, clock func() time.Time) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	hh := *h
	meta, _ := json.Marshal(metaWrap{m})
	hh.Meta = meta
	path := filepath.Join(dir, JournalName(h.Game, clock()))
	f, err := osOpen(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, err
	}
	j := newJournal(path, f, 0, b, clock)
	if err != nil {
		j.fail(err)
	}
	if err := j.w.WriteHeader(&hh); err != nil {
		j.Close()
		return nil, err
	}
	if !j.Paused() {
		syncDir(dir)
	}
	return j, nil
}

// openJournal opens an existing journal for appending.
func openJournal(path string, b *boards.Board, clock func() time.Time) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return newJournal(path, f, fi.Size(), b, clock), nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Close writes what the backlog holds, if it can, and closes the file.
// Lines it cannot write are lost: the error says how many decisions.
func (j *Journal) Close() error {
	if j == nil || j.closed {
		return nil
	}
	var err error
	if len(j.items) > 0 {
		if ferr := j.flush(); ferr != nil {
			err = fmt.Errorf("companion: %w: %d moves, rolls or takebacks kept in memory are lost", j.Problem(), j.Problem().Held)
		}
	}
	j.closed = true
	if j.f != nil {
		if cerr := j.f.Close(); err == nil {
			err = cerr
		}
		j.f = nil
	}
	return err
}

func ms(d time.Duration) int64 { return int64(d / time.Millisecond) }

// line appends one input line (board event, tick, command): not synced,
// the next decision's fsync covers it. ErrBacklogFull: refused.
func (j *Journal) line(b []byte) error {
	return j.add(b, false, true, false)
}

// Event journals a board event (not synced: the next move's fsync covers it).
func (j *Journal) Event(ev hardware.Event) error {
	if j == nil {
		return nil
	}
	b := j.ev[:0]
	switch ev.Kind {
	case hardware.Change:
		b = append(b, `{"sensor":`...)
		name := fmt.Sprintf("#%d", ev.Sensor)
		if ev.Sensor >= 0 && ev.Sensor < len(j.board.Sensors) && j.board.Sensors[ev.Sensor] >= 0 {
			name = j.board.Cells[j.board.Sensors[ev.Sensor]].Name
		}
		b = appendQuote(b, name)
		b = fmt.Appendf(b, `,"code":%d`, ev.Code)
	case hardware.Snapshot:
		b = append(b, `{"snapshot":"`...)
		b = hex.AppendEncode(b, ev.Codes)
		b = append(b, '"')
	case hardware.Roll:
		b = append(b, `{"die":`...)
		b = appendQuote(b, ev.Face)
	case hardware.Press:
		b = append(b, `{"press":`...)
		b = appendQuote(b, ev.Button.String())
	case hardware.Status:
		b = append(b, `{"conn":`...)
		b = appendQuote(b, ev.Conn.String())
		if ev.Err != nil {
			b = append(b, `,"err":`...)
			b = appendQuote(b, ev.Err.Error())
		}
	case hardware.Fault:
		msg := "fault"
		if ev.Err != nil {
			msg = ev.Err.Error()
		}
		b = append(b, `{"fault":`...)
		b = appendQuote(b, msg)
	default:
		return nil
	}
	b = fmt.Appendf(b, `,"at":%d}`+"\n", ms(ev.At))
	j.ev = b
	return j.line(b)
}

func appendQuote(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// Tick journals a read of the settled board.
func (j *Journal) Tick(at time.Duration) error {
	if j == nil {
		return nil
	}
	return j.line(fmt.Appendf(j.ev[:0], `{"tick":%d}`+"\n", ms(at)))
}

// Command journals a control command.
func (j *Journal) Command(name string, arg string, at time.Duration) error {
	if j == nil {
		return nil
	}
	b := append([]byte(`{"command":`), appendQuote(nil, name)...)
	if arg != "" {
		b = append(b, `,"arg":`...)
		b = appendQuote(b, arg)
	}
	b = fmt.Appendf(b, `,"at":%d}`+"\n", ms(at))
	return j.line(b)
}

// Marker journals a line of another kind (resume, end), synced.
func (j *Journal) Marker(key, value string) error {
	if j == nil {
		return nil
	}
	b := append(append([]byte(`{"`), key...), `":`...)
	b = appendQuote(b, value)
	return j.add(append(b, "}\n"...), true, false, false)
}

// Decision journals what the referee decided, synced (fsync at each move).
func (j *Journal) Decision(a referee.Action, die *engine.Die) error {
	return j.TimedDecision(a, die, 0, false)
}

// TimedDecision is Decision with the turn's time in ms ("ms") on a move or
// roll line that ended its mover's turn on a clock (timed).
func (j *Journal) TimedDecision(a referee.Action, die *engine.Die, turnMS int64, timed bool) error {
	if j == nil {
		return nil
	}
	t := j.clock().UTC()
	switch a.Kind {
	case referee.Moved:
		return j.w.Write(record.Line{Move: a.Move, By: a.Seat, T: t, Source: a.Source, MS: turnMS, Timed: timed})
	case referee.Rolled:
		src := a.Source
		if a.Tabla {
			src = "engine"
		}
		return j.w.Write(record.Line{Roll: a.Face, Numeric: die != nil && die.Numeric, By: a.Seat, T: t, Source: src, MS: turnMS, Timed: timed})
	case referee.TookBack:
		j.addTakeback(takebackOp{plies: a.Plies, ops: a.Ops, t: t})
	}
	return nil
}

// takeback rewrites the last a.Ops move and roll lines as {"undone":…} lines
// (so the journal stays a valid game record) and appends a takeback line.
// The rewrite goes to a new file renamed over the old one, so a power cut
// leaves either the old or the new journal.
func (j *Journal) takeback(plies, ops int, t time.Time) (bool, error) {
	in, err := os.Open(j.path)
	if err != nil {
		return false, err
	}
	defer in.Close()
	tmp := j.path + ".tmp"
	f, err := j.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		os.Remove(tmp)
		return false, err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = rewriteUndone(in, bw, ops)
	if err == nil {
		_, err = fmt.Fprintf(bw, `{"takeback":%d,"ops":%d,"t":%q}`+"\n", plies, ops, t.Format(time.RFC3339Nano))
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err != nil {
		os.Remove(tmp) // a full card keeps no half copy
		return false, err
	}
	return j.swapIn(tmp)
}

// rewriteUndone copies the journal in to w with its last ops move and roll
// lines (never the header) rewritten as {"undone":LINE}. It reads the
// journal twice, line by line, so its memory does not grow with the
// journal: a first pass finds the lines, a second copies.
func rewriteUndone(in io.ReadSeeker, w io.Writer, ops int) error {
	if ops <= 0 {
		_, err := io.Copy(w, in)
		return err
	}
	// the offsets of the last ops move and roll lines, oldest first
	var last []int64
	br := bufio.NewReaderSize(in, 64<<10)
	var off int64
	for n := 0; ; n++ {
		start := off
		head, err := br.Peek(8)
		isOp := n > 0 && (bytes.HasPrefix(head, []byte(`{"move":`)) || bytes.HasPrefix(head, []byte(`{"roll":`)))
		for {
			chunk, rerr := br.ReadSlice('\n')
			off += int64(len(chunk))
			if rerr != bufio.ErrBufferFull {
				err = rerr
				break
			}
		}
		if isOp && off > start {
			if len(last) == ops {
				last = last[1:]
			}
			last = append(last, start)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return err
	}
	br.Reset(in)
	var at int64
	for _, start := range last {
		if _, err := io.CopyN(w, br, start-at); err != nil {
			return err
		}
		line, err := br.ReadSlice('\n') // a move or roll line: short
		if err != nil && err != io.EOF {
			return err
		}
		at = start + int64(len(line))
		body := bytes.TrimRight(line, "\n")
		if _, err := fmt.Fprintf(w, "{\"undone\":%s}\n", body); err != nil {
			return err
		}
	}
	_, err := io.Copy(w, br)
	return err
}

// Unfinished is a game found in a journal directory.
type Unfinished struct {
	Path string
	Game *record.Game
	Meta *Meta
	Cut  []byte // torn bytes removed by Repair
	// Tail says where the journal stopped being readable when its tail
	// was cut (nil if it was whole), and TailPath where the cut bytes were
	// kept.
	Tail     *Unreadable
	TailPath string
	// Skipped are the damaged board-event lines (a snapshot, tick or
	// sensor line that is not valid JSON) skipped so that the moves around
	// them count, and SkippedPaths where each was kept before it was taken
	// out of the journal.
	Skipped      []*Unreadable
	SkippedPaths []string
}

// ErrNoGame: no unfinished game in the journal directory.
var ErrNoGame = errors.New("companion: no unfinished game")

// UnreadableDir is the folder of a journal directory that journals which
// cannot be read as a game are moved into, bytes unchanged and name kept
// (".1", ".2", … added if the name is taken), so that they never stop the
// daemon from starting and nothing is deleted.
const UnreadableDir = "unreadable"

// Unreadable says why a journal file cannot be read as a game, and where:
// Line is 1-based (0: the file as a whole), Offset the byte offset in the
// file of the start of that line.
type Unreadable struct {
	Path   string
	Line   int
	Offset int64
	What   string
}

func (u *Unreadable) Error() string {
	if u.Line == 0 {
		return fmt.Sprintf("%s: %s", u.Path, u.What)
	}
	return fmt.Sprintf("%s:%d: line %d, byte %d: %s", u.Path, u.Line, u.Line, u.Offset, u.What)
}

// FindUnfinished looks for the latest journal of game in dir: it reads the
// journals newest first, moving each one that cannot be read as a game
// (empty, a torn or foreign header, a record that is not a journal) into
// UnreadableDir with a warning on log, until one reads. A journal whose
// header is good reads as its longest readable prefix: from the first line
// that is not (blank lines, garbage, an illegal move, a line over
// record.MaxLine) the tail is cut and kept in UnreadableDir as
// NAME.tail-from-line-N, with a warning naming the file, line, byte and
// what was wrong. If the game read is not over and was not abandoned, it
// repairs a torn last line (record.Repair) and returns it; otherwise
// ErrNoGame. log may be nil.
func FindUnfinished(dir string, game string, log *slog.Logger) (*Unfinished, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	names, err := filepath.Glob(filepath.Join(dir, "game-*-"+game+".jsonl"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for i := len(names) - 1; i >= 0; i-- {
		path := names[i]
		u, err := readJournal(path, game)
		var bad *Unreadable
		if !errors.As(err, &bad) {
			for i, sk := range u.skipped() {
				log.Warn("journal: a damaged board event was skipped and kept aside; the moves around it count",
					"file", path, "line", sk.Line, "byte", sk.Offset, "why", sk.What, "moved_to", u.SkippedPaths[i])
			}
			if u != nil && u.Tail != nil {
				log.Warn("journal: the lines from where it stops being readable were cut and kept aside; the game goes on from the moves before",
					"file", path, "line", u.Tail.Line, "byte", u.Tail.Offset, "why", u.Tail.What, "moved_to", u.TailPath)
			}
			return u, err
		}
		to, merr := moveAside(dir, path)
		if merr != nil {
			log.Error("journal unreadable, and it could not be moved aside: skipped", "file", path, "line", bad.Line,
				"byte", bad.Offset, "why", bad.What, "err", merr)
			continue
		}
		log.Warn("journal unreadable, moved aside", "file", path, "moved_to", to, "line", bad.Line,
			"byte", bad.Offset, "why", bad.What)
	}
	return nil, ErrNoGame
}

// readJournal reads one journal: an *Unreadable error if it cannot be read
// as a game of game, ErrNoGame if its game is over or was abandoned. The
// file is only changed (its torn last line repaired) when it is returned
// for resuming, so an unreadable file keeps every byte. It reads the file
// line by line: its memory is that of the game's moves, whatever the
// number of board events.
func readJournal(path, game string) (*Unfinished, error) {
	bad := func(line int, off int64, format string, args ...any) error {
		return &Unreadable{Path: path, Line: line, Offset: off, What: fmt.Sprintf(format, args...)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, bad(0, 0, "cannot be read: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, bad(0, 0, "cannot be read: %v", err)
	}
	if fi.IsDir() {
		return nil, bad(0, 0, "cannot be read: a directory")
	}
	if fi.Size() == 0 {
		return nil, bad(1, 0, "empty file: the header line is missing (stopped before it was written)")
	}
	ended := false
	rd := record.NewReader(f, path)
	var skipped []*Unreadable
	rd.SkipDamaged(func(re *record.Error, raw []byte) bool {
		if !boardEventLine(raw) {
			return false
		}
		skipped = append(skipped, &Unreadable{Path: path, Line: re.Line, Offset: re.Offset, What: re.Msg})
		return true
	})
	g, err := record.ReplayReader(rd, func(ev *record.Event) error {
		if ev.Kind == "end" {
			ended = true
		}
		return nil
	})
	var torn []byte
	var tail *Unreadable // where the readable prefix ends, if before the end
	if err != nil {
		var re *record.Error
		if !errors.As(err, &re) {
			return nil, bad(0, 0, "cannot be read: %v", err)
		}
		switch {
		case errors.Is(err, record.ErrTorn) && re.Line == 1:
			return nil, bad(1, 0, "torn header: %d bytes, no newline, not valid JSON (stopped while it was written)", fi.Size())
		case errors.Is(err, record.ErrTorn):
			// the tail of a write cut short: record.Repair cuts it below
			torn = make([]byte, fi.Size()-re.Offset)
			if _, err := f.ReadAt(torn, re.Offset); err != nil {
				return nil, bad(0, 0, "cannot be read: %v", err)
			}
		case re.Line == 1 || g == nil:
			return nil, bad(re.Line, re.Offset, "%s", re.Msg)
		case errors.Is(err, record.ErrTooMany):
			// a game no table plays (record.MaxApplied moves): the whole
			// journal is set aside, every byte kept, rather than cut there
			return nil, bad(re.Line, re.Offset, "%s", re.Msg)
		default:
			tail = &Unreadable{Path: path, Line: re.Line, Offset: re.Offset, What: re.Msg}
		}
	}
	if g.Header.Game != game {
		return nil, bad(1, 0, "header: a %s game in a file named for %s", g.Header.Game, game)
	}
	m, err := metaOf(g.Header)
	if err != nil {
		return nil, bad(1, 0, "%v", err)
	}
	if m.SettleMs < 0 || m.Takeback < 0 {
		return nil, bad(1, 0, "header: companion meta: settle_ms %d, takeback %d: want 0 or more", m.SettleMs, m.Takeback)
	}
	if ended || g.State.Awaiting() == engine.AwaitNone {
		return nil, ErrNoGame
	}
	var tailPath string
	if tail != nil {
		if tailPath, err = cutTail(f, path, tail); err != nil {
			return nil, fmt.Errorf("companion: cutting the unreadable tail of %s (line %d, byte %d): %w", path, tail.Line, tail.Offset, err)
		}
		torn = nil
	}
	var skippedPaths []string
	if len(skipped) > 0 {
		if skippedPaths, err = dropLines(f, path, skipped); err != nil {
			return nil, fmt.Errorf("companion: taking the damaged line %d (byte %d) out of %s: %w", skipped[0].Line, skipped[0].Offset, path, err)
		}
	}
	cut, err := record.Repair(path)
	if err != nil {
		return nil, fmt.Errorf("companion: repair %s: %w", path, err)
	}
	if !bytes.Equal(cut, torn) {
		return nil, fmt.Errorf("companion: repair %s: cut %q, want %q (the file changed while it was read)", path, cut, torn)
	}
	return &Unfinished{Path: path, Game: g, Meta: m, Cut: cut, Tail: tail, TailPath: tailPath, Skipped: skipped, SkippedPaths: skippedPaths}, nil
}

// skipped is u.Skipped, nil-safe.
func (u *Unfinished) skipped() []*Unreadable {
	if u == nil {
		return nil
	}
	return u.Skipped
}

// boardEventLine reports whether a line that is not valid JSON was, by its
// first bytes, one of the board events the journal writes most (a
// snapshot, a tick, a sensor change) and holds no move or roll: such a line
// is skipped on resuming, where any other bad line ends the readable
// prefix.
func boardEventLine(raw []byte) bool {
	head := raw[:min(len(raw), 14)]
	if !bytes.Contains(head, []byte("snapshot")) && !bytes.Contains(head, []byte("tick")) && !bytes.Contains(head, []byte("sensor")) {
		return false
	}
	for _, k := range []string{"move", "roll", "tabla", "undone", "takeback"} {
		if bytes.Contains(raw, []byte(k)) {
			return false
		}
	}
	return true
}

// dropLines keeps each skipped line of the journal f (at path) in
// UnreadableDir as NAME.line-N, synced, then replaces the journal by a
// copy without them (written beside it, synced, renamed over it): a power
// cut in between leaves the bytes twice, never lost. It returns where each
// line was kept.
func dropLines(f *os.File, path string, skipped []*Unreadable) ([]string, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	dir := filepath.Dir(path)
	aside := filepath.Join(dir, UnreadableDir)
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return nil, err
	}
	lineAt := func(off int64) ([]byte, error) {
		b := make([]byte, 0, 256)
		r := bufio.NewReader(io.NewSectionReader(f, off, size-off))
		for {
			c, err := r.ReadByte()
			if err != nil {
				return b, err
			}
			b = append(b, c)
			if c == '\n' {
				return b, nil
			}
		}
	}
	var kept []string
	for _, sk := range skipped {
		line, err := lineAt(sk.Offset)
		if err != nil {
			return kept, err
		}
		base := fmt.Sprintf("%s.line-%d", filepath.Base(path), sk.Line)
		to := filepath.Join(aside, base)
		var out *os.File
		for n := 1; ; n++ {
			out, err = os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err == nil {
				break
			}
			if !errors.Is(err, os.ErrExist) {
				return kept, err
			}
			to = filepath.Join(aside, fmt.Sprintf("%s.%d", base, n))
		}
		_, err = out.Write(line)
		if err == nil {
			err = out.Sync()
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(to)
			return kept, err
		}
		kept = append(kept, to)
	}
	syncDir(aside)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return kept, err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing there
	var from int64
	for _, sk := range skipped {
		line, err := lineAt(sk.Offset)
		if err != nil {
			tmp.Close()
			return kept, err
		}
		if _, err := io.Copy(tmp, io.NewSectionReader(f, from, sk.Offset-from)); err != nil {
			tmp.Close()
			return kept, err
		}
		from = sk.Offset + int64(len(line))
	}
	_, err = io.Copy(tmp, io.NewSectionReader(f, from, size-from))
	if err == nil {
		err = tmp.Chmod(fi.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return kept, err
	}
	syncDir(dir)
	return kept, nil
}

// removeIfHeaderOnly removes the journal at path if it holds one line,
// its header, and nothing else.
func removeIfHeaderOnly(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	b := make([]byte, record.MaxLine+1)
	n, err := io.ReadFull(f, b)
	f.Close()
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	if n == 0 || n > record.MaxLine || bytes.IndexByte(b[:n], '\n') != n-1 {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// cutTail keeps the bytes of the journal f (at path) from tail.Offset to
// its end in UnreadableDir beside it, synced, then truncates the journal
// there: a power cut in between leaves the bytes twice, never lost.
func cutTail(f *os.File, path string, tail *Unreadable) (string, error) {
	dir := filepath.Dir(path)
	aside := filepath.Join(dir, UnreadableDir)
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return "", err
	}
	base := fmt.Sprintf("%s.tail-from-line-%d", filepath.Base(path), tail.Line)
	to := filepath.Join(aside, base)
	var out *os.File
	for n := 1; ; n++ {
		var err error
		out, err = os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
		to = filepath.Join(aside, fmt.Sprintf("%s.%d", base, n))
	}
	_, err := io.Copy(out, io.NewSectionReader(f, tail.Offset, 1<<62))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(to)
		return "", err
	}
	syncDir(aside)
	if err := os.Truncate(path, tail.Offset); err != nil {
		return to, err
	}
	if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		err = w.Sync()
		w.Close()
		if err != nil {
			return to, err
		}
	}
	return to, nil
}

// moveAside moves path into dir's UnreadableDir and returns where it went.
func moveAside(dir, path string) (string, error) {
	aside := filepath.Join(dir, UnreadableDir)
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return "", err
	}
	base := filepath.Base(path)
	to := filepath.Join(aside, base)
	for n := 1; ; n++ {
		_, err := os.Lstat(to)
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		to = filepath.Join(aside, fmt.Sprintf("%s.%d", base, n))
	}
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	syncDir(aside)
	syncDir(dir)
	return to, nil
}

func metaOf(h *record.Header) (*Meta, error) {
	var w metaWrap
	if len(h.Meta) > 0 {
		if err := json.Unmarshal(h.Meta, &w); err != nil {
			return nil, fmt.Errorf("companion: header meta: %w", err)
		}
	}
	if w.Companion == nil {
		return nil, errors.New("companion: the record has no companion meta (not a journal)")
	}
	return w.Companion, nil
}

// applied converts a replayed game's moves and rolls for referee.Resume.
func applied(g *record.Game) []referee.Applied {
	out := make([]referee.Applied, len(g.Applied))
	for i, a := range g.Applied {
		out[i] = referee.Applied{Roll: a.Roll, Move: a.Move, Face: a.Face, Text: a.Text, Seat: a.Seat}
	}
	return out
}

// decisionText renders a journal decision for comparisons.
func decisionText(kind, seat, what string) string {
	return strings.TrimSpace(kind + " " + seat + " " + what)
}

// swapIn puts the rewritten file tmp in the journal's place (renamed over
// it, the directory synced) and goes on appending to it: all of it is on
// disk (tmp was synced; the lines written before were synced first). It
// reports whether tmp took the journal's place: the rewrite is then done,
// even when the file could not be opened again (the journal is paused
// until it can).
func (j *Journal) swapIn(tmp string) (bool, error) {
	fi, err := os.Stat(tmp)
	if err == nil {
		err = os.Rename(tmp, j.path)
	}
	if err != nil {
		os.Remove(tmp)
		return false, err
	}
	syncDir(filepath.Dir(j.path))
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
	j.good, j.written = fi.Size(), 0
	nf, err := j.openFile(j.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return true, j.fail(err)
	}
	j.f = nf
	return true, nil
}
