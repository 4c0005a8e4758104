package render

import (
	"bytes"
	"io"
	"strconv"
	"sync"
)

// DefaultWarnLimit is how many warnings of one kind a [Warner] prints when
// its Limit is zero.
const DefaultWarnLimit = 5

// Warner prints warnings that may repeat thousands of times, such as one
// protocol violation per message of a flood: the first Limit warnings of
// each kind are printed, the rest are only counted, and [Warner.Flush]
// prints one line per kind saying how many were left out:
//
//	mcpctl: … and 12,287 more like this (protocol violation)
//
// The zero value discards; set Out. A Warner is safe for concurrent use,
// and each warning reaches Out as one Write. It must not be copied after
// first use.
type Warner struct {
	// Out receives the warnings. Nil discards.
	Out io.Writer
	// Limit is how many different warnings of each kind are printed; zero
	// or less means DefaultWarnLimit. A warning identical to one already
	// printed is only counted.
	Limit int
	// Terminal sanitises messages ([Sanitize]): set it when Out is a
	// terminal and messages quote what a server sent.
	Terminal bool

	mu      sync.Mutex
	printed map[string]int  // different warnings printed per kind
	left    map[string]int  // warnings left out per kind since the last Flush
	seen    map[string]bool // kind + message of what was printed
	order   []string        // kinds in the order first seen, for Flush
}

// maxSeen bounds the memory of printed messages; past it, repeats are
// told apart by kind only.
const maxSeen = 1024

// Warn prints msg, a whole line without its newline, unless the same
// message was printed already or Limit different warnings of kind were;
// then it only counts it. kind groups warnings that are alike; it is shown
// in Flush's summary line, so make it a short phrase such as "protocol
// violation".
func (w *Warner) Warn(kind, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.printed == nil {
		w.printed, w.left, w.seen = map[string]int{}, map[string]int{}, map[string]bool{}
	}
	if _, known := w.printed[kind]; !known {
		w.order = append(w.order, kind)
		w.printed[kind] = 0
	}
	key := kind + "\x00" + msg
	if w.seen[key] || w.printed[kind] >= w.limit() || w.Out == nil {
		w.left[kind]++
		return
	}
	w.printed[kind]++
	if len(w.seen) < maxSeen {
		w.seen[key] = true
	}
	if w.Terminal {
		msg = Sanitize(msg)
	}
	// Errors writing warnings have nowhere to be reported.
	_, _ = io.WriteString(w.Out, msg+"\n")
}

// Flush prints, for each kind with warnings left out since the last Flush,
// "mcpctl: … and N more like this (kind)", and starts counting afresh.
// Call it when the command ends, and whenever a summary is due.
func (w *Warner) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b bytes.Buffer
	for _, kind := range w.order {
		if over := w.left[kind]; over > 0 {
			if w.Terminal {
				kind = Sanitize(kind)
			}
			b.WriteString("mcpctl: … and " + groupThousands(over) + " more like this (" + kind + ")\n")
		}
	}
	clear(w.printed)
	clear(w.left)
	clear(w.seen)
	w.order = w.order[:0]
	if b.Len() > 0 && w.Out != nil {
		_, _ = w.Out.Write(b.Bytes())
	}
}

func (w *Warner) limit() int {
	if w.Limit <= 0 {
		return DefaultWarnLimit
	}
	return w.Limit
}

// groupThousands formats n with commas between groups of three digits:
// 12,287.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

// Writer returns an io.Writer for APIs that report warnings as lines
// written to a writer (such as transport.Command.Warn): each complete line
// written to it is a [Warner.Warn] of kind. An unfinished line is held
// until its newline; at most 64 KiB of it is kept. Safe for concurrent use.
func (w *Warner) Writer(kind string) io.Writer { return &warnWriter{w: w, kind: kind} }

type warnWriter struct {
	w       *Warner
	kind    string
	mu      sync.Mutex
	partial []byte
}

func (ww *warnWriter) Write(p []byte) (int, error) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	rest := eachLine(&ww.partial, p, func(line []byte) { ww.w.Warn(ww.kind, string(line)) })
	if room := maxPartialLine - len(ww.partial); room > 0 {
		ww.partial = append(ww.partial, rest[:min(len(rest), room)]...)
	}
	return len(p), nil
}
