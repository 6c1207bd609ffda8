package aicmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// termProgress returns a progress callback that draws a bar on w when w is
// a terminal, and nil otherwise (a pipe or a file gets no bar), together
// with a function that clears the bar's line once the work is done.
func termProgress(w io.Writer, what string) (progress func(done, total int), finish func()) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	width := 30
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
		width = max(10, min(50, cols-len(what)-30))
	}
	last := -1
	drawn := false
	progress = func(done, total int) {
		if total <= 0 {
			return
		}
		filled := width * done / total
		if filled == last && done != total {
			return // redraw only when the bar grows
		}
		last = filled
		drawn = true
		fmt.Fprintf(f, "\r%s [%s%s] %d/%d", what, strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total)
	}
	finish = func() {
		if drawn {
			fmt.Fprint(f, "\r\033[K")
		}
	}
	return progress, finish
}
