package batch

import (
	"fmt"
	"io"
	"time"
)

// TerminalProgress draws "N/M done" on a terminal, redrawn at most every
// [progressEvery], and erases it when the run ends.
type TerminalProgress struct {
	w     io.Writer
	shown bool
	last  time.Time
}

// progressEvery is how often the progress line is redrawn at most.
const progressEvery = 100 * time.Millisecond

// NewTerminalProgress returns a [TerminalProgress] drawing on w, which
// should be a terminal (the line is redrawn in place).
func NewTerminalProgress(w io.Writer) *TerminalProgress {
	return &TerminalProgress{w: w}
}

// Printed redraws the line unless it was drawn very recently.
func (p *TerminalProgress) Printed(done, total int) {
	if now := time.Now(); now.Sub(p.last) >= progressEvery {
		p.last = now
		fmt.Fprintf(p.w, "\r%d/%d done\x1b[K", done, total)
		p.shown = true
	}
}

// Clear erases the line, if one was drawn.
func (p *TerminalProgress) Clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// CountLines counts the lines of r that are not blank: the calls a batch
// reading r will make, for [Options.Total].
func CountLines(r io.Reader) int {
	buf := make([]byte, 64*1024)
	n, filled := 0, false // filled: the current line has a non-space byte
	for {
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			switch c {
			case '\n':
				if filled {
					n++
				}
				filled = false
			case ' ', '\t', '\r':
			default:
				filled = true
			}
		}
		if err != nil {
			break
		}
	}
	if filled {
		n++
	}
	return n
}
