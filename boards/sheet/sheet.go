// Package sheet draws a board at real scale as SVG pages to print: a maker's
// drilling and wiring template.
//
// One unit of a board's cell coordinates is Board.Pitch millimetres, and one
// SVG user unit is one millimetre: every page is exactly an A3 or A4 sheet
// (width="297mm" height="420mm" viewBox="0 0 297 420"), so printing at
// actual size — or fitting the page to the same paper — keeps the scale. A
// 100 mm bar on every sheet checks the printer.
//
// Each cell has a drill mark at its centre (a cross and a small circle; where
// its sensor goes), its name, its sensor index (S12, blue) and its LED index
// (L7, orange). Two polylines run through the cells: the sensor order (blue,
// nudged up-left) and the LED order (orange, nudged down-right), arrows
// pointing along the chain and a dot at its start, so a maker sees the order
// to solder the shift registers and the LED strip in.
//
// A board larger than the printable part of one sheet is split into a grid of
// sheets, all in one orientation (the one needing fewer sheets; portrait on a
// tie). Neighbouring sheets share a strip of Overlap millimetres, shaded on
// both, with registration crosses (circles with a cross) in it, kept half a
// pitch from every drill mark so that drilling leaves them; crop marks
// show each sheet's printed window. Trim a sheet along its crop marks on the
// sides where it has a neighbour above or to the left, lay it over that
// neighbour with the crosses on top of each other, and tape. Every sheet says
// which it is ("sheet 2 of 6, row 1, column 2") and shows a small map of the
// grid of sheets.
package sheet

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tabla-board/tabla/boards"
)

// Paper is a sheet size in mm, portrait.
type Paper struct {
	Name string
	W, H float64
}

// The papers a maker prints on.
var (
	A3 = Paper{"A3", 297, 420}
	A4 = Paper{"A4", 210, 297}
)

// PaperByName returns A3 or A4 (any case).
func PaperByName(name string) (Paper, bool) {
	switch strings.ToUpper(name) {
	case "A3":
		return A3, true
	case "A4":
		return A4, true
	}
	return Paper{}, false
}

// Options control the layout. Zero values pick the defaults.
type Options struct {
	Paper   Paper   // default A3
	Margin  float64 // unprinted edge of the paper, mm; default 10
	Overlap float64 // strip shared by neighbouring sheets, mm; default the pitch, within 15–30
}

// LegendHeight is the band under the board on every sheet (mm).
const LegendHeight = 30

// Colours of the two chains (blue and orange tell apart for most colour-blind
// readers too).
const (
	SensorColour = "#0057b8"
	LEDColour    = "#d94f00"
)

// Rect is a rectangle in mm, y downwards.
type Rect struct{ X, Y, W, H float64 }

func (r Rect) contains(x, y float64) bool {
	return x >= r.X && x <= r.X+r.W && y >= r.Y && y <= r.Y+r.H
}

func (r Rect) meets(x, y, pad float64) bool {
	return x+pad >= r.X && x-pad <= r.X+r.W && y+pad >= r.Y && y-pad <= r.Y+r.H
}

// Sheet is a board laid out on paper.
type Sheet struct {
	Board     *boards.Board
	Paper     Paper
	Landscape bool
	Pitch     float64
	// Width and Height are the drawing's extent in mm: the cell centres'
	// extent times the pitch, plus Pad on every side.
	Width, Height float64
	Pad           float64
	Margin        float64
	Overlap       float64
	Rows, Cols    int // the grid of sheets
	Pages         []Page
}

// Page is one printed sheet.
type Page struct {
	N        int // 1-based, row by row from the top left
	Row, Col int // 0-based place in the grid of sheets
	// Window is the part of the drawing this sheet shows, in drawing mm; it is
	// printed at (Margin, Margin) on the paper.
	Window Rect
	// Cells are the cells whose centre (drill mark) lies in the window.
	Cells []int
	SVG   []byte
}

