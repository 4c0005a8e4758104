package render

import (
	"bufio"
	"unicode/utf8"
)

// Sanitize returns s with every character a terminal would act on made
// visible, for printing server-supplied text on a terminal:
//
//   - C0 control characters other than "\n" and "\t", and DEL, in caret
//     notation: ESC as ^[, BEL as ^G, a lone CR as ^M, DEL as ^?. So an
//     escape sequence such as OSC 52 (a clipboard write) or CSI 2J (clear
//     the screen) is shown as text and does nothing. A CR directly followed
//     by LF is kept: it cannot overwrite anything, and CRLF line ends are
//     common;
//   - C1 control characters (U+0080 to U+009F) as \u009b;
//   - the bidirectional embedding, override and isolate characters (U+202A
//     to U+202E, U+2066 to U+2069), which can make a terminal show text in
//     an order other than the bytes', as \u202e;
//   - each byte that is not part of valid UTF-8 as \xNN: a stray 0x9b byte
//     is a CSI to terminals that read 8-bit controls.
//
// Everything else, including the other Unicode format characters, is kept.
// The result is for display, not a reversible encoding: a server's own
// literal "^[" looks the same as an escaped ESC. Sanitize returns s itself,
// without allocating, when there is nothing to change.
func Sanitize(s string) string {
	i, _ := nextUnsafe(s)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	return string(appendSanitized(b, s))
}

// appendSanitized appends s to dst with unsafe characters made visible, as
// [Sanitize] describes.
func appendSanitized[T ~string | ~[]byte](dst []byte, s T) []byte {
	for len(s) > 0 {
		i, n := nextUnsafe(s)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		dst = appendVisible(dst, s[i:i+n])
		s = s[i+n:]
	}
	return dst
}

// writeSanitized writes s to w with unsafe characters made visible. Runs of
// safe text are written straight from s, so a large text is never copied
// whole; w should be buffered, as escapes are written piece by piece.
func writeSanitized[T string | []byte](w *bufio.Writer, s T) error {
	var esc [16]byte
	for len(s) > 0 {
		i, n := nextUnsafe(s)
		if i < 0 {
			return writeRaw(w, s)
		}
		if err := writeRaw(w, s[:i]); err != nil {
			return err
		}
		if _, err := w.Write(appendVisible(esc[:0], s[i:i+n])); err != nil {
			return err
		}
		s = s[i+n:]
	}
	return nil
}

// writeRaw writes a string or byte slice without converting it.
func writeRaw[T string | []byte](w *bufio.Writer, s T) error {
	var err error
	switch s := any(s).(type) {
	case string:
		_, err = w.WriteString(s)
	case []byte:
		_, err = w.Write(s)
	}
	return err
}

// nextUnsafe returns the index and length in bytes of the first character
// of s that [Sanitize] changes, or -1 and 0.
func nextUnsafe[T ~string | ~[]byte](s T) (int, int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
					i += 2
					continue
				}
				return i, 1
			}
			i++
			continue
		}
		r, n := decodeRune(s[i:])
		if r == utf8.RuneError && n == 1 || isC1(r) || isBidiControl(r) {
			return i, n
		}
		i += n
	}
	return -1, 0
}

// decodeRune is utf8.DecodeRune for strings and byte slices alike.
func decodeRune[T ~string | ~[]byte](s T) (rune, int) {
	var b [utf8.UTFMax]byte
	n := copy(b[:], s[:min(len(s), utf8.UTFMax)])
	return utf8.DecodeRune(b[:n])
}

// appendVisible appends the visible form of one unsafe character, given as
// the bytes nextUnsafe found.
func appendVisible[T ~string | ~[]byte](dst []byte, ch T) []byte {
	if len(ch) == 1 {
		c := ch[0]
		switch {
		case c < 0x20:
			return append(dst, '^', c+0x40)
		case c == 0x7f:
			return append(dst, '^', '?')
		}
		// A byte that is not valid UTF-8.
		const hex = "0123456789abcdef"
		return append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
	}
	r, _ := decodeRune(ch)
	return appendUEscape(dst, r)
}

// appendUEscape appends r as \uXXXX, the form that is also a JSON escape.
func appendUEscape(dst []byte, r rune) []byte {
	dst = append(dst, '\\', 'u')
	for shift := 12; shift >= 0; shift -= 4 {
		dst = append(dst, "0123456789abcdef"[(r>>shift)&0xf])
	}
	return dst
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isBidiControl reports the characters that change the display order of
// the text after them (the "Trojan Source" characters).
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// terminal reports whether Out is shown on a terminal: a TTY, or colour
// forced on (CLICOLOR_FORCE), which means output is meant for a terminal
// or a pager that interprets escape sequences.
func (p *Printer) terminal() bool { return p.TTY || p.Color }

// errTerminal is terminal for ErrOut.
func (p *Printer) errTerminal() bool { return p.ErrTTY || p.ErrColor }

// Untrusted returns s with control characters made visible ([Sanitize])
// when Out is a terminal or has colour, and s unchanged otherwise, so that
// piped output stays byte-exact. Commands pass server-supplied text they
// print to Out themselves through it.
func (p *Printer) Untrusted(s string) string {
	if p.terminal() {
		return Sanitize(s)
	}
	return s
}

// UntrustedErr is [Printer.Untrusted] for text written to ErrOut, such as
// server log notifications and error messages that quote the server.
func (p *Printer) UntrustedErr(s string) string {
	if p.errTerminal() {
		return Sanitize(s)
	}
	return s
}
