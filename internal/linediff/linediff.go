// Package linediff writes unified line diffs (Myers' algorithm, three
// lines of context), for the people who review a change: a test's
// expected and actual text, a pinned tool definition and its new one.
package linediff

import (
	"fmt"
	"slices"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// maxDiffEdits bounds the search for a shortest edit script, and with it
// the memory the search holds (quadratic in the edits): two texts further
// apart than this are shown as one replacement, which is still a readable
// failure message.
const maxDiffEdits = 1000

// Unified is a unified diff of two texts, each ending in a newline: a
// "---"/"+++" header, then hunks of changed lines with up to three
// unchanged lines around them. It is empty when the texts' lines are equal.
func Unified(oldName, old, newName, new string) string {
	edits := diffLines(splitLines(old), splitLines(new))
	var b strings.Builder
	for _, h := range hunks(edits) {
		if b.Len() == 0 {
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
		}
		b.WriteString(h)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// splitLines splits s into lines without their newlines; a missing final
// newline is taken as given.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// edit is one line of an edit script: kept (' '), deleted ('-') or
// inserted ('+').
type edit struct {
	op   byte
	line string
}

// diffLines returns an edit script turning a into b. The common start and
// end are kept as they are; the middle is a shortest edit script (Myers'
// algorithm), or a plain replacement when that would take more than
// maxDiffEdits edits.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for _, l := range a[:pre] {
		out = append(out, edit{' ', l})
	}
	out = append(out, shortestEdits(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, edit{' ', l})
	}
	return out
}

// shortestEdits is Myers' O(ND) difference algorithm: for d = 0, 1, ...
// it extends, on every diagonal k = x-y it can reach with d edits, the
// furthest path, then walks back through the saved rounds to recover the
// script.
func shortestEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	if n+m == 0 {
		return nil
	}
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3) // v[off+k]: furthest x on diagonal k
	var trace [][]int           // v as each round d found it
	for d := 0; d <= limit; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, off)
			}
		}
	}
	out := make([]edit, 0, n+m)
	for _, l := range a {
		out = append(out, edit{'-', l})
	}
	for _, l := range b {
		out = append(out, edit{'+', l})
	}
	return out
}

// backtrack recovers the edit script from the rounds shortestEdits saved.
func backtrack(a, b []string, trace [][]int, off int) []edit {
	var out []edit
	x, y := len(a), len(b)
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			out = append(out, edit{' ', a[x-1]})
			x--
			y--
		}
		if d > 0 {
			if x == prevX {
				out = append(out, edit{'+', b[y-1]})
			} else {
				out = append(out, edit{'-', a[x-1]})
			}
		}
		x, y = prevX, prevY
	}
	slices.Reverse(out)
	return out
}

// hunks formats the changes of an edit script as unified diff hunks, each
// with its "@@ -l,s +l,s @@" header and ending in a newline. Changes closer
// than twice the context share a hunk.
func hunks(edits []edit) []string {
	var out []string
	aLine, bLine := make([]int, len(edits)+1), make([]int, len(edits)+1)
	for i, e := range edits {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if e.op != '+' {
			aLine[i+1]++
		}
		if e.op != '-' {
			bLine[i+1]++
		}
	}
	for i := 0; i < len(edits); {
		if edits[i].op == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i // one past the last change of the hunk
		for j := i; j < len(edits) && j < end+2*diffContext+1; j++ {
			if edits[j].op != ' ' {
				end = j + 1
			}
		}
		stop := min(len(edits), end+diffContext)
		var b strings.Builder
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(aLine[start], aLine[stop]), hunkRange(bLine[start], bLine[stop]))
		for _, e := range edits[start:stop] {
			b.WriteByte(e.op)
			b.WriteString(e.line)
			b.WriteByte('\n')
		}
		out = append(out, b.String())
		i = stop
	}
	return out
}

// hunkRange writes lines [from, to) (0-based) as unified diffs do: the
// first line's number and the count, or the line before when it is empty.
func hunkRange(from, to int) string {
	if from == to {
		return fmt.Sprintf("%d,0", from)
	}
	return fmt.Sprintf("%d,%d", from+1, to-from)
}
