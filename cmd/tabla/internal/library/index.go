package library

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
)

// IndexFile is the index cache in the library's directory.
const IndexFile = ".tabla-library.json"

// indexVersion changes when Entry changes meaning: an older cache is
// rebuilt.
const indexVersion = 2

// MaxRecordBytes bounds the files read as records: a larger file is listed
// as unreadable without reading it.
const MaxRecordBytes = 64 << 20

// Entry is one file of the library.
type Entry struct {
	// ID names the file under the library's directory (slash-separated).
	ID      string   `json:"id"`
	Game    string   `json:"game,omitempty"`
	Variant string   `json:"variant,omitempty"`
	Players []string `json:"players,omitempty"` // the seats, in turn order
	Sides   []string `json:"sides,omitempty"`   // who can win (six with four players: the teams)
	// Date is when the game was played: the first move's time, else the
	// time in a journal's name, else the file's modification time.
	Date   time.Time `json:"date"`
	Plies  int       `json:"plies"`
	Result string    `json:"result,omitempty"` // "red won", "draw", "unfinished"
	Status string    `json:"status,omitempty"` // playing, won, draw
	Winner string    `json:"winner,omitempty"` // the side that won
	// FirstMove is the first move's text and FirstSide its player's side.
	FirstMove string `json:"first_move,omitempty"`
	FirstSide string `json:"first_side,omitempty"`
	// Size and ModTime identify the file's version the entry describes.
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// Error says why the file is not a readable game record.
	Error *ReadError `json:"error,omitempty"`
	// text is what Search looks through besides the fields above: every
	// move, and the header's fields as key:value (searchText). Kept in the
	// index cache, never listed.
	text string
}

// ReadError says where a file stops being a game record.
type ReadError struct {
	File    string `json:"file"`
	Line    int    `json:"line"` // 1-based; 0: the file as a whole
	Byte    int64  `json:"byte"` // offset of the line's start
	Message string `json:"message"`
}

func (e *ReadError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	return fmt.Sprintf("%s:%d: line %d, byte %d: %s", e.File, e.Line, e.Line, e.Byte, e.Message)
}

// Options configure a library.
type Options struct {
	// Level is the analysis level (1–5; 0: the search's default).
	Level int
	// Workers search positions in parallel during an analysis (0: all cores).
	Workers int
	// Blunder is the loss that makes a blunder (0: analysis.DefaultBlunder).
	Blunder float64
	// Logger logs what cannot be cached (default: discard).
	Logger *slog.Logger
}

// Library is the games under one directory.
type Library struct {
	dir  string
	root *os.Root // every file is opened through it: nothing outside dir
	opts Options
	log  *slog.Logger

	mu      sync.Mutex // guards the index
	entries map[string]*Entry
	saved   bool // the cache file holds entries
	// textsLoaded: the entries from the index cache have their search
	// texts (loadTextsLocked).
	textsLoaded bool
	noCache     bool // the cache file cannot be written: warned once

	// progress counts the files read by the listing under way (Progress).
	progress struct {
		indexing    atomic.Bool
		read, total atomic.Int64
	}
	testHookRead func(id string) // called before each file is read
	// testHookProgress is called after each position an analysis searched.
	testHookProgress func(id string, done, total int)

	jobs    jobs          // analysis.go; jobs.done is closed by Close
	evalSem chan struct{} // one Evaluate at a time (explore.go)

	// life guards closing jobs.done and starting warm goroutines, so that
	// Close waits for every one Warm started.
	life sync.Mutex
	warm sync.WaitGroup
}

// ErrClosed: the library was closed (Close) while it was asked something.
var ErrClosed = errors.New("the library is closed")

// closed reports whether Close was called.
func (l *Library) closed() bool {
	select {
	case <-l.jobs.done:
		return true
	default:
		return false
	}
}

// errClosed is ErrClosed as the library's methods return it.
func errClosed() error { return fmt.Errorf("library: %w", ErrClosed) }

