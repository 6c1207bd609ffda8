// Package webui serves the simulator page: the board drawn from its board
// definition, the pieces, the LEDs exactly as the referee lights them, the
// dice, whose turn, the move list and the connection state, live over
// server-sent events. A person lifts and places pieces with the mouse or a
// finger, rolls the electronic die and presses the board's buttons; each
// becomes the same sensor event a table would send.
//
// The page is self-contained (embedded HTML, CSS and JavaScript, no external
// resources) and fits a phone screen.
//
// Routes:
//
//	GET  /               the page
//	GET  /api/board      the board geometry (cells, coordinates, goals, seats, die)
//	GET  /api/state      the current state as JSON
//	GET  /api/events     server-sent events: one "state" event per change
//	POST /api/action     one physical action, in the script format of
//	                     SCRIPTS.md: {"lift":"c1"}, {"place":"c3"},
//	                     {"place":"c3","piece":"2"}, {"remove":"c3"},
//	                     {"roll":4}, {"press":"roll"}, {"fault":"unplug"}, …
package webui
