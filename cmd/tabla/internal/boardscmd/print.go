package boardscmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabla-board/tabla/boards"
	"github.com/tabla-board/tabla/boards/sheet"
	"github.com/tabla-board/tabla/cmd/tabla/internal/cmdutil"
)

// PrintOptions are the inputs of `tabla boards print`.
type PrintOptions struct {
	IO    *cmdutil.IO
	Board string  // builtin name or board file
	SVG   string  // output file
	Paper string  // a3 or a4
	Pitch float64 // mm; 0 and not PitchSet: the board file's
	// PitchSet says --pitch was given, so that --pitch 0 is refused
	// rather than taken for "the board file's".
	PitchSet bool
}

func newPrintCmd(streams *cmdutil.IO) *cobra.Command {
	o := &PrintOptions{IO: streams}
	cmd := &cobra.Command{
		Use:   "print NAME|FILE --svg OUT",
		Short: "Draw a board at real scale: a drilling and wiring template to print",
		Long: "Draw the board at real scale (the board file's pitch, mm between cell\n" +
			"centres) with every cell's drill mark, name, sensor and LED index and the\n" +
			"sensor and LED chains. Print at actual size. A board larger than one\n" +
			"sheet is split into overlapping sheets OUT-1.svg, OUT-2.svg, … with crop\n" +
			"and registration marks; each says where it goes.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Board = args[0]
			o.PitchSet = c.Flags().Changed("pitch")
			return PrintRun(o)
		},
	}
	cmd.Flags().StringVar(&o.SVG, "svg", "", "the SVG file to write (several sheets: OUT-1.svg, …)")
	cmd.Flags().StringVar(&o.Paper, "paper", "a3", "paper size: a3 or a4")
	cmd.Flags().Float64Var(&o.Pitch, "pitch", 0, "mm between neighbouring cell centres, instead of the board file's")
	return cmd
}

// PrintRun renders the sheets and writes them.
func PrintRun(o *PrintOptions) error {
	if o.SVG == "" {
		return cmdutil.WithCode(cmdutil.ExitUsage, errors.New("boards print: --svg OUT is required"))
	}
	paper, ok := sheet.PaperByName(o.Paper)
	if !ok {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("boards print: --paper %q: want a3 or a4", o.Paper))
	}
	if (o.PitchSet || o.Pitch != 0) && !(o.Pitch >= 5 && o.Pitch <= 500) {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("boards print: --pitch %g: want 5–500 mm between neighbouring cell centres (leave it out for the board file's)", o.Pitch))
	}
	b, err := boards.Open(o.Board)
	if err != nil {
		return err
	}
	if o.PitchSet || o.Pitch != 0 {
		b.Pitch = o.Pitch
	}
	s, err := sheet.Render(b, sheet.Options{Paper: paper})
	if err != nil {
		return err
	}
	files := sheet.PageFiles(o.SVG, len(s.Pages))
	for i, pg := range s.Pages {
		if err := os.WriteFile(files[i], pg.SVG, 0o644); err != nil {
			return err
		}
	}
	orient, sheets := "portrait", "sheet"
	if s.Landscape {
		orient = "landscape"
	}
	if len(s.Pages) > 1 {
		sheets = fmt.Sprintf("sheets (%d across, %d down)", s.Cols, s.Rows)
	}
	fmt.Fprintf(o.IO.Out, "%s: %.0f × %.0f mm at pitch %g mm, on %d %s %s %s\n",
		b.Name, s.Width, s.Height, s.Pitch, len(s.Pages), paper.Name, orient, sheets)
	fmt.Fprintf(o.IO.Out, "wrote %s\n", strings.Join(files, " "))
	fmt.Fprintln(o.IO.Out, "print at actual size (100 %): the bar on each sheet must measure 100 mm")
	return nil
}