// Open opens the library of dir, reading its index cache if there is one.
// dir must be a directory.
func Open(dir string, o Options) (*Library, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("library: %s is not a directory (want a folder of game records or a journal directory)", dir)
	}
	if o.Level < 0 || o.Level > 5 {
		return nil, fmt.Errorf("library: analysis level %d: want 1–5", o.Level)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	l := &Library{dir: dir, root: root, opts: o, log: o.Logger, entries: map[string]*Entry{}, evalSem: make(chan struct{}, 1)}
	l.jobs.init(l)
	l.loadIndex()
	return l, nil
}

// Dir is the library's directory.
func (l *Library) Dir() string { return l.dir }

type indexCache struct {
	Version int      `json:"version"`
	Entries []*Entry `json:"entries"`
}

// TextFile keeps the entries' search texts (every move, the header's
// fields) beside the index cache: read on the first search only, so that
// opening an indexed library reads no more than it did without search.
const TextFile = ".tabla-library-text.json"

type textCache struct {
	Version int                   `json:"version"`
	Texts   map[string]cachedText `json:"texts"`
}

// cachedText is an entry's search text and the file version it describes.
type cachedText struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	Text    string    `json:"text"`
}

func (l *Library) loadIndex() {
	if fi, err := l.root.Lstat(IndexFile); err != nil || !fi.Mode().IsRegular() {
		l.textsLoaded = true // nothing indexed: every text comes from reading
		return
	}
	data, err := l.root.ReadFile(IndexFile)
	if err != nil {
		l.textsLoaded = true
		return
	}
	var c indexCache
	if err := json.Unmarshal(data, &c); err != nil || c.Version != indexVersion {
		l.log.Warn("library index cache unreadable or old: rebuilding", "file", filepath.Join(l.dir, IndexFile), "err", err)
		l.textsLoaded = true
		return
	}
	for _, e := range c.Entries {
		if e != nil && e.ID != "" {
			l.entries[e.ID] = e
		}
	}
	l.saved = true
}

// loadTextsLocked gives the entries read from the index cache their search
// texts from TextFile, once; an entry it has no text for (the file is
// missing or older) is read again.
func (l *Library) loadTextsLocked() {
	if l.textsLoaded {
		return
	}
	l.textsLoaded = true
	var c textCache
	if fi, err := l.root.Lstat(TextFile); err == nil && fi.Mode().IsRegular() {
		if data, err := l.root.ReadFile(TextFile); err == nil && json.Unmarshal(data, &c) == nil && c.Version != indexVersion {
			c.Texts = nil
		}
	}
	for id, e := range l.entries {
		if e.Error != nil || e.text != "" {
			continue
		}
		if t, ok := c.Texts[id]; ok && t.Size == e.Size && t.ModTime.Equal(e.ModTime) {
			e.text = t.Text
			continue
		}
		if ne := l.readEntry(found{id: id, path: filepath.Join(l.dir, filepath.FromSlash(id)), size: e.Size, mod: e.ModTime}); ne != nil {
			l.entries[id] = ne
		} else {
			l.textsLoaded = false // closed half-way: the cache files are not written now
		}
	}
}

func (l *Library) saveIndexLocked() {
	l.loadTextsLocked() // the texts file is rewritten whole
	if l.closed() {
		return // the files are left as they were: whole, if older
	}
	c := indexCache{Version: indexVersion, Entries: make([]*Entry, 0, len(l.entries))}
	tc := textCache{Version: indexVersion, Texts: make(map[string]cachedText, len(l.entries))}
	for _, e := range l.entries {
		c.Entries = append(c.Entries, e)
		if e.text != "" {
			tc.Texts[e.ID] = cachedText{Size: e.Size, ModTime: e.ModTime, Text: e.text}
		}
	}
	slices.SortFunc(c.Entries, func(a, b *Entry) int { return strings.Compare(a.ID, b.ID) })
	data, err := json.Marshal(c)
	if err == nil {
		err = l.writeAtomic(IndexFile, data)
	}
	if err == nil {
		data, err = json.Marshal(tc)
		if err == nil {
			err = l.writeAtomic(TextFile, data)
		}
	}
	if err != nil {
		if !l.noCache {
			l.log.Warn("library index not cached (kept in memory)", "dir", l.dir, "err", err)
		}
		l.noCache = true
		return
	}
	l.saved = true
}

