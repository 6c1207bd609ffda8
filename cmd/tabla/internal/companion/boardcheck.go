package companion

import (
	"fmt"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"strings"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
)

// BoardMismatch is a board whose Hello does not match the board file: a
// board of another size is another board (or firmware built for one), and
// reading it as the board file would play on nonsense. The serial driver
// refuses it (wrapped in serial.ErrWrongBoard) and dials on; the daemon
// stays up, says so (Status.BoardProblem, the log) and plays nothing until
// the right board is plugged in.
type BoardMismatch struct {
	Def       *boards.Board // the board file
	Announced hardware.Info // what the board's Hello said
	diffs     []string
}

// Error says what differs and what to do, for the log.
func (e *BoardMismatch) Error() string {
	return "the board says " + strings.Join(e.diffs, "; and ") +
		": start tabla with --board-file for this board, or flash the firmware built for " + e.Def.Name
}

// People says it for the page (English): which board is plugged in,
// which one the table is set up for, and what to do.
func (e *BoardMismatch) People() string { return e.Words().English() }

// Words says it in the page's words.
func (e *BoardMismatch) Words() i18n.Text {
	a := e.Announced
	key := "wrongboard"
	if a.Identifying && len(e.Def.Codes) == 0 {
		key = "wrongboard.codes"
	}
	return i18n.T(key, "board", e.Def.Name, "cells", a.Sensors, "lights", a.LEDs, "want_cells", len(e.Def.Sensors), "want_lights", e.Def.LEDCount)
}

// acceptBoard returns a check of a board's Hello against the board file
// def; the error it returns is a *BoardMismatch.
func acceptBoard(def *boards.Board) func(hardware.Info) error {
	return func(info hardware.Info) error {
		var diffs []string
		if n := len(def.Sensors); info.Sensors != n {
			diffs = append(diffs, fmt.Sprintf("%d sensors, the board file %s has %d", info.Sensors, defName(def), n))
		}
		if n := def.LEDCount; info.LEDs != n {
			diffs = append(diffs, fmt.Sprintf("%d LEDs, the board file %s has %d", info.LEDs, defName(def), n))
		}
		if info.Identifying && len(def.Codes) == 0 {
			diffs = append(diffs, fmt.Sprintf("its sensors identify pieces, the board file %s names no piece codes", defName(def)))
		}
		if diffs == nil {
			return nil
		}
		return &BoardMismatch{Def: def, Announced: info, diffs: diffs}
	}
}

// expected is the board a board file describes, as Info says it until the
// board's Hello (whether its sensors tell pieces apart is not known before).
func expected(def *boards.Board) *hardware.Info {
	return &hardware.Info{Name: def.Name, Sensors: len(def.Sensors), LEDs: def.LEDCount}
}

// announced describes a board's Hello for the log.
func announced(i hardware.Info) string {
	kind := "presence"
	if i.Identifying {
		kind = "identifying"
	}
	return fmt.Sprintf("%q: %d sensors (%s), %d LEDs, %s", i.Name, i.Sensors, kind, i.LEDs, i.Protocol)
}

// boardFile names where a board file was read from, for the log.
func boardFile(def *boards.Board) string {
	if def.File == "" {
		return def.Name
	}
	return def.File
}

// defName names a board file for people: its name, and where it was read
// from unless it is built in.
func defName(def *boards.Board) string {
	if def.File == "" || strings.HasPrefix(def.File, "builtin:") {
		return def.Name
	}
	return def.Name + " (" + def.File + ")"
}
