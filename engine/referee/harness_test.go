package referee

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine"
	_ "github.com/tabla-board/tabla/engine/daha"
	_ "github.com/tabla-board/tabla/engine/gyges"
	_ "github.com/tabla-board/tabla/engine/ray"
	_ "github.com/tabla-board/tabla/engine/six"
	_ "github.com/tabla-board/tabla/engine/star"
)

// table is a virtual board driven by plain steps, feeding a referee.
type table struct {
	t        *testing.T
	r        *Referee
	b        *boards.Board
	ident    bool
	pieces   map[int]string // cell → piece kind
	hand     []string
	now      time.Duration
	actions  []Action
	sensorOf map[int]int
}

func newTable(t *testing.T, game string, cfg engine.Config, ident bool, seed uint64) *table {
	t.Helper()
	b := boards.Default(game)
	cfg.Board = b
	st, err := engine.New(game, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	r, err := New(st, Config{Board: b, Rand: rng.IntN, NewGame: func() (engine.State, error) { return engine.New(game, cfg) }})
	if err != nil {
		t.Fatal(err)
	}
	tb := &table{t: t, r: r, b: b, ident: ident, pieces: map[int]string{}, sensorOf: map[int]int{}}
	for s, c := range b.Sensors {
		tb.sensorOf[c] = s
	}
	for name, p := range st.Position().Pieces {
		tb.pieces[b.MustIndex(name)] = p
	}
	tb.send(Input{Kind: SensorSnapshot, Codes: tb.codes()})
	return tb
}

func (tb *table) code(c int) byte {
	p, ok := tb.pieces[c]
	if !ok {
		return CodeEmpty
	}
	if tb.ident {
		if code, ok := tb.b.CodeOf(p); ok {
			return code
		}
	}
	return CodeOccupied
}

func (tb *table) codes() []byte {
	out := make([]byte, len(tb.b.Sensors))
	for s, c := range tb.b.Sensors {
		out[s] = tb.code(c)
	}
	return out
}

func (tb *table) send(ev Input) {
	ev.At = tb.now
	tb.r.Handle(ev)
	tb.actions = append(tb.actions, tb.r.Actions()...)
}

func (tb *table) change(c int) {
	tb.send(Input{Kind: SensorChange, Sensor: tb.sensorOf[c], Code: tb.code(c)})
}

func (tb *table) cell(name string) int {
	c, ok := tb.b.Index(name)
	if !ok {
		tb.t.Fatalf("no cell %s", name)
	}
	return c
}

// do runs steps: "lift c1", "place c3", "place c3 2" (from outside),
// "remove c3", "roll 4", "press roll", "wait 500", "unplug", "replug",
// "bounce c3 3". Every step but wait takes 200 ms.
func (tb *table) do(steps ...string) {
	tb.t.Helper()
	for _, s := range steps {
		w := strings.Fields(s)
		switch w[0] {
		case "lift", "remove":
			c := tb.cell(w[1])
			p, ok := tb.pieces[c]
			if !ok {
				tb.t.Fatalf("%s: %s is empty", s, w[1])
			}
			delete(tb.pieces, c)
			if w[0] == "lift" {
				tb.hand = append(tb.hand, p)
			}
			tb.change(c)
		case "place":
			c := tb.cell(w[1])
			var p string
			if len(w) > 2 {
				p = w[2]
			} else {
				if len(tb.hand) == 0 {
					tb.t.Fatalf("%s: nothing in hand", s)
				}
				p = tb.hand[len(tb.hand)-1]
				tb.hand = tb.hand[:len(tb.hand)-1]
			}
			tb.pieces[c] = p
			tb.change(c)
		case "roll":
			tb.send(Input{Kind: DieRoll, Face: w[1]})
		case "press":
			b, err := ParseButton(w[1])
			if err != nil {
				tb.t.Fatal(err)
			}
			tb.send(Input{Kind: ButtonPress, Button: b})
		case "wait":
			ms, _ := strconv.Atoi(w[1])
			tb.now += time.Duration(ms) * time.Millisecond
			tb.tick()
			continue
		case "unplug":
			tb.send(Input{Kind: LinkStatus, Link: Disconnected})
		case "replug":
			tb.send(Input{Kind: LinkStatus, Link: Connected})
			tb.send(Input{Kind: SensorSnapshot, Codes: tb.codes()})
		case "offline": // the cable is out: the board changes unseen
			c := tb.cell(w[2])
			if w[1] == "lift" {
				tb.hand = append(tb.hand, tb.pieces[c])
				delete(tb.pieces, c)
			} else {
				tb.pieces[c] = tb.hand[len(tb.hand)-1]
				tb.hand = tb.hand[:len(tb.hand)-1]
			}
		case "bounce":
			c := tb.cell(w[1])
			n, _ := strconv.Atoi(w[2])
			code := tb.code(c)
			for i := 0; i < n; i++ {
				tb.now += 3 * time.Millisecond
				off := byte(CodeEmpty)
				if code == CodeEmpty {
					off = CodeOccupied
				}
				tb.send(Input{Kind: SensorChange, Sensor: tb.sensorOf[c], Code: off})
				tb.now += 3 * time.Millisecond
				tb.send(Input{Kind: SensorChange, Sensor: tb.sensorOf[c], Code: code})
			}
		default:
			tb.t.Fatalf("bad step %q", s)
		}
		tb.now += 200 * time.Millisecond
		tb.tick()
	}
}

func (tb *table) tick() {
	tb.r.Tick(tb.now)
	tb.actions = append(tb.actions, tb.r.Actions()...)
}

// expect checks keys given as "key=json" pairs.
func (tb *table) expect(pairs ...string) {
	tb.t.Helper()
	st := tb.r.State()
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		if !json.Valid([]byte(v)) {
			v = strconv.Quote(v)
		}
		if err := st.Check(k, json.RawMessage(v)); err != nil {
			tb.t.Fatalf("%v\nstate: mode %s moves %v pending %v leds %v msg %q cands %v", err, st.Mode, st.Moves, st.Pending, ledSummary(st), st.Message, st.Candidates)
		}
	}
}

func ledSummary(st State) string {
	var b strings.Builder
	for _, c := range st.Lit() {
		fmt.Fprintf(&b, "%s:%s ", c, st.LEDs[c].Role)
	}
	return b.String()
}

// moves returns the journal of decisions as text.
func (tb *table) log() string {
	var out []string
	for _, a := range tb.actions {
		switch a.Kind {
		case Moved:
			out = append(out, a.Seat+":"+a.Move)
		case Rolled:
			out = append(out, "roll:"+a.Face)
		case TookBack:
			out = append(out, fmt.Sprintf("takeback:%d", a.Plies))
		case NewGame:
			out = append(out, "new")
		}
	}
	return strings.Join(out, " ")
}
