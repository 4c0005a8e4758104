// Package jsonscan walks JSON text without decoding it: where white
// space, a string or a value ends, and the members of an object or the
// elements of an array as sub-slices of the text.
//
// It reads structure only. Strings and brackets are matched and a
// number or a literal runs to the next delimiter, but no byte is checked
// against the grammar: on text that json.Valid accepts, the answers are
// those of a JSON decoder; on any other text they are some reading of it,
// never a panic and never an index outside the text. Callers that need
// validity check it first (json.Valid), once for a whole message, rather
// than once per decode as encoding/json does.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// Space returns the offset of the first byte at or after i that is not
// white space, len(b) when there is none.
func Space(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// StringEnd returns the offset just past the string literal whose opening
// quote is b[i], or -1 when it does not end.
func StringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
	return -1
}

// ValueEnd returns the offset just past the value that starts at b[i], or
// -1 when no value starts there or it does not end.
func ValueEnd(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = StringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	// A number, true, false or null.
	j := i
	for j < len(b) && !IsSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// Member is one member of an object, as written.
type Member struct {
	// Name is the name's string literal, quotes included.
	Name []byte
	// Value is the member's value.
	Value []byte
}

// Is reports whether the member's name is name, read as a decoder reads it
// (escapes decoded), compared exactly.
func (m Member) Is(name string) bool {
	if len(m.Name) < 2 {
		return false
	}
	if Plain(m.Name) {
		return string(m.Name[1:len(m.Name)-1]) == name
	}
	key, ok := String(m.Name)
	return ok && key == name
}

// Key is the member's name, decoded; ok is false when its literal is not
// a valid string.
func (m Member) Key() (key string, ok bool) { return String(m.Name) }

// SyntaxError is the structure of an object or array breaking off.
type SyntaxError struct {
	Offset int    // where, in bytes from the start of the text
	What   string // what was expected or found there
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.What, e.Offset)
}

// Members calls fn with each member of the object that obj holds (white
// space around it allowed), in order, until fn returns false. The error
// is a [*SyntaxError] when obj is not an object or its structure breaks
// off; the members before that point have been seen by then. A name given
// twice is seen twice: a decoder keeps the last.
func Members(obj []byte, fn func(Member) bool) error {
	i := Space(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return &SyntaxError{i, "not a JSON object"}
	}
	i = Space(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return trailing(obj, i+1)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return &SyntaxError{i, "expected a member name"}
		}
		end := StringEnd(obj, i)
		if end < 0 {
			return &SyntaxError{i, "unterminated string"}
		}
		name := obj[i:end:end]
		if i = Space(obj, end); i >= len(obj) || obj[i] != ':' {
			return &SyntaxError{i, "expected ':'"}
		}
		i = Space(obj, i+1)
		if end = ValueEnd(obj, i); end < 0 {
			return valueError(obj, i)
		}
		if !fn(Member{Name: name, Value: obj[i:end:end]}) {
			return nil
		}
		switch i = Space(obj, end); {
		case i >= len(obj):
			return &SyntaxError{i, "unexpected end"}
		case obj[i] == ',':
			i = Space(obj, i+1)
		case obj[i] == '}':
			return trailing(obj, i+1)
		default:
			return &SyntaxError{i, fmt.Sprintf("unexpected %q", obj[i])}
		}
	}
}

// Elements calls fn with each element of the array that arr holds (white
// space around it allowed), in order, until fn returns false. The error
// is a [*SyntaxError] when arr is not an array or its structure breaks
// off.
func Elements(arr []byte, fn func([]byte) bool) error {
	i := Space(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return &SyntaxError{i, "not a JSON array"}
	}
	i = Space(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return trailing(arr, i+1)
	}
	for {
		end := ValueEnd(arr, i)
		if end < 0 {
			return valueError(arr, i)
		}
		if !fn(arr[i:end:end]) {
			return nil
		}
		switch i = Space(arr, end); {
		case i >= len(arr):
			return &SyntaxError{i, "unexpected end"}
		case arr[i] == ',':
			i = Space(arr, i+1)
		case arr[i] == ']':
			return trailing(arr, i+1)
		default:
			return &SyntaxError{i, fmt.Sprintf("unexpected %q", arr[i])}
		}
	}
}

// valueError says why no value could be read at b[i].
func valueError(b []byte, i int) error {
	switch {
	case i >= len(b):
		return &SyntaxError{i, "unexpected end"}
	case b[i] == '"':
		return &SyntaxError{i, "unterminated string"}
	case b[i] == '{' || b[i] == '[':
		// Unterminated itself, or a string inside it is.
		for j := i; j < len(b); j++ {
			if b[j] == '"' {
				end := StringEnd(b, j)
				if end < 0 {
					return &SyntaxError{j, "unterminated string"}
				}
				j = end - 1
			}
		}
		return &SyntaxError{i, "unterminated object or array"}
	}
	return &SyntaxError{i, fmt.Sprintf("unexpected %q", b[i])}
}

// trailing reports text after the end of an object or array.
func trailing(b []byte, i int) error {
	if i = Space(b, i); i < len(b) {
		return &SyntaxError{i, "text after the end"}
	}
	return nil
}

// Find returns the value of the member of obj named name, the last one
// when there are several (as a decoder reads it), or nil.
func Find(obj []byte, name string) []byte {
	var v []byte
	Members(obj, func(m Member) bool {
		if m.Is(name) {
			v = m.Value
		}
		return true
	})
	return v
}

// String decodes the string literal lit; ok is false when lit is not one
// (null included). A literal of printable ASCII without escapes is its
// own value and costs no decoding.
func String(lit []byte) (s string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	if Plain(lit) {
		return string(lit[1 : len(lit)-1]), true
	}
	return s, json.Unmarshal(lit, &s) == nil
}

// IsString reports whether the value v is a string literal (by its
// first byte: v is a value [Members] or [Elements] yielded).
func IsString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// IsObject reports whether the value v is an object (by its first byte).
func IsObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// Plain reports whether lit is a string literal whose bytes between the
// quotes are printable ASCII without escapes: then they are its value.
func Plain(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	for _, c := range lit[1 : len(lit)-1] {
		if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}
