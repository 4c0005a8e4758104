// Package textguard finds characters in server-supplied text that a person
// reading it does not see but a model or a terminal acts on: Unicode tag
// characters (which spell out ASCII invisibly), bidirectional controls
// (which reorder what is shown), zero-width characters, terminal escape
// sequences and other control characters. The proxy flags them in tool
// definitions; the security scan reuses the same rules.
//
// [Text] and [JSON] report findings; [Safe] renders text so that a terminal
// shows every such character as \u{...} instead of acting on it.
package textguard

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind names a class of hidden character.
type Kind string

// The kinds of hidden character.
const (
	// KindTag is a Unicode tag character (U+E0000 to U+E007F). U+E0020 to
	// U+E007E mirror printable ASCII and are shown by no font, which makes
	// them a way to hide instructions in plain sight.
	KindTag Kind = "tag"
	// KindBidi is a bidirectional control: embeddings and overrides
	// (U+202A to U+202E), isolates (U+2066 to U+2069), the LRM and RLM
	// marks (U+200E, U+200F) and the Arabic letter mark (U+061C).
	KindBidi Kind = "bidi"
	// KindZeroWidth is a zero-width space, joiner or non-joiner (U+200B to
	// U+200D), a word joiner (U+2060), or U+FEFF anywhere but at the start
	// of a text, where it is a byte-order mark.
	KindZeroWidth Kind = "zero-width"
	// KindEscape is ESC (U+001B), which starts a terminal escape sequence,
	// or a C1 control (U+0080 to U+009F), which 8-bit terminals read as one.
	KindEscape Kind = "escape"
	// KindControl is any other C0 control character but tab, line feed
	// and carriage return, or DEL.
	KindControl Kind = "control"
)

// Finding is one run of hidden characters of one kind.
type Finding struct {
	// Kind is what was found.
	Kind Kind `json:"kind"`
	// Path is where: the field's JSON path, as "description" or
	// "inputSchema.properties.query.description".
	Path string `json:"path"`
	// Offset is the byte offset of the run in the field's text.
	Offset int `json:"offset"`
	// Rune is the run's first code point.
	Rune rune `json:"-"`
	// CodePoint is Rune written as U+XXXX.
	CodePoint string `json:"code_point"`
	// Count is how many characters of the kind follow one another there.
	Count int `json:"count"`
	// Hidden is what a run of tag characters spells, or the escape
	// sequence an ESC starts, made safe to print.
	Hidden string `json:"hidden,omitempty"`
	// InName says the run is in the member name at Path, not its value.
	InName bool `json:"in_name,omitempty"`
}

// String describes the finding in a line, as
// `description: 24 tag characters (U+E0049) at byte 31 spelling "Ignore…"`.
func (f Finding) String() string {
	var b strings.Builder
	if f.Path != "" {
		b.WriteString(f.Path)
		if f.InName {
			b.WriteString(" (the name)")
		}
		b.WriteString(": ")
	}
	name := string(f.Kind)
	if f.Count == 1 {
		article := "a"
		if f.Kind == KindEscape {
			article = "an"
		}
		fmt.Fprintf(&b, "%s %s character (%s)", article, name, f.CodePoint)
	} else {
		fmt.Fprintf(&b, "%d %s characters (first %s)", f.Count, name, f.CodePoint)
	}
	fmt.Fprintf(&b, " at byte %d", f.Offset)
	switch {
	case f.Hidden != "" && f.Kind == KindTag:
		fmt.Fprintf(&b, " spelling %q", f.Hidden)
	case f.Hidden != "":
		fmt.Fprintf(&b, " starting the sequence %q", f.Hidden)
	}
	return b.String()
}

// Classify returns the kind of hidden character r is, and false for a
// character that is not hidden. U+FEFF counts as zero-width here; [Text]
// allows it at the start of a text.
func Classify(r rune) (Kind, bool) {
	switch {
	case r >= 0xe0000 && r <= 0xe007f:
		return KindTag, true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return KindBidi, true
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return KindZeroWidth, true
	case r == 0x1b, r >= 0x80 && r <= 0x9f:
		return KindEscape, true
	case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f:
		return KindControl, true
	}
	return "", false
}