// writeAtomic writes the file name (relative to the library's directory)
// through a temporary file renamed over it, inside the directory: the
// rename replaces a symbolic link of that name, never follows it.
func (l *Library) writeAtomic(name string, data []byte) error {
	var tmp string
	var f *os.File
	var err error
	for range 10 {
		tmp = filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+"."+strconv.FormatUint(rand.Uint64(), 36))
		f, err = l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = l.root.Rename(tmp, name)
	}
	if err != nil {
		l.root.Remove(tmp)
	}
	return err
}

type found struct {
	id   string
	path string
	size int64
	mod  time.Time
}

// scan lists the *.jsonl files under the directory.
func (l *Library) scan() ([]found, error) {
	var out []found
	err := filepath.WalkDir(l.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == l.dir {
				return err
			}
			return nil // an unreadable folder inside: skip it
		}
		if l.closed() {
			return ErrClosed
		}
		name := d.Name()
		if p != l.dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(name, ".jsonl") || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone since
		}
		rel, _ := filepath.Rel(l.dir, p)
		out = append(out, found{id: filepath.ToSlash(rel), path: p, size: fi.Size(), mod: fi.ModTime()})
		return nil
	})
	return out, err
}

// Games lists every game record of the library, newest first; unreadable
// files are listed with their error. Files new or changed since the last
// listing are read again (in parallel), the others come from the index.
//
// Once the library is closed, Games returns ErrClosed: a listing under
// way stops between two files, or inside a long record, and writes no
// index cache (the entries read whole are kept in memory only).
func (l *Library) Games() ([]Entry, error) {
	if l.closed() {
		return nil, errClosed()
	}
	files, err := l.scan()
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed() {
		return nil, errClosed()
	}
	var stale []found
	present := make(map[string]bool, len(files))
	for _, f := range files {
		present[f.id] = true
		if e := l.entries[f.id]; e == nil || e.Size != f.size || !e.ModTime.Equal(f.mod) {
			stale = append(stale, f)
		}
	}
	changed := len(stale) > 0
	for id := range l.entries {
		if !present[id] {
			delete(l.entries, id)
			changed = true
		}
	}
	if len(stale) > 0 {
		l.progress.total.Store(int64(len(stale)))
		l.progress.read.Store(0)
		l.progress.indexing.Store(true)
		defer l.progress.indexing.Store(false)
		read := make([]*Entry, len(stale))
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					// No file is begun once the library closed: the feeder
					// stops too, but a worker ready to take a file when
					// Close came may still be handed one (select picks
					// either ready case).
					if l.closed() {
						continue
					}
					if l.testHookRead != nil {
						l.testHookRead(stale[i].id)
					}
					if l.closed() {
						continue // (closed while the hook held the worker)
					}
					if read[i] = l.readEntry(stale[i]); read[i] != nil {
						l.progress.read.Add(1)
					}
				}
			}()
		}
	feed:
		for i := range stale {
			select {
			case next <- i:
			case <-l.jobs.done:
				break feed
			}
		}
		close(next)
		wg.Wait()
		for _, e := range read {
			if e != nil { // nil: not read, the library closed first
				l.entries[e.ID] = e
			}
		}
		if l.closed() {
			return nil, errClosed()
		}
	}
	if changed || !l.saved {
		l.saveIndexLocked()
	}
	out := make([]Entry, 0, len(l.entries))
	for _, e := range l.entries {
		out = append(out, *e)
		out[len(out)-1].text = ""
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := b.Date.Compare(a.Date); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Entry returns the index entry of id, reading the file if it changed, and
// the file's path.
func (l *Library) Entry(id string) (*Entry, string, error) {
	name, err := l.path(id)
	if err != nil {
		return nil, "", err
	}
	fi, err := l.root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("library: %q: %w", id, ErrNotFound)
	}
	path := filepath.Join(l.dir, name)
	l.mu.Lock()
	e := l.entries[id]
	l.mu.Unlock()
	if e == nil || e.Size != fi.Size() || !e.ModTime.Equal(fi.ModTime()) {
		e = l.readEntry(found{id: id, path: path, size: fi.Size(), mod: fi.ModTime()})
		if e == nil {
			return nil, "", errClosed()
		}
		l.mu.Lock()
		l.entries[id] = e
		l.mu.Unlock()
	}
	c := *e
	return &c, path, nil
}

