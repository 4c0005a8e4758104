package render

import (
	"bufio"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

const (
	columnGap = "  "
	// wrapFloor is the width a wrapping column keeps before the terminal is
	// too narrow for every column: ten-odd cells still hold a few words.
	wrapFloor = 12
	// wordFloor caps how much of its longest word a wrapping column keeps
	// whole before other columns give up width: an argument such as
	// includeImage?:boolean stays on one line, a long URL in a description
	// does not hold the table hostage.
	wordFloor = 32
	// comfortWidth is the width below which the last wrapping column (the
	// description) is too cramped to keep optional columns beside it.
	comfortWidth = 30
)

// Column is one column of a table written by [Printer.Columns].
type Column struct {
	// Header is the column's heading, shown on a terminal.
	Header string
	// Whole keeps every cell of the column on one line and uncut on a
	// terminal, however narrow: names, which users type next. Other
	// columns wrap at word boundaries to make room.
	Whole bool
	// Optional columns are left out on a terminal, the rightmost first,
	// while the last wrapping column would otherwise be narrower than
	// comfortWidth cells (or its contents): secondary details such as a
	// title, which list -l shows in full.
	Optional bool
}

// Table writes rows under headers: [Printer.Columns] with the first column
// kept whole (the name) and the others wrapping.
func (p *Printer) Table(headers []string, rows [][]string, empty string) error {
	cols := make([]Column, len(headers))
	for i, h := range headers {
		cols[i] = Column{Header: h, Whole: i == 0}
	}
	if len(cols) == 0 {
		cols = []Column{{Whole: true}}
	}
	return p.Columns(cols, rows, empty)
}

// Columns writes rows under the headers of cols.
//
// On a terminal the header row is bold and columns are aligned. Nothing is
// cut: when the table is wider than Width, Whole columns keep their full
// width and the others share what is left, as evenly as their contents
// allow (a column that needs less keeps less; ties go to the earlier
// column), each wrapping its cells at word boundaries onto more lines; a
// word longer than its column is broken. A wrapping column keeps at least
// wrapFloor (12) cells, or what its cells need; only a line whose Whole
// columns and those floors do not fit is wider than Width. Newlines and tabs
// in cells become spaces and other control characters are made visible
// ([Sanitize]), so a server cannot move the cursor or recolour the
// terminal through a tool description, nor hide text. When rows is empty,
// empty (if not "") is written to ErrOut, like "No tools.".
//
// When not a terminal there is no header, no wrapping and no message: each
// row is one line of tab-separated full values, with newlines and tabs
// inside cells replaced by spaces so that lines and fields stay parseable;
// cells are otherwise byte-exact, unless colour is forced on, which means
// a terminal and sanitised cells.
//
// The error is the first error writing to Out (or ErrOut, for empty).
func (p *Printer) Columns(cols []Column, rows [][]string, empty string) error {
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
	return p.ttyTable(cols, rows)
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

func (p *Printer) ttyTable(cols []Column, rows [][]string) error {
	ncols := len(cols)
	for _, row := range rows {
		ncols = max(ncols, len(row))
	}
	cols = append(cols[:len(cols):len(cols)], make([]Column, ncols-len(cols))...)
	hasHeader := false
	for _, c := range cols {
		hasHeader = hasHeader || c.Header != ""
	}
	cells := make([][]string, 0, len(rows)+1)
	if hasHeader {
		headers := make([]string, ncols)
		for i, c := range cols {
			headers[i] = c.Header
		}
		cells = append(cells, padRow(headers, ncols))
	}
	for _, row := range rows {
		cells = append(cells, padRow(row, ncols))
	}
	widths := layout(cols, cells, hasHeader, p.Width)
	for widths == nil {
		drop := -1
		for i, c := range cols {
			if c.Optional {
				drop = i
			}
		}
		cols = append(cols[:drop:drop], cols[drop+1:]...)
		for r, row := range cells {
			cells[r] = append(row[:drop:drop], row[drop+1:]...)
		}
		widths = layout(cols, cells, hasHeader, p.Width)
	}
	ncols = len(cols)
	whole := make([]bool, ncols)
	for i, c := range cols {
		whole[i] = c.Whole
	}

	st := p.styles()
	w := bufio.NewWriter(p.out())
	var line strings.Builder
	wrapped := make([][]string, ncols)
	for r, row := range cells {
		height := 1
		for i, c := range row {
			if whole[i] {
				wrapped[i] = []string{c}
			} else {
				wrapped[i] = wrapWords(c, widths[i])
			}
			height = max(height, len(wrapped[i]))
		}
		for l := range height {
			line.Reset()
			for i := range row {
				c := ""
				if l < len(wrapped[i]) {
					c = wrapped[i][l]
				}
				if i > 0 {
					line.WriteString(columnGap)
				}
				if r == 0 && hasHeader {
					line.WriteString(st.header.Render(c))
				} else {
					line.WriteString(c)
				}
				if i < ncols-1 {
					line.WriteString(strings.Repeat(" ", max(0, widths[i]-ansi.StringWidth(c))))
				}
			}
			w.WriteString(strings.TrimRight(line.String(), " "))
			w.WriteByte('\n')
		}
	}
	return w.Flush()
}

// layout returns the widths of the columns in a terminal width wide, or
// nil when an optional column should be left out first.
func layout(cols []Column, cells [][]string, hasHeader bool, width int) []int {
	ncols := len(cols)
	natural := make([]int, ncols)
	longest := make([]int, ncols)
	for r, row := range cells {
		for i, c := range row {
			natural[i] = max(natural[i], ansi.StringWidth(c))
			if r > 0 || !hasHeader {
				for _, word := range strings.Fields(c) {
					longest[i] = max(longest[i], ansi.StringWidth(word))
				}
			}
		}
	}
	if width <= 0 {
		return natural
	}
	whole := make([]bool, ncols)
	floors := make([]int, ncols)
	flex := -1
	optional := false
	for i, c := range cols {
		whole[i] = c.Whole
		optional = optional || c.Optional
		floors[i] = natural[i]
		if !c.Whole {
			head := 0
			if hasHeader {
				head = ansi.StringWidth(cells[0][i])
			}
			floors[i] = min(natural[i], max(wrapFloor, head, min(longest[i], wordFloor)))
			flex = i
		}
	}
	widths := fitWidths(natural, floors, whole, flex, width-len(columnGap)*(ncols-1))
	if optional && flex >= 0 && widths[flex] < min(natural[flex], comfortWidth) {
		return nil
	}
	return widths
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

// fitWidths returns column widths summing to at most avail where that is
// possible. Whole columns keep their natural width. The others start at
// their floor; what is left goes one cell at a time to the column still
// below its natural width that is narrowest for its weight (the earlier
// one on a tie), the flex column (the description) weighing two, so that a
// column needing little keeps little and the rest share. When even the
// floors do not fit, the widest wrapping columns give up cells, down to
// wrapFloor cells each (or their contents): a line wider than the
// terminal, which wraps it, reads better than a column one cell wide.
func fitWidths(natural, floors []int, whole []bool, flex, avail int) []int {
	widths := make([]int, len(natural))
	total := 0
	for _, n := range natural {
		total += n
	}
	if total <= avail {
		return append(widths[:0], natural...)
	}
	used := 0
	for i := range widths {
		widths[i] = floors[i]
		if whole[i] {
			widths[i] = natural[i]
		}
		used += widths[i]
	}
	weight := func(i int) int {
		if i == flex {
			return 1
		}
		return 2
	}
	for used < avail {
		best := -1
		for i, w := range widths {
			if !whole[i] && w < natural[i] && (best < 0 || w*weight(i) < widths[best]*weight(best)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		widths[best]++
		used++
	}
	for used > avail {
		widest := -1
		for i, w := range widths {
			if !whole[i] && w > min(natural[i], wrapFloor) && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		used--
	}
	return widths
}

// wrapWords breaks s into lines of at most width cells at spaces; a word
// wider than width is broken after its last separator that fits (/ - _ .
// , :), else where it must be. Widths are measured in
// terminal cells (grapheme clusters, wide East Asian characters and emoji
// count two). An empty s is no lines.
func wrapWords(s string, width int) []string {
	if s == "" {
		return nil
	}
	width = max(width, 1)
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
		if curW > 0 && curW+1+ww <= width {
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
			continue
		}
		if curW > 0 {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		for ww > width {
			head := ansi.Truncate(word, width, "")
			if head == "" { // a character wider than the column
				head = firstGrapheme(word)
			} else if i := strings.LastIndexAny(head[:len(head)-1], "/-_.,:"); i > 0 {
				// A path, URL or identifier breaks after a separator.
				head = head[:i+1]
			}
			lines = append(lines, head)
			word = word[len(head):]
			ww = ansi.StringWidth(word)
		}
		cur.WriteString(word)
		curW = ww
	}
	if curW > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// firstGrapheme is the first character of s; a column narrower than
// one wide character still gets it, so the loop ends.
func firstGrapheme(s string) string {
	_, n := utf8.DecodeRuneInString(s)
	return s[:max(n, 1)]
}

// Age shows a wait the way a person reads it: "12s", "3m", "2h".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh", int(d.Hours()))
}
