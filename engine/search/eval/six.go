package eval

import (
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/six"
)

const (
	sixBits = 7
	sixSide = 1 << sixBits
)

// Six evaluates six positions by partial shapes. It keeps its own board (a
// 128×128 window of the plane), read from Position at Reset and updated from
// the moves; under the advanced rule it takes off after each movement the
// hexagons the engine says the move removed (six.State.LastRemoved).
//
// Undone restores exactly what Played changed, the order of tiles and the
// window's offset included: every undo entry holds window indices of the
// offset in force when its move was played, and a placement is undone by
// dropping the last tile.
type Six struct {
	cell       [sixSide * sixSide]int8  // 0 empty, colour+1
	tiles      []int32                  // window indices of all hexagons
	slot       [sixSide * sixSide]uint8 // a hexagon's cell → its index in tiles
	offQ, offR int
	advanced   bool
	sideOf     []int // the game's Info().SideOf, read at Reset
	// win holds the hexagons per window (anchor·6 + template): colour 0's
	// count in the low four bits, colour 1's in the high four.
	win [sixSide * sixSide * 6]uint8

	score   [2]int32 // Σ window weights per colour
	hist    []sixUndo
	removed []sixRemoved
}

type sixUndo struct {
	kind     byte
	from, to int32
	colour   int8
	nRemoved int
	score    [2]int32 // Six.score before the move, which Undone restores
	// recentred: the move took the window near its edge and Played moved it;
	// offQ, offR is the offset before, which Undone restores first.
	recentred  bool
	offQ, offR int
}

// sixRemoved is a hexagon an advanced split took off: its window index, its
// colour, and the position k in tiles it was taken from (the last tile moved
// there).
type sixRemoved struct {
	at     int32
	colour int8
	k      int32
}

// Shape templates: each is six (dq, dr) offsets.
var sixShapes = func() [][6][2]int {
	var out [][6][2]int
	for _, d := range [3][2]int{{1, 0}, {0, 1}, {1, -1}} {
		var l [6][2]int
		for k := range l {
			l[k] = [2]int{k * d[0], k * d[1]}
		}
		out = append(out, l)
	}
	out = append(out, [6][2]int{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {0, 2}})
	out = append(out, [6][2]int{{0, 0}, {1, 0}, {2, 0}, {1, -1}, {2, -1}, {2, -2}})
	out = append(out, [6][2]int{{1, 0}, {1, -1}, {0, -1}, {-1, 0}, {-1, 1}, {0, 1}})
	return out
}()

// sixOffsets are the templates as window index offsets.
var sixOffsets = func() [][6]int32 {
	out := make([][6]int32, len(sixShapes))
	for i, sh := range sixShapes {
		for k, d := range sh {
			out[i][k] = int32(d[1]*sixSide + d[0])
		}
	}
	return out
}()

// Window weights by own hexagons in a window free of the opponent's.
var sixWeight = [7]int32{0, 1, 4, 14, 45, 160, 1000}

func (e *Six) index(q, r int) int32 { return int32((r-e.offR)<<sixBits + (q - e.offQ)) }

// Reset reads the hexagons of s and centres the window on them.
func (e *Six) Reset(s engine.State) {
	e.advanced = s.Info().Variant == "advanced"
	e.sideOf = s.Info().SideOf
	clear(e.cell[:])
	e.tiles, e.hist, e.removed = e.tiles[:0], e.hist[:0], e.removed[:0]
	type tile struct{ q, r, c int }
	var ts []tile
	minQ, minR, maxQ, maxR := 1<<30, 1<<30, -1<<30, -1<<30
	for name, col := range s.Position().Pieces {
		a, b, _ := strings.Cut(name, ",")
		q, _ := strconv.Atoi(a)
		r, _ := strconv.Atoi(b)
		c := 0
		if col == "red" {
			c = 1
		}
		ts = append(ts, tile{q, r, c})
		minQ, maxQ, minR, maxR = min(minQ, q), max(maxQ, q), min(minR, r), max(maxR, r)
	}
	e.offQ, e.offR = (minQ+maxQ)/2-sixSide/2, (minR+maxR)/2-sixSide/2
	clear(e.win[:])
	e.score = [2]int32{}
	for _, t := range ts {
		i := e.index(t.q, t.r)
		e.cell[i] = int8(t.c + 1)
		e.slot[i] = uint8(len(e.tiles))
		e.tiles = append(e.tiles, i)
		e.count(i, t.c, 1)
	}
}

