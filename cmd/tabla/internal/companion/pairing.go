package companion

import (
	"errors"
	"fmt"
	"time"

	"github.com/tabla-board/tabla/engine/referee"
	"github.com/tabla-board/tabla/hardware"
)

// Pairing a phone with the table: a browser asks to control the board
// (RequestPairing); while the request stands every LED of the board pulses
// (PairingLight, slow blink, role "pairing") and the page says "press the
// board's confirm button"; a press of the board's own confirm button within
// the window grants it. Only a physical press counts: the confirm command of
// the API (a phone already paired, a script) does not, so a browser cannot
// grant itself.
//
// The confirm button also accepts the referee's proposals. A press while
// the referee asks for a confirmation (confirm mode: candidates blink
// white) goes to the referee and does not grant the request: the overlay
// is not shown then, the request waits, and the next press, once the
// proposal is settled, grants it. Outside confirm mode the referee ignores
// the confirm button, so granting a request on it never changes the game;
// the press is journalled as every board event is, and replay reads it as
// the no-op it is for the referee.

// PairingLight is the colour every LED pulses with while a pairing request
// stands: magenta, slow blink.
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
}

// RequestPairing asks the person at the table to allow a phone: every LED
// pulses until the board's confirm button is pressed (the channel receives
// true) or window passes (false; 0 means PairingWindow). Only one request
// stands at a time: a second one gets ErrPairingBusy.
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
	p := &pairRequest{done: make(chan bool, 1), until: time.Now().Add(window)}
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

// pairingOverlay returns the frame to send: the referee's, or while a
// pairing request stands (and no confirmation is asked) every LED pulsing.
func (s *Session) pairingOverlayLocked(frame []hardware.LED) []hardware.LED {
	if !s.pairingShownLocked() {
		return frame
	}
	for i := range frame {
		frame[i] = PairingLight
	}
	return frame
}

func (s *Session) pairingShownLocked() bool {
	return s.pair != nil && !s.confirmingLocked()
}

// confirmingLocked: the referee asks for a confirmation (the confirm
// button is its).
func (s *Session) confirmingLocked() bool {
	return s.ref.State().Mode == referee.ModeConfirm.String()
}

// pairingStateLocked puts the overlay into a state: every cell with an LED
// lit with role "pairing", and a message.
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
	lit := make(map[string]referee.LED, len(s.board.Cells))
	for i, c := range s.board.Cells {
		if i < len(s.board.LEDs) && s.board.LEDs[i] >= 0 {
			lit[c.Name] = referee.LED{R: PairingLight.R, G: PairingLight.G, B: PairingLight.B, Blink: uint8(PairingLight.Blink), Role: "pairing"}
		}
	}
	st.LEDs = lit
	st.Message = fmt.Sprintf("A phone asks to control the board: press the board's confirm button within %s to allow it", left)
}
