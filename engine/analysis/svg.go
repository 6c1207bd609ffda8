package analysis

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// SideColour is the line colour of a side in plots.
func SideColour(side string) string {
	switch side {
	case "red":
		return "#d62728"
	case "white":
		return "#8c8c8c"
	case "yellow":
		return "#e0a800"
	case "blue":
		return "#1f77b4"
	case "black":
		return "#222222"
	case "south":
		return "#2ca02c"
	case "north":
		return "#9467bd"
	}
	return "#17becf"
}

// WriteSVG draws the win-probability curve: one line per side over the move
// numbers, every inaccuracy, mistake, blunder and missed win marked on the
// mover's line (hover for the move), axis labels, grid and a legend with
// each mark's count. The SVG is self-contained.
func WriteSVG(w io.Writer, rep *Report) error {
	const (
		width, height = 960.0, 440.0
		left, right   = 64.0, 150.0
		top, bottom   = 48.0, 52.0
	)
	pw, ph := width-left-right, height-top-bottom
	n := len(rep.Moves)
	xs := func(i int) float64 { return left + pw*float64(i)/float64(max(n, 1)) }
	ys := func(p float64) float64 { return top + ph*(1-p) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	title := fmt.Sprintf("%s — %s — win probability by move (level %d, %s)", rep.Game, rep.Result, rep.Level, rep.Algo)
	fmt.Fprintf(&b, `<text x="%g" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	// Grid and y axis.
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := ys(p)
		dash := ` stroke-dasharray="3,3"`
		if p == 0 || p == 1 {
			dash = ""
		}
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#cccccc"%s/>`+"\n", left, y, left+pw, y, dash)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%d%%</text>`+"\n", left-6, y, int(p*100))
	}
	// x ticks: about ten.
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000} {
		step = s
		if n/s <= 12 {
			break
		}
	}
	for i := 0; i <= n; i += step {
		x := xs(i)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#888888"/>`+"\n", x, top+ph, x, top+ph+5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%d</text>`+"\n", x, top+ph+18, i)
	}
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#444444"/>`+"\n", left, top, left, top+ph)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#444444"/>`+"\n", left, top+ph, left+pw, top+ph)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">move</text>`+"\n", left+pw/2, height-10)
	fmt.Fprintf(&b, `<text transform="translate(16,%g) rotate(-90)" text-anchor="middle">win probability</text>`+"\n", top+ph/2)
	// One polyline per side.
	for si, side := range rep.Sides {
		var pts strings.Builder
		if si < len(rep.Start) {
			fmt.Fprintf(&pts, "%.1f,%.1f", xs(0), ys(rep.Start[si]))
		}
		for i, m := range rep.Moves {
			if si < len(m.Values) {
				fmt.Fprintf(&pts, " %.1f,%.1f", xs(i+1), ys(m.Values[si]))
			}
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round" points="%s"/>`+"\n", SideColour(side), strings.TrimSpace(pts.String()))
	}
	// Markers: every judged move on the mover's line, by tier (the page's
	// tiers), a missed win as a square.
	marked := map[string]int{}
	for i, m := range rep.Moves {
		kind := m.Tier
		if m.MissedWin {
			kind = "missed win"
		}
		if kind == "" {
			continue
		}
		marked[kind]++
		x, y := xs(i+1), ys(m.After)
		b.WriteString(svgMark(kind, x, y, SideColour(m.Side)))
		tip := fmt.Sprintf("%d. %s %s: %s, %.0f%% → %.0f%% (best %s)", m.N, m.Seat, m.Move, kind, 100*m.Before, 100*m.After, m.Best)
		if m.MissedWin && m.Tier != "" {
			tip = fmt.Sprintf("%d. %s %s: missed win (%s), %.0f%% → %.0f%% (best %s)", m.N, m.Seat, m.Move, m.Tier, 100*m.Before, 100*m.After, m.Best)
		}
		fmt.Fprintf(&b, `<title>%s</title></g>`+"\n", html.EscapeString(tip))
	}
	// Legend.
	lx, ly := left+pw+20, top+8
	for i, side := range rep.Sides {
		y := ly + float64(i)*20
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="3"/>`+"\n", lx, y, lx+22, y, SideColour(side))
		fmt.Fprintf(&b, `<text x="%g" y="%g" dominant-baseline="middle">%s</text>`+"\n", lx+28, y, html.EscapeString(side))
	}
	y := ly + float64(len(rep.Sides))*20 + 10
	for _, kind := range markKinds {
		b.WriteString(svgMark(kind, lx+11, y, "#444444"))
		b.WriteString("</g>\n")
		fmt.Fprintf(&b, `<text x="%g" y="%g" dominant-baseline="middle">%s (%d)</text>`+"\n", lx+28, y, kind, marked[kind])
		y += 20
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// markKinds are the marks of the curve, in the legend's order.
var markKinds = []string{"inaccuracy", "mistake", "blunder", "missed win"}

// svgMark opens a mark's group (class "mark KIND", closed by the caller
// after its title) at x, y: an inaccuracy a small ring, a mistake a ring, a
// blunder a bold ring with a dot, a missed win a square.
func svgMark(kind string, x, y float64, colour string) string {
	g := fmt.Sprintf(`<g class="mark %s">`, strings.ReplaceAll(kind, " ", "-"))
	switch kind {
	case "inaccuracy":
		return g + fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="#ffffff" stroke="%s" stroke-width="1.5"/>`, x, y, colour)
	case "mistake":
		return g + fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="5" fill="#ffffff" stroke="%s" stroke-width="2.5"/>`, x, y, colour)
	case "blunder":
		return g + fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="6" fill="#ffffff" stroke="%s" stroke-width="3"/><circle cx="%.1f" cy="%.1f" r="2" fill="%s"/>`, x, y, colour, x, y, colour)
	}
	return g + fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="10" height="10" fill="#ffffff" stroke="%s" stroke-width="2.5"/>`, x-5, y-5, colour)
}
