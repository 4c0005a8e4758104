package signing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
)

// maxExactInteger is the largest integer every I-JSON reader holds
// exactly: 2^53-1 (RFC 7493, section 2.2).
const maxExactInteger = "9007199254740991"

// IJSONError says why a payload is refused as ambiguous: it is not I-JSON
// (RFC 7493), so two readers may take it for different values while its
// canonical form, and so its signature, is one.
type IJSONError struct {
	// Pointer is the JSON Pointer (RFC 6901) of the object holding the
	// duplicate key, or of the number.
	Pointer string
	// Key is the duplicate member name; "" when Number is set.
	Key string
	// Number is the integer too large to be held exactly.
	Number string
}

// Error names the key or number and where it is.
func (e *IJSONError) Error() string {
	at := e.Pointer
	if at == "" {
		at = "the top level"
	}
	if e.Key != "" || e.Number == "" {
		return fmt.Sprintf("payload has duplicate key %s at %s: refused (I-JSON, RFC 7493)", strconv.Quote(e.Key), at)
	}
	return fmt.Sprintf("payload has integer %.40s at %s, beyond ±(2^53-1): refused (I-JSON, RFC 7493)", e.Number, at)
}

// CheckIJSON refuses a JSON text that readers may take for different values:
// an object with a member name twice, at any depth (Go's encoding/json and
// Python keep the last, others the first), or an integer outside
// ±(2^53-1), which JCS and JavaScript round to a neighbour (9007199254740993
// becomes 9007199254740992). Signing such a payload would let one signature
// cover two meanings, so both canonical forms refuse it, when signing and
// when verifying. base prefixes the pointers in the error ("/arguments").
// The error is an [*IJSONError], or a syntax error for text that is not JSON.
//
// The raw text is walked token by token: decoding into Go values would
// already have dropped the duplicates.
func CheckIJSON(data []byte, base string) error {
	if json.Valid(data) && ijsonClean(data) {
		return nil
	}
	return checkIJSON(data, base)
}

// ijsonClean reports, for a valid JSON text, that [checkIJSON] finds
// nothing in it, scanning its bytes rather than decoding them. false
// promises nothing: checkIJSON then looks, and says what it finds. An
// object of many members is left to checkIJSON, which keeps their names
// in a map.
func ijsonClean(data []byte) bool {
	const manyMembers = 32
	var (
		stack [][][]byte // the member names of each open object (nil for an array)
		buf   [8][][]byte
	)
	stack = buf[:0]
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '{' || c == '[':
			stack = append(stack, nil)
			i++
		case c == '}' || c == ']':
			stack = stack[:len(stack)-1]
			i++
		case c == '"':
			end := jsonscan.StringEnd(data, i)
			if j := jsonscan.Space(data, end); j < len(data) && data[j] == ':' {
				// A string before a colon is a member name.
				name := data[i+1 : end-1]
				if !jsonscan.Plain(data[i:end]) {
					var s string
					if json.Unmarshal(data[i:end], &s) != nil {
						return false
					}
					name = []byte(s)
				}
				top := &stack[len(stack)-1]
				if len(*top) >= manyMembers {
					return false
				}
				for _, seen := range *top {
					if bytes.Equal(seen, name) {
						return false
					}
				}
				*top = append(*top, name)
			}
			i = end
		case c == '-' || isDigit(c):
			end := i + 1
			for end < len(data) && (isDigit(data[end]) || strings.IndexByte(".eE+-", data[end]) >= 0) {
				end++
			}
			// Up to 15 characters, an integer is well within ±(2^53-1).
			if end-i > 15 && !exactInteger(string(data[i:end])) {
				return false
			}
			i = end
		default:
			i++
		}
	}
	return true
}

// checkIJSON is [CheckIJSON] by decoding, which names what it finds.
func checkIJSON(data []byte, base string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object  bool
		keys    map[string]struct{}
		key     string // the current member's name, in an object
		index   int    // the current element, in an array
		wantKey bool
	}
	var stack []frame
	pointer := func(depth int) string {
		var b strings.Builder
		b.WriteString(base)
		for _, f := range stack[:depth] {
			b.WriteByte('/')
			if f.object {
				b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		if top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && len(stack) > 0 {
			return fmt.Errorf("the JSON text ends inside a value: %w", io.ErrUnexpectedEOF)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := &stack[n-1]
			if k, ok := tok.(string); ok {
				if _, dup := top.keys[k]; dup {
					return &IJSONError{Pointer: pointer(n - 1), Key: k}
				}
				top.keys[k] = struct{}{}
				top.key, top.wantKey = k, false
				continue
			}
			// The only other token here is the object's end.
			stack = stack[:n-1]
			valueDone()
			continue
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{object: true, keys: map[string]struct{}{}, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default: // ']'
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case json.Number:
			if !exactInteger(string(v)) {
				return &IJSONError{Pointer: pointer(len(stack)), Number: string(v)}
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// exactInteger says whether a number is not an integer literal beyond
// ±(2^53-1). A number with a fraction or an exponent is a float for every
// reader, and held as one.
func exactInteger(num string) bool {
	if strings.ContainsAny(num, ".eE") {
		return true
	}
	digits := strings.TrimPrefix(num, "-")
	switch {
	case len(digits) < len(maxExactInteger):
		return true
	case len(digits) > len(maxExactInteger):
		return false
	}
	return digits <= maxExactInteger
}