// contribution of a window holding a hexagons of colour 0 and b of colour 1.
func sixContribution(a, b int8) (int32, int32) {
	switch {
	case b == 0:
		return sixWeight[a], 0
	case a == 0:
		return 0, sixWeight[b]
	}
	return 0, 0
}

// sixTable holds sixContribution for every window content as win packs it:
// entry b·16+a is the pair for a hexagons of colour 0 and b of colour 1.
var sixTable = func() (t [256][2]int32) {
	for a := int8(0); a <= 6; a++ {
		for b := int8(0); b <= 6; b++ {
			t[int(b)*16+int(a)][0], t[int(b)*16+int(a)][1] = sixContribution(a, b)
		}
	}
	return t
}()

// sixThrough are the 36 windows through a cell as offsets into win back
// from the cell's index·6: template tmpl anchored o before the cell is
// window (i−o)·6+tmpl, i·6 − (o·6 − tmpl).
var sixThrough = func() (out [36]int32) {
	for tmpl, offs := range sixOffsets {
		for k, o := range offs {
			out[tmpl*6+k] = o*6 - int32(tmpl)
		}
	}
	return out
}()

// sixGain[c][w] is what one more hexagon of colour c adds to the scores of
// a window holding w (as win packs it; counts within 0…5 of colour c).
var sixGain = func() (g [2][256][2]int32) {
	for c := range 2 {
		step := 1 << (4 * c)
		for w := 0; w+step < 256; w++ {
			if w>>(4*c)&15 >= 6 {
				continue
			}
			g[c][w][0] = sixTable[w+step][0] - sixTable[w][0]
			g[c][w][1] = sixTable[w+step][1] - sixTable[w][1]
		}
	}
	return g
}()

// sixGain64 is sixGain with the two scores packed in one int64 (colour
// 0's plus colour 1's times 2³²), so that a window's gain is one load and
// one add; sixUnpack takes a sum of them apart.
var sixGain64 = func() (g [2][256]int64) {
	for c := range 2 {
		for w := range 256 {
			g[c][w] = int64(sixGain[c][w][0]) + int64(sixGain[c][w][1])<<32
		}
	}
	return g
}()

// sixUnpack splits a sum of sixGain64 entries into the two scores' sums
// (each well within int32: exact).
func sixUnpack(d int64) (int32, int32) {
	lo := int32(d)
	return lo, int32((d - int64(lo)) >> 32)
}

// count adds delta (±1) hexagons of colour c on cell i to the 36 windows
// through it, keeping the score up to date (by sixGain, without branches;
// the windows unrolled in six_unrolled.go).
func (e *Six) count(i int32, c int, delta int8) {
	var d0, d1 int32
	if delta > 0 {
		d0, d1 = sixUnpack(sixAdd(&e.win, i, c))
	} else {
		d0, d1 = sixUnpack(-sixSub(&e.win, i, c))
	}
	e.score[0] += d0
	e.score[1] += d1
}

func (e *Six) inWindow(i int32) bool {
	q, r := i&(sixSide-1), i>>sixBits
	return q >= 8 && r >= 8 && q < sixSide-8 && r < sixSide-8
}

// Played follows a placement or a movement (and, advanced, removals).
func (e *Six) Played(s engine.State, m engine.Move, seat int) {
	kind, from, to, _, _ := six.DecodeMove(m)
	u := sixUndo{kind: kind, colour: int8(e.sideOf[seat]), nRemoved: len(e.removed), score: e.score}
	switch kind {
	case 'p':
		u.to = e.index(to.Q, to.R)
		e.cell[u.to] = u.colour + 1
		e.slot[u.to] = uint8(len(e.tiles))
		e.tiles = append(e.tiles, u.to)
		e.count(u.to, int(u.colour), 1)
	case 'm':
		u.from, u.to = e.index(from.Q, from.R), e.index(to.Q, to.R)
		u.colour = e.cell[u.from] - 1
		e.cell[u.from], e.cell[u.to] = 0, u.colour+1
		e.count(u.from, int(u.colour), -1)
		e.count(u.to, int(u.colour), 1)
		k := e.slot[u.from]
		e.tiles[k], e.slot[u.to] = u.to, k
		if e.advanced {
			// The hexagons the move's split took off, as the engine
			// lists them (usually none).
			s.(*six.State).LastRemoved(e.remove)
		}
	}
	if kind != 'x' && !e.inWindow(u.to) {
		// Drifted near the window's edge: centre the window on the hexagons.
		u.recentred, u.offQ, u.offR = true, e.offQ, e.offR
		e.recentre()
	}
	e.hist = append(e.hist, u)
}

