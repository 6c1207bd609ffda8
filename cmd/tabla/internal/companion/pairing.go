package companion

import (
	"errors"
	"fmt"
	"github.com/tabla-board/tabla/cmd/tabla/internal/i18n"
	"maps"
	"slices"
	"time"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// Pairing a phone with the table: a browser asks to control the board
// (RequestPairing); while the request stands one corner cell's LED pulses
// (PairingLight, slow blink, role "pairing") and the page says "press the
// board's confirm button"; a press of the board's own confirm button within
// the window grants it. Only a physical press counts: the confirm command of
// the API (a phone already paired, a script) does not, so a browser cannot
// grant itself.
//
// A request never hides the board's guidance: board definitions have no LED
// at the confirm button, so the request shows on one corner cell (the
// cells with the least and greatest x+y and x−y, in that order: a1 first on
// a square board), the first whose LED the referee leaves dark, else the
// first that only shows whose turn it is or the last move (roles paint,
// last, turn, roll); if every corner shows more, the request shows on the
// page alone. Every other LED stays as the referee lit it: a lifted piece's
// destinations, hints, corrections. Any move made on the board cancels the
// request (the person at the table is playing, not granting).
//
// The confirm button also accepts the referee's proposals. A press while
// the referee asks for a confirmation (confirm mode: candidates blink
// white) goes to the referee and does not grant the request: the overlay
// is not shown then, the request waits, and the next press, once the
// proposal is settled, grants it. Outside confirm mode the referee ignores
// the confirm button, so granting a request on it never changes the game;
// the press is journalled as every board event is, and replay reads it as
// the no-op it is for the referee.

// PairingLight is the colour the pairing corner pulses with while a
// pairing request stands: magenta, slow blink.
var PairingLight = hardware.LED{R: 255, B: 255, Blink: hardware.Slow}

// PairingWindow is how long a pairing request waits for the confirm button.
const PairingWindow = 30 * time.Second

// Errors of RequestPairing.
var (
	ErrPairingBusy = errors.New("companion: another phone is asking to control the board; try again when its request is settled (at most 30 s)")
	ErrNoButtons   = errors.New("companion: this board has no buttons, so no phone can be paired by its confirm button; use the token")
)

type pairRequest struct {
	done  chan bool
	until time.Time
	timer *time.Timer
	cell  int // the cell showing the request (-1: none), set with the frame
}

// RequestPairing asks the person at the table to allow a phone: a corner
// LED pulses until the board's confirm button is pressed (the channel receives
// true) or window passes (false; 0 means PairingWindow) or a move is made
// on the board (false). Only one request stands at a time: a second one
// gets ErrPairingBusy.
func (s *Session) RequestPairing(window time.Duration) (<-chan bool, error) {
	if window <= 0 {
		window = PairingWindow
	}
	if !s.hw.Info().Buttons {
		return nil, ErrNoButtons
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pair != nil {
		return nil, ErrPairingBusy
	}
	p := &pairRequest{done: make(chan bool, 1), until: time.Now().Add(window), cell: -1}
	s.pair = p
	p.timer = time.AfterFunc(window, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.pair == p {
			s.pair = nil
			p.done <- false
			s.log.Info("pairing request expired")
			s.pairChangedLocked()
		}
	})
	s.log.Info("pairing requested", "window", window.String())
	s.pairChangedLocked()
	return p.done, nil
}

// Pairing reports whether a pairing request stands and how long it has left.
func (s *Session) Pairing() (pending bool, left time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pair == nil {
		return false, 0
	}
	return true, max(0, time.Until(s.pair.until))
}

// pairPressLocked grants a standing pairing request on the board's confirm
// button, unless the referee waits for a confirmation (the press is its).
// It runs before the referee sees the press.
func (s *Session) pairPressLocked(ev hardware.Event) {
	if s.pair == nil || ev.Kind != hardware.Press || ev.Button != hardware.ButtonConfirm || s.confirmingLocked() {
		return
	}
	p := s.pair
	s.pair = nil
	p.timer.Stop()
	p.done <- true
	s.log.Info("pairing granted by the confirm button")
	s.pairChangedLocked()
}

// pairChangedLocked shows the change on the LEDs and tells subscribers.
func (s *Session) pairChangedLocked() {
	s.lastLED = s.lastLED[:0] // force the frame out
	s.afterLocked()
	s.notifyLocked()
}

// pairingOverlayLocked returns the frame to send: the referee's, with the
// pairing corner pulsing while a request stands (and no confirmation is
// asked).
func (s *Session) pairingOverlayLocked(frame []hardware.LED) []hardware.LED {
	s.pair.cell = -1
	if !s.pairingShownLocked() {
		return frame
	}
	var roles map[string]referee.LED
	for pass := 0; pass < 2 && s.pair.cell < 0; pass++ {
		for _, c := range pairCorners(s.board) {
			led := s.board.LEDs[c]
			if led >= len(frame) {
				continue
			}
			if l := frame[led]; l.R != 0 || l.G != 0 || l.B != 0 {
				if pass == 0 {
					continue
				}
				if roles == nil {
					roles = s.ref.State().LEDs
				}
				if !overridable[roles[s.board.Cells[c].Name].Role] {
					continue
				}
			}
			s.pair.cell = c
			frame[led] = PairingLight
			break
		}
	}
	return frame
}

// overridable are the roles a pairing request may cover for its window:
// reminders of whose turn it is and of the last move, not guidance.
var overridable = map[string]bool{"paint": true, "last": true, "turn": true, "roll": true}

// pairCorners are the cells that may show a pairing request, in order of
// preference: the non-goal cells with an LED that have the least x+y, the
// greatest x+y, the least x−y and the greatest x−y (a square board's a1,
// far corner, and the other two).
func pairCorners(b *boards.Board) []int {
	keys := []func(c boards.Cell) float64{
		func(c boards.Cell) float64 { return c.X + c.Y },
		func(c boards.Cell) float64 { return -(c.X + c.Y) },
		func(c boards.Cell) float64 { return c.X - c.Y },
		func(c boards.Cell) float64 { return c.Y - c.X },
	}
	out := make([]int, 0, len(keys))
	for _, key := range keys {
		best := -1
		for i, c := range b.Cells {
			if c.Goal || i >= len(b.LEDs) || b.LEDs[i] < 0 {
				continue
			}
			if best < 0 || key(c) < key(b.Cells[best]) {
				best = i
			}
		}
		if best >= 0 && !slices.Contains(out, best) {
			out = append(out, best)
		}
	}
	return out
}

// pairMovedLocked cancels a standing request when a move is made on the
// board (afterLocked then sends the frame without it).
func (s *Session) pairMovedLocked() {
	if s.pair == nil {
		return
	}
	p := s.pair
	s.pair = nil
	p.timer.Stop()
	p.done <- false
	s.log.Info("pairing request cancelled by a move on the board")
}

func (s *Session) pairingShownLocked() bool {
	return s.pair != nil && !s.confirmingLocked()
}

// confirmingLocked: the referee asks for a confirmation (the confirm
// button is its).
func (s *Session) confirmingLocked() bool {
	return s.ref.State().Mode == referee.ModeConfirm.String()
}

// pairingWordsLocked is the standing request in the page's words: what
// to press and where the light pulses (nil without a request).
func (s *Session) pairingWordsLocked() *i18n.Text {
	if s.pair == nil {
		return nil
	}
	left := int(max(0, time.Until(s.pair.until)).Round(time.Second) / time.Second)
	if !s.pairingShownLocked() {
		t := i18n.T("msg.pair.wait", "n", left)
		return &t
	}
	if c := s.pair.cell; c >= 0 {
		t := i18n.T("msg.pair.at", "cell", s.board.Cells[c].Name, "n", left)
		return &t
	}
	t := i18n.T("msg.pair", "n", left)
	return &t
}

// pairingStateLocked puts the request into a state: the corner showing it
// lit with role "pairing" (the referee's other lights as they are), and a
// message.
func (s *Session) pairingStateLocked(st *referee.State) {
	if s.pair == nil {
		return
	}
	left := max(0, time.Until(s.pair.until)).Round(time.Second)
	if !s.pairingShownLocked() {
		msg := fmt.Sprintf("a phone asks to control the board: settle this first, then press confirm (%s left)", left)
		if st.Message != "" {
			msg = st.Message + " — " + msg
		}
		st.Message = msg
		return
	}
	where := ""
	if c := s.pair.cell; c >= 0 {
		lit := make(map[string]referee.LED, len(st.LEDs)+1)
		maps.Copy(lit, st.LEDs)
		lit[s.board.Cells[c].Name] = referee.LED{R: PairingLight.R, G: PairingLight.G, B: PairingLight.B, Blink: uint8(PairingLight.Blink), Role: "pairing"}
		st.LEDs = lit
		where = " (" + s.board.Cells[c].Name + " pulses magenta)"
	}
	msg := fmt.Sprintf("A phone asks to control the board%s: press the board's confirm button within %s to allow it", where, left)
	if st.Message != "" {
		msg = st.Message + " — " + msg
	}
	st.Message = msg
}
