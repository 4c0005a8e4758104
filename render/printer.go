package render

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Printer writes results in the form that suits its destination. Commands
// fill it from their IO streams; tests set the fields directly. Styles are
// derived from the fields on every call, so changing a field takes effect at
// once. A Printer is safe for concurrent use only if its writers are.
type Printer struct {
	// Out receives data: tables, JSON, content. Nil discards.
	Out io.Writer
	// ErrOut receives warnings, errors and empty-list messages. Nil
	// discards.
	ErrOut io.Writer
	// TTY says Out is a terminal: tables get headers and truncation, labels
	// and markers are decorated. When false, output is plain and complete.
	TTY bool
	// Color enables escape sequences on Out.
	Color bool
	// ErrColor enables escape sequences on ErrOut.
	ErrColor bool
	// Width is the terminal width in cells that TTY tables fit into; zero or
	// less means no limit.
	Width int
}

func (p *Printer) out() io.Writer {
	if p.Out == nil {
		return io.Discard
	}
	return p.Out
}

func (p *Printer) errOut() io.Writer {
	if p.ErrOut == nil {
		return io.Discard
	}
	return p.ErrOut
}

// styles returns the styles bound to Out.
func (p *Printer) styles() styles { return newStyles(newRenderer(p.out(), p.Color)) }

// errStyles returns the styles bound to ErrOut.
func (p *Printer) errStyles() styles { return newStyles(newRenderer(p.errOut(), p.ErrColor)) }

// Heading returns title styled as a section heading when Out has colour,
// unchanged otherwise.
func (p *Printer) Heading(title string) string { return p.styles().heading.Render(title) }

// Warning writes "warning: msg" to ErrOut, the prefix coloured when ErrColor
// is set.
func (p *Printer) Warning(msg string) {
	// Errors writing to stderr have nowhere to be reported.
	_, _ = io.WriteString(p.errOut(), Warning(msg, p.ErrColor)+"\n")
}

// ErrorLine writes "error: msg" to ErrOut, the prefix coloured when
// ErrColor is set.
func (p *Printer) ErrorLine(msg string) {
	_, _ = io.WriteString(p.errOut(), ErrorLine(msg, p.ErrColor)+"\n")
}

// Warning returns "warning: msg" without a trailing newline, the prefix
// coloured when color is set, for callers that write to stderr themselves.
func Warning(msg string, color bool) string {
	return newStyles(newRenderer(io.Discard, color)).warning.Render("warning:") + " " + strings.TrimRight(msg, "\n")
}

// ErrorLine returns "error: msg" without a trailing newline, the prefix
// coloured when color is set, for callers that write to stderr themselves.
func ErrorLine(msg string, color bool) string {
	return newStyles(newRenderer(io.Discard, color)).errorLabel.Render("error:") + " " + strings.TrimRight(msg, "\n")
}

// Dim returns s in the faint style when color is set, unchanged otherwise;
// for secondary lines on stderr such as server log messages.
func Dim(s string, color bool) string {
	if !color {
		return s
	}
	sp := spanOf(newStyles(newRenderer(io.Discard, true)).dim)
	return sp.pre + s + sp.post
}

// Fields writes label/value pairs as aligned "Label: value" lines, the
// summary form of connect. Labels are styled on a colour terminal. A value
// with several lines continues under the first one.
func (p *Printer) Fields(fields [][2]string) error {
	st := p.styles()
	labelWidth := 0
	for _, f := range fields {
		labelWidth = max(labelWidth, ansi.StringWidth(f[0])+1)
	}
	indent := strings.Repeat(" ", labelWidth+1)
	var b strings.Builder
	for _, f := range fields {
		label, value := f[0]+":", normalizeNewlines(f[1])
		b.WriteString(st.label.Render(label))
		first, rest, _ := strings.Cut(value, "\n")
		if first != "" {
			b.WriteString(strings.Repeat(" ", labelWidth-ansi.StringWidth(label)+1))
			b.WriteString(first)
		}
		for rest != "" {
			var line string
			line, rest, _ = strings.Cut(rest, "\n")
			b.WriteByte('\n')
			if line != "" {
				b.WriteString(indent)
				b.WriteString(line)
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(p.out(), b.String())
	return err
}

// normalizeNewlines turns CRLF and lone CR line ends into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
