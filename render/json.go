package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
)

// JSON writes v as JSON indented by two spaces, followed by a newline.
//
// A json.RawMessage (such as a result's Raw field) is re-indented as is, so
// the server's key order and number spelling survive; other values are
// encoded with encoding/json. Neither escapes <, > and &: this is output
// for people and jq, not for embedding in HTML. On a colour terminal object
// keys and strings are coloured.
//
// The output is always valid UTF-8: invalid bytes inside strings become
// U+FFFD and [Printer.OnInvalidUTF8] is called. On a terminal (TTY or
// colour) DEL, C1 control and bidirectional control characters in strings
// are written as \u escapes, which mean the same characters to a JSON
// reader but are not obeyed by the terminal. Otherwise the bytes are the
// server's, re-indented.
//
// Indentation never makes the output much larger than the input, however
// deeply it nests: levels deeper than 32 are written compact, and when
// indenting would take the output past three times the input (plus 64
// KiB) fewer levels are indented, down to none. The document is streamed:
// no second copy of it is made.
func (p *Printer) JSON(v any) error {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encoding JSON: %w", err)
		}
		raw = buf.Bytes()
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	// Validating first lets the indenter below trust its input; the scan
	// allocates nothing, which matters for a 50 MB result.
	if !json.Valid(raw) {
		return fmt.Errorf("indenting JSON: invalid JSON: %s", excerpt(raw))
	}
	var key, str span
	if p.Color {
		st := p.styles()
		key, str = spanOf(st.jsonKey), spanOf(st.jsonString)
	}
	depth, colored := planLayout(raw, key, str)
	if !colored {
		key, str = span{}, span{}
	}
	bw := bufio.NewWriterSize(p.out(), 64<<10)
	iw := indentWriter{w: bw, maxDepth: depth, key: key, str: str, term: p.terminal()}
	iw.write(raw)
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return err
	}
	if iw.invalidUTF8 && p.OnInvalidUTF8 != nil {
		p.OnInvalidUTF8()
	}
	return nil
}

const (
	// maxIndentDepth is the deepest level that is indented; deeper levels
	// are written compact. 32 levels are 64 columns of indentation already.
	maxIndentDepth = 32
	// The layout budget: indented output may be at most budgetFactor times
	// the input plus budgetSlack, so that small documents are always
	// indented in full.
	budgetFactor = 3
	budgetSlack  = 64 << 10
)

// planLayout chooses how many levels of valid JSON data to indent, and
// whether colour fits, so that the output stays within the layout budget.
// It scans data once and allocates nothing. The sizes it predicts are
// exactly what indentWriter writes for valid UTF-8 without characters that
// need escaping on a terminal.
func planLayout(data []byte, key, str span) (depth int, colored bool) {
	base, cost, keys, strs := measureLayout(data)
	budget := budgetFactor*len(data) + budgetSlack
	colorCost := keys*(len(key.pre)+len(key.post)) + strs*(len(str.pre)+len(str.post))
	fits := func(extra int) int {
		size, best := base+extra, -1
		if size <= budget {
			best = 0
		}
		for d := 1; d <= maxIndentDepth; d++ {
			size += cost[d]
			if size > budget {
				break
			}
			best = d
		}
		return best
	}
	if colorCost > 0 {
		if d := fits(colorCost); d >= 0 {
			return d, true
		}
	}
	return max(fits(0), 0), false
}

// measureLayout returns the size of valid JSON data written compact (with
// the final newline), the bytes that indenting each level adds
// (cost[level]), and the number of object keys and of other strings.
func measureLayout(data []byte) (base int, cost [maxIndentDepth + 1]int, keys, strs int) {
	base = 1 // the final newline
	depth := 0
	add := func(level, n int) {
		if level >= 1 && level <= maxIndentDepth {
			cost[level] += n
		}
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			end := stringEnd(data, i)
			base += end - i
			if isKey(data, end) {
				keys++
			} else {
				strs++
			}
			i = end - 1
		case '{', '[':
			if next := jsonscan.Space(data, i+1); next < len(data) && (data[next] == '}' || data[next] == ']') {
				base += 2
				i = next
				continue
			}
			base++
			depth++
			add(depth, 1+2*depth)
		case '}', ']':
			base++
			add(depth, 1+2*(depth-1))
			depth--
		case ',':
			base++
			add(depth, 1+2*depth)
		case ':':
			base++
			add(depth, 1)
		default:
			base++
		}
	}
	return base, cost, keys, strs
}