// ErrNotFound: no game of that id in the library.
var ErrNotFound = errors.New("no such game in the library")

// path turns an id into the file's name relative to the library's
// directory, refusing anything that is not a regular *.jsonl file under it
// as the listing would show it: no hidden part, and no symbolic link on
// the way, to a file or to a folder, wherever it points. (Every file is
// then opened through l.root, so a link swapped in after this check
// still cannot lead out of the directory.)
func (l *Library) path(id string) (string, error) {
	clean := filepath.FromSlash(id)
	notFound := fmt.Errorf("library: %q: %w", id, ErrNotFound)
	if id == "" || !filepath.IsLocal(clean) || !strings.HasSuffix(id, ".jsonl") || strings.Contains(id, "\\") {
		return "", notFound
	}
	parts := strings.Split(id, "/")
	for i, part := range parts {
		if strings.HasPrefix(part, ".") {
			return "", notFound
		}
		fi, err := l.root.Lstat(filepath.Join(parts[:i+1]...))
		switch {
		case err != nil, fi.Mode()&fs.ModeSymlink != 0:
			return "", notFound
		case i < len(parts)-1 && !fi.IsDir(), i == len(parts)-1 && !fi.Mode().IsRegular():
			return "", notFound
		}
	}
	return clean, nil
}

// readEntry reads one file into an index entry; nil if the library closed
// before it was read to its end.
func (l *Library) readEntry(f found) *Entry {
	e := &Entry{ID: f.id, Size: f.size, ModTime: f.mod, Date: f.mod}
	bad := func(line int, off int64, format string, args ...any) *Entry {
		e.Error = &ReadError{File: f.id, Line: line, Byte: off, Message: fmt.Sprintf(format, args...)}
		return e
	}
	if f.size > MaxRecordBytes {
		return bad(0, 0, "%d bytes: too large to be a game record (at most %d MB)", f.size, MaxRecordBytes>>20)
	}
	in, err := l.open(filepath.FromSlash(f.id))
	if err != nil {
		return bad(0, 0, "cannot be read: %v", err)
	}
	defer in.Close()
	var moves searchMoves
	firstMove, firstSeat := "", -1
	g, first, err := replay(in, f.id, l.jobs.done, func(_ engine.State, a *record.Applied) error {
		if !a.Roll && firstSeat < 0 {
			firstMove, firstSeat = a.Text, a.Seat
		}
		moves.add(a)
		return nil
	}, 0)
	if errors.Is(err, ErrClosed) {
		return nil
	}
	if err != nil {
		var re *record.Error
		if errors.As(err, &re) {
			return bad(re.Line, re.Offset, "%s", re.Msg)
		}
		return bad(0, 0, "%v", err)
	}
	st := g.State
	info := st.Info()
	e.Game, e.Variant = info.Game, info.Variant
	e.Players, e.Sides = info.Seats, info.Sides
	e.Plies = st.Plies()
	res := st.Result()
	e.Status = res.Status.String()
	switch res.Status {
	case engine.Won:
		e.Winner = info.Sides[res.Winner]
		e.Result = e.Winner + " won"
	case engine.Draw:
		e.Result = "draw"
	default:
		e.Result = "unfinished"
	}
	if firstSeat >= 0 {
		e.FirstMove, e.FirstSide = firstMove, info.Sides[info.SideOf[firstSeat]]
	}
	e.text = searchText(&moves, g.Header)
	switch {
	case !first.IsZero():
		e.Date = first
	default:
		if t, ok := journalTime(f.id); ok {
			e.Date = t
		}
	}
	return e
}

// open opens a regular file of the library by its name relative to the
// directory, refusing a symbolic link.
func (l *Library) open(name string) (*os.File, error) {
	f, err := l.root.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return f, nil
}

