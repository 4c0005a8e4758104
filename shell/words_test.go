package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"   ", nil, ""},
		{"# only a comment", nil, ""},
		{"call echo message=hi", []string{"call", "echo", "message=hi"}, ""},
		{"call echo message='hello world'", []string{"call", "echo", "message=hello world"}, ""},
		{`call echo message="say \"hi\" \\ \n"`, []string{"call", "echo", `message=say "hi" \ \n`}, ""},
		{`call echo message=a\ b`, []string{"call", "echo", "message=a b"}, ""},
		{"call echo message='' x", []string{"call", "echo", "message=", "x"}, ""},
		{"call x tags:='[\"a\",\"b\"]'", []string{"call", "x", `tags:=["a","b"]`}, ""},
		{"call echo message=a#b # comment", []string{"call", "echo", "message=a#b"}, ""},
		{"call\techo", []string{"call", "echo"}, ""},
		{`call echo message=\é"été" 'ça'`, []string{"call", "echo", "message=éété", "ça"}, ""},
		{"call echo message='open", nil, "unterminated '"},
		{`call echo message="open`, nil, `unterminated "`},
	}
	for _, tt := range tests {
		got, err := SplitWords(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("SplitWords(%q) error = %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitWords(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitWords(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestSplitWordsLongLine checks that an error about a huge line quotes
// only its start.
func TestSplitWordsLongLine(t *testing.T) {
	line := "call echo message='" + strings.Repeat("x", 1<<20)
	_, err := SplitWords(line)
	if err == nil {
		t.Fatal("no error for an unterminated quote")
	}
	if len(err.Error()) > 100 || !strings.Contains(err.Error(), `"call echo message='xxxxxxxxxxxxxxxxxxxxx…"`) {
		t.Errorf("error %q: want the line's first 40 characters and …", err)
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"bogus", `"bogus"`},
		{strings.Repeat("a", 40), `"` + strings.Repeat("a", 40) + `"`},
		{strings.Repeat("a", 41), `"` + strings.Repeat("a", 40) + `…"`},
		{strings.Repeat("é", 50), `"` + strings.Repeat("é", 40) + `…"`},
		{"a\nb", `"a\nb"`},
	}
	for _, tt := range tests {
		if got := Excerpt(tt.in); got != tt.want {
			t.Errorf("Excerpt(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"celsius", "celsius"},
		{"deg K", "'deg K'"},
		{"it's", `'it'\''s'`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if words, err := SplitWords(Quote(tt.in)); err != nil || len(words) != 1 || words[0] != tt.in {
			t.Errorf("SplitWords(Quote(%q)) = %q, %v", tt.in, words, err)
		}
	}
}

func TestKeepInHistory(t *testing.T) {
	tests := []struct {
		line string
		keep bool
	}{
		{"call echo message=hi", true},
		{"list tools", true},
		{"call login token=abc", false},
		{"call login api_key=abc", false},
		{"call login apiKey=abc", false},
		{"call login password:='\"x\"'", false},
		{"call login --args '{\"secret\":\"x\"}'", false},
		{"call fetch header='Bearer abc'", false},
		{"call auth_check user=ada", true}, // a tool's name is no secret
		{"call tokenize text=hi", true},    // "tokenize" is a tool, not a key
	}
	for _, tt := range tests {
		if got := KeepInHistory(tt.line); got != tt.keep {
			t.Errorf("KeepInHistory(%q) = %v, want %v", tt.line, got, tt.keep)
		}
	}
}
