// Package six is the rule engine of FoxMind's six (RULES.md §5, §7): 21 red
// and 21 black hexagons on an unbounded plane of hex cells in axial
// coordinates q,r, a placement phase, a movement phase, the basic and the
// advanced (splitting) rule, and the two- and four-player games.
//
// # Representation
//
// The plane is unbounded but the hexagons always form one edge-connected group
// of at most 42 tiles, so its extent in q and in r is at most 41 cells. The
// engine keeps the tiles in a 128×128 window of the plane: cell (q,r) lives at
// index (r-offR)·128 + (q-offQ) of a byte array, the six neighbours are the
// index offsets +1, -1, +128, -128, -127 and +127, and every tile is kept at
// least 8 cells from the window's edges, so that frontier cells and the
// shape patterns around them (at most 6 cells from a tile) never leave the
// array. When a move lands a tile inside that margin the window is recentred
// on the group's bounding box (a shift of ≤ 42 tiles, undone by Undo). A cell
// byte is 0 for empty, else slot<<2 | colour+1, where slot indexes the tile
// list (window index of every tile), which makes the tile list and the board
// two views of one thing with no maps on the hot path.
//
// Hashes are Zobrist hashes over absolute coordinates (a keyed bijective
// mixer of q, r and the colour), the hands, the seat to move and the
// pending-pass flag, so they do not depend on the window's offset.
//
// Move generation in the movement phase makes one pass over the tiles'
// neighbours to build the tile graph and the frontier (the empty cells
// touching a tile, as a dense list with their number of adjacent tiles and
// the destination half of their Move encoding; generation stamps spare any
// clearing), finds the articulation points of the tile graph with one
// iterative Hopcroft–Tarjan lowlink DFS, and then for each liftable own tile
// decrements the counts round it and emits, branch-free, the frontier cells
// still touching another tile.
// Under the advanced rule an articulation tile splits the others; its groups
// are labelled by a search over at most 41 tiles and one move is listed per
// largest group that may stay.
//
// Legal tells whether one move is among those Moves lists without listing
// them (a placement by its cell; a movement by its origin, a cut tile or
// not, and its destination), so that alpha-beta tries its table's move and
// killers first and lists a node's moves only when they do not cut off.
//
// Shapes are detected incrementally: after a move only shapes through the
// destination cell can be new (see shapeAt), checked with line walks along
// the directions where the cell has a neighbour of the colour and, where
// those neighbours allow a triangle or ring, a 19-cell neighbourhood
// bitmask compared against the 12 triangle and 6 ring masks.
//
// # Move layout
//
// A Move (engine.Move, 64 bits) holds absolute coordinates, so it names the
// same move in every position whatever the window offset:
//
//	bits  0–1   kind: 1 placement, 2 movement, 3 pass
//	bits  2–18  destination q + 65536 (17 bits)
//	bits 19–35  destination r + 65536 (17 bits)
//	bits 36–42  origin q − destination q + 64 (movement; 0 otherwise)
//	bits 43–49  origin r − destination r + 64
//	bits 50–56  kept-group cell q − destination q + 64 (tied split; 0 otherwise)
//	bits 57–63  kept-group cell r − destination r + 64
//
// Pass is the Move 3. Coordinates are limited to |q|, |r| ≤ MaxCoord; a group
// wandering that far needs tens of thousands of plies, and no move leaving the
// limit is generated.
//
// # Notation
//
// Placement "q,r", movement "q,r>q,r", a tied advanced split "q,r>q,r/q,r"
// (the suffix names the kept group; Moves and AppendMove use the group's
// byte-order smallest cell, ParseMove accepts any of its cells), and "pass".
// Integers are canonical: no '+', no leading zeros, no "-0".
package six
