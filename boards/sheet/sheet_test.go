package sheet

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/boards"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// doc is what the tests read back from an SVG page.
type doc struct {
	width, height, viewBox string
	cells                  map[string][2]float64 // data-cell → centre, mm on the paper
	cellGroups             int
	sensorLabels, ledLabel int
	steps                  map[string]int // chain class → number of steps drawn
	registration, crop     int
	regs                   [][2]float64 // registration crosses' centres, mm on the paper
	pageLabel              string
}

// parse reads a page as XML (failing on anything malformed) and collects
// what the tests check.
func parse(t *testing.T, svg []byte) doc {
	t.Helper()
	d := doc{cells: map[string][2]float64{}, steps: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var stack []xml.StartElement
	var dx, dy float64 // the board's translation onto the paper
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			a := map[string]string{}
			for _, at := range e.Attr {
				a[at.Name.Local] = at.Value
			}
			parent := map[string]string{}
			if len(stack) > 0 {
				for _, at := range stack[len(stack)-1].Attr {
					parent[at.Name.Local] = at.Value
				}
			}
			stack = append(stack, e)
			switch {
			case e.Name.Local == "svg":
				d.width, d.height, d.viewBox = a["width"], a["height"], a["viewBox"]
			case e.Name.Local == "g" && strings.HasPrefix(a["transform"], "translate(") && a["class"] == "":
				fmt.Sscanf(a["transform"], "translate(%g %g)", &dx, &dy)
			case a["class"] == "cell":
				var x, y float64
				if _, err := fmt.Sscanf(a["transform"], "translate(%g %g)", &x, &y); err != nil {
					t.Fatalf("cell %s: transform %q", a["data-cell"], a["transform"])
				}
				d.cellGroups++
				if _, dup := d.cells[a["data-cell"]]; dup {
					t.Errorf("cell %s drawn twice", a["data-cell"])
				}
				d.cells[a["data-cell"]] = [2]float64{x + dx, y + dy}
			case a["class"] == "sensor":
				d.sensorLabels++
			case a["class"] == "led":
				d.ledLabel++
			case e.Name.Local == "path" && (a["class"] == "run" || a["class"] == "jump"):
				d.steps[parent["class"]] += strings.Count(a["d"], "L")
			case a["class"] == "registration":
				d.registration++
			case e.Name.Local == "circle" && parent["class"] == "registration":
				var x, y float64
				fmt.Sscanf(a["cx"]+" "+a["cy"], "%g %g", &x, &y)
				d.regs = append(d.regs, [2]float64{x + dx, y + dy})
			case e.Name.Local == "path" && parent["class"] == "crop":
				d.crop++
			case a["class"] == "page-label":
				var text strings.Builder
				for {
					tok, err := dec.Token()
					if err != nil {
						t.Fatal(err)
					}
					if cd, ok := tok.(xml.CharData); ok {
						text.Write(cd)
						continue
					}
					stack = stack[:len(stack)-1]
					break
				}
				d.pageLabel = text.String()
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	return d
}

func mustRender(t *testing.T, name string, o Options) (*boards.Board, *Sheet) {
	t.Helper()
	b := boards.Default(name)
	s, err := Render(b, o)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

// The boards that fit one A3 sheet: one mark per cell, every index labelled,
// both chains complete, real scale.
func TestOneSheet(t *testing.T) {
	for _, name := range []string{"daha", "star", "gyges"} {
		t.Run(name, func(t *testing.T) {
			b, s := mustRender(t, name, Options{})
			if len(s.Pages) != 1 || s.Landscape {
				t.Fatalf("%d sheets (landscape %v), want 1 portrait", len(s.Pages), s.Landscape)
			}
			d := parse(t, s.Pages[0].SVG)
			if d.width != "297mm" || d.height != "420mm" || d.viewBox != "0 0 297 420" {
				t.Errorf("page %s × %s, viewBox %q: want A3 in mm (297mm × 420mm, 0 0 297 420)", d.width, d.height, d.viewBox)
			}
			if d.cellGroups != len(b.Cells) || len(s.Pages[0].Cells) != len(b.Cells) {
				t.Errorf("%d cell marks (%d listed), want one per cell: %d", d.cellGroups, len(s.Pages[0].Cells), len(b.Cells))
			}
			if d.sensorLabels != len(b.Sensors) || d.ledLabel != b.LEDCount {
				t.Errorf("%d sensor and %d LED labels, want %d and %d", d.sensorLabels, d.ledLabel, len(b.Sensors), b.LEDCount)
			}
			if d.steps["sensor-order"] != len(b.Sensors)-1 || d.steps["led-order"] != b.LEDCount-1 {
				t.Errorf("chains of %d and %d steps, want %d and %d", d.steps["sensor-order"], d.steps["led-order"], len(b.Sensors)-1, b.LEDCount-1)
			}
			if d.crop != 4 || d.registration != 0 {
				t.Errorf("%d crop marks and %d registration crosses, want 4 and 0", d.crop, d.registration)
			}
			if !strings.Contains(d.pageLabel, "sheet 1 of 1") || !strings.Contains(d.pageLabel, fmt.Sprintf("pitch %g mm", b.Pitch)) {
				t.Errorf("page label %q", d.pageLabel)
			}
			checkScale(t, b, d)
			// The drawing's extent is the cells' extent times the pitch, and
			// it fits the printed window.
			minX, maxX, minY, maxY := extent(b)
			if got, want := s.Width-2*s.Pad, (maxX-minX)*b.Pitch; math.Abs(got-want) > 1e-9 {
				t.Errorf("drawing width %g mm without the pad, want %g", got, want)
			}
			if got, want := s.Height-2*s.Pad, (maxY-minY)*b.Pitch; math.Abs(got-want) > 1e-9 {
				t.Errorf("drawing height %g mm without the pad, want %g", got, want)
			}
			win := s.Pages[0].Window
			if s.Width > win.W || s.Height > win.H {
				t.Errorf("drawing %g × %g mm does not fit the window %g × %g", s.Width, s.Height, win.W, win.H)
			}
		})
	}
}

// checkScale: every cell's drill mark is where its coordinates times the
// pitch put it (y upwards on the board, downwards in SVG), to 0.01 mm.
func checkScale(t *testing.T, b *boards.Board, d doc) {
	t.Helper()
	var ref *boards.Cell
	var at [2]float64
	for i := range b.Cells {
		c := &b.Cells[i]
		got, ok := d.cells[c.Name]
		if !ok {
			continue
		}
		if ref == nil {
			ref, at = c, got
			continue
		}
		wantX := at[0] + (c.X-ref.X)*b.Pitch
		wantY := at[1] - (c.Y-ref.Y)*b.Pitch
		if math.Abs(got[0]-wantX) > 0.011 || math.Abs(got[1]-wantY) > 0.011 {
			t.Errorf("%s at (%.2f, %.2f) mm, want (%.2f, %.2f): %g mm from %s", c.Name, got[0], got[1], wantX, wantY, b.Pitch, ref.Name)
			return
		}
	}
}

// RAY does not fit an A3 sheet: six overlapping sheets, every cell on at
// least one, each sheet labelled and marked for joining.
func TestRaySplits(t *testing.T) {
	b, s := mustRender(t, "ray", Options{})
	if len(s.Pages) != 6 || s.Cols != 3 || s.Rows != 2 || s.Landscape {
		t.Fatalf("%d sheets, %d × %d, landscape %v; want 6, 3 columns × 2 rows, portrait", len(s.Pages), s.Cols, s.Rows, s.Landscape)
	}
	if s.Overlap != 20 {
		t.Errorf("overlap %g mm, want the pitch, 20", s.Overlap)
	}
	seen := map[string]int{}
	for k, pg := range s.Pages {
		d := parse(t, pg.SVG)
		if d.width != "297mm" || d.viewBox != "0 0 297 420" {
			t.Errorf("sheet %d: width %s viewBox %q", pg.N, d.width, d.viewBox)
		}
		if want := fmt.Sprintf("sheet %d of 6, row %d, column %d", k+1, k/3+1, k%3+1); pg.N != k+1 || !strings.Contains(d.pageLabel, want) {
			t.Errorf("sheet %d label %q, want %q", pg.N, d.pageLabel, want)
		}
		for _, i := range pg.Cells {
			if _, ok := d.cells[b.Cells[i].Name]; !ok {
				t.Errorf("sheet %d lists %s but does not draw it", pg.N, b.Cells[i].Name)
			}
			seen[b.Cells[i].Name]++
		}
		if len(pg.Cells) == 0 || len(pg.Cells) == len(b.Cells) {
			t.Errorf("sheet %d holds %d cells", pg.N, len(pg.Cells))
		}
		if d.crop != 4 || d.registration == 0 {
			t.Errorf("sheet %d: %d crop marks, %d registration crosses", pg.N, d.crop, d.registration)
		}
		checkScale(t, b, d)
	}
	if len(seen) != len(b.Cells) {
		t.Errorf("%d of %d cells are on some sheet", len(seen), len(b.Cells))
	}
	// Neighbouring windows share exactly the overlap; together they cover
	// the drawing.
	for _, pg := range s.Pages {
		w := pg.Window
		if pg.Col+1 < s.Cols {
			if r := s.Pages[pg.N].Window; math.Abs(w.X+w.W-r.X-s.Overlap) > 1e-9 || r.Y != w.Y {
				t.Errorf("sheets %d and %d overlap by %g mm, want %g", pg.N, pg.N+1, w.X+w.W-r.X, s.Overlap)
			}
		}
		if pg.Row+1 < s.Rows {
			if u := s.Pages[pg.N-1+s.Cols].Window; math.Abs(w.Y+w.H-u.Y-s.Overlap) > 1e-9 || u.X != w.X {
				t.Errorf("sheets %d and %d overlap by %g mm, want %g", pg.N, pg.N+s.Cols, w.Y+w.H-u.Y, s.Overlap)
			}
		}
	}
	first, last := s.Pages[0].Window, s.Pages[len(s.Pages)-1].Window
	if first.X > 0 || first.Y > 0 || last.X+last.W < s.Width || last.Y+last.H < s.Height {
		t.Errorf("sheets cover %v to %v, not the whole %g × %g mm drawing", first, last, s.Width, s.Height)
	}
	// A cell in a shared strip is on both sheets.
	if n := seen["i20"]; n != 2 {
		t.Errorf("i20 (in the strip of sheets 1 and 2) is on %d sheets, want 2", n)
	}
}

// A registration cross never sits on a drill mark: its centre is at least
// a cell's radius (half the pitch) from every cell centre on the sheet, so
// the maker drilling the holes does not drill through the marks the sheets
// are lined up by (RAY on A4 had one 1.75 mm from o18's and o12's).
func TestRegistrationClearOfDrillMarks(t *testing.T) {
	for _, name := range []string{"daha", "star", "gyges", "ray", "six"} {
		for _, paper := range []Paper{A3, A4} {
			b, s := mustRender(t, name, Options{Paper: paper})
			for _, pg := range s.Pages {
				d := parse(t, pg.SVG)
				if len(d.regs) != d.registration {
					t.Fatalf("%s %s sheet %d: %d registration crosses, %d centres read", name, paper.Name, pg.N, d.registration, len(d.regs))
				}
				for _, r := range d.regs {
					for cell, c := range d.cells {
						if dist := math.Hypot(r[0]-c[0], r[1]-c[1]); dist < b.Pitch/2 {
							t.Errorf("%s %s sheet %d: registration cross at (%.2f, %.2f) mm is %.2f mm from the drill mark of %s, want at least %g",
								name, paper.Name, pg.N, r[0], r[1], dist, cell, b.Pitch/2)
						}
					}
				}
			}
		}
	}
}

func TestPapers(t *testing.T) {
	for _, tc := range []struct {
		board     string
		paper     Paper
		sheets    int
		landscape bool
	}{
		{"ray", A4, 12, false},
		{"six", A3, 2, false},
		{"gyges", A4, 3, true},
		{"star", A4, 2, true},
	} {
		t.Run(tc.board+"-"+tc.paper.Name, func(t *testing.T) {
			_, s := mustRender(t, tc.board, Options{Paper: tc.paper})
			if len(s.Pages) != tc.sheets || s.Landscape != tc.landscape {
				t.Errorf("%d sheets, landscape %v; want %d, %v", len(s.Pages), s.Landscape, tc.sheets, tc.landscape)
			}
			d := parse(t, s.Pages[0].SVG)
			w, h := tc.paper.W, tc.paper.H
			if tc.landscape {
				w, h = h, w
			}
			if want := fmt.Sprintf("0 0 %g %g", w, h); d.viewBox != want || d.width != fmt.Sprintf("%gmm", w) {
				t.Errorf("viewBox %q width %s, want %q", d.viewBox, d.width, want)
			}
		})
	}
}

func TestPitchScales(t *testing.T) {
	b := boards.Default("gyges")
	b.Pitch = 25
	s, err := Render(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := parse(t, s.Pages[0].SVG)
	checkScale(t, b, d)
	a1, b1 := d.cells["a1"], d.cells["b1"]
	if math.Abs(b1[0]-a1[0]-25) > 0.011 {
		t.Errorf("a1 to b1 is %.2f mm, want the pitch 25", b1[0]-a1[0])
	}
}

func TestPageFiles(t *testing.T) {
	for _, tc := range []struct {
		out  string
		n    int
		want []string
	}{
		{"ray.svg", 1, []string{"ray.svg"}},
		{"out/ray.svg", 3, []string{"out/ray-1.svg", "out/ray-2.svg", "out/ray-3.svg"}},
		{"ray", 2, []string{"ray-1.svg", "ray-2.svg"}},
	} {
		if got := PageFiles(tc.out, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PageFiles(%q, %d) = %v, want %v", tc.out, tc.n, got, tc.want)
		}
	}
	if _, ok := PaperByName("a5"); ok {
		t.Error("A5 accepted")
	}
	if p, ok := PaperByName("a4"); !ok || p != A4 {
		t.Errorf("a4: %v %v", p, ok)
	}
}

// The GYGES sheet byte for byte (go test -update rewrites it): a change to
// the drawing shows up as a diff to look at.
func TestGolden(t *testing.T) {
	_, s := mustRender(t, "gyges", Options{})
	golden := "testdata/gyges.svg"
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, s.Pages[0].SVG, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(s.Pages[0].SVG, want) {
		got, wantLines := strings.Split(string(s.Pages[0].SVG), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(got), len(wantLines)) {
			if got[i] != wantLines[i] {
				t.Fatalf("differs from %s at line %d:\ngot  %s\nwant %s", golden, i+1, got[i], wantLines[i])
			}
		}
		t.Fatalf("differs from %s: %d lines, want %d", golden, len(got), len(wantLines))
	}
}

func TestErrors(t *testing.T) {
	b := boards.Default("ray")
	if _, err := Render(b, Options{Paper: A4, Overlap: 300}); err == nil {
		t.Error("an overlap wider than the sheet was accepted")
	}
}

func TestBigOverlapAndPitch(t *testing.T) {
	// An overlap taller than an A4 landscape window: portrait only.
	b := boards.Default("gyges")
	s, err := Render(b, Options{Paper: A4, Overlap: 170})
	if err != nil {
		t.Fatal(err)
	}
	if s.Landscape || len(s.Pages) != 12 || s.Cols != 4 || s.Rows != 3 {
		t.Errorf("landscape %v, %d sheets (%d × %d)", s.Landscape, len(s.Pages), s.Cols, s.Rows)
	}
	b = boards.Default("ray")
	b.Pitch = 500
	if _, err := Render(b, Options{Paper: A4}); err == nil || !strings.Contains(err.Error(), "at most 400") {
		t.Errorf("a 14.5 m board on A4: %v", err)
	}
}
