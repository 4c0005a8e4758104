package shell

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// SplitWords splits a line into words as a POSIX shell does, without
// expansions: 'single quotes' keep everything, "double quotes" keep all
// but \" and \\, a backslash outside quotes escapes the next character,
// and an unquoted # at the start of a word begins a comment.
//
// A long line costs little more than itself: the line is walked byte by
// byte (every byte treated specially is ASCII, which never occurs inside a
// multi-byte UTF-8 sequence), and a word without quotes or escapes is a
// slice of the line, not a copy.
func SplitWords(line string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has begun (even an empty quoted one)
		start int  // where the word began in line
		plain bool // the word is line[start:i], and cur is not used
	)
	// quoted makes cur hold the word so far, which quotes or an escape
	// are about to change.
	quoted := func(i int) {
		if !in {
			in, start, plain = true, i, false
			return
		}
		if plain {
			cur.WriteString(line[start:i])
			plain = false
		}
	}
	end := func(i int) {
		if plain {
			words = append(words, line[start:i])
		} else {
			words = append(words, cur.String())
			cur.Reset()
		}
		in = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			if in {
				end(i)
			}
		case c == '#' && !in:
			return words, nil
		case c == '\\':
			quoted(i)
			if i+1 < len(line) {
				// The next character whole, not only its first byte.
				_, size := utf8.DecodeRuneInString(line[i+1:])
				cur.WriteString(line[i+1 : i+1+size])
				i += size
			}
		case c == '\'':
			quoted(i)
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %s", Excerpt(line))
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += 1 + j
		case c == '"':
			quoted(i)
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && strings.IndexByte("\"\\$`", line[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(line[j])
			}
			if j == len(line) {
				return nil, fmt.Errorf(`unterminated " in %s`, Excerpt(line))
			}
			i = j
		default:
			if !in {
				in, start, plain = true, i, true
			} else if !plain {
				cur.WriteByte(c)
			}
		}
	}
	if in {
		end(len(line))
	}
	return words, nil
}

// excerptRunes is how much of a line an error quotes.
const excerptRunes = 40

// Excerpt quotes s for an error message: whole when it is short, else its
// first characters followed by "…", so that a huge line is never echoed.
func Excerpt(s string) string {
	n := 0
	for i := range s {
		if n == excerptRunes {
			return fmt.Sprintf("%q", strings.ToValidUTF8(s[:i], "\uFFFD")+"…")
		}
		n++
	}
	return fmt.Sprintf("%q", s)
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// Quote quotes s for a line of the shell when it needs quoting.
func Quote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// secretKey matches argument keys that hold secrets.
var secretKey = regexp.MustCompile(`(?i)(^|[^a-z])(token|secret|passw(or)?d|pwd|api[-_]?key|apikey|auth|credential|private[-_]?key|session[-_]?id|cookie)`)

// jsonKey finds the keys of JSON objects in a word.
var jsonKey = regexp.MustCompile(`"([^"\\]*)"\s*:`)

// KeepInHistory says whether a line may be saved to the history file: not
// when an argument's key names a secret (token=, password:=, api_key=…),
// a JSON object's key does (--args '{"secret": …}'), or a value is a
// bearer credential.
func KeepInHistory(line string) bool {
	words, err := SplitWords(line)
	if err != nil {
		words = strings.Fields(line)
	}
	for _, w := range words {
		key, value, isArg := strings.Cut(w, "=")
		if isArg && secretKey.MatchString(strings.TrimSuffix(key, ":")) {
			return false
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(value)), "bearer ") || strings.EqualFold(w, "bearer") {
			return false
		}
		for _, m := range jsonKey.FindAllStringSubmatch(w, -1) {
			if secretKey.MatchString(m[1]) {
				return false
			}
		}
	}
	return true
}
