package companion

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/record"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// ReplayResult compares the decisions a journal holds with those the
// referee takes again from the journal's board events.
type ReplayResult struct {
	Want, Got []string // "move red a28", "roll red S", "takeback 1", "new"
	Events    int      // board events replayed
}

// Match reports whether the referee decided the same.
func (r *ReplayResult) Match() bool {
	if len(r.Want) != len(r.Got) {
		return false
	}
	for i := range r.Want {
		if r.Want[i] != r.Got[i] {
			return false
		}
	}
	return true
}

// Diff describes the first difference and the context around it.
func (r *ReplayResult) Diff() string {
	var b strings.Builder
	i := 0
	for i < len(r.Want) && i < len(r.Got) && r.Want[i] == r.Got[i] {
		i++
	}
	fmt.Fprintf(&b, "decision %d differs:\n", i+1)
	for k := max(0, i-3); k < max(len(r.Want), len(r.Got)) && k < i+5; k++ {
		w, g := "", ""
		if k < len(r.Want) {
			w = r.Want[k]
		}
		if k < len(r.Got) {
			g = r.Got[k]
		}
		mark := " "
		if w != g {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %3d  journal: %-24s replay: %s\n", mark, k+1, w, g)
	}
	return b.String()
}

// ReplayFile re-runs the referee over a journal's board events.
func ReplayFile(path string) (*ReplayResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Replay(f, path)
}

// boardLine holds the fields of a journal's other lines that replay reads.
type boardLine struct {
	Sensor   string          `json:"sensor"`
	Code     int             `json:"code"`
	Snapshot string          `json:"snapshot"`
	Die      string          `json:"die"`
	Press    string          `json:"press"`
	Conn     string          `json:"conn"`
	Fault    string          `json:"fault"`
	Command  string          `json:"command"`
	Arg      string          `json:"arg"`
	At       int64           `json:"at"`
	Tick     int64           `json:"tick"`
	Takeback json.RawMessage `json:"takeback"`
	Undone   json.RawMessage `json:"undone"`
}

// parseTick reads {"tick":N}, the commonest line of a journal, without
// the JSON decoder.
func parseTick(raw []byte) (int64, bool) {
	s, ok := bytes.CutPrefix(raw, []byte(`{"tick":`))
	if !ok {
		return 0, false
	}
	s, ok = bytes.CutSuffix(s, []byte("}"))
	if !ok {
		return 0, false
	}
	return digits(s)
}

// parseSensor reads {"sensor":"CELL","code":N,"at":N}, the journal's
// other common line, as Journal.Event writes it, without the JSON decoder.
// The cell name it returns aliases raw.
func parseSensor(raw []byte) (cell []byte, code int, at int64, ok bool) {
	s, ok := bytes.CutPrefix(raw, []byte(`{"sensor":"`))
	if !ok {
		return nil, 0, 0, false
	}
	i := bytes.IndexByte(s, '"')
	if i < 0 {
		return nil, 0, 0, false
	}
	cell, s = s[:i], s[i+1:]
	if s, ok = bytes.CutPrefix(s, []byte(`,"code":`)); !ok {
		return nil, 0, 0, false
	}
	i = bytes.IndexByte(s, ',')
	if i < 0 {
		return nil, 0, 0, false
	}
	c, ok := digits(s[:i])
	if !ok || c > 255 {
		return nil, 0, 0, false
	}
	if s, ok = bytes.CutPrefix(s[i:], []byte(`,"at":`)); !ok {
		return nil, 0, 0, false
	}
	s, ok = bytes.CutSuffix(s, []byte("}"))
	if !ok {
		return nil, 0, 0, false
	}
	at, ok = digits(s)
	return cell, int(c), at, ok
}

// digits reads a non-negative decimal integer of at most 18 digits.
func digits(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// seekable returns r if it can be read twice, else a temporary file holding
// what r holds (standard input); done removes it.
func seekable(r io.Reader) (io.ReadSeeker, func(), error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		if _, err := rs.Seek(0, io.SeekCurrent); err == nil {
			return rs, func() {}, nil
		}
	}
	tmp, err := os.CreateTemp("", "tabla-replay-*.jsonl")
	if err != nil {
		return nil, nil, err
	}
	done := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, r); err != nil {
		done()
		return nil, nil, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		done()
		return nil, nil, err
	}
	return tmp, done, nil
}

// Replay re-runs the referee over the board events of a journal read from
// r, and collects both lists of decisions. It reads the journal twice, line
// by line (a first pass for the journal's decisions and tabla's rolls, a
// second one through the referee), so its memory does not grow with the
// board events; r that cannot seek (standard input) is copied to a
// temporary file first. It compares at most record.MaxApplied decisions:
// a longer journal is refused naming the line of the first beyond.
func Replay(r io.Reader, name string) (*ReplayResult, error) {
	return ReplayContext(context.Background(), r, name)
}

