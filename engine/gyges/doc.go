// Package gyges is the rules engine of GYGES (RULES.md §3 and §7), basic and
// advanced, for two players: south (seat 0, home row 1, aims for goal N) and
// north (seat 1, home row 6, aims for goal S). It registers itself as
// "gyges" with engine.Register.
//
// # Representation
//
// Cells are small integers (type Cell): the grid cells a1…f6 are 0…35 row by
// row from a1 (c = 6·(row−1) + column), the goals are North (36) and South
// (37). A Game keeps the height of the piece on every cell (0 for empty) in a
// [38]uint8 and the occupied cells as a bitboard (bit c), the players' hands
// during the setup as counts per height, and a Zobrist hash (pieces, hands,
// player to move) updated on every Play and restored by Undo from the
// history.
//
// # Move generation
//
// A move is a bounce chain. New precomputes, from the board's adjacency, for
// every cell c and segment length L (1–3), the group of every walk of exactly
// L steps with no boundary used twice (at most 64, so that a set of them is
// one uint64): the boundaries each crosses (60 grid links, one bit each) and
// the cell its last step enters, 16 bytes a walk; and, for every cell some
// walk of the group enters before its last step, the set of walks that enter
// it (blocked when it is occupied). A walk whose last step enters a goal is
// usable only by the mover whose target that goal is, so a goal is never an
// intermediate cell and a piece never enters its own goal. The link to a goal
// needs no bit: entering the goal ends the move.
//
// The chain search from a start cell s is a depth-first search over (cell,
// boundaries used, pieces landed on): s is taken off the occupancy (it counts
// as empty once left); the walks of a node are its group's less those through
// an occupied cell (one AND-NOT per occupied cell nearby, no test per walk,
// once per piece for all the searches of a position: chains come back to a
// piece by other routes, and chains from other start cells reach it; only
// the pieces with a walk through s find theirs again in the search from s);
// a walk is then usable when it uses no boundary used before. The Go search
// takes the walks crossing a used boundary out of a node's walks by one
// AND-NOT per such boundary of the group (per group and boundary, the set of
// its walks that cross it), so its walk loop tests nothing but the bounce;
// the boundaries it checks are the group's less those that only walks
// through an occupied cell cross (per group and blocking cell, kept per
// known piece beside its unblocked walks), since no unblocked walk crosses
// them;
// the assembly tests each walk's boundaries with a mask, not a branch (which
// walks pass is hard to predict). Every usable walk's end is
// recorded; ending on a piece not landed on before bounces with that piece's
// height. Outcomes are collected as one bit set, so different chains to the
// same outcome produce one move: its empty cells and goal are the ends, its
// pieces the landings (a replace target; a piece ended on again was landed
// on the first time). The start cell is removed from the end set at the end
// ("never comes back to rest where it started"). In the advanced variant
// every landing cell e gives the replace moves s-e/d for every d in one bit
// set that depends on s alone: the empty cells of the board with s emptied
// (e stays occupied by the mover), s included, that are not behind the
// opponent's nearest row on that board. The replaces of the first landing
// are written from that bit set, those of the other landings copied from
// them with the landing field changed. Move generation allocates nothing
// when the caller's buffer has room.
//
// Both searches keep an explicit stack instead of recursing. The Go search
// (chain.search), the one of every build but amd64 with the gygesasm build
// tag (and not purego), keeps a stack of the nodes still to follow (cell,
// boundaries used, pieces left): a node's walks are followed in one loop,
// its first bounce the next node (in registers) and each other bounce
// adding a node to the stack, so the cell of the next node is known before
// the walks of the one before are done and the processor overlaps their
// loads. A search that fills that stack (16 nodes; 0.25% of the tests'
// searches, none of the benchmark's mid-game ones) is run again by
// chain.deepSearch, whose stack holds the nodes waiting for a bounce's
// chain (walks left, boundaries used, pieces left), at most one per bounce.
// Both find where a group's walks are in one array of the tables
// (tables.flat: 16-bit offsets), and keep per known piece those offsets and
// its boundaries beside its unblocked walks. The searches' state lives in
// the Game (a fresh one, over a kilobyte, would be zeroed on every list).
// On amd64 with -tags gygesasm the search runs in assembly (search_amd64.s,
// chainSearch): a stack of (paths left, paths, boundaries used, pieces
// left), the outcomes in a register, and each known piece's paths address
// kept next to its unblocked paths. TestRunSearch checks the one the build
// runs against a plain recursive search on every piece of 6 300 positions,
// both movers; TestDeepSearch the Go build's two searches the same way,
// with searches that hand over among them. The assembly's hot loop's place
// in the code matters (15-25% on the development machine), so the function
// is 64-byte aligned and the loop at a fixed offset. It is no longer the
// default on amd64: the Go search takes 0.88-0.91 of its CPU time there
// (full list, undecoded list, perft 3; BENCHMARKS.md, issue 39's twelfth
// pass).
//
// Targets is the list undecoded, what Moves computes before it writes a
// move: per start piece of the row to move from, its end cells, its
// landings and its displacement cells as bit sets (in the setup, the free
// home cells and the heights in hand). Its replaces, most of an advanced
// list, are expanded only when asked for: Len counts the moves, At names
// the i-th, All yields them and Append writes them, all in the order of
// Moves. MoveCount and RandomMove use the same outcomes.
//
// Legal tells one move legal without listing the moves: the chain search
// from its start cell alone, and from the pieces of the rows nearer the
// mover (which must have none, the row rule); alpha-beta (engine/search)
// tries its table's move and killers with it before it lists a node's moves.
//
// RandomMove (engine.RandomMover) writes only the move it draws, and runs
// fewer searches than Moves: when the row to move from holds several pieces
// it draws by rejection. Each start cell s gets as many slots as it could
// have moves at most (every empty cell and the goal, then every other piece
// times the cells a displaced piece may go to from s); a slot is drawn
// uniformly, s searched if it was not yet, and the draw kept when the slot
// is one of s's moves (the i-th of the list Moves would write from s), made
// again otherwise. Every legal move has one slot, so a kept draw is uniform
// over the legal moves. Once every piece of the row is searched it draws
// among their moves directly; a row with no legal move is left for the
// rows after it, searched in full.
//
// The mover moves from their nearest row with a piece; only if no piece of
// that row has a legal move do they use the next row outwards, and so on. A
// player with no legal move at all has the single move Pass; two passes in a
// row draw.
//
// # Move layout
//
// An engine.Move of this package packs:
//
//	bits  0–5   to: the placement cell, or the chain's end (0–35, North, South)
//	bits  6–11  from: the chain's start cell (moves and replaces)
//	bits 12–17  the displaced piece's new cell (replaces)
//	bits 18–19  the placed piece's height 1–3 (placements)
//	bits 20–22  the Kind: 1 place, 2 move, 3 replace, 4 pass
//
// The kind is never 0, so no legal move is engine.NoMove. Place, Step,
// Replace, Pass and Unpack build and read moves.
//
// # Decisions
//
//   - Pieces are unowned, so "the opponent's nearest row" for a replace is the
//     row nearest the opponent holding any piece on the board after the move
//     (displaced piece off). The mover's own piece is then on the board, so
//     that row always exists; no case without one arises.
//   - The displaced piece may go to any empty grid cell not behind that row,
//     the mover's vacated start cell included, never a goal and never the
//     landing cell (the mover stands there). A replace is offered at every
//     landing on a piece, deep in a chain too, whether or not the bounce from
//     there could be completed; a replace counts as a legal move for the
//     nearest-row rule.
//   - After a win the winning piece stands on the goal: Position exports it
//     there, and a start position with a piece on N (S) is a game won by south
//     (north).
//   - The count of consecutive passes is neither in the hash nor in Position:
//     after one pass the position is the same, and its game value too (a
//     player who must pass after a pass leaves the other player, who also had
//     to pass, with the same board).
//   - A start position may hold fewer than 12 pieces (puzzles, endgames), but
//     at most four of each height on the board and in the hands together, at
//     most two of each height in one hand, and a hand that fits the empty
//     cells of its home row. A board file's start layout, if it has one, is a
//     position after the setup with `first` to move.
package gyges
