package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/clock"
)

// Version is the record format version this package reads and writes.
const Version = 1

// Errors wrapped by *Error.
var (
	// ErrTorn: the last line has no newline and is not valid JSON — the tail
	// of a write cut short, typically by a power cut.
	ErrTorn = errors.New("torn last line")
	// ErrSyntax: a line is not a JSON object of the expected form.
	ErrSyntax = errors.New("malformed line")
	// ErrHeader: the header is missing or wrong.
	ErrHeader = errors.New("bad header")
	// ErrEvent: an event cannot be applied (illegal move, wrong turn, …).
	ErrEvent = errors.New("bad event")
	// ErrLong: a line is longer than MaxLine; the reader stops there
	// without reading the rest of the line into memory.
	ErrLong = errors.New("line too long")
	// ErrSecondHeader: a line after the first is a header (it holds
	// "tabla"): the lines from there are another game's, or a journal
	// written twice; the reader stops there.
	ErrSecondHeader = errors.New("a second header")
)

// MaxLine is the longest line a Reader reads, newline included. Real
// lines are short (a snapshot of 256 sensors is under 600 bytes); the cap
// keeps a reader's memory bounded whatever the file holds.
const MaxLine = 1 << 20

// Error says where a record is wrong. Its text is "FILE:N: line N: what".
type Error struct {
	File   string
	Line   int   // 1-based
	Offset int64 // byte offset of the line's start in the record
	Kind   error
	Msg    string
	Err    error // the engine's error, if any
	// Field names the header field that is wrong ("names.red", "round"),
	// when one is.
	Field string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: line %d: %s", e.File, e.Line, e.Line, e.Msg)
}

// Unwrap gives the kind (ErrTorn, ErrSyntax, …) and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Header is a record's first line.
type Header struct {
	Tabla   int              `json:"tabla"`
	Game    string           `json:"game"`
	Variant string           `json:"variant,omitempty"`
	First   string           `json:"first,omitempty"`
	N       int              `json:"n,omitempty"`
	Players int              `json:"players,omitempty"`
	Board   string           `json:"board,omitempty"`
	Start   *engine.Position `json:"start,omitempty"`
	// Who and where (who.go): a name per seat, event, round, site, date.
	Names map[string]string `json:"names,omitempty"`
	Event string            `json:"event,omitempty"`
	Round string            `json:"round,omitempty"`
	Site  string            `json:"site,omitempty"`
	Date  string            `json:"date,omitempty"`
	// Clock is the game's time control (engine/clock): "10m+5s" for every
	// seat, or {"red":"10m+5s","white":"5m"} per seat.
	Clock clock.Controls  `json:"clock,omitempty"`
	Meta  json.RawMessage `json:"meta,omitempty"`
}

// Sources an event may name.
var Sources = []string{"board", "sim", "cli", "engine"}

// Event is one line after the header. Exactly one of Move and Roll is set for
// rules events; Kind names other events and Raw holds their line.
type Event struct {
	Line   int
	Kind   string // "move", "roll", or the first key of another event kind
	Move   string
	Roll   string // the die face's text: "4", "N"
	By     string
	T      time.Time
	Source string
	// MS is the time in milliseconds the mover's clock ran for the turn
	// this line ended ("ms"), when Timed.
	MS    int64
	Timed bool
	// Raw is the line as read (valid JSON). It is only valid until the
	// next call to Next: copy it to keep it.
	Raw json.RawMessage
}

// Reader reads a record line by line, in the manner of bufio.Scanner: Next
// advances, Event returns the current event, Err is nil at a clean end.
// Its memory is bounded by MaxLine whatever the record's size, and lines of
// kinds other than move and roll (sensor changes, ticks…) are checked and
// handed out without allocating.
type Reader struct {
	file   string
	sc     *bufio.Scanner
	line   int
	off    int64 // byte offset of the current line's start
	next   int64 // byte offset of the next line's start
	header *Header
	ev     Event
	err    error
	game   string
	die    *engine.Die
	// damaged, when set, is asked about every line after the header that
	// is not valid JSON (and not a torn last line): true skips it.
	damaged func(err *Error, raw []byte) bool
}

