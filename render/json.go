package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// JSON writes v as JSON indented by two spaces, followed by a newline.
//
// A json.RawMessage (such as a result's Raw field) is re-indented as is, so
// the server's key order and number spelling survive; other values are
// encoded with encoding/json. Neither escapes <, > and &: this is output
// for people and jq, not for embedding in HTML. On a colour terminal object
// keys and strings are coloured.
func (p *Printer) JSON(v any) error {
	var buf bytes.Buffer
	if raw, ok := v.(json.RawMessage); ok {
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = json.RawMessage("null")
		}
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return fmt.Errorf("indenting JSON: %w", err)
		}
		buf.WriteByte('\n')
	} else {
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encoding JSON: %w", err)
		}
	}
	if !p.Color {
		_, err := p.out().Write(buf.Bytes())
		return err
	}
	st := p.styles()
	return writeColoredJSON(p.out(), buf.Bytes(), spanOf(st.jsonKey), spanOf(st.jsonString))
}

// writeColoredJSON writes valid JSON data with every string token wrapped in
// str's escape sequences, or key's when a colon follows it.
func writeColoredJSON(w io.Writer, data []byte, key, str span) error {
	bw := bufio.NewWriter(w)
	last := 0
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
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
		bw.Write(data[last:i])
		bw.WriteString(sp.pre)
		bw.Write(data[i:end])
		bw.WriteString(sp.post)
		last = end
		i = end - 1
	}
	bw.Write(data[last:])
	return bw.Flush()
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
