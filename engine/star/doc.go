// Package star implements STAR (Simetrik Taş ARama, "symmetric stone
// search"), RULES.md §2: each move reflects one of the mover's pieces through
// another of theirs (A' = 2P − A) onto an empty cell; a group of N−2 pieces
// connected through edges or corners wins, and a player who cannot move loses.
//
// The board is an (N+1)×(N+1) grid read from the board definition. Cells are
// stored in a padded array: each row has one guard column and the grid has
// guard rows, so neighbour lookups need no bounds checks. Pieces are also kept
// in per-colour lists of cell indices, so move generation is a loop over pairs.
//
// Move layout: bits 0–15 hold the source cell index + 1 and bits 16–31 the
// destination cell index + 1 (indices into the board definition's cells).
package star
