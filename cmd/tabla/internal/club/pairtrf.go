package club

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
)

// Systems that PairTRF knows.
const (
	SystemDutch  = "dutch"  // FIDE Dutch Swiss (PairDutch)
	SystemBerger = "berger" // FIDE Berger round robin (Berger)
)

// PairTRF pairs the round after a TRF's last by a system: dutch from the
// history, berger as the table's next round (the earlier rounds must be
// the table's, or the next one could be a rematch).
func PairTRF(t *trf.Tournament, system string) (*SwissPairing, error) {
	switch system {
	case SystemDutch:
		return PairDutch(HistoryOfTRF(t))
	case SystemBerger:
		return pairBergerTRF(t)
	}
	return nil, fmt.Errorf("club: no pairing system %q (%s or %s)", system, SystemDutch, SystemBerger)
}

func pairBergerTRF(t *trf.Tournament) (*SwissPairing, error) {
	n := len(t.Players)
	h := HistoryOfTRF(t)
	for k, r := range h.Rounds {
		table, err := Berger(n, k+1)
		if err != nil {
			return nil, err
		}
		want := bergerPairing(table, n)
		var have SwissPairing
		for _, g := range r.Games {
			have.Boards = append(have.Boards, [2]int{g.First, g.Second})
		}
		for _, b := range r.Byes {
			have.Bye = b.Player
		}
		if !samePairs(want, &have) {
			return nil, fmt.Errorf("club: round %d is not round %d of Berger's table for %d players (%s)", k+1, k+1, n, want)
		}
	}
	table, err := Berger(n, len(h.Rounds)+1)
	if err != nil {
		return nil, err
	}
	return bergerPairing(table, n), nil
}

// bergerPairing is a Berger round for n players: meeting n+1 is the bye.
func bergerPairing(table [][2]int, n int) *SwissPairing {
	p := &SwissPairing{}
	for _, b := range table {
		switch {
		case b[0] > n:
			p.Bye = b[1]
		case b[1] > n:
			p.Bye = b[0]
		default:
			p.Boards = append(p.Boards, b)
		}
	}
	return p
}

// samePairs: the same boards (as unordered pairs) and bye.
func samePairs(a, b *SwissPairing) bool {
	key := func(p *SwissPairing) [][2]int {
		var out [][2]int
		for _, x := range p.Boards {
			out = append(out, [2]int{min(x[0], x[1]), max(x[0], x[1])})
		}
		slices.SortFunc(out, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
		return out
	}
	return a.Bye == b.Bye && slices.Equal(key(a), key(b))
}

// String is the pairing as its .pairs lines, one board a line: "3-7".
func (p *SwissPairing) String() string {
	s := ""
	for i, b := range p.Boards {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d-%d", b[0], b[1])
	}
	if p.Bye != 0 {
		s += fmt.Sprintf(" bye %d", p.Bye)
	}
	return s
}

// WritePairs writes the pairing as bbpPairings' .pairs files: the number
// of lines that follow, then "first second" per board, board 1 first,
// and "ID 0" for the bye.
func (p *SwissPairing) WritePairs(w io.Writer) error {
	n := len(p.Boards)
	if p.Bye != 0 {
		n++
	}
	if _, err := fmt.Fprintln(w, n); err != nil {
		return err
	}
	for _, b := range p.Boards {
		if _, err := fmt.Fprintf(w, "%d %d\n", b[0], b[1]); err != nil {
			return err
		}
	}
	if p.Bye != 0 {
		_, err := fmt.Fprintf(w, "%d 0\n", p.Bye)
		return err
	}
	return nil
}