// indentWriter writes valid JSON indented by two spaces up to maxDepth
// levels, compact below, streaming: unlike json.Indent into a buffer, it
// never holds a second copy of the data. String tokens are wrapped in
// str's escape sequences, or key's when they are object keys; empty spans
// write plain JSON.
type indentWriter struct {
	w        *bufio.Writer
	maxDepth int
	key, str span
	// term escapes the characters a terminal acts on inside strings.
	term bool
	// invalidUTF8 records that invalid UTF-8 was replaced.
	invalidUTF8 bool
}

// spaces is indentation for the deepest indented level.
const spaces = "                                                                " // 2*maxIndentDepth

func (iw *indentWriter) newline(depth int) {
	iw.w.WriteByte('\n')
	iw.w.WriteString(spaces[:2*depth])
}

// write writes data; errors stay in the bufio.Writer for its Flush.
func (iw *indentWriter) write(data []byte) {
	w := iw.w
	depth := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			end := stringEnd(data, i)
			sp := iw.str
			if isKey(data, end) {
				sp = iw.key
			}
			w.WriteString(sp.pre)
			iw.stringToken(data[i:end])
			w.WriteString(sp.post)
			i = end - 1
		case '{', '[':
			w.WriteByte(c)
			if next := jsonscan.Space(data, i+1); next < len(data) && (data[next] == '}' || data[next] == ']') {
				// Empty containers stay on one line: {} and [].
				w.WriteByte(data[next])
				i = next
				continue
			}
			depth++
			if depth <= iw.maxDepth {
				iw.newline(depth)
			}
		case '}', ']':
			if depth <= iw.maxDepth {
				iw.newline(depth - 1)
			}
			depth--
			w.WriteByte(c)
		case ',':
			w.WriteByte(c)
			if depth <= iw.maxDepth {
				iw.newline(depth)
			}
		case ':':
			w.WriteByte(c)
			if depth <= iw.maxDepth {
				w.WriteByte(' ')
			}
		default:
			w.WriteByte(c)
		}
	}
}

// stringToken writes one string token, quotes included, replacing invalid
// UTF-8 with U+FFFD and, on a terminal, escaping DEL, C1 and bidi control
// characters. The common case, nothing to change, is checked with fast
// scans and written straight from data.
func (iw *indentWriter) stringToken(tok []byte) {
	valid := utf8.Valid(tok)
	if valid && (!iw.term || !mayNeedTermEscape(tok)) {
		iw.w.Write(tok)
		return
	}
	if !valid {
		iw.invalidUTF8 = true
	}
	var esc [8]byte
	start := 0 // of the run not written yet
	for i := 0; i < len(tok); {
		c := tok[i]
		if c < utf8.RuneSelf {
			if c == 0x7f && iw.term {
				iw.w.Write(tok[start:i])
				iw.w.Write(appendUEscape(esc[:0], 0x7f))
				start = i + 1
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(tok[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			iw.w.Write(tok[start:i])
			iw.w.WriteString("\uFFFD")
		case iw.term && (isC1(r) || isBidiControl(r)):
			iw.w.Write(tok[start:i])
			iw.w.Write(appendUEscape(esc[:0], r))
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	iw.w.Write(tok[start:])
}

// mayNeedTermEscape reports whether tok may hold DEL, a C1 control (encoded
// C2 80 to C2 9F) or a bidi control (E2 80 AA to E2 81 A9); false is
// certain. Three vectorised byte searches are much faster than decoding.
func mayNeedTermEscape(tok []byte) bool {
	return bytes.IndexByte(tok, 0x7f) >= 0 || bytes.IndexByte(tok, 0xc2) >= 0 || bytes.IndexByte(tok, 0xe2) >= 0
}

// stringEnd returns the index just past the string token that starts at
// data[i], a quote, or len(data) when it does not end.
func stringEnd(data []byte, i int) int {
	if end := jsonscan.StringEnd(data, i); end >= 0 {
		return end
	}
	return len(data)
}

// isKey reports whether the string token ending at end is an object key.
func isKey(data []byte, end int) bool {
	next := jsonscan.Space(data, end)
	return next < len(data) && data[next] == ':'
}

// excerpt shortens invalid JSON for an error message.
func excerpt(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q…", b[:60])
	}
	return fmt.Sprintf("%q", b)
}
