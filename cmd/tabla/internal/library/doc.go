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
// lists in well under a second once indexed (BenchmarkList). While a
// listing reads files (the first index of a large library takes a while),
// Progress counts them without waiting for it.
//
// Every reader here streams a record (record.Game.Each) in the memory of
// one position, however many moves it holds (a legal record may hold a
// million): the index, Explore and GamePage, which steps a page of at most
// MaxPage steps. The analysis keeps every move and refuses a game of more
// than analysis.MaxMoves, naming the line beyond.
//
// # Search
//
// Search matches every word of a query against each game's file name, game,
// seats and result, every move it holds (not only the first; the first
// MaxSearchMoves of a longer game), and every
// field of its header as key:value, read generically (the record package's
// fields, meta's nested keys joined by dots), so a header field added to
// records is searchable without a change here. The search texts are kept
// in .tabla-library-text.json beside the index, read on the first search.
//
// # Analysis
//
// Analyze starts engine/analysis on a game in the background (one game at
// a time) with its progress readable from Analysis; the result is written
// beside the record as RECORD.analysis.json together with the record's
// size, modification time and SHA-256, so a second visit reads it at once
// and a changed record is analysed again. A directory that cannot be
// written keeps the analysis in memory only. CancelAnalysis stops a queued
// or running analysis (within a search's stop check: milliseconds) and keeps
// the positions searched in memory; the next Analyze of the same version of
// the record resumes from them, and ends with what one run would give.
// Every move of the analysis has
// a tier (inaccuracy, mistake, blunder) and every seat an accuracy
// (engine/analysis: TierOf, Accuracy). Annotated is the record with the
// analysis as comment lines, which RULES.md §6 lets a record carry: it
// replays as the record. AnnotatedWith adds the analysis board's
// variations (each line of its tree, played first) as comment lines after
// the move each starts from.
//
// # Players and clocks
//
// A game comes with its record's header (the players' names, event,
// round, site, date, time control). Where the header has a time control
// and the lines keep each move's time ("ms"), every step carries the
// move's time and every seat's clock after it, charged as the live clock
// charged it (engine/clock's Charge), on any page of the game.
//
// # Variations
//
// Explore plays moves (and rolls) from any step of a game and gives the
// position and its legal moves with their cells, for the analysis board's
// tap-a-piece, tap-a-cell play; Evaluate searches a variation's position
// and its best lines with their depth, one evaluation at a time, each
// bounded in time and stopped when its page moves on.
package library
