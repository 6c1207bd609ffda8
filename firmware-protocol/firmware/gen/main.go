// Command gen writes tabla_board.h, the build-time description of a board
// for the reference firmware, from a board file (see package fwboard):
//
//	go run ./firmware-protocol/firmware/gen [-presence] [-die d6|nsew|none] [-model M] [-arduino] -o tabla_board.h BOARD
//
// BOARD is a builtin board's name (daha, gyges, star, six, ray) or a path to
// a .board file. The firmware Makefile runs it for `make BOARD=file.board`;
// with -arduino it writes the Arduino sketch's header, which carries the
// Makefile's command-line settings too:
//
//	go run ./firmware-protocol/firmware/gen -arduino -o firmware-protocol/arduino/tabla/tabla_board.h BOARD
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/firmware-protocol/fwboard"
)

func main() {
	out := flag.String("o", "", "output file (default: standard output)")
	var o fwboard.Options
	flag.BoolVar(&o.Presence, "presence", false, "presence-only sensors (one chain bit per cell) even if the board lists piece codes")
	flag.StringVar(&o.Die, "die", "", "electronic die: d6, nsew or none (default: the game's)")
	flag.StringVar(&o.Model, "model", "", "Hello model string (default: the board's name)")
	flag.BoolVar(&o.Arduino, "arduino", false, "add the build settings the Makefile passes (baud, LED packing, receive buffer per MCU), for the Arduino sketch firmware-protocol/arduino/tabla")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gen [flags] -o tabla_board.h BOARD\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, o); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(board, out string, o fwboard.Options) error {
	b, err := boards.Open(board)
	if err != nil {
		return err
	}
	l, err := fwboard.New(b, o)
	if err != nil {
		return err
	}
	h := fwboard.Header(l)
	if out == "" {
		_, err = os.Stdout.Write(h)
		return err
	}
	return os.WriteFile(out, h, 0o644)
}
