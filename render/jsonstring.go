package render

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// WriteJSONString writes the text that raw, one JSON string literal with
// its quotes, encodes, decoded exactly as encoding/json decodes it into a
// Go string: escapes are decoded, \u surrogate pairs are joined, and lone
// surrogates and bytes that are not valid UTF-8 become U+FFFD.
//
// It lets a command print a huge text straight from the response's bytes
// without holding a decoded copy: runs without escapes are written
// straight from raw, and the rest goes through a 32 KiB buffer. If raw is
// not a valid string literal the error says where; what came before the
// problem may have been written.
func WriteJSONString(w io.Writer, raw []byte) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	if _, err := decodeJSONString(bw, raw, false, nil); err != nil {
		return err
	}
	return bw.Flush()
}

// TextJSON writes a text content block given as the raw JSON string of its
// "text" member, as [Printer.Content] writes a text block (a trailing
// newline added when missing, sanitised on a terminal), without decoding
// the whole string first: see [WriteJSONString].
func (p *Printer) TextJSON(raw []byte) error {
	bw := bufio.NewWriterSize(p.out(), 32<<10)
	endsInNewline, err := decodeJSONString(bw, raw, p.terminal(), nil)
	if err != nil {
		return err
	}
	if !endsInNewline {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// decodeJSONString writes the text raw encodes to w, sanitised when term
// is set (the same as [Sanitize] applied to the decoded text), and reports
// whether the text ends in "\n". Errors writing stay in w for its Flush.
//
// Bytes that are not valid UTF-8 become U+FFFD, as encoding/json decodes
// them, unless invalid is not nil: then they are kept, byte for byte, or
// shown as \xNN when term is set, and *invalid is set when there was one.
func decodeJSONString(w *bufio.Writer, raw []byte, term bool, invalid *bool) (endsInNewline bool, err error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false, fmt.Errorf("decoding a JSON string: not a string literal: %s", excerpt(raw))
	}
	body := raw[1 : len(raw)-1]
	var esc [16]byte
	start := 0 // of the run of plain bytes not written yet
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			if i > start {
				writeJSONRun(w, body[start:i], term, invalid)
				endsInNewline = false
			}
			r, size, ok := jsonEscape(body[i:])
			if !ok {
				return false, fmt.Errorf("decoding a JSON string: invalid escape %q at byte %d", body[i:min(i+6, len(body))], i+1)
			}
			i += size
			start = i
			endsInNewline = r == '\n'
			switch {
			case !term:
			case r == '\r' && i+1 < len(body) && body[i] == '\\' && body[i+1] == 'n':
				// CRLF is kept, as Sanitize keeps it.
			case r < utf8.RuneSelf && (r < 0x20 && r != '\n' && r != '\t' || r == 0x7f):
				w.Write(appendVisible(esc[:0], []byte{byte(r)}))
				continue
			case isC1(r) || isBidiControl(r):
				w.Write(appendUEscape(esc[:0], r))
				continue
			}
			w.Write(utf8.AppendRune(esc[:0], r))
		case c == '"':
			return false, fmt.Errorf("decoding a JSON string: unescaped quote at byte %d", i+1)
		case c < 0x20:
			return false, fmt.Errorf("decoding a JSON string: control character %#02x at byte %d", c, i+1)
		default:
			i++
		}
	}
	if start < len(body) {
		writeJSONRun(w, body[start:], term, invalid)
		endsInNewline = false
	}
	return endsInNewline, nil
}

// jsonEscape decodes the escape at the start of s, which begins with a
// backslash, and returns the rune and the bytes it took. Surrogates are
// handled as encoding/json handles them: a valid pair of \u escapes is one
// rune, anything else U+FFFD for the first escape alone.
func jsonEscape(s []byte) (r rune, size int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r := hex4(s)
		if r < 0 {
			return 0, 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, 6, true
		}
		if r2 := hex4(s[6:]); r2 >= 0 {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 12, true
			}
		}
		return utf8.RuneError, 6, true
	}
	return 0, 0, false
}

// hex4 decodes the \uXXXX escape at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// writeJSONRun writes a run of a JSON string's bytes that holds no escape,
// quote or C0 control: straight from run when it is valid UTF-8 with
// nothing to sanitise, else with invalid bytes as U+FFFD (or, when invalid
// is not nil, as they are, or \xNN when term is set; see
// decodeJSONString) and, when term is set, DEL, C1 and bidi controls made
// visible.
func writeJSONRun(w *bufio.Writer, run []byte, term bool, invalid *bool) {
	if utf8.Valid(run) && (!term || !mayNeedTermEscape(run)) {
		w.Write(run)
		return
	}
	var esc [16]byte
	start := 0
	for i := 0; i < len(run); {
		c := run[i]
		if c < utf8.RuneSelf {
			if c == 0x7f && term {
				w.Write(run[start:i])
				w.Write(appendVisible(esc[:0], run[i:i+1]))
				start = i + 1
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(run[i:])
		switch {
		case r == utf8.RuneError && n == 1 && invalid != nil:
			*invalid = true
			if !term {
				i += n // kept as it is, in the run
				continue
			}
			w.Write(run[start:i])
			w.Write(appendVisible(esc[:0], run[i:i+1]))
		case r == utf8.RuneError && n == 1:
			w.Write(run[start:i])
			w.WriteString("\uFFFD")
		case term && (isC1(r) || isBidiControl(r)):
			w.Write(run[start:i])
			w.Write(appendUEscape(esc[:0], r))
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	w.Write(run[start:])
}
