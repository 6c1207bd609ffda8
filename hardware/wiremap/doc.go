// Package wiremap translates between the serial wire protocol's messages
// (firmware-protocol/wire) and hardware events: dice faces, buttons, board
// times and Hello abilities. The serial driver uses it to read a board and
// the simulator to play one, so both agree on every mapping.
package wiremap
