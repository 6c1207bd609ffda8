package referee

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/tabla-board/tabla/engine"
)

// physical returns the steps a person makes for move m in st: lifts of the
// cells the move empties or changes (the moving piece first), then places
// of what the move puts down (its destination first). A GYGES replace always
// lifts and re-places the landing cell, whatever the heights.
func (tb *table) physical(st engine.State, m engine.Move) ([]string, bool) {
	before := st.Position().Pieces
	text := engine.MoveString(st, m)
	c := st.Clone()
	c.Play(m)
	after := c.Position().Pieces
	n := tb.r.parse(text, -1)
	name := func(i int) string {
		if i < 0 {
			return ""
		}
		return tb.b.Cells[i].Name
	}
	from, to := name(n.from), name(n.to)
	var lifts, places []string
	for cell, p := range before {
		if after[cell] != p {
			lifts = append(lifts, cell)
		}
	}
	for cell, p := range after {
		if before[cell] != p {
			places = append(places, cell)
		}
	}
	if n.extra >= 0 {
		for _, x := range []string{from, to} {
			if !slices.Contains(lifts, x) {
				lifts = append(lifts, x)
			}
		}
		for _, x := range []string{to, name(n.extra)} {
			if !slices.Contains(places, x) {
				places = append(places, x)
			}
		}
	}
	for _, cell := range append(slices.Clone(lifts), places...) {
		if _, ok := tb.b.Index(cell); !ok {
			return nil, false // off the physical board
		}
	}
	sort.Strings(lifts)
	sort.Strings(places)
	first := func(list []string, x string) {
		if i := slices.Index(list, x); i > 0 {
			copy(list[1:i+1], list[:i])
			list[0] = x
		}
	}
	if from == "" && (tb.r.info.Game == "daha" || tb.r.info.Game == "ray") {
		for cell, p := range before {
			if p == st.Info().Seats[st.ToMove()] {
				from = cell
			}
		}
	}
	first(lifts, from)
	first(places, to)
	var steps []string
	for _, l := range lifts {
		steps = append(steps, "lift "+l)
	}
	for _, p := range places {
		steps = append(steps, "place "+p+" "+after[p])
	}
	return steps, true
}

func TestRandomGamesPhysically(t *testing.T) {
	for _, tc := range []struct {
		game string
		cfg  engine.Config
	}{
		{"star", engine.Config{First: "red"}},
		{"ray", engine.Config{}},
		{"daha", engine.Config{}},
		{"gyges", engine.Config{}},
		{"gyges", engine.Config{Variant: "advanced", First: "north"}},
		{"six", engine.Config{}},
		{"six", engine.Config{Variant: "advanced"}},
	} {
		for _, ident := range []bool{true, false} {
			name := fmt.Sprintf("%s-%s-ident=%v", tc.game, tc.cfg.Variant, ident)
			t.Run(name, func(t *testing.T) {
				for seed := uint64(1); seed <= 3; seed++ {
					playRandom(t, tc.game, tc.cfg, ident, seed, 90)
				}
			})
		}
	}
}

