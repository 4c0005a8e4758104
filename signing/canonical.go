package signing

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Canonical form names, as given to [Canonical] and to mcpctl's --canonical flag.
const (
	// FormJCS is RFC 8785, the JSON Canonicalization Scheme. It is the default.
	FormJCS = "jcs"
	// FormPython is what Python prints for json.dumps(json.loads(data), sort_keys=True).
	FormPython = "python"
)

// Canonical returns the canonical form of the JSON text data in the named
// form: [FormJCS] or [FormPython]. An empty form means [FormJCS].
func Canonical(form string, data []byte) ([]byte, error) {
	switch form {
	case FormJCS, "":
		return JCS(data)
	case FormPython:
		return Python(data)
	default:
		return nil, fmt.Errorf("unknown canonical form %q: use %q or %q", form, FormJCS, FormPython)
	}
}

// JCS returns the RFC 8785 canonical form of the JSON text data: no
// insignificant whitespace, object members sorted by the UTF-16 code units of
// their names, strings with only the escapes RFC 8785 requires, and numbers
// formatted as ECMAScript formats an IEEE 754 double (so 1E30 becomes 1e+30
// and 4.50 becomes 4.5). Input that is not I-JSON is refused: duplicate
// member names, lone surrogates, invalid UTF-8, numbers out of the range
// of a double, and (as for [Python]) nesting deeper than 1000 levels.
//
// The parser is the one [Python] uses (JSON's grammar, strictly); the tests
// in this package hold the output to the RFC's examples. It replaces
// github.com/gowebpki/jcs, whose package initialisation cost every start of
// mcpctl half a millisecond.
func JCS(data []byte) ([]byte, error) {
	p := &pyParser{data: data}
	p.skipSpace()
	var out bytes.Buffer
	out.Grow(len(data))
	if err := jcsValue(p, &out); err != nil {
		return nil, fmt.Errorf("jcs canonical form: %w", err)
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, fmt.Errorf("jcs canonical form: %w", p.errorf("extra data after the JSON value"))
	}
	return out.Bytes(), nil
}

// jcsValue reads one value and writes its canonical form.
func jcsValue(p *pyParser, out *bytes.Buffer) error {
	if p.pos >= len(p.data) {
		return p.errorf("unexpected end of input, expecting a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return jcsObject(p, out)
	case c == '[':
		return jcsArray(p, out)
	case c == '"':
		s, err := jcsString(p)
		if err != nil {
			return err
		}
		writeJCSString(out, s)
		return nil
	case c == '-' || isDigit(c):
		tok, _, _, err := p.scanNumber()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return p.errorf("number %.40s is out of the range of a double", tok)
			}
			return p.errorf("invalid number %.40s", tok)
		}
		out.WriteString(esNumber(f))
		return nil
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
			p.pos += len(lit)
			out.WriteString(lit)
			return nil
		}
	}
	return p.errorf("unexpected character %q, expecting a value", rune(p.data[p.pos]))
}

// jcsString reads a string literal; lone surrogates are refused (I-JSON).
func jcsString(p *pyParser) (string, error) {
	if s, ok := p.plainString(); ok {
		return s, nil
	}
	start := p.pos
	runes, err := p.str()
	if err != nil {
		return "", err
	}
	for _, r := range runes {
		if 0xD800 <= r && r <= 0xDFFF {
			p.pos = start
			return "", p.errorf("lone surrogate \\u%04x in a string", r)
		}
	}
	return string(runes), nil
}

func jcsArray(p *pyParser, out *bytes.Buffer) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	p.pos++ // '['
	out.WriteByte('[')
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		out.WriteByte(']')
		return nil
	}
	for {
		p.skipSpace()
		if err := jcsValue(p, out); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			out.WriteByte(',')
		case ']':
			p.pos++
			out.WriteByte(']')
			return nil
		default:
			return p.errorf("expecting ',' or ']' in an array")
		}
	}
}

// jcsMember is an object member, its value already in canonical form.
type jcsMember struct {
	name       string
	utf16      []uint16 // the sort key, when a name is not ASCII
	start, end int      // the canonical value's bytes in the object's buffer
	offset     int      // where the name starts, for errors
}

// plainString reads the string literal at p.pos when it holds only
// printable ASCII and no escape, the common case, whose value is its
// bytes; ok is false, and p unmoved, for any other.
func (p *pyParser) plainString() (s string, ok bool) {
	for i := p.pos + 1; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			s = string(p.data[p.pos+1 : i])
			p.pos = i + 1
			return s, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return "", false
		}
	}
	return "", false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func jcsObject(p *pyParser, out *bytes.Buffer) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	p.pos++ // '{'
	var (
		members []jcsMember
		values  bytes.Buffer // the members' canonical values, one after another
		ascii   = true       // every name is ASCII: UTF-16 order is byte order
	)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		out.WriteString("{}")
		return nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.errorf("expecting a member name in double quotes")
		}
		offset := p.pos
		name, err := jcsString(p)
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.errorf("expecting ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		start := values.Len()
		if err := jcsValue(p, &values); err != nil {
			return err
		}
		ascii = ascii && isASCII(name)
		members = append(members, jcsMember{name: name, start: start, end: values.Len(), offset: offset})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			if ascii {
				slices.SortStableFunc(members, func(a, b jcsMember) int { return strings.Compare(a.name, b.name) })
			} else {
				for i := range members {
					members[i].utf16 = utf16.Encode([]rune(members[i].name))
				}
				slices.SortStableFunc(members, func(a, b jcsMember) int { return slices.Compare(a.utf16, b.utf16) })
			}
			canon := values.Bytes()
			out.WriteByte('{')
			for i, m := range members {
				if i > 0 {
					if members[i-1].name == m.name {
						p.pos = m.offset
						return p.errorf("duplicate member name %q", m.name)
					}
					out.WriteByte(',')
				}
				writeJCSString(out, m.name)
				out.WriteByte(':')
				out.Write(canon[m.start:m.end])
			}
			out.WriteByte('}')
			return nil
		default:
			return p.errorf("expecting ',' or '}' in an object")
		}
	}
}

// writeJCSString writes s as ECMAScript's JSON.stringify does (RFC 8785
// section 3.2.2.2): \" \\ \b \t \n \f \r, other control characters as
// \u00xx with lower-case hex, everything else as it is.
func writeJCSString(out *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	out.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out.WriteByte('\\')
			out.WriteByte(c)
		case c == '\b':
			out.WriteString(`\b`)
		case c == '\t':
			out.WriteString(`\t`)
		case c == '\n':
			out.WriteString(`\n`)
		case c == '\f':
			out.WriteString(`\f`)
		case c == '\r':
			out.WriteString(`\r`)
		case c < 0x20:
			out.WriteString(`\u00`)
			out.WriteByte(hex[c>>4])
			out.WriteByte(hex[c&0xF])
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('"')
}

// esNumber formats f as ECMAScript's Number.prototype.toString does (RFC
// 8785 section 3.2.2.3): the shortest digits that round-trip, plain decimal
// for 1e-6 <= |f| < 1e21, otherwise exponent form without leading zeros in
// the exponent (1e+21, 1.5e-7); -0 is 0.
func esNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	mantissa, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	return mantissa + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0")
}