// SkipDamaged makes the reader ask f about every line after the header
// that is not valid JSON and ends with a newline (a torn last line is
// never asked about): if f returns true the line is skipped and reading
// goes on with the next; otherwise the reader stops there as without f.
// raw is valid only during the call. The companion skips damaged board
// events this way, so that the moves around them count.
func (r *Reader) SkipDamaged(f func(err *Error, raw []byte) bool) { r.damaged = f }

// NewReader reads a record from r; file names it in errors ("-" for stdin).
func NewReader(r io.Reader, file string) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLine)
	sc.Split(scanLines)
	return &Reader{file: file, sc: sc}
}

// scanLines is bufio.ScanLines, but it keeps a final line's missing newline
// visible: such a token ends without the '\n' that every other token keeps.
func scanLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i+1], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func (r *Reader) fail(kind error, cause error, format string, args ...any) error {
	r.err = &Error{File: r.file, Line: r.line, Offset: r.off, Kind: kind, Msg: fmt.Sprintf(format, args...), Err: cause}
	return r.err
}

// readLine returns the next line without its newline, and whether it had one.
func (r *Reader) readLine() ([]byte, bool, bool) {
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			r.line++
			r.off = r.next
			if errors.Is(err, bufio.ErrTooLong) {
				r.fail(ErrLong, nil, "longer than %d bytes, the limit of a record line (not a game record, or damaged)", MaxLine)
			} else {
				r.fail(ErrSyntax, err, "%v", err)
			}
		}
		return nil, false, false
	}
	r.line++
	b := r.sc.Bytes()
	r.off = r.next
	r.next += int64(len(b))
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		return b, true, true
	}
	return b, false, true
}

// object checks that a line is one JSON object and returns its fields in order.
func (r *Reader) object(line []byte, newline bool) ([]string, map[string]json.RawMessage, bool) {
	if !json.Valid(line) {
		if !newline {
			r.fail(ErrTorn, nil, "the last line is cut off (%d bytes, no newline): %s", len(line), clip(line))
			return nil, nil, false
		}
		if len(bytes.TrimSpace(line)) == 0 {
			r.fail(ErrSyntax, nil, "empty line")
			return nil, nil, false
		}
		r.fail(ErrSyntax, nil, "not valid JSON: %s", clip(line))
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, _ := dec.Token()
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		r.fail(ErrSyntax, nil, "not a JSON object: %s", clip(line))
		return nil, nil, false
	}
	var keys []string
	fields := map[string]json.RawMessage{}
	for dec.More() {
		kt, _ := dec.Token()
		k := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			r.fail(ErrSyntax, err, "%v", err)
			return nil, nil, false
		}
		if _, dup := fields[k]; dup {
			r.fail(ErrSyntax, nil, "field %q given twice", k)
			return nil, nil, false
		}
		keys = append(keys, k)
		fields[k] = v
	}
	return keys, fields, true
}

func clip(b []byte) string {
	if len(b) > 60 {
		return strconv.Quote(string(b[:60])) + "…"
	}
	return strconv.Quote(string(b))
}

// Header reads and checks the header line. It must be called first.
func (r *Reader) Header() (*Header, error) {
	if r.header != nil || r.err != nil {
		return r.header, r.err
	}
	line, nl, ok := r.readLine()
	if !ok {
		if r.err != nil {
			return nil, r.err
		}
		r.line = 1
		return nil, r.fail(ErrHeader, nil, "empty record: the header line is missing")
	}
	keys, _, ok := r.object(line, nl)
	if !ok {
		return nil, r.err
	}
	for _, k := range keys {
		if !headerFields[k] {
			return nil, r.fail(ErrHeader, nil, "header: unknown field %q", k)
		}
	}
	var h Header // top-level fields are checked above, start strictly below
	if err := json.Unmarshal(line, &h); err != nil {
		r.fail(ErrHeader, err, "header: %s", strings.TrimPrefix(err.Error(), "json: "))
		if errors.Is(err, clock.ErrControl) {
			r.err.(*Error).Field = "clock"
		}
		return nil, r.err
	}
	var present map[string]json.RawMessage
	json.Unmarshal(line, &present)
	if err := checkHeader(&h, present); err != nil {
		return nil, r.fail(ErrHeader, nil, "header: %v", err)
	}
	var seats []string
	if st, err := NewState(&h); err == nil {
		r.die = st.Info().Die
		seats = st.Info().Seats
	}
	if _, ok := present["clock"]; ok && seats != nil {
		if err := h.Clock.Check(seats); err != nil {
			r.fail(ErrHeader, err, "header: %v", err)
			r.err.(*Error).Field = "clock"
			return nil, r.err
		}
	}
	if err := checkWho(&h, present, seats); err != nil {
		r.fail(ErrHeader, err, "header: %v", err)
		var fe *FieldError
		if errors.As(err, &fe) {
			r.err.(*Error).Field = fe.Field
		}
		return nil, r.err
	}
	r.header = &h
	r.game = h.Game
	return &h, nil
}