func playRandom(t *testing.T, game string, cfg engine.Config, ident bool, seed uint64, plies int) {
	t.Helper()
	tb := newTable(t, game, cfg, ident, seed)
	rng := rand.New(rand.NewPCG(seed, 99))
	shadow, _ := engine.New(game, engine.Config{Variant: cfg.Variant, First: cfg.First, Board: tb.b})
	buf := make([]engine.Move, 0, 4096)
	for ply := 0; ply < plies && shadow.Awaiting() != engine.AwaitNone; ply++ {
		if shadow.Awaiting() == engine.AwaitRoll {
			f := rng.IntN(len(shadow.Info().Die.Faces))
			shadow.Roll(f)
			tb.do("roll " + shadow.Info().Die.Faces[f])
			if ms := shadow.Moves(buf[:0]); len(ms) == 1 && engine.MoveString(shadow, ms[0]) == "pass" {
				shadow.Play(ms[0]) // the referee plays a forced pass itself
			}
			fixEliminated(tb, shadow)
			if tb.r.Game().Hash() != shadow.Hash() {
				t.Fatalf("seed %d ply %d: after roll the referee's game differs (%s)", seed, ply, tb.log())
			}
			continue
		}
		moves := shadow.Moves(buf[:0])
		var m engine.Move
		var steps []string
		for try := 0; try < 20; try++ {
			m = moves[rng.IntN(len(moves))]
			var ok bool
			if steps, ok = tb.physical(shadow, m); ok {
				break
			}
			steps = nil
		}
		if steps == nil && engine.MoveString(shadow, m) != "pass" {
			return // the game wandered off the physical board
		}
		text := engine.MoveString(shadow, m)
		if debugPly == ply {
			fmt.Println("before", shadow.Position().Pieces, "sensed", tb.r.State().Sensed, "cur", tb.r.State().Expected)
		}
		shadow.Play(m)
		if debugPly == ply {
			for _, s := range steps {
				tb.do(s)
				st := tb.r.State()
				fmt.Println(s, st.Mode, st.InSync, st.Pending, st.Candidates, tb.log()[max(0, len(tb.log())-80):], ledSummary(st))
			}
		} else {
			tb.do(steps...)
		}
		if st := tb.r.State(); st.Mode == "confirm" {
			i := slices.Index(st.Candidates, text)
			if i < 0 {
				t.Fatalf("seed %d ply %d: %s: confirm offers %v (steps %v)", seed, ply, text, st.Candidates, steps)
			}
			for k := 0; k < i; k++ {
				tb.do("press takeback")
			}
			tb.do("press confirm")
		}
		if tb.r.Game().Hash() != shadow.Hash() {
			st := tb.r.State()
			t.Fatalf("seed %d ply %d: %s by steps %v: referee did not follow: mode %s in_sync %v moves %v pending %v cands %v", seed, ply, text, steps, st.Mode, st.InSync, st.Moves, st.Pending, st.Candidates)
		}
		if st := tb.r.State(); !st.InSync {
			t.Fatalf("seed %d ply %d: %s: out of sync after the move: %v", seed, ply, text, st.Pending)
		}
	}
}

var debugPly = -1

// fixEliminated takes an eliminated DAHA piece off the board.
func fixEliminated(tb *table, st engine.State) {
	want := st.Position().Pieces
	for c, p := range tb.pieces {
		name := tb.b.Cells[c].Name
		if want[name] != p {
			tb.expect("in_sync=false", "mode=correct")
			tb.do("remove " + name)
			tb.expect("in_sync=true")
		}
	}
}

// The quick board changes of moves that only carry pieces equal the ones
// read off the engine's position after playing them, for every legal move
// of random games of every game and variant.
func TestRelocationDiff(t *testing.T) {
	for _, tc := range []struct {
		game string
		cfg  engine.Config
	}{
		{"star", engine.Config{}}, {"ray", engine.Config{}}, {"daha", engine.Config{}},
		{"gyges", engine.Config{}}, {"gyges", engine.Config{Variant: "advanced"}},
		{"six", engine.Config{Variant: "advanced"}},
	} {
		checked := 0
		for seed := uint64(1); seed <= 6; seed++ {
			tb := newTable(t, tc.game, tc.cfg, true, seed)
			r := tb.r
			rng := rand.New(rand.NewPCG(seed, 3))
			for ply := 0; ply < 120 && r.st.Awaiting() != engine.AwaitNone; ply++ {
				if r.st.Awaiting() == engine.AwaitRoll {
					if err := r.roll(rng.IntN(len(r.info.Die.Faces)), true, "test"); err != nil {
						t.Fatal(err)
					}
					continue
				}
				c := r.ensure()
				if len(c.moves) == 0 {
					break
				}
				for i, n := range c.notes {
					quick, ok := r.relocation(n)
					if !ok {
						continue
					}
					checked++
					if slow := r.playedDiff(c.moves[i]); !slices.Equal(quick, slow) && !(len(quick) == 0 && len(slow) == 0) {
						t.Fatalf("%s %s: %s: quick %v, played %v", tc.game, tc.cfg.Variant, c.texts[i], quick, slow)
					}
				}
				r.apply(c, rng.IntN(len(c.moves)), 0, "test")
			}
		}
		if checked == 0 && tc.game != "six" {
			t.Errorf("%s: no move checked", tc.game)
		}
	}
}
