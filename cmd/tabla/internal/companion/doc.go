// Package companion is the session loop of `tabla run` and `tabla sim`: it
// ties a hardware.Board to the referee, journals every board event and every
// decision, resumes an unfinished game, and serves the status API.
//
// # Sessions
//
// Open sets a Session up on a board (real or virtual) and a journal
// directory: it resumes the latest unfinished game found there (repairing
// a torn last line, replaying the record, and letting correction mode bring
// the physical board back in line) or starts a new game. Run reads the
// board's events and reads the board when its sensors have been quiet for
// the settle window (board time, estimated between events from the host
// clock); drivers on virtual time call Handle and Tick themselves (Player).
//
// The pages (package webui) use a Session as their backend: State
// (referee.State with the LEDs as lit, JSON-ready) or StatusJSON (the
// status document of `tabla run`), Subscribe (a channel poked on every
// change), Command (takeback, new, roll, hint, confirm, choose), SetEngine
// (the seats the engine plays, Engines), RequestPairing (a phone asks to
// control the table: one corner LED pulses until the board's confirm button
// is pressed, pairing.go), SetWho (who plays which seat, and the event,
// round, site and date: who.go), Clock (the chess clocks of a game with a
// time control: clock.go) and, on a virtual board, LivePlayer.Act to
// perform a SCRIPTS.md action.
//
// # Journal
//
// A journal is a game record (RULES.md §6) whose other event kinds are the
// board events behind it (see journal.go for the line kinds). Board events
// are written as they come, decisions (moves, rolls) with an fsync each, so
// the file survives a power cut at any byte: at worst the last line is torn,
// and Repair cuts it. A takeback rewrites the undone move and roll lines as
// {"undone":…} (a new file renamed over the old), so the journal is always a
// valid record of the game as it stands. Replay re-runs the referee over the
// board events and compares its decisions with the journal's.
//
// On start, Open reads the game's journals (game-*-GAME.jsonl) newest first
// until one reads as a game. A file that does not (empty, or a header torn
// by a kill in the first milliseconds of a new game, garbage, binary, a
// foreign JSON file, a game record that is not a journal) never stops the
// daemon: it is moved, bytes untouched, into the unreadable/ folder of the
// journal directory (".1", ".2", … added if the name is taken there), with
// a warning naming the file, where it went, the line and byte offset and
// what was wrong. A torn last line of a readable journal is not a reason to
// move it: it is cut (record.Repair) and every whole line is kept.
//
// A journal that cannot be written (a full, read-only or missing card)
// pauses the game rather than lose a move (backlog.go, paused.go): the file
// is cut back to the lines known on disk, the lines from then on wait in
// memory (bounded) while the page and the LEDs say the game is paused, and
// are written in order once the card can be written again. One daemon
// holds a journal folder at a time (LockJournalDir).
package companion
