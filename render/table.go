package render

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

const (
	columnGap = "  "
	// flexFloor is the width the last, flexible column keeps before other
	// columns give up width: a description cut to ten cells still says
	// something, and names are what users type next.
	flexFloor = 10
	// columnFloor is the width other columns keep before every column is cut
	// down further.
	columnFloor = 8
	ellipsis    = "…"
)

// Table writes rows under headers.
//
// On a terminal the header row is bold, columns are aligned and the last
// column (the flexible one, such as a description) is truncated with "…" so
// that every line fits Width; other columns are cut only when that is not
// enough. Newlines and tabs in cells become spaces and other control
// characters are made visible ([Sanitize]), so a server cannot move the
// cursor or recolour the terminal through a tool description, nor hide
// text. When rows is empty, empty (if not "") is written to ErrOut, like
// "No tools.".
//
// When not a terminal there is no header, no truncation and no message:
// each row is one line of tab-separated full values, with newlines and tabs
// inside cells replaced by spaces so that lines and fields stay parseable;
// cells are otherwise byte-exact, unless colour is forced on, which means a
// terminal and sanitised cells.
//
// The error is the first error writing to Out (or ErrOut, for empty).
func (p *Printer) Table(headers []string, rows [][]string, empty string) error {
	if !p.TTY {
		return p.plainTable(rows)
	}
	if len(rows) == 0 {
		if empty != "" {
			_, err := fmt.Fprintln(p.errOut(), empty)
			return err
		}
		return nil
	}
	return p.ttyTable(headers, rows)
}

func (p *Printer) plainTable(rows [][]string) error {
	w := bufio.NewWriter(p.out())
	for _, row := range rows {
		for i, cell := range row {
			if i > 0 {
				w.WriteByte('\t')
			}
			w.WriteString(p.Untrusted(plainCell(cell)))
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}

// plainCell keeps a value whole but on one line and in one field.
func plainCell(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\n', '\t':
			return ' '
		}
		return r
	}, s)
}

// ttyCell makes a value safe and compact for one terminal cell: line
// breaks and tabs become spaces, other control characters are made
// visible.
func ttyCell(s string) string {
	return strings.TrimSpace(Sanitize(plainCell(s)))
}

func (p *Printer) ttyTable(headers []string, rows [][]string) error {
	ncols := len(headers)
	for _, row := range rows {
		ncols = max(ncols, len(row))
	}
	if ncols == 0 {
		return nil
	}
	cells := make([][]string, 0, len(rows)+1)
	if len(headers) > 0 {
		cells = append(cells, padRow(headers, ncols))
	}
	for _, row := range rows {
		cells = append(cells, padRow(row, ncols))
	}
	widths := make([]int, ncols)
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	if p.Width > 0 {
		fitWidths(widths, p.Width-len(columnGap)*(ncols-1))
	}

	st := p.styles()
	w := bufio.NewWriter(p.out())
	var line strings.Builder
	for r, row := range cells {
		line.Reset()
		for i, c := range row {
			c = truncate(c, widths[i])
			if i > 0 {
				line.WriteString(columnGap)
			}
			if r == 0 && len(headers) > 0 {
				line.WriteString(st.header.Render(c))
			} else {
				line.WriteString(c)
			}
			if i < ncols-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)))
			}
		}
		s := strings.TrimRight(line.String(), " ")
		if p.Width > 0 && ansi.StringWidth(s) > p.Width {
			// Only when the terminal is narrower than the gaps and the
			// minimal columns together.
			s = ansi.Truncate(s, p.Width, ellipsis)
		}
		w.WriteString(s)
		w.WriteByte('\n')
	}
	return w.Flush()
}

func padRow(row []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(row) {
			out[i] = ttyCell(row[i])
		}
	}
	return out
}

// fitWidths shrinks column widths in place until they sum to at most avail:
// first the last column down to flexFloor, then the widest other columns
// down to columnFloor, then all columns down to one cell.
func fitWidths(widths []int, avail int) {
	total := 0
	for _, w := range widths {
		total += w
	}
	over := total - avail
	if over <= 0 {
		return
	}
	last := len(widths) - 1
	cut := min(over, widths[last]-min(widths[last], flexFloor))
	widths[last] -= cut
	over -= cut
	for _, floor := range []int{columnFloor, 1} {
		for over > 0 {
			// Take from the widest column that is still above the floor,
			// one cell at a time, so that wide columns even out.
			widest := -1
			for i, w := range widths {
				f := floor
				if i == last && floor > 1 {
					f = min(widths[last], flexFloor)
				}
				if w > f && (widest < 0 || w > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
			over--
		}
	}
}

// truncate cuts s to at most width cells, ending in "…" when cut. Widths are
// measured in terminal cells (grapheme clusters, wide East Asian characters
// and emoji count two).
func truncate(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, ellipsis)
}
