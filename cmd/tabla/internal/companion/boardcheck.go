package companion

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/hardware"
)

// acceptBoard returns a check of a board's Hello against the board file
// def: a board of another size is another board (or firmware built for
// one), and reading it as def would play on nonsense.
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
		return errors.New("the board says " + strings.Join(diffs, "; and ") +
			": start tabla with --board-file for this board, or flash the firmware built for " + def.Name)
	}
}

// defName names a board file for people: its name, and where it was read
// from unless it is built in.
func defName(def *boards.Board) string {
	if def.File == "" || strings.HasPrefix(def.File, "builtin:") {
		return def.Name
	}
	return def.Name + " (" + def.File + ")"
}
