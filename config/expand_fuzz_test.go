package config

import (
	"errors"
	"strings"
	"testing"
)

// FuzzExpand holds ${…} expansion to what a definition from an untrusted
// file needs: it never panics, fails only with an *ExpandError, leaves text
// without "${" alone, and substitutes values once — a value that itself
// holds "${…}" is not expanded again, so no definition can make expansion
// loop or grow without bound.
//
//	go test -run='^$' -fuzz=FuzzExpand -fuzztime=10s ./config/
func FuzzExpand(f *testing.F) {
	for _, seed := range []string{
		"${HOME}/bin", "${env:TOKEN}", "${MISSING:-fallback}", "${input:api-key}",
		"${workspaceFolder}/x", "${userHome}", "${pathSeparator}", "$PLAIN ${", "${}", "${${A}}",
		"a${B}c${C}d", "${env:}", "${:-x}", "}${", "\x00${\xff}",
	} {
		f.Add(seed, "value")
		f.Add(seed, "${LOOP}")
	}
	f.Fuzz(func(t *testing.T, text, value string) {
		set := func(name string) (string, bool) {
			if strings.HasPrefix(name, "UNSET") {
				return "", false
			}
			return value, true
		}
		x := Expander{
			LookupEnv: set,
			Home:      "/home/u",
			Cwd:       "/work",
			Input:     func(Server, Input) (string, error) { return value, nil },
		}
		s := Server{Name: "s", File: "f.json", Command: text, Args: []string{text}, Env: map[string]string{"K": text}, URL: text}
		out, err := s.Expand(x)
		if err != nil {
			var ee *ExpandError
			if !errors.As(err, &ee) {
				t.Fatalf("Expand(%q): error %T %v, want *ExpandError", text, err, err)
			}
			return
		}
		if !strings.Contains(text, "${") && out.Command != text {
			t.Fatalf("Expand(%q) changed text without a reference: %q", text, out.Command)
		}
		refs := strings.Count(text, "${")
		longest := max(len(value), len("/home/u"), len("/work"), len("work"))
		if limit := len(text) + refs*longest; len(out.Command) > limit {
			t.Fatalf("Expand(%q) grew to %d bytes, more than one substitution per reference allows (%d)", text, len(out.Command), limit)
		}
		if out.Command != out.Args[0] || out.Command != out.Env["K"] || out.Command != out.URL {
			t.Fatalf("Expand(%q): fields expanded differently: %q %q %q %q", text, out.Command, out.Args[0], out.Env["K"], out.URL)
		}
	})
}