// hidden is Classify with a byte-order mark at offset 0 allowed.
func hidden(r rune, offset int) (Kind, bool) {
	if r == 0xfeff && offset == 0 {
		return "", false
	}
	return Classify(r)
}

// Text returns the hidden characters of s, which is found at path; a run
// of characters of one kind is one finding.
func Text(path, s string) []Finding {
	var out []Finding
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		kind, ok := hidden(r, i)
		if !ok {
			i += n
			continue
		}
		f := Finding{Kind: kind, Path: path, Offset: i, Rune: r, CodePoint: codePoint(r)}
		var spelled strings.Builder
		j := i
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if k2, ok := hidden(r2, j); !ok || k2 != kind {
				break
			}
			f.Count++
			if kind == KindTag && r2 >= 0xe0020 && r2 <= 0xe007e {
				spelled.WriteRune(r2 - 0xe0000)
			}
			j += n2
		}
		switch {
		case kind == KindTag:
			f.Hidden = spelled.String()
		case r == 0x1b:
			// The sequence is one finding: its terminator (a BEL, say)
			// is part of it, not a control of its own.
			seq := escapeSequence(s[i:])
			f.Hidden = Safe(seq)
			j = max(j, i+len(seq))
		}
		out = append(out, f)
		i = j
	}
	return out
}

// escapeSequence returns the terminal escape sequence that starts s (which
// starts with ESC), as far as its final byte, or ESC alone: CSI (ESC [ …
// final byte in @ to ~), OSC, DCS and the like (ESC ] … BEL or ESC \), or
// ESC and one more character.
func escapeSequence(s string) string {
	const limit = 64 // enough to name the sequence, not to echo a payload
	if len(s) < 2 {
		return s
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s) && i < limit; i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return s[:i+1]
			}
		}
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s) && i < limit; i++ {
			if s[i] == 0x07 {
				return s[:i+1]
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return s[:i+2]
			}
		}
	default:
		if s[1] >= 0x20 && s[1] < 0x7f {
			return s[:2]
		}
		return s[:1]
	}
	return s[:min(len(s), limit)]
}

func codePoint(r rune) string {
	return fmt.Sprintf("U+%04X", r)
}

// JSON returns the hidden characters of every string in the JSON value
// data, member names included, with paths below path: a tool definition
// given whole is checked in its name, title, description, annotations,
// and every description, title, property name, enum value and default of
// its schemas. Text that is not JSON is an error.
func JSON(path string, data []byte) ([]Finding, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("checking for hidden characters: %w", err)
	}
	var out []Finding
	walk(path, v, &out)
	return out, nil
}

func walk(path string, v any, out *[]Finding) {
	switch v := v.(type) {
	case string:
		*out = append(*out, Text(path, v)...)
	case []any:
		for i, e := range v {
			walk(path+"["+strconv.Itoa(i)+"]", e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := join(path, k)
			for _, f := range Text(p, k) {
				f.InName = true
				*out = append(*out, f)
			}
			walk(p, v[k], out)
		}
	}
}

// join appends a member name to a path, quoting a name that is not a plain
// word so that paths stay readable and unambiguous.
func join(path, name string) string {
	plain := name != ""
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(Safe(name)) + "]"
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// Safe returns s with every hidden character (see [Classify]), and every
// byte that is not valid UTF-8, written out as \u{X...} in hex, as \u{1B} for ESC (bytes as \x{NN}),
// so that a terminal prints the text and acts on none of it. A byte-order
// mark at the start is shown too: nothing of s is left invisible. Safe
// returns s itself when there is nothing to change.
func Safe(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x{%02X}`, s[i])
		case unsafe(r):
			fmt.Fprintf(&b, `\u{%X}`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafe reports the characters Safe writes out.
func unsafe(r rune) bool {
	_, ok := Classify(r)
	return ok
}

func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}
