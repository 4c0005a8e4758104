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
	"unicode/utf8"
)

// pythonMaxIntDigits is CPython's default limit on the digits of an integer
// converted from text (sys.get_int_max_str_digits(), Python 3.11 and later).
// json.loads refuses longer integers, so Python cannot sign them either.
const pythonMaxIntDigits = 4300

// pythonMaxDepth bounds nesting. CPython's json stops with RecursionError a
// few levels short of its recursion limit of 1000, so a Python server cannot
// sign anything deeper.
const pythonMaxDepth = 1000

// Python returns the bytes Python's json.dumps(obj, sort_keys=True) prints
// for obj = json.loads(data):
//
//   - separators ", " and ": ", no other whitespace;
//   - object members sorted by code point, the order of Python's str; when a
//     name repeats, the last value wins, as in a Python dict;
//   - strings ASCII-only (ensure_ascii): \" \\ \n \r \t \b \f, every other
//     character outside ' '..'~' as \u00XX-style lower-case escapes, and
//     characters beyond the BMP as surrogate pairs; lone surrogates written
//     as \uXXXX escapes survive as Python keeps them;
//   - numbers without a fraction or exponent are integers of any size, kept
//     digit for digit (-0 becomes 0); the others are floats printed as
//     repr(float) prints them: shortest round-trip digits, 1.0 not 1,
//     exponent form outside 1e-4 <= |x| < 1e16 (1e+16, 1e-05, 5e-324), -0.0.
//
// NaN, Infinity and numbers that overflow a double are refused, although
// Python would print them, because they are not JSON. So are integers longer
// than 4300 digits and nesting deeper than 1000, which CPython itself refuses.
// data must be UTF-8.
func Python(data []byte) ([]byte, error) {
	p := &pyParser{data: data}
	p.skipSpace()
	n, err := p.value()
	if err != nil {
		return nil, fmt.Errorf("python canonical form: %w", err)
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, fmt.Errorf("python canonical form: %w", p.errorf("extra data after the JSON value"))
	}
	var out bytes.Buffer
	out.Grow(len(data))
	n.write(&out)
	return out.Bytes(), nil
}

// pyNode is one parsed value. Scalars hold their finished text; containers
// hold their children so that objects can be sorted before they are written.
type pyNode struct {
	text     string
	isArray  bool
	isObject bool
	elems    []*pyNode
	members  []pyMember
}

type pyMember struct {
	// key is the name as Python sees it: code points, lone surrogates included.
	key []rune
	// quoted is the name as json.dumps writes it.
	quoted string
	value  *pyNode
}

func (n *pyNode) write(out *bytes.Buffer) {
	switch {
	case n.isArray:
		out.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				out.WriteString(", ")
			}
			e.write(out)
		}
		out.WriteByte(']')
	case n.isObject:
		out.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				out.WriteString(", ")
			}
			out.WriteString(m.quoted)
			out.WriteString(": ")
			m.value.write(out)
		}
		out.WriteByte('}')
	default:
		out.WriteString(n.text)
	}
}

type pyParser struct {
	data  []byte
	pos   int
	depth int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *pyParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *pyParser) value() (*pyNode, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of input, expecting a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		runes, err := p.str()
		if err != nil {
			return nil, err
		}
		return &pyNode{text: pyQuote(runes)}, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				return &pyNode{text: lit}, nil
			}
		}
		for _, lit := range []string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
				return nil, p.errorf("%s is not JSON and cannot be signed", lit)
			}
		}
		return nil, p.errorf("unexpected character %q, expecting a value", rune(c))
	}
}

func (p *pyParser) enter() error {
	p.depth++
	if p.depth > pythonMaxDepth {
		return p.errorf("nesting deeper than %d levels", pythonMaxDepth)
	}
	return nil
}

func (p *pyParser) array() (*pyNode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // '['
	n := &pyNode{isArray: true}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		p.skipSpace()
		e, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.errorf("expecting ',' or ']' in an array")
		}
	}
}

func (p *pyParser) object() (*pyNode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // '{'
	n := &pyNode{isObject: true}
	index := map[string]int{} // quoted name -> position in members
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("expecting a member name in double quotes")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expecting ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		quoted := pyQuote(key)
		if i, ok := index[quoted]; ok {
			n.members[i].value = v // a dict keeps the last value
		} else {
			index[quoted] = len(n.members)
			n.members = append(n.members, pyMember{key: key, quoted: quoted, value: v})
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			slices.SortFunc(n.members, func(a, b pyMember) int { return slices.Compare(a.key, b.key) })
			return n, nil
		default:
			return nil, p.errorf("expecting ',' or '}' in an object")
		}
	}
}

