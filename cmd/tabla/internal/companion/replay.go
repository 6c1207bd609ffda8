package companion

import (
	"bufio"
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

type replayLine struct {
	ev  record.Event
	obj map[string]json.RawMessage
}

// Replay re-runs the referee over the board events of a journal read from
// r, and collects both lists of decisions.
func Replay(r io.Reader, name string) (*ReplayResult, error) {
	rd := record.NewReader(bufio.NewReader(r), name)
	h, err := rd.Header()
	if err != nil {
		return nil, err
	}
	meta, err := metaOf(h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var lines []replayLine
	for rd.Next() {
		ev := *rd.Event()
		var obj map[string]json.RawMessage
		json.Unmarshal(ev.Raw, &obj)
		lines = append(lines, replayLine{ev: ev, obj: obj})
	}
	if err := rd.Err(); err != nil && !record.IsTorn(err) {
		return nil, err
	}
	b, err := boards.Open(meta.Board)
	if err != nil {
		return nil, err
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
		line       int // index into lines
		kind       string
		seat, what string
		plies      int
	}
	var wants []want
	for li, l := range lines {
		ev, obj := l.ev, l.obj
		if raw, ok := obj["undone"]; ok {
			var u record.Event
			inner := map[string]json.RawMessage{}
			json.Unmarshal(raw, &inner)
			u.Kind = "move"
			if _, isRoll := inner["roll"]; isRoll {
				u.Kind = "roll"
			}
			decodeDecision(&u, inner)
			ev = u
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
			res.Want = append(res.Want, "takeback "+string(obj["takeback"]))
			n, _ := strconv.Atoi(string(obj["takeback"]))
			wants = append(wants, want{line: li, kind: "takeback", plies: n})
		case "end":
			res.Want = append(res.Want, "new")
			wants = append(wants, want{line: li, kind: "new"})
		}
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
		Rand: rnd, NewGame: newState, Source: meta.Source}
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
	for li, l := range lines {
		obj := l.obj
		at := func() time.Duration {
			var n int64
			json.Unmarshal(obj["at"], &n)
			return time.Duration(n) * time.Millisecond
		}
		str := func(k string) string {
			var s string
			json.Unmarshal(obj[k], &s)
			return s
		}
		var ev hardware.Event
		switch l.ev.Kind {
		case "sensor":
			name := str("sensor")
			s, ok := sensorOf[name]
			if strings.HasPrefix(name, "#") {
				s, _ = strconv.Atoi(name[1:])
				ok = true
			}
			if !ok {
				return nil, fmt.Errorf("%s:%d: no sensor under %q", name, l.ev.Line, name)
			}
			var code int
			json.Unmarshal(obj["code"], &code)
			ev = hardware.Event{Kind: hardware.Change, Sensor: s, Code: byte(code)}
		case "snapshot":
			codes, err := hex.DecodeString(str("snapshot"))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: snapshot: %v", name, l.ev.Line, err)
			}
			ev = hardware.Event{Kind: hardware.Snapshot, Codes: codes}
		case "die":
			ev = hardware.Event{Kind: hardware.Roll, Face: str("die")}
		case "press":
			bt, err := hardware.ParseButton(str("press"))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, l.ev.Line, err)
			}
			ev = hardware.Event{Kind: hardware.Press, Button: bt}
		case "conn":
			c := hardware.Connected
			switch str("conn") {
			case "disconnected":
				c = hardware.Disconnected
			case "reconnecting":
				c = hardware.Reconnecting
			}
			ev = hardware.Event{Kind: hardware.Status, Conn: c}
		case "fault":
			ev = hardware.Event{Kind: hardware.Fault, Err: fmt.Errorf("%s", str("fault"))}
		case "tick":
			var n int64
			json.Unmarshal(obj["tick"], &n)
			ref.Tick(time.Duration(n) * time.Millisecond)
			collect()
			continue
		case "command":
			runCommand(ref, str("command"), str("arg"), at())
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
		default:
			continue
		}
		ev.At = at()
		res.Events++
		ref.Handle(refInput(ev))
		collect()
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
