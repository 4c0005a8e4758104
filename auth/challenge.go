package auth

import "strings"

// ParseChallenges parses WWW-Authenticate header values (each may hold
// several challenges) into challenges, in order, by the grammar of RFC 9110
// §11.6.1: a scheme, then either a token68 or comma-separated auth-params
// whose values are tokens or quoted strings (with \-escapes). A comma
// followed by "name=" continues the current challenge; a comma followed by
// a token that is not followed by "=" starts the next one.
//
// Param names are lower-cased (they are case-insensitive); a name repeated
// within one challenge keeps its first value. A token68 (Basic, Negotiate)
// is stored under the empty name. Schemes compare case-insensitively: the
// ones mcpctl acts on are spelt canonically ("Bearer", "DPoP", "Basic"),
// others as the server wrote them; use [FindChallenge] to look one up.
// Malformed parts are skipped: a server's header never makes this fail.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		p := challengeParser{s: v}
		out = p.parse(out)
	}
	return out
}

// FindChallenge returns the first challenge of scheme (compared
// case-insensitively), or nil.
func FindChallenge(challenges []Challenge, scheme string) *Challenge {
	for i := range challenges {
		if strings.EqualFold(challenges[i].Scheme, scheme) {
			return &challenges[i]
		}
	}
	return nil
}

// canonicalSchemes are the spellings of the schemes mcpctl compares, so
// that a server's "bearer" matches a plain == "Bearer" too.
var canonicalSchemes = [...]string{"Bearer", "DPoP", "Basic"}

func canonicalScheme(s string) string {
	for _, c := range canonicalSchemes {
		if strings.EqualFold(s, c) {
			return c
		}
	}
	return s
}

// challengeParser walks one header value; pos only moves forward, so every
// loop below ends.
type challengeParser struct {
	s   string
	pos int
}

func (p *challengeParser) parse(out []Challenge) []Challenge {
	for {
		p.skipSpaceAndCommas()
		if p.eof() {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			// Not a scheme: skip this list element.
			p.skipToComma()
			continue
		}
		p.skipSpace()
		if !p.eof() && p.peek() == '=' {
			// "name=value" with no challenge before it: drop the pair.
			p.pos++
			p.skipSpace()
			p.value()
			p.skipToComma()
			continue
		}
		ch := Challenge{Scheme: canonicalScheme(scheme), Params: map[string]string{}}
		switch {
		case p.eof():
		case p.peek() != ',':
			if t, ok := p.token68(); ok {
				ch.Params[""] = t
			} else {
				p.params(&ch)
			}
		default:
			// "Bearer, realm=x": empty list elements before the first
			// parameter (RFC 9110 §5.6.1 allows them).
			save := p.pos
			p.skipSpaceAndCommas()
			start := p.pos
			tok := p.token()
			p.skipSpace()
			if tok != "" && !p.eof() && p.peek() == '=' {
				p.pos = start
				p.params(&ch)
			} else {
				p.pos = save
			}
		}
		out = append(out, ch)
	}
}

// token68 reads a token68 when one stands alone (followed by the end or a
// comma); otherwise it leaves pos where it was and reports false.
func (p *challengeParser) token68() (string, bool) {
	start := p.pos
	i := p.pos
	for i < len(p.s) && isToken68Char(p.s[i]) {
		i++
	}
	if i == start {
		return "", false
	}
	for i < len(p.s) && p.s[i] == '=' {
		i++
	}
	j := i
	for j < len(p.s) && isSpace(p.s[j]) {
		j++
	}
	if j < len(p.s) && p.s[j] != ',' {
		return "", false
	}
	p.pos = j
	return p.s[start:i], true
}

// params reads auth-params into ch until the next challenge starts or the
// value ends.
func (p *challengeParser) params(ch *Challenge) {
	for {
		p.skipSpace()
		name := p.token()
		p.skipSpace()
		if name == "" || p.eof() || p.peek() != '=' {
			p.skipToComma()
		} else {
			p.pos++
			p.skipSpace()
			v, ok := p.value()
			if ok {
				key := strings.ToLower(name)
				if _, dup := ch.Params[key]; !dup {
					ch.Params[key] = v
				}
			}
			p.skipSpace()
			if !p.eof() && p.peek() != ',' {
				// Garbage after the value: skip to the next element.
				p.skipToComma()
			}
		}
		// At the end or at a comma. Does a parameter or a challenge follow?
		p.skipSpaceAndCommas()
		if p.eof() {
			return
		}
		save := p.pos
		tok := p.token()
		p.skipSpace()
		isParam := tok != "" && !p.eof() && p.peek() == '='
		p.pos = save
		if !isParam && tok != "" {
			return // the next challenge's scheme
		}
		if tok == "" {
			p.skipToComma()
		}
	}
}

// value reads a token or a quoted-string; ok is false when there is none
// or the quoted string is not closed.
func (p *challengeParser) value() (string, bool) {
	if p.eof() {
		return "", false
	}
	if p.peek() != '"' {
		t := p.token()
		return t, t != ""
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), true
		case c == '\\' && p.pos+1 < len(p.s):
			b.WriteByte(p.s[p.pos+1])
			p.pos += 2
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", false
}

func (p *challengeParser) token() string {
	start := p.pos
	for p.pos < len(p.s) && isTokenChar(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *challengeParser) eof() bool  { return p.pos >= len(p.s) }
func (p *challengeParser) peek() byte { return p.s[p.pos] }

func (p *challengeParser) skipSpace() {
	for p.pos < len(p.s) && isSpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *challengeParser) skipSpaceAndCommas() {
	for p.pos < len(p.s) && (isSpace(p.s[p.pos]) || p.s[p.pos] == ',') {
		p.pos++
	}
}

// skipToComma moves to the next comma outside a quoted string (or the
// end), always advancing at least one byte when not at a comma already.
func (p *challengeParser) skipToComma() {
	inQuote := false
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case inQuote && c == '\\' && p.pos+1 < len(p.s):
			p.pos++ // the escaped byte, whatever it is
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ',':
			return
		}
		p.pos++
	}
}

// isSpace reports whether c is whitespace; CR and LF count too, for
// headers read with their line folding.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isTokenChar reports whether c is a tchar of RFC 9110 §5.6.2.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isToken68Char reports whether c may appear in a token68 before its
// trailing "=" padding (RFC 9110 §11.2).
func isToken68Char(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}