func checkHeader(h *Header, present map[string]json.RawMessage) error {
	if _, ok := present["tabla"]; !ok {
		return errors.New(`"tabla": 1 is required`)
	}
	if h.Tabla != Version {
		return fmt.Errorf("format version %d, this tabla reads version %d", h.Tabla, Version)
	}
	if _, ok := boards.Games[h.Game]; !ok {
		return fmt.Errorf("game %q: want daha, star, gyges, ray or six", h.Game)
	}
	if _, ok := present["variant"]; ok {
		switch {
		case h.Variant == "basic":
		case h.Variant == "advanced" && (h.Game == "gyges" || h.Game == "six"):
		case h.Variant == "advanced":
			return fmt.Errorf("variant advanced exists only for gyges and six")
		default:
			return fmt.Errorf("variant %q: want basic or advanced", h.Variant)
		}
	}
	if _, ok := present["first"]; ok {
		switch {
		case h.Game == "star" && (h.First == "red" || h.First == "white"):
		case h.Game == "gyges" && (h.First == "south" || h.First == "north"):
		case h.Game == "star":
			return fmt.Errorf("first %q: want red or white", h.First)
		case h.Game == "gyges":
			return fmt.Errorf("first %q: want south or north", h.First)
		default:
			return fmt.Errorf("first belongs to star and gyges, not %s", h.Game)
		}
	} else if h.Game == "star" {
		return errors.New(`star needs "first": "red" or "white"`)
	}
	if _, ok := present["n"]; ok {
		if h.Game != "star" {
			return fmt.Errorf("n belongs to star, not %s", h.Game)
		}
		if h.N < 3 {
			return fmt.Errorf("n = %d: want at least 3", h.N)
		}
	}
	if _, ok := present["players"]; ok {
		if h.Game != "six" {
			return fmt.Errorf("players belongs to six, not %s", h.Game)
		}
		if h.Players != 2 && h.Players != 4 {
			return fmt.Errorf("players = %d: want 2 or 4", h.Players)
		}
	}
	if _, ok := present["board"]; ok && h.Board == "" {
		return errors.New("board: empty name")
	}
	if raw, ok := present["start"]; ok {
		var strict engine.Position
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return fmt.Errorf("start: want an object with to_move and pieces")
		}
		if err := dec.Decode(&strict); err != nil {
			return fmt.Errorf("start: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		if h.Start.ToMove == "" || h.Start.Pieces == nil {
			return fmt.Errorf("start: to_move and pieces are required")
		}
	}
	return nil
}

// NewState sets up the game a header describes.
func NewState(h *Header) (engine.State, error) {
	cfg := engine.Config{Variant: h.Variant, First: h.First, N: h.N, Players: h.Players, Start: h.Start}
	if h.Board != "" {
		b, err := boards.Open(h.Board)
		if err != nil {
			return nil, err
		}
		if b.Game != h.Game {
			return nil, fmt.Errorf("board %s is for %s, not %s", h.Board, b.Game, h.Game)
		}
		cfg.Board = b
	}
	return engine.New(h.Game, cfg)
}

var headerFields = map[string]bool{"tabla": true, "game": true, "variant": true, "first": true, "n": true,
	"players": true, "board": true, "start": true, "meta": true,
	"names": true, "event": true, "round": true, "site": true, "date": true, "clock": true}

var eventFields = map[string]bool{"move": true, "roll": true, "by": true, "t": true, "source": true, "ms": true}

// MaxMS bounds a line's "ms": a turn of more than 100 days is no turn.
const MaxMS int64 = 100 * 24 * 3600 * 1000

