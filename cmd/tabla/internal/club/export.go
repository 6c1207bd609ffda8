package club

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/cmd/tabla/internal/club/trf"
	"github.com/tabla-board/tabla/engine/rating"
)

// CrossRow is a player's line of the crosstable: by rank, each round's
// cell naming the opponents by their line's number.
type CrossRow struct {
	No        int           `json:"no"` // the line's number (by rank)
	Rank      int           `json:"rank"`
	Name      string        `json:"name"`
	Rating    rating.Rating `json:"rating"` // as the player came
	Out       string        `json:"out,omitempty"`
	Cells     []CrossCell   `json:"cells"`
	Points    float64       `json:"points"`
	Tiebreaks []float64     `json:"tiebreaks"`
}

// CrossCell is one round of a player.
type CrossCell struct {
	// Kind: game, forfeit, bye (the pairing-allocated one), half (a bye
	// asked for), absent (withdrawn, paused, not yet entered), open (a
	// game without its result yet).
	Kind   string  `json:"kind"`
	Opp    []int   `json:"opp,omitempty"` // the opponents' line numbers
	Seat   int     `json:"seat"`          // 0 the first seat
	Board  int     `json:"board,omitempty"`
	Place  int     `json:"place,omitempty"`
	Points float64 `json:"points"`
	Text   string  `json:"text"` // as printed: "5w1", "3b½", "4w+", "2b−", "bye 1", "½ bye", "−"; four seats "2nd 2 (5,7,8)"
}

// Crosstable is the section's crosstable: its players by rank, each
// round's cell.
func (s *Section) Crosstable() []CrossRow {
	st := s.Standings()
	no := map[string]int{}
	rows := make([]CrossRow, len(st))
	for i, x := range st {
		no[x.Name] = i + 1
		p := s.Players[s.player(x.Name)]
		rows[i] = CrossRow{No: i + 1, Rank: x.Rank, Name: x.Name, Rating: p.Rating, Out: p.Out, Points: x.Points, Tiebreaks: x.Tiebreaks}
	}
	bye := s.byePoints()
	for _, r := range s.Played {
		cells := map[string]CrossCell{}
		for _, b := range r.Byes {
			cells[b] = CrossCell{Kind: "bye", Points: bye, Text: "bye " + FormatPoints(bye)}
		}
		for _, b := range r.Half {
			cells[b] = CrossCell{Kind: "half", Points: bye / 2, Text: FormatPoints(bye/2) + " bye"}
		}
		for _, p := range r.Pairings {
			for i, name := range p.Players {
				c := CrossCell{Kind: "open", Seat: i, Board: p.Board}
				for j, o := range p.Players {
					if j != i {
						c.Opp = append(c.Opp, no[o])
					}
				}
				if p.Result != nil {
					c.Kind, c.Points, c.Place = "game", p.Result.Points[i], p.Result.Places[i]
					if p.Result.Forfeit {
						c.Kind = "forfeit"
					}
				}
				c.Text = s.cellText(c)
				cells[name] = c
			}
		}
		for i := range rows {
			c, ok := cells[rows[i].Name]
			if !ok {
				c = CrossCell{Kind: "absent", Text: "−"}
			}
			rows[i].Cells = append(rows[i].Cells, c)
		}
	}
	return rows
}

func (s *Section) cellText(c CrossCell) string {
	opp := make([]string, len(c.Opp))
	for i, o := range c.Opp {
		opp[i] = strconv.Itoa(o)
	}
	if len(s.Seats) == 2 {
		seat := "wb"[c.Seat : c.Seat+1]
		switch c.Kind {
		case "open":
			return opp[0] + seat
		case "forfeit":
			return opp[0] + seat + map[bool]string{true: "+", false: "−"}[c.Points > 0]
		}
		return opp[0] + seat + FormatPoints(c.Points)
	}
	mates := "(" + strings.Join(opp, ",") + ")"
	switch c.Kind {
	case "open":
		return "board " + strconv.Itoa(c.Board) + " " + mates
	case "forfeit":
		return map[bool]string{true: "+", false: "−"}[c.Points > 0] + FormatPoints(c.Points) + " " + mates
	}
	return ordinal(c.Place) + " " + FormatPoints(c.Points) + " " + mates
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return strconv.Itoa(n) + "th"
}

