package club

import "github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"

// HistoryOfTRF is a TRF's tournament as the Swiss pairing sees it: the
// start numbers as pairing numbers, every round's games (a forfeit, + or
// -, as not met), byes (U, F or a forfeit win without an opponent as the
// pairing-allocated bye; H and Z as requested), XXR as the planned
// rounds and XXC black1 as player 1 starting in the second seat.
func HistoryOfTRF(t *trf.Tournament) *SwissHistory {
	h := &SwissHistory{Planned: t.Rounds, SecondSeatFirst: t.FirstSeat == 'b'}
	rounds := 0
	for _, p := range t.Players {
		h.Ratings = append(h.Ratings, p.Rating)
		rounds = max(rounds, len(p.Cells))
	}
	for k := range rounds {
		var r SwissRound
		for _, p := range t.Players {
			if k >= len(p.Cells) {
				continue
			}
			switch c := p.Cells[k]; {
			case c.Result == ' ':
			case c.Opponent == 0:
				r.Byes = append(r.Byes, SwissBye{Player: p.ID, Points: c.Score(), Allocated: c.PairingBye()})
			case c.Colour == 'w':
				r.Games = append(r.Games, SwissGame{First: p.ID, Second: c.Opponent, Score: c.Score(), Forfeit: !c.Played()})
			}
		}
		h.Rounds = append(h.Rounds, r)
	}
	return h
}

// Points are each player's points by pairing number (index 0 player 1).
func (h *SwissHistory) Points() []float64 { return h.build().points }
