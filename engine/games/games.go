// Package games links every game engine into the binary: import it for its
// side effect of registering them with engine.New.
package games

import (
	_ "github.com/tabla-board/tabla/engine/daha"
	_ "github.com/tabla-board/tabla/engine/gyges"
	_ "github.com/tabla-board/tabla/engine/ray"
	_ "github.com/tabla-board/tabla/engine/six"
	_ "github.com/tabla-board/tabla/engine/star"
)