// FormatPoints writes points exactly, halves as ½: 2, 1½, ½, 0.25.
func FormatPoints(v float64) string {
	whole, frac := int(v), v-float64(int(v))
	switch {
	case frac == 0:
		return strconv.Itoa(whole)
	case frac == 0.5 && whole == 0:
		return "½"
	case frac == 0.5:
		return strconv.Itoa(whole) + "½"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// WriteCrosstableCSV writes the crosstable as CSV: a header line (no,
// rank, name, rating, rd, out, R1…Rn, points, the tie-breaks), then a
// line per player by rank; the rounds' cells as Crosstable's Text.
func (s *Section) WriteCrosstableCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"no", "rank", "name", "rating", "rd", "out"}
	for _, r := range s.Played {
		head = append(head, fmt.Sprintf("R%d", r.N))
	}
	head = append(head, "points")
	head = append(head, TiebreakNames(s.System)...)
	cw.Write(head)
	for _, row := range s.Crosstable() {
		line := []string{strconv.Itoa(row.No), strconv.Itoa(row.Rank), row.Name, strconv.FormatFloat(row.Rating.R, 'f', 0, 64),
			strconv.FormatFloat(row.Rating.RD, 'f', 0, 64), row.Out}
		for _, c := range row.Cells {
			line = append(line, c.Text)
		}
		line = append(line, strconv.FormatFloat(row.Points, 'f', -1, 64))
		for _, t := range row.Tiebreaks {
			line = append(line, strconv.FormatFloat(t, 'f', -1, 64))
		}
		cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// TRF is the section as FIDE's TRF-16 (package trf) for a pairing
// program: the players numbered as the Swiss numbers them (by the rating
// they came with, then registration: SwissHistory), the complete rounds'
// cells (the first seat as w; a forfeit + and −, both lost "-" without an
// opponent; the pairing-allocated bye U, a bye asked for H, absent Z),
// the planned rounds (XXR) and the ranks. Games of four have no TRF.
func (s *Section) TRF(name string) (*trf.Tournament, error) {
	if len(s.Seats) != 2 {
		return nil, fmt.Errorf("%s is played four to a table: TRF reports two-player games", s.Game)
	}
	order := slices.Clone(s.Players)
	slices.SortStableFunc(order, func(a, b Player) int {
		switch {
		case a.Rating.R > b.Rating.R:
			return -1
		case a.Rating.R < b.Rating.R:
			return 1
		}
		return 0
	})
	num := map[string]int{}
	t := &trf.Tournament{Name: name, Rounds: s.Rounds, FirstSeat: 'w'}
	rank := map[string]int{}
	for _, st := range s.Standings() {
		rank[st.Name] = st.Rank
	}
	for i, p := range order {
		num[p.Name] = i + 1
		t.Players = append(t.Players, trf.Player{ID: i + 1, Name: p.Name, Rating: int(p.Rating.R + 0.5), Rank: rank[p.Name]})
	}
	for _, r := range s.Played {
		if !r.Complete() {
			break
		}
		cells := map[string]trf.Cell{}
		for _, b := range r.Byes {
			cells[b] = trf.Cell{Colour: '-', Result: 'U'}
		}
		for _, b := range r.Half {
			cells[b] = trf.Cell{Colour: '-', Result: 'H'}
		}
		for _, p := range r.Pairings {
			a, b := p.Players[0], p.Players[1]
			res := p.Result
			if res.Forfeit && res.Points[0]+res.Points[1] != 1 {
				cells[a], cells[b] = trf.Cell{Colour: '-', Result: '-'}, trf.Cell{Colour: '-', Result: '-'}
				continue
			}
			ra, rb := byte('='), byte('=')
			switch {
			case res.Forfeit && res.Points[0] == 1:
				ra, rb = '+', '-'
			case res.Forfeit:
				ra, rb = '-', '+'
			case res.Points[0] == 1:
				ra, rb = '1', '0'
			case res.Points[0] == 0:
				ra, rb = '0', '1'
			}
			cells[a] = trf.Cell{Opponent: num[b], Colour: 'w', Result: ra}
			cells[b] = trf.Cell{Opponent: num[a], Colour: 'b', Result: rb}
		}
		for i := range t.Players {
			c, ok := cells[t.Players[i].Name]
			if !ok {
				c = trf.Cell{Colour: '-', Result: 'Z'}
			}
			t.Players[i].Cells = append(t.Players[i].Cells, c)
		}
	}
	for i := range t.Players {
		for _, c := range t.Players[i].Cells {
			t.Players[i].Points += c.Score()
		}
	}
	return t, nil
}
