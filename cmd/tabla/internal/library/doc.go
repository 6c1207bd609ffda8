// Package library is the game library behind `tabla library DIR` and the
// /library pages of `tabla run`: an index of every game record (and
// journal) under a directory, each game stepped ply by ply, the analysis of
// a game run in the background and cached beside its record, and the
// statistics of `tabla stats` over the whole library.
//
// # Index
//
// Games lists every *.jsonl file under the directory (hidden files and
// folders skipped): its game, variant, players, date, plies and result, or,
// for a file that cannot be read as a game record (empty, torn, binary,
// foreign), the error with file, line and byte offset — a bad file never
// hides the others. The index is kept in memory and in .tabla-library.json
// in the directory; each listing stats the files and reads again only those
// whose size or modification time changed, so a library of 10,000 games
// lists in well under a second once indexed (BenchmarkList).
//
// # Analysis
//
// Analyze starts engine/analysis on a game in the background (one game at
// a time) with its progress readable from Analysis; the result is written
// beside the record as RECORD.analysis.json together with the record's
// size, modification time and SHA-256, so a second visit reads it at once
// and a changed record is analysed again. A directory that cannot be
// written keeps the analysis in memory only.
package library
