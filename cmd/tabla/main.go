// Command tabla is the companion for five physical board games: it follows a
// game on a sensor board (or the simulator), checks every move, lights legal
// destinations, journals the game and analyses it. Run `tabla help`.
package main

import (
	"os"

	"github.com/tabla-board/tabla/cmd/tabla/internal/cli"
)

func main() { os.Exit(int(cli.Main())) }
