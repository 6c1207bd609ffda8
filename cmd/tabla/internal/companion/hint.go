package companion

import (
	"errors"

	"github.com/tabla-board/tabla/engine"
	"github.com/tabla-board/tabla/engine/search"
)

// SearchHint returns a Hint function backed by engine/search: the engine's
// move at the level that level(seat) gives for the seat to move (0: the
// default level).
func SearchHint(level func(seat int) int) func(engine.State) (string, error) {
	return func(st engine.State) (string, error) {
		lv := 0
		if level != nil {
			lv = level(st.ToMove())
		}
		m, _, _ := search.Best(st, search.Options{Level: lv, Seed: uint64(st.Plies()) + 1})
		if m == engine.NoMove {
			return "", errors.New("companion: no move is due")
		}
		return engine.MoveString(st, m), nil
	}
}
