package scaffold

import (
	"math"
	"strings"
	"unicode/utf8"
)

// The Go templates are written as gofmt writes Go, so the generated files
// are gofmt-clean without go/format, which would link go/parser, go/ast and
// go/printer (0.8 MB of the binary) for scaffold alone. What the templates
// cannot spell out is the column alignment of
// lines whose widths depend on the names in them; it is computed here, by
// the rules of go/printer (which lays out columns with text/tabwriter:
// every cell of a column is as wide as its widest cell plus one space).
// TestGoOutputIsGofmtClean checks the output against go/format for every
// kind of tool.

// alignColumns pads the cells of rows so that each column but the last
// lines up, as gofmt lays out consecutive struct fields or key: value
// lines. A row's last cell is not padded. Rows in one block must have the
// same number of cells.
func alignColumns(rows [][]string) []string {
	var widths []int
	for _, r := range rows {
		for i, cell := range r[:len(r)-1] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	lines := make([]string, len(rows))
	for n, r := range rows {
		var b strings.Builder
		for i, cell := range r[:len(r)-1] {
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+1))
		}
		b.WriteString(r[len(r)-1])
		lines[n] = b.String()
	}
	return lines
}

// keyValueSections splits the one-line key: value elements of a composite
// literal, given by the widths of their keys, into the runs gofmt aligns
// together (go/printer's exprList): keys of at most 40 columns always
// align; beyond that, a key 2.5 times longer or shorter than the geometric
// mean of the keys before it in its run starts a new run. It returns the
// index of the first element of each run.
func keyValueSections(keyWidths []int) []int {
	const (
		smallSize = 40
		ratioMax  = 2.5
	)
	if len(keyWidths) == 0 {
		return nil
	}
	starts := []int{0}
	lnsum, count := math.Log(float64(keyWidths[0])), 1
	for i := 1; i < len(keyWidths); i++ {
		size, prev := keyWidths[i], keyWidths[i-1]
		if prev > smallSize || size > smallSize {
			ratio := float64(size) / math.Exp(lnsum/float64(count))
			if ratioMax*ratio <= 1 || ratioMax <= ratio {
				starts = append(starts, i)
				lnsum, count = 0, 0
			}
		}
		lnsum += math.Log(float64(size))
		count++
	}
	return starts
}

// alignKeyValues lays out one-line key: value elements as gofmt does:
// "key:" then the value, the values of each run (see keyValueSections)
// in one column.
func alignKeyValues(keys, values []string) []string {
	widths := make([]int, len(keys))
	for i, k := range keys {
		widths[i] = utf8.RuneCountInString(k)
	}
	starts := append(keyValueSections(widths), len(keys))
	var lines []string
	for s := 0; s+1 < len(starts); s++ {
		var rows [][]string
		for i := starts[s]; i < starts[s+1]; i++ {
			rows = append(rows, []string{keys[i] + ":", values[i]})
		}
		lines = append(lines, alignColumns(rows)...)
	}
	return lines
}
