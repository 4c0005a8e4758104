package lint

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkURI reports why s is not an absolute URI by the grammar of RFC 3986
// (section 3, "URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]"),
// or "" when it is one. It checks what a client relies on: a scheme, only
// the characters the grammar allows, complete percent-encodings, one
// fragment, brackets only around an IP literal host and a numeric port. It
// does not resolve or normalise anything.
func checkURI(s string) string {
	if s == "" {
		return "is empty"
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 || strings.ContainsAny(s[:colon], "/?#") {
		return "has no scheme (RFC 3986 requires one, e.g. file:///path or myapp://item)"
	}
	scheme := s[:colon]
	if msg := checkScheme(scheme); msg != "" {
		return msg
	}
	rest := s[colon+1:]
	if i := strings.IndexByte(rest, '#'); i >= 0 && strings.IndexByte(rest[i+1:], '#') >= 0 {
		return `has more than one "#"; a fragment cannot contain "#" (percent-encode it as %23)`
	}
	hier, _, _ := strings.Cut(rest, "#")
	hier, _, _ = strings.Cut(hier, "?")
	if authority, ok := strings.CutPrefix(hier, "//"); ok {
		authority, _, _ = strings.Cut(authority, "/")
		if msg := checkAuthority(authority); msg != "" {
			return msg
		}
	}
	// Brackets are legal only around an IP literal host, checked above.
	afterAuthority := rest
	if strings.HasPrefix(rest, "//") {
		end := strings.IndexAny(rest[2:], "/?#")
		if end < 0 {
			afterAuthority = ""
		} else {
			afterAuthority = rest[2+end:]
		}
	}
	if i := strings.IndexAny(afterAuthority, "[]"); i >= 0 {
		return fmt.Sprintf("has %q outside a host; percent-encode it", afterAuthority[i])
	}
	return checkChars(rest, colon+1, isURIChar)
}

// checkScheme checks scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func checkScheme(scheme string) string {
	if scheme == "" || !isAlpha(scheme[0]) {
		return fmt.Sprintf("has an invalid scheme %q: a scheme starts with a letter", scheme)
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return fmt.Sprintf("has an invalid scheme %q: %q is not allowed in a scheme", scheme, rune(c))
		}
	}
	return ""
}

// checkAuthority checks authority = [ userinfo "@" ] host [ ":" port ],
// where host may be an IP literal in brackets.
func checkAuthority(a string) string {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		a = a[i+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return `has an IP literal host without its closing "]"`
		}
		host, port = a[1:end], a[end+1:]
		if strings.ContainsAny(host, "[]") {
			return "has an invalid IP literal host"
		}
		if port != "" {
			p, ok := strings.CutPrefix(port, ":")
			if !ok {
				return fmt.Sprintf("has %q after its IP literal host", port)
			}
			port = p
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i+1:]
	}
	if strings.ContainsAny(host, "[]") {
		return `has "[" or "]" in its host; only an IP literal host is bracketed`
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return fmt.Sprintf("has an invalid port %q", port)
		}
	}
	return ""
}

// checkChars reports the first character of s that ok rejects, or a
// broken percent-encoding; offsets count from base.
func checkChars(s string, base int, ok func(rune) bool) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	for i, r := range s {
		switch {
		case r == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Sprintf("has %q at offset %d, which is not a percent-encoding (%%XX with two hex digits)", truncateAt(s[i:], 3), base+i)
			}
		case !ok(r):
			return fmt.Sprintf("has %s at offset %d, which is not allowed%s", describeRune(r), base+i, percentHint(r))
		}
	}
	return ""
}

// isURIChar reports whether r may appear unencoded after a URI's scheme:
// unreserved, gen-delims and sub-delims characters (RFC 3986 section 2).
func isURIChar(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	c := byte(r)
	return isAlpha(c) || isDigit(c) || strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0
}