// ReplayContext is Replay that stops with ctx's error when ctx ends.
func ReplayContext(ctx context.Context, r io.Reader, name string) (*ReplayResult, error) {
	in, done, err := seekable(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer done()
	start, err := in.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rd := record.NewReader(in, name)
	h, err := rd.Header()
	if err != nil {
		return nil, err
	}
	meta, err := metaOf(h)
	if err != nil {
		return nil, fmt.Errorf("%s:1: line 1: %w: replay re-runs the board events of a journal (tabla run, or tabla sim --journal); a game record is checked with tabla rules check", name, err)
	}
	if meta.Board == "" {
		return nil, fmt.Errorf(`%s:1: line 1: the header does not say which board the game was played on: add "board":"NAME" to its meta.companion (the builtin %s board is "%s"; or the board file the table used)`,
			name, h.Game, h.Game)
	}
	b, err := boards.Open(meta.Board)
	if err != nil {
		return nil, fmt.Errorf("%s:1: line 1: the header's meta.companion board: %w", name, err)
	}
	newState := func() (engine.State, error) { hh := *h; return record.NewState(&hh) }
	st, err := newState()
	if err != nil {
		return nil, err
	}
	info := st.Info()
	res := &ReplayResult{}
	// tabla's own rolls come back in journal order
	var tablaRolls []string
	type want struct {
		line       int // index of the event
		kind       string
		seat, what string
		plies      int
	}
	var wants []want
	for li := 0; rd.Next(); li++ {
		if li&4095 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: replay stopped at line %d (%v)", name, rd.Line(), context.Cause(ctx))
		}
		ev := *rd.Event()
		switch ev.Kind {
		case "move", "roll", "takeback", "end", "undone":
		default:
			continue
		}
		var l boardLine
		json.Unmarshal(ev.Raw, &l)
		if ev.Kind == "undone" {
			var u record.Event
			inner := map[string]json.RawMessage{}
			json.Unmarshal(l.Undone, &inner)
			u.Kind = "move"
			if _, isRoll := inner["roll"]; isRoll {
				u.Kind = "roll"
			}
			decodeDecision(&u, inner)
			ev = u
		}
		if len(wants) >= record.MaxApplied {
			return nil, fmt.Errorf("%s:%d: line %d: %w: more than %d decisions (moves, rolls, takebacks, new games); replay keeps every one to compare them and reads at most record.MaxApplied of them (tabla rules check reads a journal of any length)",
				name, rd.Line(), rd.Line(), record.ErrTooMany, record.MaxApplied)
		}
		switch ev.Kind {
		case "move":
			res.Want = append(res.Want, decisionText("move", ev.By, ev.Move))
			wants = append(wants, want{line: li, kind: "move", seat: ev.By, what: ev.Move})
		case "roll":
			res.Want = append(res.Want, decisionText("roll", ev.By, ev.Roll))
			wants = append(wants, want{line: li, kind: "roll", seat: ev.By, what: ev.Roll})
			if ev.Source == "engine" {
				tablaRolls = append(tablaRolls, ev.Roll)
			}
		case "takeback":
			res.Want = append(res.Want, "takeback "+string(l.Takeback))
			n, _ := strconv.Atoi(string(l.Takeback))
			wants = append(wants, want{line: li, kind: "takeback", plies: n})
		case "end":
			if bytes.HasPrefix(ev.Raw, []byte(`{"end":"time"`)) {
				continue // a flag fell: the clocks' decision, not the referee's
			}
			res.Want = append(res.Want, "new")
			wants = append(wants, want{line: li, kind: "new"})
		}
	}
	if err := rd.Err(); err != nil && !record.IsTorn(err) {
		return nil, err
	}
	if _, err := in.Seek(start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	rd = record.NewReader(in, name)
	if _, err := rd.Header(); err != nil {
		return nil, err
	}
	// journalled rebuilds the game the daemon resumed from: the journal's
	// decisions before line li, in order.
	journalled := func(li int) (engine.State, []referee.Applied, error) {
		st, err := newState()
		if err != nil {
			return nil, nil, err
		}
		var ops []referee.Applied
		for _, w := range wants {
			if w.line >= li {
				break
			}
			switch w.kind {
			case "move":
				m, err := st.ParseMove(w.what)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: journal move %s: %w", name, w.what, err)
				}
				st.Play(m)
				ops = append(ops, referee.Applied{Move: m, Text: w.what, Seat: info.SeatIndex(w.seat)})
			case "roll":
				face := slices.Index(info.Die.Faces, w.what)
				if face < 0 || st.Roll(face) != nil {
					return nil, nil, fmt.Errorf("%s: journal roll %s is not a face", name, w.what)
				}
				ops = append(ops, referee.Applied{Roll: true, Face: face, Text: w.what, Seat: info.SeatIndex(w.seat)})
			case "takeback":
				for moves := 0; moves < w.plies && len(ops) > 0; {
					if !ops[len(ops)-1].Roll {
						moves++
					}
					ops = ops[:len(ops)-1]
					st.Undo()
				}
			}
		}
		return st, ops, nil
	}
	rnd := func(n int) int {
		if len(tablaRolls) == 0 {
			return 0
		}
		face := tablaRolls[0]
		tablaRolls = tablaRolls[1:]
		for i, f := range info.Die.Faces {
			if f == face {
				return i
			}
		}
		return 0
	}
	cfg := referee.Config{Board: b, Settle: time.Duration(meta.SettleMs) * time.Millisecond, TakebackDepth: meta.Takeback,
		Rand: rnd, NewGame: newState, Source: meta.Source, NoFrame: true}
	ref, err := referee.New(st, cfg)
	if err != nil {
		return nil, err
	}
	sensorOf := map[string]int{}
	for s, c := range b.Sensors {
		if c >= 0 {
			sensorOf[b.Cells[c].Name] = s
		}
	}
	collect := func() {
		for _, a := range ref.Actions() {
			switch a.Kind {
			case referee.Moved:
				res.Got = append(res.Got, decisionText("move", a.Seat, a.Move))
			case referee.Rolled:
				res.Got = append(res.Got, decisionText("roll", a.Seat, a.Face))
			case referee.TookBack:
				res.Got = append(res.Got, "takeback "+strconv.Itoa(a.Plies))
			case referee.NewGame:
				res.Got = append(res.Got, "new")
			}
		}
	}
	// one line's fields, reused: json.Unmarshal makes it escape, and a
	// fresh one per line was an allocation per board event
	var l boardLine
	for li := 0; rd.Next(); li++ {
		if li&4095 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: replay stopped at line %d (%v)", name, rd.Line(), context.Cause(ctx))
		}
		rev := rd.Event()
		l = boardLine{}
		var cellName []byte
		switch rev.Kind {
		case "sensor":
			var code int
			var ok bool
			if cellName, code, l.At, ok = parseSensor(rev.Raw); ok {
				l.Code = code
			} else {
				json.Unmarshal(rev.Raw, &l)
				cellName = []byte(l.Sensor)
			}
		case "snapshot", "die", "press", "conn", "fault", "command":
			json.Unmarshal(rev.Raw, &l)
		case "tick":
			n, ok := parseTick(rev.Raw)
			if !ok {
				json.Unmarshal(rev.Raw, &l)
				n = l.Tick
			}
			ref.Tick(time.Duration(n) * time.Millisecond)
			collect()
			continue
		case "resume":
		default:
			continue
		}
		at := time.Duration(l.At) * time.Millisecond
		var ev hardware.Event
		switch rev.Kind {
		case "sensor":
			s, ok := sensorOf[string(cellName)]
			if bytes.HasPrefix(cellName, []byte("#")) {
				s, _ = strconv.Atoi(string(cellName[1:]))
				ok = true
			}
			if !ok {
				return nil, fmt.Errorf("%s:%d: no sensor under %q", name, rev.Line, cellName)
			}
			ev = hardware.Event{Kind: hardware.Change, Sensor: s, Code: byte(l.Code)}
		case "snapshot":
			codes, err := hex.DecodeString(l.Snapshot)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: snapshot: %v", name, rev.Line, err)
			}
			ev = hardware.Event{Kind: hardware.Snapshot, Codes: codes}
		case "die":
			ev = hardware.Event{Kind: hardware.Roll, Face: l.Die}
		case "press":
			bt, err := hardware.ParseButton(l.Press)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, rev.Line, err)
			}
			ev = hardware.Event{Kind: hardware.Press, Button: bt}
		case "conn":
			c := hardware.Connected
			switch l.Conn {
			case "disconnected":
				c = hardware.Disconnected
			case "reconnecting":
				c = hardware.Reconnecting
			}
			ev = hardware.Event{Kind: hardware.Status, Conn: c}
		case "fault":
			ev = hardware.Event{Kind: hardware.Fault, Err: fmt.Errorf("%s", l.Fault)}
		case "command":
			runCommand(ref, l.Command, l.Arg, at)
			collect()
			continue
		case "resume":
			// The daemon started again from what its journal held: decisions
			// it took but had not journalled when it died are not compared,
			// and the replay goes on from the journal's game.
			k := 0
			for _, w := range wants {
				if w.line < li {
					k++
				}
			}
			if len(res.Got) > k {
				res.Got = res.Got[:k]
			}
			st, ops, err := journalled(li)
			if err != nil {
				return nil, err
			}
			fresh, err := newState()
			if err != nil {
				return nil, err
			}
			next, err := referee.New(fresh, cfg)
			if err != nil {
				return nil, err
			}
			next.Resume(st, ops)
			ref = next
			continue
		}
		ev.At = at
		res.Events++
		ref.Handle(refInput(ev))
		collect()
	}
	if err := rd.Err(); err != nil && !record.IsTorn(err) {
		return nil, err
	}
	return res, nil
}

func decodeDecision(ev *record.Event, obj map[string]json.RawMessage) {
	json.Unmarshal(obj["move"], &ev.Move)
	json.Unmarshal(obj["by"], &ev.By)
	json.Unmarshal(obj["source"], &ev.Source)
	if raw, ok := obj["roll"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			ev.Roll = s
		} else {
			ev.Roll = strings.TrimSpace(string(raw))
		}
	}
}