// Render lays b out on sheets of paper and draws every sheet.
func Render(b *boards.Board, o Options) (*Sheet, error) {
	if len(b.Cells) == 0 {
		return nil, fmt.Errorf("sheet: board %s has no cells", b.Name)
	}
	p := b.Pitch
	if p <= 0 {
		p = boards.DefaultPitch[b.Game]
	}
	if p <= 0 {
		return nil, fmt.Errorf("sheet: board %s has no pitch", b.Name)
	}
	if o.Paper.W == 0 {
		o.Paper = A3
	}
	if o.Margin == 0 {
		o.Margin = 10
	}
	if o.Overlap == 0 {
		o.Overlap = math.Min(math.Max(15, p), 30)
	}
	s := &Sheet{Board: b, Paper: o.Paper, Pitch: p, Margin: o.Margin, Overlap: o.Overlap}
	s.Pad = outline(b, p) + 4
	minX, maxX, minY, maxY := extent(b)
	s.Width = (maxX-minX)*p + 2*s.Pad
	s.Height = (maxY-minY)*p + 2*s.Pad
	pos := func(c boards.Cell) (float64, float64) {
		return (c.X-minX)*p + s.Pad, (maxY-c.Y)*p + s.Pad
	}

	// Orientation: fewer sheets wins, portrait on a tie.
	win := func(land bool) (float64, float64) {
		w, h := o.Paper.W, o.Paper.H
		if land {
			w, h = h, w
		}
		return w - 2*o.Margin, h - 2*o.Margin - LegendHeight
	}
	count := func(total, w float64) int {
		if total <= w {
			return 1
		}
		return int(math.Ceil((total - s.Overlap) / (w - s.Overlap)))
	}
	ww, wh := win(false)
	if ww <= s.Overlap || wh <= s.Overlap {
		return nil, fmt.Errorf("sheet: %s paper with %g mm margins is too small for an overlap of %g mm", o.Paper.Name, o.Margin, s.Overlap)
	}
	s.Cols, s.Rows = count(s.Width, ww), count(s.Height, wh)
	lw, lh := win(true)
	if lw > s.Overlap && lh > s.Overlap {
		if lc, lr := count(s.Width, lw), count(s.Height, lh); lc*lr < s.Cols*s.Rows {
			s.Landscape, s.Cols, s.Rows, ww, wh = true, lc, lr, lw, lh
		}
	}
	if s.Cols*s.Rows > 400 {
		return nil, fmt.Errorf("sheet: %s at pitch %g mm needs %d × %d %s sheets (at most 400)", b.Name, p, s.Cols, s.Rows, o.Paper.Name)
	}
	// Tiles step by window minus overlap; the grid of windows is centred on
	// the drawing.
	origin := func(n int, win, total float64) float64 {
		tiled := float64(n)*(win-s.Overlap) + s.Overlap
		return -(tiled - total) / 2
	}
	x0, y0 := origin(s.Cols, ww, s.Width), origin(s.Rows, wh, s.Height)
	for r := 0; r < s.Rows; r++ {
		for c := 0; c < s.Cols; c++ {
			pg := Page{N: r*s.Cols + c + 1, Row: r, Col: c,
				Window: Rect{x0 + float64(c)*(ww-s.Overlap), y0 + float64(r)*(wh-s.Overlap), ww, wh}}
			for i, cell := range b.Cells {
				if x, y := pos(cell); pg.Window.contains(x, y) {
					pg.Cells = append(pg.Cells, i)
				}
			}
			s.Pages = append(s.Pages, pg)
		}
	}
	for i := range s.Pages {
		s.Pages[i].SVG = s.draw(&s.Pages[i], pos)
	}
	return s, nil
}

// PageFiles names the files of n sheets written for out: out itself for one
// sheet, else out's name with -1, -2, … before its extension
// (ray.svg: ray-1.svg, ray-2.svg, …).
func PageFiles(out string, n int) []string {
	if n == 1 {
		return []string{out}
	}
	ext := filepath.Ext(out)
	base := strings.TrimSuffix(out, ext)
	if ext == "" {
		ext = ".svg"
	}
	files := make([]string, n)
	for i := range files {
		files[i] = base + "-" + strconv.Itoa(i+1) + ext
	}
	return files
}

// outline is how far a cell's outline reaches from its centre, in mm.
func outline(b *boards.Board, p float64) float64 {
	switch b.Kind {
	case boards.Square:
		return p / 2
	case boards.Hex:
		return p / math.Sqrt(3)
	}
	return 0.32 * p
}

