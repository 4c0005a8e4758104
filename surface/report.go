package surface

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// classHeadings are the report's headings, one per class.
var classHeadings = map[Class]string{
	Breaking:    "Breaking changes",
	Compatible:  "Compatible changes",
	Description: "Descriptions, titles and annotations",
	Other:       "Other changes",
}

// WriteText writes the report of changes (in [Diff]'s order) grouped by
// class: a heading with the count, then one line per change naming the
// item and what changed, with the old and new values under it.
func WriteText(w io.Writer, changes []Change) error {
	var b strings.Builder
	if len(changes) == 0 {
		b.WriteString("No changes.\n")
	}
	counts := Count(changes)
	for _, class := range Classes() {
		if counts[class] == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s (%d):\n", classHeadings[class], counts[class])
		for _, c := range changes {
			if c.Class != class {
				continue
			}
			where := c.Kind
			if c.Item != "" {
				where += " " + c.Item
			}
			if c.Path != "" && c.Kind != "server" {
				where += " (" + c.Path + ")"
			}
			fmt.Fprintf(&b, "  %s: %s\n", printable(where), printable(c.What))
			if c.Old != "" || c.New != "" {
				fmt.Fprintf(&b, "      was: %s\n      now: %s\n", quoteWords(c.Old), quoteWords(c.New))
			}
			if c.Note != "" {
				fmt.Fprintf(&b, "      note: %s\n", c.Note)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// quoteWords quotes a value so that empty text, trailing spaces and
// control characters (which a poisoned description may hide) show.
func quoteWords(s string) string {
	if s == "" {
		return "(none)"
	}
	return strconv.Quote(s)
}

// printable returns s, quoted when it holds a character a terminal would
// act on rather than show: names and paths come from the server.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// FailOn says which changes make a diff fail: breaking (the default), any
// or none.
type FailOn string

// The values of --fail-on.
const (
	FailOnBreaking FailOn = "breaking"
	FailOnAny      FailOn = "any"
	FailOnNone     FailOn = "none"
)

// ParseFailOn reads a --fail-on value.
func ParseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailOnBreaking, FailOnAny, FailOnNone:
		return f, nil
	}
	return "", fmt.Errorf("invalid --fail-on %q: expected breaking, any or none", s)
}

// Fails reports whether changes fail under f.
func (f FailOn) Fails(changes []Change) bool {
	switch f {
	case FailOnAny:
		return len(changes) > 0
	case FailOnNone:
		return false
	}
	return Count(changes)[Breaking] > 0
}
