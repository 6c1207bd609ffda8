// Package referee turns a sensor board's events into moves of a game and
// decides what the board's LEDs show. It is pure: it imports only engine,
// boards (never a driver: Input is its own vocabulary, which the owner
// translates a driver's events into), does no I/O and reads no clock — time
// comes from event timestamps (board time) and explicit Tick calls, tabla's
// own die from Config.Rand.
//
// # Recognising moves
//
// Changes are collected until the sensors have been quiet for the settle
// window (Config.Settle, default 100 ms of board time; a press, a roll or a
// snapshot reads the board at once). The settled board is then compared as a
// whole — never as a sequence of events — with every reading the game allows:
//
//   - the position as it stands (nothing happened, or a piece was bumped and
//     put back);
//   - the position after each legal move (expected board = the engine's
//     Position after Play);
//   - the position before each of the last moves (a physical takeback, up to
//     Config.TakebackDepth moves);
//   - the position after another move of the last mover from the position
//     before the last move: a move stays revisable until the next player
//     rolls or moves, so a piece counted along its path (DAHA steps, GYGES
//     bounces) that rests for a moment on a cell that is itself a legal
//     destination is followed to where it ends.
//
// Presence-only sensors (code 255) match any piece; identifying sensors
// (codes named by the board definition) must show the right kind.
//
// A reading counts only if every cell it changes was touched since the last
// accepted move. Touches are debounced: a reading that lasted less than the
// settle window is a glitch and no touch (a chattering sensor, a piece
// bumped and settled back, a piece slid over a cell), removed shortest
// first so that a glitch in the middle of a real lift leaves the lift where
// it began. A GYGES replace also needs the landing piece off its cell while
// the moving piece was off the board, and a revision that moves the last
// piece on needs its cell emptied before the new destination was filled.
//
// The referee never guesses. It carries a reading out only when it is the
// one reading of the board; otherwise it enters confirm mode, offering every
// candidate, the one that explains most touched cells first:
//
//   - several readings fit (presence sensors: a GYGES replace and the plain
//     move to the displaced piece's cell, when the landing piece was really
//     lifted; a replace whose displaced piece goes back to the start cell);
//   - the board fits the position as it stands and a move that looks the
//     same;
//   - a takeback: the board shows an earlier position. A move under way that
//     has lifted the pieces of the last moves shows exactly that, so a
//     takeback is never taken from the board alone: it is proposed, and the
//     confirm button (or the takeback button, or the status API) takes it;
//   - a revision that moves another piece than the last move's, or while a
//     move of the next player may be under way (GYGES: a displaced piece put
//     down first looks like the last mover going on).
//
// The confirm button accepts the proposal, the takeback button shows the
// next one (or, when a takeback is the one proposal, takes it back), any
// change to the board re-reads it.
//
// A move that leaves the board as it was (a forced pass) is played at once.
// When the settled board fits nothing, the referee is in correction mode:
// nothing is recorded until the board fits again, and the LEDs show how to
// get there. A snapshot after a reconnect is read the same way; the first
// snapshot of a resumed game is read against the journalled position, so a
// move made while tabla was down is recognised. Setting up the start
// position of the game (after a move) proposes a new game ("new" in
// confirm mode); the new button starts one.
//
// # GYGES: the readings of a hand
//
// GYGES pieces have no owner, so a hand that rests a piece on its way
// (counting a path, correcting a move, setting a replace's displaced piece
// down first) and the next player moving that same piece on show the same
// boards. Each settled board is read against these readings, each with the
// evidence the order of touches gives:
//
//  1. nothing happened, or a legal move of the player to move whose cells
//     were really lifted and filled, its piece lifted before it was put down
//     and off its cell then (a piece knocked off its cell and set back is
//     no mover; a replace: its mover landed while the landing piece was off
//     the board, the displaced piece after that);
//  2. the last move revised by the hand that made it (revisions, depth 1):
//     the hand went on with its piece after the move was recorded — each
//     cell the revision fills that the last move did not, filled since, was
//     filled after a cell the last move filled was emptied, so a piece left
//     the last move's cells (wentOn; a cell that held a piece after the
//     last move too may have been filled before such a piece left) — ordered as in
//     1; a revision that moves another piece (the last move misread: a
//     knocked piece taken for a replace's landing) is asked, but for a
//     replace read the other way round (a-b/x for b-a/x: the mover counted
//     back over its start cell), when no other move from the position
//     before fits and neither piece is one the move before put down, and
//     when no other move from there fits, no move of the next player
//     under way shows the board (none of the pieces it takes off the board
//     as recorded is one they may move, or a replace's landing piece they
//     may set down first where it puts one: underWayMasks) and it neither
//     moves nor lands on the piece the move before displaced (that hand
//     may have gone on with it: displacedBefore). A revision is
//     asked while a piece the next player may move, on a cell neither move
//     names, was off the board when the revision's new cell was filled:
//     their hand had begun (nextHandLifts);
//  3. a chain of the last moves of one piece revised at once (depth 2 and 3):
//     rests of a counting hand recorded as moves of both players, followed to
//     where the piece ends — the hand went on after the last rest (wentOn),
//     and three deep its rests between the first and the last lie on a
//     legal chain of the revised move, in order (countedAlong): a counting
//     hand rests on its path. A replace onto the piece the move before put
//     down may have been that piece carried on (asked), but the chain ends
//     there: the replace moved another piece;
//  4. a revision followed by the next player's move of a piece it put down
//     (composites, movesThen, revisionsThen): a rest taken for the last
//     move's end, or an earlier rest of the hand that was its real end, with
//     the next player's hand going on from there — moving that piece on, or
//     a replace landing on it; the piece a revised replace's mover or its
//     displaced one (the mover only when the last move is revised). The
//     revision's pieces left where the last move was recorded putting them
//     before they landed (wentOn, the cells the next player's move names
//     excepted: theirs). Every
//     ply of such a reading in a hand's order: a piece put down after it
//     was picked up, a replace's displaced piece after its landing cell was
//     emptied, and the next player's ply beginning at least a settle time
//     (0.1 s by default) after the ply before it ended, the cells of both
//     reading the board after the first at some moment between them — two
//     people's hands, the first let go (turnsOK, as the harness's explainer
//     reads a ply). Beside
//     other readings it is asked; when it is the one reading (a revision of the last move and
//     the next player's move) it is taken, and should the hand go on, the
//     two are read back together to the revised move's earlier readings
//     (revisionsThen two deep: op.lone; read back after a plain move of
//     the next player's that was a rest of their hand — its piece has left
//     where it was recorded, or it carried on the piece the move before
//     was recorded putting down and that piece stays — the one such
//     reading is taken when that move is a replace whose displaced piece
//     was set down first where the move before was recorded putting its
//     own; and after a lone reading whose replace's mover went on, landing
//     further — or whose plain move took on the piece the revision put
//     down, read back to the move before as recorded and that piece moved
//     on from where it put it (sameHandOn) — when the player to move may
//     not move the piece it had landed: handWentOn) — also after the hand has revised the second of
//     them, and with the next player's piece lifted at any
//     moment since the revised move's evidence began (the hand was under
//     way before the lone reading was taken), and three deep when a rest of
//     that hand was recorded as one more move, of a piece the revised move
//     put down. Read back two deep with the next player's move as recorded,
//     the move before it must have been changed by its hand before that
//     move was recorded (changedBetween): touches after it are the current
//     player's move (a replace's mover carried back to its start). The
//     next player's move comes in a hand's order (a replace's displaced
//     piece put down after its landing piece left), and moving a replace's
//     displaced piece on needs that replace's mover off the board while
//     its landing piece was (a piece knocked off and set back before is no
//     landing);
//     Beside the one reading it would take, any move of the next player
//     after the hand of the move before it went on (a revision of that
//     move, the same piece), that the touches admit as such a hand makes
//     it and that ends elsewhere, is asked (otherCompositesThan): pieces
//     have no owner, so nothing holds the next player to the piece the
//     revised hand put down — a bounce piece looked at reads on presence
//     sensors as a replace's landing, and the next player's replace as that
//     correction and their plain move. Its evidence is the harness's
//     explainer's, every landing counted (leftFirst);
//  5. a takeback, or a new game. A takeback reaches one round (one move of
//     every seat); a round further when the last move's piece was lifted
//     again from where it was recorded (its hand went on), but not when
//     the player to move may move that piece: then the lift is their move
//     as much (the same piece moved four plies in a row is no takeback of
//     three).
//
// Readings that end in the same position (the same pieces on the same
// cells, the same player to move) are one to the game: the one that keeps
// most of the moves recorded so far — the plain move of the player to move,
// else the shallowest revision — is taken unasked (oneOutcome): the same
// piece moved three plies in a row is three moves, a corrected move and the
// next player's plain move are recorded so. Two readings of one past that
// name the next move otherwise are not: after that past two pieces of one
// height swapped, which is asked as after the move as recorded. Otherwise
// several readings are asked, and the hand's going on re-reads the board.
//
// The other namings of a position so taken — the move before revised and
// then the move taken, that the touches admit as a hand makes them — are
// look-alike pasts, kept on the move taken (op.alts, lookAlikeOf,
// otherCompositesThan's same): either may be what the hands did. Until
// the next move is recorded, the revisions of their last move are readings
// too (lookAlikePast: a replace's displaced piece carried on, which the
// record as written has no move for), with the evidence a revision needs
// and the whole reading's from the move before (admitsBoth, turnsOK), and so are
// such a revision and then any move of the next player (altComposites,
// beside a reading about to be taken). They are only ever asked.
//
// # Modes
//
// play (in sync, or a move under way), correct, confirm, setup (the start
// position being set up; GYGES placements) and over.
//
// # LEDs
//
// Every lit cell has a role; when roles compete for a cell the later row of
// this table wins. Slow blinking is 1 Hz, fast 4 Hz.
//
//	role     colour                       blink   meaning
//	paint    owner's colour, dim          steady  DAHA: a painted cell
//	last     dim white                    steady  the last move's destination
//	turn     mover's colour               steady  whose turn: the pieces the mover may lift
//	         mover's colour, dim          steady  …or the cells they may place on (GYGES setup, six)
//	roll     mover's colour               slow    a roll is due: the mover's pieces
//	target   green                        slow    after a roll: where the roll lets the mover go (RAY: the forced target)
//	dest     green                        steady  the lifted piece's legal destinations (GYGES replace: then where the displaced piece may go, slow)
//	pivot    white                        steady  STAR: the pivots of the lifted piece's destinations
//	remove   orange                       slow    pieces the move under way takes off (six split-off groups)
//	hint     cyan                         steady  a suggested move (from and to)
//	take     red                          fast    correction: take this piece off the board (DAHA: an eliminated piece)
//	fill     the piece's colour           slow    correction: a piece of this kind belongs here
//	pair     one colour of a palette      fast    correction: move this piece…
//	         (magenta, lime, pink, azure) steady  …to this cell (pairs from a minimum-cost matching on board distance)
//	illegal  red                          slow    a piece put where it may not go (its legal destinations stay green)
//	confirm  white                        fast    the proposed reading's cells (slow: the other candidates)
//	win      winner's colour              fast    the winning pieces (GYGES: the piece on the goal)
//
// Seat and piece colours: red, yellow (255,170,0), blue (0,80,255), black as
// violet (150,0,255), white; GYGES south blue, north yellow, heights white.
//
// # State
//
// State returns a plain struct (JSON-ready) for `expect` assertions, the
// status API and the simulator page; State.Check implements the `expect`
// keys of SCRIPTS.md. Actions returns what was decided (moves, rolls,
// takebacks, new games, hint requests) for the owner to journal.
package referee