// stopEvery is how many events replay reads between two looks at its stop
// channel: a 64 MB record (2 M lines) is read in about a second, so it
// looks every few hundred microseconds.
const stopEvery = 1024

// replay replays a record line by line and returns the time of its first
// timed event. It returns ErrClosed (bare) when stop is closed before the
// end (nil: never). With each it streams the game (record.Game.Each: each
// is called with the position after every move and roll, and the memory
// is one position's whatever the number of moves); without, the
// game keeps its moves, at most max (analysis.MaxMoves for the analysis),
// and a longer record is refused naming the line beyond. start, if given,
// is called with the game as set up from the header, before its events.
func replay(r io.Reader, name string, stop <-chan struct{}, each func(st engine.State, a *record.Applied) error, max int, start ...func(*record.Game) error) (*record.Game, time.Time, error) {
	rd := record.NewReader(r, name)
	h, err := rd.Header()
	if err != nil {
		return nil, time.Time{}, err
	}
	st, err := newState(h)
	if err != nil {
		return nil, time.Time{}, &record.Error{File: name, Line: 1, Kind: record.ErrHeader, Msg: "header: " + err.Error(), Err: err}
	}
	g := &record.Game{Header: h, State: st, Max: max, MaxWhat: "the library's analysis takes (analysis.MaxMoves)"}
	if each != nil {
		g.Each = func(a *record.Applied) error { return each(g.State, a) }
	}
	for _, f := range start {
		if err := f(g); err != nil {
			return g, time.Time{}, err
		}
	}
	var first time.Time
	for n := 1; rd.Next(); n++ {
		if stop != nil && n%stopEvery == 0 {
			select {
			case <-stop:
				return g, first, ErrClosed
			default:
			}
		}
		ev := rd.Event()
		if first.IsZero() && !ev.T.IsZero() {
			first = ev.T
		}
		if err := g.Apply(ev); err != nil {
			return g, first, g.LineError(rd, err)
		}
	}
	g.Lines = rd.Line()
	return g, first, rd.Err()
}

// starts keeps the start position of every game setup met (a header
// without its meta), so that a library of many games of one setup does not
// build the board and the game again for each: building is most of the
// cost of indexing short games.
var starts struct {
	sync.Mutex
	m map[string]engine.State
}

// newState is record.NewState through starts. Boards named by a file path
// are read every time (the file may change).
func newState(h *record.Header) (engine.State, error) {
	hh := *h
	hh.Meta = nil
	key, err := json.Marshal(&hh)
	if err != nil || strings.ContainsAny(h.Board, "/\\.") {
		return record.NewState(h)
	}
	starts.Lock()
	defer starts.Unlock()
	if st, ok := starts.m[string(key)]; ok {
		return st.Clone(), nil
	}
	st, err := record.NewState(h)
	if err != nil {
		return nil, err
	}
	if starts.m == nil || len(starts.m) > 256 {
		starts.m = map[string]engine.State{}
	}
	starts.m[string(key)] = st.Clone()
	return st, nil
}

// journalTime reads the start time in a journal's name
// (game-20260102T150405.000000000Z-gyges.jsonl).
func journalTime(id string) (time.Time, bool) {
	base := id[strings.LastIndexByte(id, '/')+1:]
	rest, ok := strings.CutPrefix(base, "game-")
	if !ok {
		return time.Time{}, false
	}
	stamp, _, ok := strings.Cut(rest, "-")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102T150405.000000000Z", stamp)
	return t, err == nil
}

// Level is the analysis level.
func (l *Library) Level() int { return l.level() }

// Warm builds the index in the background (a first listing of a large
// library reads every record), so that the first visit finds it ready.
// Close stops it and waits for it.
func (l *Library) Warm() {
	l.life.Lock()
	defer l.life.Unlock()
	if l.closed() {
		return
	}
	l.warm.Add(1)
	go func() {
		defer l.warm.Done()
		if _, err := l.Games(); err != nil && !errors.Is(err, ErrClosed) {
			l.log.Warn("library index", "err", err)
		}
	}()
}
