package library

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ErrNotAnalysed: the game's analysis is not done yet.
var ErrNotAnalysed = errors.New("not analysed yet")

// Comment is a comment line of an annotated record. RULES.md §6 lets
// records carry event kinds beside moves and rolls, which rules tools skip;
// a comment is such a line, its first key "comment", so the annotated
// record replays exactly as the record it was made from. Ply is the move
// it follows (0: the summary after the header).
type Comment struct {
	Comment string `json:"comment"`
	Ply     int    `json:"ply"`
	Tier    string `json:"tier,omitempty"` // inaccuracy, mistake, blunder
	Missed  bool   `json:"missed_win,omitempty"`
	Loss    *int   `json:"loss,omitempty"` // points of win probability lost
	Better  string `json:"better,omitempty"`
	// Variation is a line played on the analysis board from step Ply
	// (moves in canonical notation, rolls as "roll:FACE"): one branch of
	// the page's tree of variations, the lines that share a beginning
	// being its sub-variations.
	Variation []string `json:"variation,omitempty"`
}

// Variation is a line of the analysis board's tree of variations: the
// moves (and rolls) of Line played from the game's step Ply.
type Variation struct {
	Ply  int      `json:"ply"`
	Line []string `json:"line"`
}

// MaxVariations bounds the variations an annotated record carries.
const MaxVariations = 64

// Annotated returns the record of an analysed game with its analysis as
// comment lines: after the header the summary (level, accuracy per seat,
// the tiers' counts), and after every inaccuracy, mistake, blunder or
// missed win what it lost and the engine's better move. Every line of the
// record is kept as it is.
func (l *Library) Annotated(id string) ([]byte, error) {
	return l.AnnotatedWith(id, nil)
}

// AnnotatedWith is Annotated with the variations of vars as comment lines
// after the move each starts from ("variation from move 4: …", its moves
// in "variation"), sorted by move and line so that a sub-variation
// follows the line it branches from. Each is played first: one that
// cannot be played is an error naming it (ErrVariation), as is more than
// MaxVariations of them.
func (l *Library) AnnotatedWith(id string, vars []Variation) ([]byte, error) {
	if len(vars) > MaxVariations {
		return nil, fmt.Errorf("library: %d variations, at most %d: %w", len(vars), MaxVariations, ErrVariation)
	}
	played := make([]Variation, 0, len(vars))
	for i, v := range vars {
		if len(v.Line) == 0 {
			continue
		}
		_, line, err := l.explore(id, v.Ply, v.Line)
		if err != nil {
			return nil, fmt.Errorf("variation %d (from move %d): %w", i+1, v.Ply, err)
		}
		played = append(played, Variation{Ply: v.Ply, Line: line})
	}
	slices.SortFunc(played, func(a, b Variation) int {
		if a.Ply != b.Ply {
			return cmp.Compare(a.Ply, b.Ply)
		}
		return slices.Compare(a.Line, b.Line)
	})
	played = slices.CompactFunc(played, func(a, b Variation) bool { return a.Ply == b.Ply && slices.Equal(a.Line, b.Line) })
	a, _, err := l.Analysis(id)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("library: %s: %w", id, ErrNotAnalysed)
	}
	f, e, err := l.Record(id)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxRecordBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > MaxRecordBytes {
		return nil, fmt.Errorf("library: %s: too large", e.ID)
	}
	return annotate(data, a, played)
}

// annotate inserts the comment lines of a and of the variations vars into
// the record data.
func annotate(data []byte, a *Analysis, vars []Variation) ([]byte, error) {
	after := map[int][]Comment{} // record line → comments after it
	after[1] = []Comment{{Comment: summary(a)}}
	for _, m := range a.Report.Moves {
		if m.Tier == "" && !m.MissedWin {
			continue
		}
		c := Comment{Ply: m.N, Tier: m.Tier, Missed: m.MissedWin, Better: m.Best}
		loss := int(100*m.Loss + 0.5)
		c.Loss = &loss
		what := m.Tier
		if m.MissedWin {
			what = strings.TrimPrefix(what+", missed win", ", ")
		}
		c.Comment = fmt.Sprintf("%d. %s %s: %s (%s → %s)", m.N, m.Seat, m.Move, what, pct(m.Before), pct(m.After))
		if m.Best != "" && m.Best != m.Move {
			c.Comment += "; better " + m.Best
		}
		after[m.Line] = append(after[m.Line], c)
	}
	for _, v := range vars {
		at, what := 1, "the start"
		if v.Ply > 0 {
			what = fmt.Sprintf("move %d", v.Ply)
			if v.Ply <= len(a.Report.Moves) {
				at = a.Report.Moves[v.Ply-1].Line
			}
		}
		after[at] = append(after[at], Comment{Comment: fmt.Sprintf("variation from %s: %s", what, strings.Join(v.Line, " ")), Ply: v.Ply, Variation: v.Line})
	}
	var out bytes.Buffer
	out.Grow(len(data) + 128*len(after))
	rd := bufio.NewReader(bytes.NewReader(data))
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		out.Write(line)
		if line[len(line)-1] != '\n' {
			out.WriteByte('\n')
		}
		for _, c := range after[n] {
			b, err := json.Marshal(c)
			if err != nil {
				return nil, err
			}
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

func pct(p float64) string { return fmt.Sprintf("%.0f%%", 100*p) }

// summary is the annotated record's first comment.
func summary(a *Analysis) string {
	r := a.Report
	var b strings.Builder
	fmt.Fprintf(&b, "tabla analysis, level %d (%s): %s.", a.Level, r.Algo, r.Result)
	for _, p := range r.Players {
		fmt.Fprintf(&b, " %s: ", p.Seat)
		if p.Accuracy >= 0 {
			fmt.Fprintf(&b, "accuracy %.0f, ", p.Accuracy)
		} else {
			b.WriteString("accuracy none (no move with a choice), ")
		}
		fmt.Fprintf(&b, "%d inaccuracies, %d mistakes, %d blunders", p.Inaccuracies, p.Mistakes, p.Blunders)
		if p.MissedWins > 0 {
			fmt.Fprintf(&b, ", %d missed wins", p.MissedWins)
		}
		b.WriteByte('.')
	}
	b.WriteString(" Accuracy is computed as lichess computes it: per move with a choice 103.1668·exp(−4.354·loss) − 2.1669 (0–100, 100 for no loss; loss in win probability), then the mean of two means of those moves, one weighted by how much the game swung around each move, one harmonic.")
	return b.String()
}
