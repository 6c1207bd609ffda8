// Package boardscmd implements `tabla boards list|show|validate|print`.
package boardscmd

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// NewCmd returns `tabla boards`.
func NewCmd(streams *cmdutil.IO) *cobra.Command {
	cmd := &cobra.Command{Use: "boards", Short: "List, show, validate and print board definitions"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the builtin boards",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return ListRun(streams.Out) },
	})
	var wiring bool
	show := &cobra.Command{
		Use:   "show NAME|FILE",
		Short: "Draw a board and print its wiring table",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			b, err := boards.Open(args[0])
			if err != nil {
				return err
			}
			return ShowRun(streams.Out, b, wiring)
		},
	}
	show.Flags().BoolVar(&wiring, "wiring", true, "print the sensor and LED table")
	cmd.AddCommand(show)
	cmd.AddCommand(newPrintCmd(streams))
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE...",
		Short: "Check board files; errors name the file, line and reason",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return ValidateRun(streams, args)
		},
	})
	return cmd
}

// ListRun prints one builtin board a line.
func ListRun(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tGAME\tCELLS\tSENSORS\tLEDS\tTITLE")
	for _, name := range boards.Builtin() {
		b, err := boards.Lookup(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", b.Name, b.Game, len(b.Cells), len(b.Sensors), b.LEDCount, b.Title)
	}
	return tw.Flush()
}

// ValidateRun checks files and reports each; it fails if any is invalid.
func ValidateRun(streams *cmdutil.IO, files []string) error {
	bad := 0
	for _, f := range files {
		b, err := boards.Open(f)
		if err != nil {
			fmt.Fprintln(streams.Err, err)
			bad++
			continue
		}
		fmt.Fprintf(streams.Out, "%s: ok: %s board %q, %d cells, %d sensors, %d LEDs\n", f, b.Game, b.Name, len(b.Cells), len(b.Sensors), b.LEDCount)
	}
	if bad > 0 {
		return cmdutil.Silent(cmdutil.ExitError)
	}
	return nil
}

// ShowRun draws the board with its start pieces and prints the wiring.
func ShowRun(w io.Writer, b *boards.Board, wiring bool) error {
	fmt.Fprintf(w, "%s (%s, %d cells): %s\n", b.Name, b.File, len(b.Cells), b.Title)
	start := map[string]string{}
	for _, p := range b.Start {
		start[p.Cell] = p.Piece
	}
	fmt.Fprint(w, Draw(b, start))
	if len(b.Start) > 0 {
		var s []string
		for _, p := range b.Start {
			s = append(s, p.Cell+"="+p.Piece)
		}
		fmt.Fprintf(w, "start: %s\n", strings.Join(s, " "))
	}
	if !wiring {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CELL\tSENSOR\tLED\t")
	sensorOf := make([]int, len(b.Cells))
	for i := range sensorOf {
		sensorOf[i] = -1
	}
	for s, c := range b.Sensors {
		sensorOf[c] = s
	}
	for i, c := range b.Cells {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", c.Name, dash(sensorOf[i]), dash(b.LEDs[i]))
	}
	tw.Flush()
	codes := make([]int, 0, len(b.Codes))
	for c := range b.Codes {
		codes = append(codes, int(c))
	}
	sort.Ints(codes)
	fmt.Fprintf(w, "sensor codes: 0 empty, 255 occupied")
	for _, c := range codes {
		fmt.Fprintf(w, ", %d %s", c, b.Codes[byte(c)])
	}
	fmt.Fprintln(w)
	return nil
}

func dash(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// glyphs are one character per piece kind; GYGES heights are their digit.
var glyphs = map[string]byte{"red": 'R', "yellow": 'Y', "blue": 'B', "black": 'K', "white": 'W'}

// Glyph is one character for a piece ('.' for none).
func Glyph(piece string) byte {
	if piece == "" {
		return '.'
	}
	if g, ok := glyphs[piece]; ok {
		return g
	}
	return piece[0]
}

// Draw renders a board as text with the given pieces (cell → piece).
func Draw(b *boards.Board, pieces map[string]string) string {
	var sb strings.Builder
	switch b.Kind {
	case boards.Square:
		for _, c := range b.Cells {
			if c.Goal && c.Y > float64(b.Rows-1) {
				fmt.Fprintf(&sb, "%*s%s\n", 3+b.Cols, "", c.Name)
			}
		}
		for r := b.Rows; r >= 1; r-- {
			fmt.Fprintf(&sb, "%3d ", r)
			for c := 1; c <= b.Cols; c++ {
				name := boards.SquareName(c, r)
				ch := Glyph(pieces[name])
				if i, _ := b.Index(name); b.Cells[i].Mark != "" && ch == '.' {
					ch = '*'
				}
				sb.WriteByte(ch)
				sb.WriteByte(' ')
			}
			sb.WriteByte('\n')
		}
		for _, c := range b.Cells {
			if c.Goal && c.Y < 0 {
				fmt.Fprintf(&sb, "%*s%s\n", 3+b.Cols, "", c.Name)
			}
		}
		sb.WriteString("    ")
		for c := 1; c <= b.Cols; c++ {
			n := boards.ColumnName(c)
			sb.WriteByte(n[len(n)-1])
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	case boards.Hex:
		for r := b.Radius; r >= -b.Radius; r-- {
			sb.WriteString(strings.Repeat(" ", abs(r)+4))
			for q := -b.Radius; q <= b.Radius; q++ {
				if i, ok := b.Index(boards.HexName(q, r)); ok {
					sb.WriteByte(Glyph(pieces[b.Cells[i].Name]))
					sb.WriteByte(' ')
				}
			}
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "(axial q,r: q grows to the right, r upwards; the centre is 0,0)\n")
	default:
		minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, c := range b.Cells {
			minX, maxX = math.Min(minX, c.X), math.Max(maxX, c.X)
			minY, maxY = math.Min(minY, c.Y), math.Max(maxY, c.Y)
		}
		const W, H = 48, 17
		grid := make([][]byte, H)
		for i := range grid {
			grid[i] = []byte(strings.Repeat(" ", W+4))
		}
		for _, c := range b.Cells {
			x := int(math.Round((c.X - minX) / math.Max(maxX-minX, 1) * W))
			y := int(math.Round((maxY - c.Y) / math.Max(maxY-minY, 1) * (H - 1)))
			label := c.Name
			if p := pieces[c.Name]; p != "" {
				label = string(Glyph(p))
			}
			copy(grid[y][max(0, x-len(label)/2):], label)
		}
		for _, row := range grid {
			sb.WriteString(strings.TrimRight(string(row), " "))
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
