// Package aicmd implements the commands that use the search: `tabla hint`
// (the engine's move after a record), `tabla analyze` (move-by-move review
// with a win-probability plot), `tabla play` (a game in the terminal against
// the engine) and `tabla stats` (aggregates over many logged games). Each
// command has an options struct and a plain XRun(opts) that does not touch
// cobra.
package aicmd