// remove takes the hexagon on cell q, r off, remembering where it was in
// tiles for Undone.
func (e *Six) remove(q, r int) {
	t := e.index(q, r)
	k := e.slot[t]
	e.removed = append(e.removed, sixRemoved{at: t, colour: e.cell[t] - 1, k: int32(k)})
	e.count(t, int(e.cell[t]-1), -1)
	e.cell[t] = 0
	last := e.tiles[len(e.tiles)-1]
	e.tiles[k], e.slot[last] = last, k
	e.tiles = e.tiles[:len(e.tiles)-1]
}

// recentre moves the window so that the bounding box of the hexagons is in
// its middle.
func (e *Six) recentre() {
	minQ, minR, maxQ, maxR := 1<<30, 1<<30, -1<<30, -1<<30
	for _, t := range e.tiles {
		q, r := int(t&(sixSide-1))+e.offQ, int(t>>sixBits)+e.offR
		minQ, maxQ, minR, maxR = min(minQ, q), max(maxQ, q), min(minR, r), max(maxR, r)
	}
	e.shiftTo((minQ+maxQ)/2-sixSide/2, (minR+maxR)/2-sixSide/2)
}

// shiftTo moves the window to offset (offQ, offR), keeping the hexagons and
// the order of tiles, and recounts the windows.
func (e *Six) shiftTo(offQ, offR int) {
	delta := int32((e.offR-offR)<<sixBits + (e.offQ - offQ))
	var col [64]int8
	for k, t := range e.tiles {
		col[k] = e.cell[t] - 1
		e.cell[t] = 0
	}
	e.offQ, e.offR = offQ, offR
	clear(e.win[:])
	e.score = [2]int32{}
	for k := range e.tiles {
		e.tiles[k] += delta
		e.cell[e.tiles[k]] = col[k] + 1
		e.slot[e.tiles[k]] = uint8(k)
		e.count(e.tiles[k], int(col[k]), 1)
	}
}

// Undone takes back the last Played: the windows by the counts alone,
// the score as it was before the move (a function of the position, which
// is again what it was).
func (e *Six) Undone(s engine.State) {
	u := e.hist[len(e.hist)-1]
	e.hist = e.hist[:len(e.hist)-1]
	if u.recentred {
		e.shiftTo(u.offQ, u.offR)
	}
	switch u.kind {
	case 'p':
		e.cell[u.to] = 0
		e.tiles = e.tiles[:len(e.tiles)-1]
		sixSubRaw(&e.win, u.to, int(u.colour))
	case 'm':
		// Put the removed hexagons back where they were in tiles, in the
		// reverse order of their removal.
		for j := len(e.removed) - 1; j >= u.nRemoved; j-- {
			r := e.removed[j]
			e.cell[r.at] = r.colour + 1
			if int(r.k) == len(e.tiles) {
				e.tiles = append(e.tiles, r.at)
			} else {
				moved := e.tiles[r.k]
				e.slot[moved] = uint8(len(e.tiles))
				e.tiles = append(e.tiles, moved)
				e.tiles[r.k] = r.at
			}
			e.slot[r.at] = uint8(r.k)
			sixAddRaw(&e.win, r.at, int(r.colour))
		}
		e.removed = e.removed[:u.nRemoved]
		e.cell[u.to], e.cell[u.from] = 0, u.colour+1
		sixSubRaw(&e.win, u.to, int(u.colour))
		sixAddRaw(&e.win, u.from, int(u.colour))
		k := e.slot[u.to]
		e.tiles[k], e.slot[u.from] = u.from, k
	}
	e.score = u.score
}

// Eval is the mover's window score minus the opponent's (kept up to date by
// Played and Undone; slowEval recomputes it from scratch for the tests).
func (e *Six) Eval(s engine.State) int32 {
	me := e.sideOf[s.ToMove()]
	return e.score[me] - e.score[1-me]
}

// slowEval sums window weights from the board: each window with at least one
// hexagon is visited once, from its first occupied cell in template order.
func (e *Six) slowEval() [2]int32 {
	var score [2]int32
	cell := &e.cell
	for _, t := range e.tiles {
		for _, offs := range sixOffsets {
			for k := range offs {
				anchor := t - offs[k]
				first := true
				for j := 0; j < k; j++ {
					if cell[anchor+offs[j]] != 0 {
						first = false
						break
					}
				}
				if !first {
					continue
				}
				var cnt [3]int8
				for j := k; j < 6; j++ {
					cnt[cell[anchor+offs[j]]]++
				}
				a, b := sixContribution(cnt[1], cnt[2])
				score[0] += a
				score[1] += b
			}
		}
	}
	return score
}
