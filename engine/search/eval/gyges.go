package eval

import (
	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/gyges"
)

// Gyges evaluates GYGES positions from heights alone (the engine exports
// Height) plus the number of the mover's legal moves.
type Gyges struct{}

func (e *Gyges) Reset(engine.State)                    {}
func (e *Gyges) Played(engine.State, engine.Move, int) {}
func (e *Gyges) Undone(engine.State)                   {}
func gygesHeight(g *gyges.Game, row, col int) int      { return g.Height(gyges.Cell(row*6 + col)) }
func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// attack scores player p's attack: p moves from its nearest row, d steps from
// the goal it attacks; every piece there of height ≥ d threatens the goal.
func gygesAttack(g *gyges.Game, p int) int32 {
	r, dr := 0, 1
	if p == gyges.NorthSeat {
		r, dr = 5, -1
	}
	for ; r >= 0 && r < 6; r += dr {
		var sum, threats, top int
		any := false
		d := 6 - r // south: row r (0-based) is 6−r steps from N
		if p == gyges.NorthSeat {
			d = r + 1
		}
		for c := 0; c < 6; c++ {
			h := gygesHeight(g, r, c)
			if h == 0 {
				continue
			}
			any = true
			sum += h
			top = max(top, h)
			if h >= d {
				threats++
			}
		}
		if any {
			return int32(-45*d + 70*threats + 8*top + 2*sum)
		}
	}
	return 0
}

// Eval is the mover's attack minus the opponent's, plus mobility (the
// number of legal moves, up to 60); a mover with a move onto the goal is as
// good as won. The moves are counted, not listed (gyges.Game.MoveCount).
func (e *Gyges) Eval(s engine.State) int32 {
	g := s.(*gyges.Game)
	if g.Setup() {
		return 0
	}
	n, goal := g.MoveCount()
	if goal {
		return 4000
	}
	me := s.ToMove()
	return gygesAttack(g, me) - gygesAttack(g, 1-me) + 3*int32(min(n, 60))
}
