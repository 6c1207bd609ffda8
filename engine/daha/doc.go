// Package daha is the rule engine of DAHA (DAiresel HAreket), RULES.md §1:
// four colours walk their pieces over a graph of cells by exactly the number
// of steps rolled, paint the cell they reach when a roll repeats their
// previous one, and drop out when a roll leaves them nowhere to go; the last
// colour standing wins.
//
// # Board
//
// The graph and the start cells come from the board definition (cfg.Board,
// default boards.Default("daha"): a centre, three rings of eight, red C0,
// yellow C2, blue C4, black C6). Any graph of up to 64 cells works: cells are
// bit indices in board order and a set of cells is a uint64. A colour without
// a start cell does not take part: turn order skips it, it is never
// eliminated and never listed in Eliminated. The same holds for a colour that
// a start position gives no piece and does not list as out.
//
// # Representation
//
// A State holds per colour the cell of its piece (-1 when it has none), its
// painted cells as a bitboard, and its previous roll that was followed by a
// move (0 for none); the union of pieces and of paint as bitboards; the
// eliminated colours in order; whose turn it is; and the pending roll (0 when
// a roll is due). A mover may enter neither a piece's cell (its own included,
// so no path comes back to its start) nor paint of another colour, so the
// blocked set of a turn is occ | painted &^ paint[mover].
//
// Destinations are generated with a table built once per board: for every
// cell and every k of 1–6, each destination of a simple path of exactly k
// steps with the masks of the cells those paths cross (deduplicated). A
// destination is legal when one of its masks misses the blocked set. The
// default board needs about 30,000 masks (240 KB). Boards whose path count
// exceeds a budget of 2^18 masks use a depth-first search with a visited
// bitmask instead, which stops as soon as every free cell within k steps has
// been found. Roll computes the destination set; if it is empty the player is
// eliminated inside Roll. Moves only reads the set back and allocates nothing.
//
// # Moves
//
// A move is named by its destination cell (RULES.md §6). The packed
// engine.Move is
//
//	bits 0–5   destination cell index (board order)
//	bits 6–8   the roll k, 1–6 (never 0, so no move is engine.NoMove)
//	bit  9     the move paints its destination
//	bits 10–11 the mover's colour
//
// # Hash
//
// Zobrist keys from a fixed-seed splitmix64 stream over: each piece's cell,
// each colour's paint per cell, the colour to move, the pending roll (none
// while a roll is due), each colour's previous roll (it decides painting) and
// the set of eliminated colours. An eliminated colour's previous roll is
// dropped (it can never matter again), so Position omits it and a start may
// not give one.
package daha