// str reads a string literal into code points. Like Python, it joins an
// escaped high surrogate with an escaped low surrogate that follows it and
// keeps any other surrogate escape as a lone code point.
func (p *pyParser) str() ([]rune, error) {
	p.pos++ // opening quote
	var out []rune
	for {
		if p.pos >= len(p.data) {
			return nil, p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return out, nil
		case c < 0x20:
			return nil, p.errorf("invalid control character %q in a string", rune(c))
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		case c < utf8.RuneSelf:
			out = append(out, rune(c))
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, p.errorf("invalid UTF-8")
			}
			out = append(out, r)
			p.pos += size
		}
	}
}

func (p *pyParser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errorf("unterminated string")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4(p.pos)
		if err != nil {
			return 0, err
		}
		p.pos += 4
		if 0xD800 <= r && r <= 0xDBFF && p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
			if lo, err := p.hex4(p.pos + 2); err == nil && 0xDC00 <= lo && lo <= 0xDFFF {
				p.pos += 6
				return utf16.DecodeRune(r, lo), nil
			}
		}
		return r, nil
	default:
		p.pos -= 2
		return 0, p.errorf("invalid escape \\%c", rune(c))
	}
}

func (p *pyParser) hex4(at int) (rune, error) {
	if at+4 > len(p.data) {
		return 0, p.errorf("incomplete \\u escape")
	}
	v, err := strconv.ParseUint(string(p.data[at:at+4]), 16, 16)
	if err != nil {
		return 0, p.errorf("invalid \\u escape %q", p.data[at:at+4])
	}
	return rune(v), nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number reads a number with Python's grammar, which is JSON's:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?. With neither fraction nor
// exponent it is an int, otherwise a float.
func (p *pyParser) number() (*pyNode, error) {
	tok, isFloat, intDigits, err := p.scanNumber()
	if err != nil {
		return nil, err
	}
	if !isFloat {
		if intDigits > pythonMaxIntDigits {
			return nil, p.errorf("integer of %d digits exceeds Python's limit of %d", intDigits, pythonMaxIntDigits)
		}
		if tok == "-0" {
			tok = "0"
		}
		return &pyNode{text: tok}, nil
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return nil, p.errorf("number %.40s overflows a double (Python would print Infinity)", tok)
		}
		return nil, p.errorf("invalid number %.40s", tok)
	}
	return &pyNode{text: pyFloat(f)}, nil
}

// scanNumber reads a number token with JSON's grammar and says whether it
// has a fraction or an exponent, and how many digits its integer part has.
func (p *pyParser) scanNumber() (tok string, isFloat bool, intDigits int, err error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
		if bytes.HasPrefix(p.data[p.pos:], []byte("Infinity")) {
			p.pos = start
			return "", false, 0, p.errorf("-Infinity is not JSON and cannot be signed")
		}
	}
	intStart := p.pos
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.pos < len(p.data) && isDigit(p.data[p.pos]):
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	default:
		return "", false, 0, p.errorf("expecting a digit")
	}
	intDigits = p.pos - intStart
	if p.pos+1 < len(p.data) && p.data[p.pos] == '.' && isDigit(p.data[p.pos+1]) {
		isFloat = true
		p.pos++
		for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		q := p.pos + 1
		if q < len(p.data) && (p.data[q] == '+' || p.data[q] == '-') {
			q++
		}
		if q < len(p.data) && isDigit(p.data[q]) {
			isFloat = true
			for q < len(p.data) && isDigit(p.data[q]) {
				q++
			}
			p.pos = q
		}
	}
	return string(p.data[start:p.pos]), isFloat, intDigits, nil
}

// pyFloat formats f as Python's repr(float) does.
func pyFloat(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	// Go's shortest round-trip digits are the digits of Python's repr; only
	// the layout differs.
	s := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1 // f = 0.DIGITS × 10^decpt

	if decpt <= -4 || decpt > 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		e := decpt - 1
		esign := "+"
		if e < 0 {
			esign, e = "-", -e
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, esign, e)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	default:
		return sign + digits[:decpt] + "." + digits[decpt:]
	}
}

const lowerHex = "0123456789abcdef"

// pyQuote writes a string as json.dumps does with ensure_ascii=True.
func pyQuote(runes []rune) string {
	var b strings.Builder
	b.Grow(len(runes) + 2)
	b.WriteByte('"')
	u := func(v rune) {
		b.WriteString(`\u`)
		b.WriteByte(lowerHex[v>>12&0xF])
		b.WriteByte(lowerHex[v>>8&0xF])
		b.WriteByte(lowerHex[v>>4&0xF])
		b.WriteByte(lowerHex[v&0xF])
	}
	for _, r := range runes {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case ' ' <= r && r <= '~':
				b.WriteByte(byte(r))
			case r >= 0x10000:
				hi, lo := utf16.EncodeRune(r)
				u(hi)
				u(lo)
			default:
				u(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