// Next reads the next event. It returns false at the end or on an error.
func (r *Reader) Next() bool {
	if r.header == nil {
		if _, err := r.Header(); err != nil {
			return false
		}
	}
	if r.err != nil {
		return false
	}
	line, nl, ok := r.readLine()
	if !ok {
		return false
	}
	for r.damaged != nil && nl && len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
		err := &Error{File: r.file, Line: r.line, Offset: r.off, Kind: ErrSyntax, Msg: "not valid JSON: " + clip(line)}
		if !r.damaged(err, line) {
			break
		}
		if line, nl, ok = r.readLine(); !ok {
			return false
		}
	}
	if kind, ok := otherKind(line); ok && kind != "tabla" && (kind == "tick" || kind == "sensor" || !bytes.Contains(line, []byte(`"tabla"`))) {
		r.ev = Event{Line: r.line, Kind: kind, Raw: json.RawMessage(line)}
		return true
	}
	if move, by, ok := moveShape(line); ok {
		r.ev = Event{Line: r.line, Kind: "move", Move: move, By: by, Raw: json.RawMessage(line)}
		return true
	}
	keys, f, ok := r.object(line, nl)
	if !ok {
		return false
	}
	if _, again := f["tabla"]; again {
		var other struct {
			Game string `json:"game"`
		}
		json.Unmarshal(line, &other)
		what := "a record"
		if other.Game != "" {
			what = "a " + other.Game + " record"
		}
		r.fail(ErrSyntax, ErrSecondHeader, "a second header line (%s begins here, at byte %d): a record has one header, on line 1; move the lines from here into a file of their own", what, r.off)
		return false
	}
	r.ev = Event{Line: r.line, Raw: json.RawMessage(line)}
	_, isMove := f["move"]
	_, isRoll := f["roll"]
	if !isMove && !isRoll {
		if len(keys) == 0 {
			r.ev.Kind = ""
		} else {
			r.ev.Kind = keys[0]
		}
		return true
	}
	if isMove && isRoll {
		r.fail(ErrSyntax, nil, "a line holds a move or a roll, not both")
		return false
	}
	for _, k := range keys {
		if !eventFields[k] {
			r.fail(ErrSyntax, nil, "unknown field %q beside %s", k, map[bool]string{true: "move", false: "roll"}[isMove])
			return false
		}
	}
	if isMove {
		r.ev.Kind = "move"
		if err := json.Unmarshal(f["move"], &r.ev.Move); err != nil {
			r.fail(ErrSyntax, nil, "move: want a string, got %s", f["move"])
			return false
		}
	} else {
		r.ev.Kind = "roll"
		raw := f["roll"]
		numeric := r.die != nil && r.die.Numeric
		var s string
		var n int
		switch {
		case r.die == nil:
			r.fail(ErrEvent, nil, "%s has no dice", r.game)
			return false
		case numeric && json.Unmarshal(raw, &n) == nil && bytes.IndexAny(raw, ".eE") < 0:
			r.ev.Roll = strconv.Itoa(n)
		case !numeric && json.Unmarshal(raw, &s) == nil:
			r.ev.Roll = s
		case numeric:
			r.fail(ErrSyntax, nil, "roll: want a JSON integer 1–%d, got %s", len(r.die.Faces), raw)
			return false
		default:
			r.fail(ErrSyntax, nil, "roll: want a JSON string (%s), got %s", strings.Join(r.die.Faces, ", "), raw)
			return false
		}
	}
	if raw, ok := f["by"]; ok {
		if json.Unmarshal(raw, &r.ev.By) != nil {
			r.fail(ErrSyntax, nil, "by: want a string, got %s", raw)
			return false
		}
	}
	if raw, ok := f["t"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			r.fail(ErrSyntax, nil, "t: want an RFC 3339 time string, got %s", raw)
			return false
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			r.fail(ErrSyntax, nil, "t: %q is not an RFC 3339 time", s)
			return false
		}
		r.ev.T = t
	}
	if raw, ok := f["ms"]; ok {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n < 0 || n > MaxMS {
			r.fail(ErrSyntax, nil, "ms: want the turn's time in milliseconds, an integer 0 to %d, got %s", MaxMS, raw)
			return false
		}
		r.ev.MS, r.ev.Timed = n, true
	}
	if raw, ok := f["source"]; ok {
		if json.Unmarshal(raw, &r.ev.Source) != nil || !contains(Sources, r.ev.Source) {
			r.fail(ErrSyntax, nil, "source: want one of %s, got %s", strings.Join(Sources, ", "), raw)
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// otherKind is the fast way through the lines of other kinds, most of a
// journal: a line that is one valid JSON object, holds no escapes and no
// "move" or "roll" anywhere returns its first key without allocating for
// the kinds tabla writes. Any other line takes the full check (object).
func otherKind(line []byte) (string, bool) {
	if k := journalShape(line); k != "" {
		return k, true
	}
	if len(line) < 2 || line[0] != '{' || bytes.IndexByte(line, '\\') >= 0 ||
		bytes.Contains(line, []byte(`"move"`)) || bytes.Contains(line, []byte(`"roll"`)) || !json.Valid(line) {
		return "", false
	}
	rest := bytes.TrimLeft(line[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return "", len(rest) > 0 && rest[0] == '}' // {} has no kind
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return "", false
	}
	key := rest[1 : 1+end]
	for _, k := range knownKinds {
		if string(key) == k {
			return k, true
		}
	}
	return string(key), true
}

// journalShape recognises, without the JSON scanner, the two lines that
// make most of a journal exactly as the companion writes them:
// {"tick":N} and {"sensor":"NAME","code":N,"at":N} (NAME printable ASCII
// without quotes or backslashes). Such a line is valid JSON by its shape;
// anything else returns "" and is checked in full.
func journalShape(line []byte) string {
	if rest, ok := bytes.CutPrefix(line, []byte(`{"tick":`)); ok {
		if digits(bytes.TrimSuffix(rest, []byte("}"))) && bytes.HasSuffix(rest, []byte("}")) {
			return "tick"
		}
		return ""
	}
	rest, ok := bytes.CutPrefix(line, []byte(`{"sensor":"`))
	if !ok {
		return ""
	}
	i := 0
	for i < len(rest) && rest[i] >= 0x20 && rest[i] < 0x7f && rest[i] != '"' && rest[i] != '\\' {
		i++
	}
	if rest, ok = bytes.CutPrefix(rest[i:], []byte(`","code":`)); !ok {
		return ""
	}
	j := bytes.IndexByte(rest, ',')
	if j < 0 || !digits(rest[:j]) {
		return ""
	}
	if rest, ok = bytes.CutPrefix(rest[j:], []byte(`,"at":`)); !ok || !bytes.HasSuffix(rest, []byte("}")) || !digits(rest[:len(rest)-1]) {
		return ""
	}
	return "sensor"
}

// moveShape recognises, without the JSON scanner, the plainest move line:
// {"move":"TEXT"} or {"move":"TEXT","by":"SEAT"}, TEXT and SEAT printable
// ASCII without quotes or backslashes (valid JSON by its shape), the lines
// a long record is made of. Anything else takes the full check.
func moveShape(line []byte) (move, by string, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"move":"`))
	if !ok {
		return "", "", false
	}
	i := plain(rest)
	if i == 0 || i == len(rest) {
		return "", "", false
	}
	move, rest = string(rest[:i]), rest[i:]
	if string(rest) == `"}` {
		return move, "", true
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`","by":"`)); !ok {
		return "", "", false
	}
	if i = plain(rest); i == 0 || string(rest[i:]) != `"}` {
		return "", "", false
	}
	return move, string(rest[:i]), true
}

// plain is the length of b's prefix of printable ASCII without quotes or
// backslashes.
func plain(b []byte) int {
	i := 0
	for i < len(b) && b[i] >= 0x20 && b[i] < 0x7f && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// digits: one or more decimal digits, no leading zero unless alone (a JSON
// number).
func digits(b []byte) bool {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// knownKinds are the other kinds the companion writes (see its journal).
var knownKinds = []string{"tick", "sensor", "snapshot", "die", "press", "conn", "fault", "command",
	"takeback", "undone", "resume", "end"}

// Event returns the event Next read.
func (r *Reader) Event() *Event { return &r.ev }

// Err returns the first error, nil at a clean end of the record.
func (r *Reader) Err() error { return r.err }

// Line returns the number of lines read so far.
func (r *Reader) Line() int { return r.line }

// Offset returns the byte offset of the start of the line read last (of
// the line an error names, after an error).
func (r *Reader) Offset() int64 { return r.off }