func extent(b *boards.Board) (minX, maxX, minY, maxY float64) {
	minX, maxX, minY, maxY = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, c := range b.Cells {
		minX, maxX = math.Min(minX, c.X), math.Max(maxX, c.X)
		minY, maxY = math.Min(minY, c.Y), math.Max(maxY, c.Y)
	}
	return
}

// num formats a length in mm: at most two decimals, no trailing zeros.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func esc(s string) string { return xmlEscaper.Replace(s) }

type svg struct{ strings.Builder }

func (w *svg) f(format string, args ...any) { fmt.Fprintf(w, format, args...) }

// draw writes one sheet.
func (s *Sheet) draw(pg *Page, pos func(boards.Cell) (float64, float64)) []byte {
	b, p := s.Board, s.Pitch
	pw, ph := s.Paper.W, s.Paper.H
	if s.Landscape {
		pw, ph = ph, pw
	}
	m, win := s.Margin, pg.Window
	fs := math.Max(2, math.Min(4.5, 0.16*p)) // cell label size
	if b.Kind == boards.Hex {
		fs = math.Max(2, math.Min(4.5, 0.13*p))
	}
	var w svg
	w.f("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	w.f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%smm\" height=\"%smm\" viewBox=\"0 0 %s %s\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n",
		num(pw), num(ph), num(pw), num(ph))
	w.f("<title>%s: sheet %d of %d, pitch %s mm, %s</title>\n", esc(b.Name), pg.N, len(s.Pages), num(p), s.paperName())
	arrow := math.Max(1.6, 0.1*p)
	w.f("<defs>\n")
	for _, mk := range []struct{ id, colour string }{{"as", SensorColour}, {"al", LEDColour}} {
		w.f("<marker id=\"%s\" viewBox=\"0 0 6 6\" refX=\"3\" refY=\"3\" markerWidth=\"%s\" markerHeight=\"%s\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0.5 L6,3 L0,5.5 z\" fill=\"%s\"/></marker>\n",
			mk.id, num(arrow), num(arrow), mk.colour)
	}
	w.f("<clipPath id=\"window\"><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/></clipPath>\n", num(m), num(m), num(win.W), num(win.H))
	w.f("</defs>\n")
	w.f("<style>.cell text{paint-order:stroke;stroke:#fff;stroke-width:0.6px;stroke-linejoin:round}</style>\n")
	w.f("<rect width=\"%s\" height=\"%s\" fill=\"white\"/>\n", num(pw), num(ph))

	// The board, in drawing mm, shifted so the window lands at (m, m).
	w.f("<g clip-path=\"url(#window)\"><g transform=\"translate(%s %s)\">\n", num(m-win.X), num(m-win.Y))
	visible := func(c boards.Cell) bool {
		x, y := pos(c)
		return win.meets(x, y, s.Pad)
	}
	// Cell outlines and, on graph boards, the edges between cells.
	w.f("<g class=\"outlines\" fill=\"none\" stroke=\"#888\" stroke-width=\"0.3\">\n")
	if b.Kind == boards.Graph {
		for i, c := range b.Cells {
			for _, j := range c.Adj {
				if j > i && (visible(c) || visible(b.Cells[j])) {
					x1, y1 := pos(c)
					x2, y2 := pos(b.Cells[j])
					w.f("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#ccc\"/>\n", num(x1), num(y1), num(x2), num(y2))
				}
			}
		}
	}
	for _, c := range b.Cells {
		if !visible(c) {
			continue
		}
		x, y := pos(c)
		fill := ""
		if c.Mark != "" {
			fill = ` fill="#ffe3c4"`
		}
		switch {
		case c.Goal:
			x1, x2 := x, x
			for _, j := range c.Adj {
				ax, _ := pos(b.Cells[j])
				x1, x2 = math.Min(x1, ax), math.Max(x2, ax)
			}
			w.f("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"%s\"%s/>\n",
				num(x1-0.45*p), num(y-0.4*p), num(x2-x1+0.9*p), num(0.8*p), num(0.1*p), fill)
		case b.Kind == boards.Square:
			w.f("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"%s/>\n", num(x-p/2), num(y-p/2), num(p), num(p), fill)
		case b.Kind == boards.Hex:
			r := p / math.Sqrt(3)
			var pts []string
			for k := 0; k < 6; k++ {
				a := math.Pi/6 + float64(k)*math.Pi/3
				pts = append(pts, num(x+r*math.Cos(a))+","+num(y+r*math.Sin(a)))
			}
			w.f("<polygon points=\"%s\"%s/>\n", strings.Join(pts, " "), fill)
		default:
			w.f("<circle cx=\"%s\" cy=\"%s\" r=\"%s\"%s/>\n", num(x), num(y), num(0.32*p), fill)
		}
	}
	w.f("</g>\n")

	// The two chains.
	nudge := 0.09 * p
	chain := func(class, colour, marker string, cells []int, d float64) {
		if len(cells) == 0 {
			return
		}
		// Steps between neighbouring cells are solid; a jump to a cell
		// further away (the next row of a "rows" order) is dashed.
		var run, jump strings.Builder
		for k, i := range cells {
			x, y := pos(b.Cells[i])
			pt := num(x+d) + "," + num(y+d)
			switch {
			case k == 0:
				run.WriteString("M" + pt)
			case slices.Contains(b.Cells[cells[k-1]].Adj, i):
				run.WriteString("L" + pt)
			default:
				px, py := pos(b.Cells[cells[k-1]])
				jump.WriteString("M" + num(px+d) + "," + num(py+d) + "L" + pt)
				run.WriteString("M" + pt)
			}
		}
		w.f("<g class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"0.5\" stroke-linejoin=\"round\">", class, colour)
		w.f("<path class=\"run\" d=\"%s\" marker-mid=\"url(#%s)\" marker-end=\"url(#%s)\"/>", run.String(), marker, marker)
		if jump.Len() > 0 {
			w.f("<path class=\"jump\" d=\"%s\" stroke-width=\"0.3\" stroke-dasharray=\"1.5 1.5\"/>", jump.String())
		}
		x, y := pos(b.Cells[cells[0]])
		w.f("<circle class=\"start\" cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\" stroke=\"none\"/></g>\n", num(x+d), num(y+d), num(arrow*0.6), colour)
	}
	chain("sensor-order", SensorColour, "as", b.Sensors, -nudge)
	chain("led-order", LEDColour, "al", ledOrder(b), nudge)

	// Cells: drill mark and labels.
	sensorOf := make([]int, len(b.Cells))
	for i := range sensorOf {
		sensorOf[i] = -1
	}
	for k, c := range b.Sensors {
		sensorOf[c] = k
	}
	cross := math.Max(2.5, 0.14*p)
	for i, c := range b.Cells {
		if !visible(c) {
			continue
		}
		x, y := pos(c)
		w.f("<g class=\"cell\" data-cell=\"%s\" transform=\"translate(%s %s)\">", esc(c.Name), num(x), num(y))
		w.f("<path d=\"M%s,0H%sM0,%sV%s\" stroke=\"black\" stroke-width=\"0.25\"/><circle r=\"1\" fill=\"none\" stroke=\"black\" stroke-width=\"0.25\"/>",
			num(-cross), num(cross), num(-cross), num(cross))
		// Label places: name above the mark, sensor bottom left, LED bottom right.
		nx, ny, nAnchor := 0.0, -0.16*p, "middle"
		sx, sy, lx := -0.06*p, 0.3*p+fs/2, 0.06*p
		switch {
		case c.Goal:
			ny, sy = -0.18*p, 0.3*p
		case b.Kind == boards.Square:
			nx, ny, nAnchor = -0.45*p, -0.45*p+fs, "start"
			sy = 0.45*p - 0.3
		case b.Kind == boards.Hex:
			ny, sy = -0.13*p, 0.27*p
		default:
			sy = 0.2 * p
		}
		w.f("<text x=\"%s\" y=\"%s\" font-size=\"%s\" text-anchor=\"%s\">%s</text>", num(nx), num(ny), num(fs), nAnchor, esc(c.Name))
		if c.Mark != "" {
			w.f("<text x=\"%s\" y=\"%s\" font-size=\"%s\" text-anchor=\"middle\" fill=\"#a04000\">%s</text>", num(0), num(-ny+fs*0.2), num(fs*0.7), esc(c.Mark))
		}
		if k := sensorOf[i]; k >= 0 {
			w.f("<text class=\"sensor\" x=\"%s\" y=\"%s\" font-size=\"%s\" text-anchor=\"end\" fill=\"%s\">S%d</text>", num(sx), num(sy), num(fs), SensorColour, k)
		}
		if k := b.LEDs[i]; k >= 0 {
			w.f("<text class=\"led\" x=\"%s\" y=\"%s\" font-size=\"%s\" fill=\"%s\">L%d</text>", num(lx), num(sy), num(fs), LEDColour, k)
		}
		w.f("</g>\n")
	}

	// Registration crosses in the strips shared with neighbours (drawing
	// coordinates: they fall on the same spot of the board on both sheets).
	ov := s.Overlap
	reg := func(x, y float64) {
		w.f("<g class=\"registration\" stroke=\"black\" stroke-width=\"0.3\" fill=\"none\"><circle cx=\"%s\" cy=\"%s\" r=\"3\"/><path d=\"M%s,%sh10M%s,%sv10\"/></g>\n",
			num(x), num(y), num(x-5), num(y), num(x), num(y-5))
	}
	for _, q := range s.Pages {
		// q's strip with its left (upper) neighbour is on pg when q is pg or
		// pg's right (lower) neighbour.
		if q.Col > 0 && q.Row == pg.Row && (q.Col == pg.Col || q.Col == pg.Col+1) {
			strip := Rect{q.Window.X, q.Window.Y, ov, q.Window.H}
			reg(s.clearSpot(strip, q.Window.X+ov/2, q.Window.Y+q.Window.H/4, pos))
			reg(s.clearSpot(strip, q.Window.X+ov/2, q.Window.Y+3*q.Window.H/4, pos))
		}
		if q.Row > 0 && q.Col == pg.Col && (q.Row == pg.Row || q.Row == pg.Row+1) {
			strip := Rect{q.Window.X, q.Window.Y, q.Window.W, ov}
			reg(s.clearSpot(strip, q.Window.X+q.Window.W/4, q.Window.Y+ov/2, pos))
			reg(s.clearSpot(strip, q.Window.X+3*q.Window.W/4, q.Window.Y+ov/2, pos))
		}
	}
	w.f("</g></g>\n")

	// Shared strips, shaded, in paper coordinates.
	w.f("<g class=\"overlap\" fill=\"#000\" fill-opacity=\"0.06\">")
	strip := func(x, y, sw, sh float64) {
		w.f("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>", num(x), num(y), num(sw), num(sh))
	}
	if pg.Col > 0 {
		strip(m, m, ov, win.H)
	}
	if pg.Col < s.Cols-1 {
		strip(m+win.W-ov, m, ov, win.H)
	}
	if pg.Row > 0 {
		strip(m, m, win.W, ov)
	}
	if pg.Row < s.Rows-1 {
		strip(m, m+win.H-ov, win.W, ov)
	}
	w.f("</g>\n")

	// Crop marks at the window's corners, in the margin.
	w.f("<g class=\"crop\" stroke=\"black\" stroke-width=\"0.2\">\n")
	for _, cx := range []float64{m, m + win.W} {
		for _, cy := range []float64{m, m + win.H} {
			dx, dy := -1.0, -1.0
			if cx > m {
				dx = 1
			}
			if cy > m {
				dy = 1
			}
			w.f("<path d=\"M%s,%sh%sM%s,%sv%s\"/>\n", num(cx+dx), num(cy), num(dx*7), num(cx), num(cy+dy), num(dy*7))
		}
	}
	w.f("</g>\n")

	s.legend(&w, pg, m, m+win.H+4, win.W)
	w.f("</svg>\n")
	return []byte(w.String())
}

// regReach is how far a registration cross reaches from its centre (mm).
const regReach = 5

// clearSpot moves a registration cross wanted at (x, y) in strip, a strip
// shared by two sheets (drawing mm), off the drill marks: to the nearest
// spot of the strip, within an eighth of the strip's length, whose
// distance to every cell centre is at least a cell's radius (half the
// pitch), so that the holes drilled do not take the marks the sheets are
// lined up by. Where no spot is that clear, it takes the clearest. The
// spot depends on the strip and the board only: both sheets draw the
// cross at the same place of the board.
func (s *Sheet) clearSpot(strip Rect, x, y float64, pos func(boards.Cell) (float64, float64)) (float64, float64) {
	want := s.Pitch / 2
	// how far the cross may go along the strip, and across it (its circle
	// stays inside the strip)
	along, across := strip.H/8, math.Max(0, strip.W/2-3)
	if strip.W > strip.H {
		along, across = strip.W/8, math.Max(0, strip.H/2-3)
	}
	// the cell centres that may be nearer than want to a spot searched
	reach := math.Hypot(along, across) + want
	var near [][2]float64
	for _, c := range s.Board.Cells {
		if cx, cy := pos(c); math.Abs(cx-x) < reach && math.Abs(cy-y) < reach {
			near = append(near, [2]float64{cx, cy})
		}
	}
	clearance := func(x, y float64) float64 {
		d := math.Inf(1)
		for _, c := range near {
			d = math.Min(d, math.Hypot(c[0]-x, c[1]-y))
		}
		return d
	}
	if clearance(x, y) >= want {
		return x, y
	}
	const step = 0.25
	bestX, bestY, best := x, y, clearance(x, y)
	// rings of growing distance from the wanted spot: the first clear spot
	// found is (to a step) the nearest
	for r := step; r <= math.Hypot(along, across); r += step {
		found := false
		for k := range int(math.Ceil(2 * math.Pi * r / step)) {
			a := float64(k) * step / r
			dx, dy := r*math.Cos(a), r*math.Sin(a)
			if strip.W > strip.H {
				if math.Abs(dx) > along || math.Abs(dy) > across {
					continue
				}
			} else if math.Abs(dy) > along || math.Abs(dx) > across {
				continue
			}
			if d := clearance(x+dx, y+dy); d > best+1e-9 {
				bestX, bestY, best = x+dx, y+dy, d
				found = found || d >= want
			}
		}
		if found {
			break
		}
	}
	return bestX, bestY
}

// legend writes the band under the board: what the sheet is, the key, the
// scale bar, how it joins its neighbours and the map of sheets.
func (s *Sheet) legend(w *svg, pg *Page, x, y, width float64) {
	b := s.Board
	title := b.Title
	if title == "" {
		title = b.Name
	}
	where := ""
	if len(s.Pages) > 1 {
		where = fmt.Sprintf(", row %d, column %d", pg.Row+1, pg.Col+1)
	}
	w.f("<g class=\"legend\" font-size=\"3\">\n")
	w.f("<text class=\"page-label\" x=\"%s\" y=\"%s\" font-size=\"3.6\" font-weight=\"bold\">%s · board %s · pitch %s mm · sheet %d of %d%s</text>\n",
		num(x), num(y+3.6), esc(title), esc(b.Name), num(s.Pitch), pg.N, len(s.Pages), where)
	// The key.
	ky := y + 10
	kx := x
	for _, k := range []struct{ colour, marker, text string }{
		{SensorColour, "as", fmt.Sprintf("sensor order S0→S%d", len(b.Sensors)-1)},
		{LEDColour, "al", fmt.Sprintf("LED order L0→L%d", b.LEDCount-1)},
	} {
		if k.colour == LEDColour && b.LEDCount == 0 {
			continue
		}
		w.f("<circle cx=\"%s\" cy=\"%s\" r=\"1\" fill=\"%s\"/><polyline points=\"%s,%s %s,%s %s,%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"0.5\" marker-mid=\"url(#%s)\"/>",
			num(kx), num(ky-1), k.colour, num(kx), num(ky-1), num(kx+5), num(ky-1), num(kx+10), num(ky-1), k.colour, k.marker)
		w.f("<text x=\"%s\" y=\"%s\" fill=\"%s\">%s</text>\n", num(kx+12), num(ky), k.colour, esc(k.text))
		kx += 14 + 1.75*float64(len([]rune(k.text)))
	}
	w.f("<path d=\"M%s,%sh5M%s,%sv5\" stroke=\"black\" stroke-width=\"0.25\"/><circle cx=\"%s\" cy=\"%s\" r=\"1\" fill=\"none\" stroke=\"black\" stroke-width=\"0.25\"/>",
		num(kx), num(ky-1), num(kx+2.5), num(ky-3.5), num(kx+2.5), num(ky-1))
	w.f("<text x=\"%s\" y=\"%s\">drill centre · cell · <tspan fill=\"%s\">S sensor</tspan> · <tspan fill=\"%s\">L LED</tspan> · dashed: a jump</text>\n",
		num(kx+7), num(ky), SensorColour, LEDColour)
	// Scale bar.
	sy := y + 14
	w.f("<g class=\"scale\" stroke=\"black\" stroke-width=\"0.3\"><path d=\"M%s,%sh100\"/>", num(x), num(sy+3))
	for t := 0; t <= 100; t += 10 {
		h := 1.5
		if t%50 == 0 {
			h = 3
		}
		w.f("<path d=\"M%s,%sv%s\"/>", num(x+float64(t)), num(sy+3-h), num(h))
	}
	w.f("</g>\n")
	w.f("<text x=\"%s\" y=\"%s\">0</text><text x=\"%s\" y=\"%s\" text-anchor=\"end\">100 mm</text>\n", num(x), num(sy+7), num(x+100), num(sy+7))
	w.f("<text x=\"%s\" y=\"%s\">%s · print at 100 %%</text>\n", num(x+104), num(sy+3), s.paperName())
	w.f("<text x=\"%s\" y=\"%s\">the bar must measure 100 mm</text>\n", num(x+104), num(sy+7))
	if len(s.Pages) == 1 {
		w.f("</g>\n")
		return
	}
	// Joining, and the map of sheets.
	n := func(r, c int) int { return r*s.Cols + c + 1 }
	var over, under []string
	if pg.Col > 0 {
		over = append(over, fmt.Sprintf("%d (left)", n(pg.Row, pg.Col-1)))
	}
	if pg.Row > 0 {
		over = append(over, fmt.Sprintf("%d (above)", n(pg.Row-1, pg.Col)))
	}
	if pg.Col < s.Cols-1 {
		under = append(under, fmt.Sprintf("%d (right)", n(pg.Row, pg.Col+1)))
	}
	if pg.Row < s.Rows-1 {
		under = append(under, fmt.Sprintf("%d (below)", n(pg.Row+1, pg.Col)))
	}
	var join []string
	if len(over) > 0 {
		join = append(join, "Lay over "+strings.Join(over, ", ")+": trim those margins at the crop marks, match the crosses.")
	}
	if len(under) > 0 {
		join = append(join, "Under "+strings.Join(under, ", ")+".")
	}
	w.f("<text class=\"join\" x=\"%s\" y=\"%s\" font-size=\"2.6\">%s</text>\n", num(x), num(y+LegendHeight-4), esc(strings.Join(join, " ")))
	cell := math.Min(5, 18/float64(s.Rows))
	mx := x + width - float64(s.Cols)*cell
	my := y + LegendHeight - 2 - float64(s.Rows)*cell
	w.f("<g class=\"sheet-map\" font-size=\"%s\" text-anchor=\"middle\">", num(cell*0.6))
	for _, q := range s.Pages {
		fill, text := "white", "black"
		if q.N == pg.N {
			fill, text = "#333", "white"
		}
		qx, qy := mx+float64(q.Col)*cell, my+float64(q.Row)*cell
		w.f("<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" stroke=\"black\" stroke-width=\"0.2\"/><text x=\"%s\" y=\"%s\" fill=\"%s\">%d</text>",
			num(qx), num(qy), num(cell), num(cell), fill, num(qx+cell/2), num(qy+cell*0.72), text, q.N)
	}
	w.f("</g>\n</g>\n")
}

func (s *Sheet) paperName() string {
	if s.Landscape {
		return s.Paper.Name + " landscape"
	}
	return s.Paper.Name + " portrait"
}

// ledOrder lists the cells with an LED in strip order.
func ledOrder(b *boards.Board) []int {
	out := make([]int, b.LEDCount)
	for i := range out {
		out[i] = -1
	}
	for c, k := range b.LEDs {
		if k >= 0 {
			out[k] = c
		}
	}
	// Skip gaps (an LED index no cell uses).
	kept := out[:0]
	for _, c := range out {
		if c >= 0 {
			kept = append(kept, c)
		}
	}
	return kept
}
