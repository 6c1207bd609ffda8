package daha

import (
	"math/bits"
	"math/rand/v2"
)

// RandomPlayout plays random rolls and moves from the position until the
// game ends or capPlies plies have been played, calls end with that
// position, and then restores the position from a copy (its steps keep no
// history, so it needs no Undo). The games it plays are those of the loop
// Roll(rng.IntN(6)) when a roll is due and Play(RandomMove(rng)) when a
// move is: every roll equally likely, then every destination of the roll
// equally likely, an empty set eliminating the player. It draws them
// its own way, not as that loop would (engine/search's RandomPlayer):
//
//   - one draw from rng seeds a wyrand stream for the whole playout,
//     read with Lemire's bounded draw (multiply, rarely a rejection), so a
//     draw is a few instructions and no call;
//   - a roll of 3 to 6 does not compute the destination set: it draws a
//     candidate among the free ends of the roll's paths on the empty board
//     (graph.reach) and accepts it if a path of the roll's length reaches
//     it (the board's pathIndex, a few word operations per blocked cell;
//     graph.reaches, a search that stops at the first such path, on boards
//     too dense to index); a candidate refused is struck off and another
//     drawn. The first destination met in a uniformly random order of the
//     candidates is a uniformly random destination, and after sampleTries
//     refusals the set is computed from the candidates left (graph.dfs)
//     and drawn from, which is the same distribution (refused candidates
//     are not destinations);
//   - the hash is not kept step by step but computed once before end.
//
// MCTS (engine/search) plays its playouts with it.
func (s *State) RandomPlayout(rng *rand.Rand, capPlies int, end func()) {
	save := *s
	x := rng.Uint64()
	for s.winner < 0 && s.plies < capPlies {
		s.turn(&x)
	}
	s.hash = s.computeHash()
	end()
	*s = save
}

// turn plays one random turn of a playout (the game not over) and returns
// the roll (0 when a move was due) and the destination (-1 when the roll
// eliminated the player): the move, when one is due; otherwise a roll and
// its move. It keeps no history and leaves the hash alone.
func (s *State) turn(x *uint64) (k, to int) {
	if s.roll != 0 {
		// A move is due (a playout's first turn): its destinations are known.
		to = nthBit(s.dests, draw(x, uint64(bits.OnesCount64(s.dests))))
		s.step(to)
		return 0, to
	}
	p := int(s.toMove)
	k = int(draw(x, maxRoll)) + 1
	to = s.sample(p, k, x)
	if to < 0 {
		s.drop(p)
		return k, to
	}
	s.roll = int8(k)
	s.step(to)
	return k, to
}

// denseBlocked: with more blocked cells than this a candidate is often
// refused, and sample computes the set at once.
const denseBlocked = 8

// sampleTries is how many candidates sample tests one by one before it
// computes the destination set from the candidates left.
const sampleTries = 3

// sample returns a uniformly random destination of p's piece (p to move)
// for roll k, or -1 when the roll leaves it none. x is the playout's
// wyrand state.
func (s *State) sample(p, k int, x *uint64) int {
	c := int(s.pos[p])
	blocked := s.blocked(p)
	g := s.g
	free := ^blocked
	if k <= 2 || s.altGen != nil {
		// A one- or two-step set costs a few unions: compute it.
		var d uint64
		switch {
		case s.altGen != nil:
			d = s.gen(p, k)
		case k == 1:
			d = g.adj[c] & free
		default:
			for m := g.adj[c] & free; m != 0; m &= m - 1 {
				d |= g.adj[bits.TrailingZeros64(m)]
			}
			d &= free
		}
		if d == 0 {
			return -1
		}
		return nthBit(d, draw(x, uint64(bits.OnesCount64(d))))
	}
	cand := g.reach[c][k] & free
	px := g.paths
	tries := sampleTries
	if bits.OnesCount64(blocked&g.cells) > denseBlocked {
		tries = 0
	}
	for range tries {
		if cand == 0 {
			return -1
		}
		t := nthBit(cand, draw(x, uint64(bits.OnesCount64(cand))))
		var ok bool
		if px != nil {
			ok = px.reaches(c, k, t, blocked)
		} else {
			ok = g.reaches(c, free, k, t)
		}
		if ok {
			return t
		}
		cand &^= 1 << uint(t)
	}
	if cand == 0 {
		return -1
	}
	// Every destination is among the candidates left.
	var d uint64
	g.dfs(c, free, k, &d, cand)
	if d == 0 {
		return -1
	}
	return nthBit(d, draw(x, uint64(bits.OnesCount64(d))))
}

// step is move without the hash: the playout's move to cell to with the
// roll in s.roll.
func (s *State) step(to int) {
	p := int(s.toMove)
	from := s.pos[p]
	k := s.roll
	s.pos[p] = int8(to)
	s.occ ^= 1<<uint(from) | 1<<uint(to)
	if s.last[p] == k {
		bit := uint64(1) << uint(to)
		s.paint[p] |= bit
		s.painted |= bit
	} else {
		s.last[p] = k
	}
	s.roll = 0
	s.dests = 0
	s.toMove = s.nextLive(p)
	s.plies++
}

// draw returns a uniformly random number in [0, n) (n > 0) from the
// wyrand stream whose state is *x: Lemire's multiply-shift, with the
// rejection that makes it exact.
func draw(x *uint64, n uint64) uint64 {
	hi, lo := bits.Mul64(wyrand(x), n)
	if lo < n {
		return redraw(x, n, hi, lo)
	}
	return hi
}

// redraw is draw's rare case: a product low enough to be in the biased
// range is drawn again unless it is above -n % n. Kept out of line so that
// draw is inlined.
//
//go:noinline
func redraw(x *uint64, n, hi, lo uint64) uint64 {
	thresh := -n % n
	for lo < thresh {
		hi, lo = bits.Mul64(wyrand(x), n)
	}
	return hi
}

// wyrand advances the wyrand state *x (a Weyl sequence) and returns its
// next output: the two halves of a 128-bit product of the state and a
// constant-offset copy, xored (Wang Yi's generator, which passes
// BigCrush and PractRand).
func wyrand(x *uint64) uint64 {
	*x += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(*x, *x^0xe7037ed1a0b428db)
	return hi ^ lo
}

// nthBit is the index of the i-th lowest set bit of m (i < OnesCount64(m)).
// (Skipping halves and bytes by their counts first took more instructions
// on the playouts' sets of a few to twenty cells.)
func nthBit(m uint64, i uint64) int {
	for ; i > 0; i-- {
		m &= m - 1
	}
	return bits.TrailingZeros64(m)
}
