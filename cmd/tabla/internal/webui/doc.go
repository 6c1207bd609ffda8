// Package webui is tabla's web pages, one home for the three uses of one
// page: the simulator (`tabla sim`: a person plays on the virtual board
// with the mouse or a finger), the live table (`tabla run`: phones on the
// LAN mirror the physical board read-only, and a phone paired by the
// board's confirm button controls it) and the library (`tabla library`,
// and /library/ under `tabla run`: every game of a folder, the analysis
// board, statistics).
//
// The board is drawn once: static/board.js draws cells from the board
// file's coordinates, the LEDs exactly as the referee lights them, the
// pieces, and a move as an arrow; the live page (index.html, live.js) and
// the analysis board (game.html, game.js) both draw with it. The pages are
// self-contained (embedded HTML, CSS and JavaScript, no external
// resources, a strict Content-Security-Policy), fit a 390-px phone and
// follow the game live over server-sent events.
//
// Every page speaks the player's language (English or Turkish): i18n.js
// renders every text from the message catalogues of package i18n, which
// the pages load as catalogue.js (served with the static files, the hub's
// pages included); words.js says moves, cells and what the board needs in
// it, written and spoken.
//
// The library's pages (library.html, game.html, stats.html) are also an
// installable web app: app.js sets the light or dark theme (the system's
// prefers-color-scheme, or the switch in the header, remembered) and
// registers sw.js, a service worker that keeps the pages, the listing and
// every game and analysis read, and serves them when the server cannot be
// reached; manifest.webmanifest and the icons describe the app. The
// analysis board has lichess's evaluation bar, keys (←/→, ↑/↓, Home/End,
// f to flip) and tree of variations, kept in the browser, in links and in
// the annotated download.
//
// Handler serves the live page and its API (see its doc for the routes);
// Library the library's; Pairing keeps the paired browsers' sessions.
// Every server that uses them puts them behind sameorigin's guard.
package webui
