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
	// and markers are decorated, and server-supplied text has its control
	// characters made visible ([Sanitize]). When false, output is plain,
	// complete and byte-exact.
	TTY bool
	// ErrTTY says ErrOut is a terminal: server-supplied text written there
	// through [Printer.UntrustedErr] is sanitised.
	ErrTTY bool
	// Color enables escape sequences on Out. It implies that Out is shown
	// on a terminal, so it also turns sanitising on.
	Color bool
	// ErrColor enables escape sequences on ErrOut, and sanitising there.
	ErrColor bool
	// Width is the terminal width in cells that TTY tables fit into; zero or
	// less means no limit.
	Width int
	// OnInvalidUTF8, when not nil, is called once for each [Printer.JSON]
	// document in which invalid UTF-8 was replaced by U+FFFD. A command that
	// prints several documents should warn once ([InvalidUTF8Warning]), for
	// example through a sync.Once.
	OnInvalidUTF8 func()
	// OnInvalidText, when not nil, is called once for each text content
	// block holding bytes that are not valid UTF-8, which text output
	// writes as they are when piped and as \xNN on a terminal (see
	// [InvalidTextWarning]). A command should warn once, as for
	// OnInvalidUTF8.
	OnInvalidText func()
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

// Heading returns title styled as a section heading when Out has colour,
// unchanged otherwise; sanitised on a terminal.
func (p *Printer) Heading(title string) string {
	return p.styles().heading.Render(p.Untrusted(title))
}

// Warning writes "warning: msg" to ErrOut, the prefix coloured when ErrColor
// is set and msg sanitised when ErrOut is a terminal.
func (p *Printer) Warning(msg string) {
	// Errors writing to stderr have nowhere to be reported.
	_, _ = io.WriteString(p.errOut(), Warning(p.UntrustedErr(msg), p.ErrColor)+"\n")
}

// InvalidUTF8Warning is the warning to print, once, when
// [Printer.OnInvalidUTF8] is called.
const InvalidUTF8Warning = "the server sent invalid UTF-8; replaced with U+FFFD in the JSON output"

// InvalidTextWarning is the warning to print, once, when
// [Printer.OnInvalidText] is called; term says Out is a terminal.
func InvalidTextWarning(term bool) string {
	if term {
		return `the server sent text that is not valid UTF-8; its invalid bytes are shown as \xNN`
	}
	return "the server sent text that is not valid UTF-8; written byte for byte as sent"
}

// Terminal reports whether Out is shown on a terminal (TTY or colour), where
// what a server sent is sanitised.
func (p *Printer) Terminal() bool { return p.terminal() }

// Warning returns "warning: msg" without a trailing newline, the prefix
// coloured when color is set, for callers that write to stderr themselves.
// With color set msg is also sanitised ([Sanitize]): colour means a
// terminal.
func Warning(msg string, color bool) string {
	return newStyles(newRenderer(io.Discard, color)).warning.Render("warning:") + " " + stderrText(msg, color)
}

// ErrorLine returns "error: msg" without a trailing newline, the prefix
// coloured when color is set, for callers that write to stderr themselves.
// With color set msg is also sanitised ([Sanitize]): errors often quote
// what a server sent.
func ErrorLine(msg string, color bool) string {
	return newStyles(newRenderer(io.Discard, color)).errorLabel.Render("error:") + " " + stderrText(msg, color)
}

// ErrorLineWidth is [ErrorLine] wrapped to width cells at word
// boundaries, for a terminal: continuation lines are indented by two
// spaces (lines of msg that are indented keep their indentation), and a
// word wider than the line stands on a line of its own, never split, so
// that a URL or path can still be copied whole. Width 0 or less leaves the
// line as ErrorLine writes it, as for piped output.
func ErrorLineWidth(msg string, color bool, width int) string {
	const label = "error:"
	line := label + " " + stderrText(msg, color)
	if width > 0 {
		line = wrapText(line, width, "  ")
	}
	return newStyles(newRenderer(io.Discard, color)).errorLabel.Render(label) + line[len(label):]
}

// WrapText wraps each line of s to width cells at word boundaries, never
// splitting a word (one wider than width stands alone); continuation lines
// keep the line's indentation. Width 0 or less returns s unchanged.
func WrapText(s string, width int) string {
	if width <= 0 {
		return s
	}
	return wrapText(s, width, "")
}

// wrapText wraps as [WrapText] does, the continuation lines of the first
// line indented by more as well.
func wrapText(s string, width int, more string) string {
	var out []string
	for i, line := range strings.Split(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		body := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(body)]
		if i == 0 {
			indent += more
		}
		if len(indent) > width/2 {
			indent = ""
		}
		cur, curW := line[:len(line)-len(body)], len(line)-len(body)
		start := true // nothing but indentation on cur yet
		for _, word := range strings.Fields(body) {
			ww := ansi.StringWidth(word)
			if !start && curW+1+ww > width {
				out = append(out, cur)
				cur, curW, start = indent, len(indent), true
			}
			if !start {
				cur += " "
				curW++
			}
			cur += word
			curW += ww
			start = false
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// Dim returns s in the faint style and sanitised when color is set,
// unchanged otherwise; for secondary lines on stderr such as server log
// messages.
func Dim(s string, color bool) string {
	if !color {
		return s
	}
	sp := spanOf(newStyles(newRenderer(io.Discard, true)).dim)
	return sp.pre + Sanitize(s) + sp.post
}

// stderrText trims the trailing newlines of msg and sanitises it when
// sanitize is set.
func stderrText(msg string, sanitize bool) string {
	msg = strings.TrimRight(msg, "\n")
	if sanitize {
		return Sanitize(msg)
	}
	return msg
}

// Fields writes label/value pairs as aligned "Label: value" lines, the
// summary form of connect. Labels are styled on a colour terminal, where
// values are sanitised. A value with several lines continues under the
// first one; CR and CRLF count as line ends. On a terminal of known Width
// long values wrap at word boundaries, continuing under the first line.
func (p *Printer) Fields(fields [][2]string) error {
	st := p.styles()
	labelWidth := 0
	for _, f := range fields {
		labelWidth = max(labelWidth, ansi.StringWidth(f[0])+1)
	}
	indent := strings.Repeat(" ", labelWidth+1)
	var b strings.Builder
	for _, f := range fields {
		label, value := f[0]+":", p.Untrusted(normalizeNewlines(f[1]))
		if p.TTY && p.Width > 0 {
			value = wrapLines(value, max(p.Width-labelWidth-1, wrapFloor))
		}
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

// Wrap returns s with each of its lines wrapped at word boundaries to
// Width on a terminal, continuation lines keeping the line's indentation;
// unchanged when not a terminal or Width is not known, so that piped text
// stays as the server sent it. It does not sanitise: see
// [Printer.Untrusted].
func (p *Printer) Wrap(s string) string {
	if !p.TTY || p.Width <= 0 {
		return s
	}
	return wrapLines(normalizeNewlines(s), p.Width)
}

// wrapLines wraps each line of s to width cells at word boundaries; a
// line's leading spaces are kept on its continuation lines.
func wrapLines(s string, width int) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, line := range lines {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		body := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(body)]
		if len(indent) > width/2 {
			indent = ""
		}
		for _, l := range wrapWords(body, width-len(indent)) {
			out = append(out, indent+l)
		}
	}
	return strings.Join(out, "\n")
}