// checkURITemplate reports why s is not a URI template by the grammar of
// RFC 6570 section 2, or "" when it is one. Literals may hold the URI
// characters, ucschar and iprivate (so non-ASCII text, as in an IRI) and
// percent-encodings; an expression is "{" [operator] varspec *("," varspec)
// "}", with the operators + # . / ; ? & (the level 2 to 4 ones; = , ! @ |
// are reserved), varnames of ALPHA, DIGIT, "_", percent-encodings and inner
// dots, and the modifiers :N (1 to 9999) and *.
func checkURITemplate(s string) string {
	if s == "" {
		return "is empty"
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '{':
			end := strings.IndexAny(s[i+1:], "{}")
			if end < 0 || s[i+1+end] == '{' {
				return fmt.Sprintf("has an expression at offset %d that is not closed with \"}\"", i)
			}
			if msg := checkExpression(s[i+1 : i+1+end]); msg != "" {
				return fmt.Sprintf("has an invalid expression %q at offset %d: %s", s[i:i+2+end], i, msg)
			}
			i += end + 2
		case '}':
			return fmt.Sprintf("has \"}\" at offset %d without an opening \"{\"", i)
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Sprintf("has %q at offset %d, which is not a percent-encoding (%%XX with two hex digits)", truncateAt(s[i:], 3), i)
			}
			i += 3
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 {
				return "is not valid UTF-8"
			}
			if !isLiteralChar(r) {
				return fmt.Sprintf("has %s at offset %d, which is not allowed in a literal%s", describeRune(r), i, percentHint(r))
			}
			i += size
		}
	}
	return ""
}

// checkExpression checks the inside of "{…}".
func checkExpression(e string) string {
	if e == "" {
		return "it is empty"
	}
	switch e[0] {
	case '+', '#', '.', '/', ';', '?', '&':
		e = e[1:]
	case '=', ',', '!', '@', '|':
		return fmt.Sprintf("operator %q is reserved for future extensions", e[0])
	}
	if e == "" {
		return "it has an operator but no variable"
	}
	for _, spec := range strings.Split(e, ",") {
		if msg := checkVarspec(spec); msg != "" {
			return msg
		}
	}
	return ""
}

// checkVarspec checks varspec = varname [ ":" max-length / "*" ].
func checkVarspec(spec string) string {
	name, prefix, hasPrefix := strings.Cut(spec, ":")
	if !hasPrefix {
		name = strings.TrimSuffix(spec, "*")
	}
	if msg := checkVarname(name); msg != "" {
		return msg
	}
	if hasPrefix {
		if prefix == "" || len(prefix) > 4 || prefix[0] == '0' || strings.Trim(prefix, "0123456789") != "" {
			return fmt.Sprintf("prefix modifier %q of %q must be a number from 1 to 9999", ":"+prefix, name)
		}
	}
	return ""
}

// checkVarname checks varname = varchar *( ["."] varchar ), varchar =
// ALPHA / DIGIT / "_" / pct-encoded.
func checkVarname(name string) string {
	if name == "" {
		return "a variable name is empty"
	}
	if name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return fmt.Sprintf("variable name %q has a dot at its start or end, or two in a row", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isAlpha(c) || isDigit(c) || c == '_' || c == '.':
		case c == '%' && i+2 < len(name) && isHex(name[i+1]) && isHex(name[i+2]):
			i += 2
		default:
			r, _ := utf8.DecodeRuneInString(name[i:])
			return fmt.Sprintf("variable name %q has %s; names allow letters, digits, \"_\", inner dots and percent-encodings", name, describeRune(r))
		}
	}
	return ""
}

// isLiteralChar reports whether r may appear in a template literal (RFC
// 6570 section 2.1): any URI character except "{" and "}", or a ucschar or
// iprivate code point.
func isLiteralChar(r rune) bool {
	if r < utf8.RuneSelf {
		return isURIChar(r) && r != '\'' // %x27 is left out of the literals
	}
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0xE000 && r <= 0xF8FF: // iprivate
		return true
	case r >= 0x10000 && r <= 0xEFFFD:
		return r&0xFFFF <= 0xFFFD // ucschar, excluding each plane's last two code points
	case r >= 0xF0000 && r <= 0x10FFFD:
		return r&0xFFFF <= 0xFFFD // iprivate
	}
	return false
}

func describeRune(r rune) string {
	switch r {
	case ' ':
		return "a space"
	case '\t':
		return "a tab"
	case '\n':
		return "a newline"
	}
	if r < 0x20 || r == 0x7F {
		return fmt.Sprintf("control character %U", r)
	}
	return fmt.Sprintf("%q", r)
}

// percentHint suggests the percent-encoding of an ASCII character.
func percentHint(r rune) string {
	if r < utf8.RuneSelf {
		return fmt.Sprintf(" (percent-encode it as %%%02X)", r)
	}
	return " (percent-encode its UTF-8 bytes)"
}

func truncateAt(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
