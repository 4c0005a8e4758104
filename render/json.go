package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON writes v as JSON indented by two spaces, followed by a newline.
//
// A json.RawMessage (such as a result's Raw field) is re-indented as is, so
// the server's key order and number spelling survive; other values are
// encoded with encoding/json. Neither escapes <, > and &: this is output
// for people and jq, not for embedding in HTML. On a colour terminal object
// keys and strings are coloured.
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
	bw := bufio.NewWriterSize(p.out(), 64<<10)
	writeIndented(bw, raw, key, str)
	bw.WriteByte('\n')
	return bw.Flush()
}

// writeIndented writes valid JSON data indented by two spaces, streaming:
// unlike json.Indent into a buffer, it never holds a second copy of data.
// String tokens are wrapped in str's escape sequences, or key's when they
// are object keys; empty spans write plain JSON.
func writeIndented(w *bufio.Writer, data []byte, key, str span) {
	depth := 0
	newline := func() {
		w.WriteByte('\n')
		for range depth {
			w.WriteString("  ")
		}
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			end := i + 1
			for end < len(data) && data[end] != '"' {
				if data[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end+1, len(data))
			next := end
			for next < len(data) && isJSONSpace(data[next]) {
				next++
			}
			sp := str
			if next < len(data) && data[next] == ':' {
				sp = key
			}
			w.WriteString(sp.pre)
			w.Write(data[i:end])
			w.WriteString(sp.post)
			i = end - 1
		case '{', '[':
			w.WriteByte(c)
			next := i + 1
			for next < len(data) && isJSONSpace(data[next]) {
				next++
			}
			if next < len(data) && (data[next] == '}' || data[next] == ']') {
				// Empty containers stay on one line: {} and [].
				w.WriteByte(data[next])
				i = next
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			w.WriteByte(c)
		case ',':
			w.WriteByte(c)
			newline()
		case ':':
			w.WriteString(": ")
		default:
			w.WriteByte(c)
		}
	}
}

// excerpt shortens invalid JSON for an error message.
func excerpt(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q…", b[:60])
	}
	return fmt.Sprintf("%q", b)
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
