package scaffold

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxToolNameLen is the longest tool name server/tools.mdx allows.
const maxToolNameLen = 128

// CheckToolName checks name against the tool-name rules of MCP 2025-11-25
// (server/tools.mdx "Tool Names"): 1 to 128 characters, each an ASCII
// letter, digit, "_", "-" or ".". Scaffolded names must also contain a
// letter or digit, since identifiers and file names are made from them.
func CheckToolName(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return fmt.Errorf("the name is empty; MCP tool names have 1 to 128 characters of A-Z, a-z, 0-9, \"_\", \"-\" and \".\"")
	case n > maxToolNameLen:
		return fmt.Errorf("the name %q has %d characters; MCP tool names have at most %d", name, n, maxToolNameLen)
	}
	for i, r := range name {
		if !isNameRune(r) {
			return fmt.Errorf("the name %q has %q at offset %d; MCP tool names use only A-Z, a-z, 0-9, \"_\", \"-\" and \".\"", name, r, i)
		}
	}
	if len(words(name)) == 0 {
		return fmt.Errorf("the name %q has no letter or digit to make identifiers and file names from", name)
	}
	return nil
}

// checkServerName checks a project name: a tool-name-like word that is also
// a usable folder, Go module path and npm package name, so it must start
// with a letter or digit.
func checkServerName(name string) error {
	if err := CheckToolName(name); err != nil {
		return fmt.Errorf("invalid server name: %w", err)
	}
	if r, _ := utf8.DecodeRuneInString(name); !isAlnum(r) {
		return fmt.Errorf("invalid server name %q: it must start with a letter or digit (it becomes a folder, a Go module path and an npm package name)", name)
	}
	return nil
}

func isNameRune(r rune) bool { return isAlnum(r) || r == '_' || r == '-' || r == '.' }

func isAlnum(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// words splits a name into the words identifiers are built from: at "_",
// "-" and ".", and at case changes ("getHTTPStatus" is get, HTTP, Status).
func words(name string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return !isAlnum(r) }) {
		out = append(out, splitCase(part)...)
	}
	return out
}

// splitCase splits one alphanumeric run at lower→upper transitions and
// before the last capital of an acronym followed by a lower-case letter.
func splitCase(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		prev, cur := s[i-1], s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		lowerToUpper := (isLower(prev) || isDigit(prev)) && isUpper(cur)
		acronymEnd := isUpper(prev) && isUpper(cur) && isLower(next)
		if lowerToUpper || acronymEnd {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// pascal turns a name into an exported-style identifier:
// weather-forecast → WeatherForecast. A leading digit gets prefix, since
// identifiers cannot start with one.
func pascal(name, prefix string) string {
	var b strings.Builder
	for _, w := range words(name) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	s := b.String()
	if s != "" && isDigit(s[0]) {
		s = prefix + s
	}
	return s
}

// camel turns a name into an unexported-style identifier:
// weather-forecast → weatherForecast, HTTPGet → httpGet.
func camel(name, prefix string) string {
	ws := words(name)
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(ws[0]))
	for _, w := range ws[1:] {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	s := b.String()
	if isDigit(s[0]) {
		s = prefix + strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// joinLower joins the lower-cased words of name with sep:
// weather-forecast → weather_forecast (sep "_").
func joinLower(name, sep string) string {
	ws := words(name)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, sep)
}

// isGoReservedBase reports the file names (without .go) of a Go project's
// own files; a tool with such a name gets "_tool" appended to its file
// name. It and isGoSuffix are switches, not maps, so that start-up builds
// nothing for them.
func isGoReservedBase(base string) bool {
	switch base {
	case "main", "server", "tools_gen":
		return true
	}
	return false
}

// isGoSuffix reports the file-name suffixes the go command reads as build
// constraints (_test, _GOOS, _GOARCH); a tool file must not end in one.
func isGoSuffix(s string) bool {
	switch s {
	case "test",
		// GOOS values.
		"aix", "android", "darwin", "dragonfly", "freebsd",
		"hurd", "illumos", "ios", "js", "linux", "nacl",
		"netbsd", "openbsd", "plan9", "solaris", "wasip1",
		"windows", "zos",
		// GOARCH values.
		"386", "amd64", "amd64p32", "arm", "armbe", "arm64",
		"arm64be", "loong64", "mips", "mipsle", "mips64",
		"mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64",
		"ppc64le", "riscv", "riscv64", "s390", "s390x",
		"sparc", "sparc64", "wasm":
		return true
	}
	return false
}

// goFileBase is the base name (without .go) of a tool's Go file:
// weather-forecast → weather_forecast. Names the go command would treat
// specially (x_test, x_linux) or that clash with the project's own files
// get "_tool" appended.
func goFileBase(name string) string {
	base := joinLower(name, "_")
	ws := strings.Split(base, "_")
	if isGoReservedBase(base) || len(ws) > 1 && isGoSuffix(ws[len(ws)-1]) {
		base += "_tool"
	}
	return base
}

// tsFileBase is the base name (without .ts) of a tool's TypeScript file
// under src/tools: weather-forecast → weather-forecast. "index" is the
// generated registry, so a tool named index gets "index-tool".
func tsFileBase(name string) string {
	base := joinLower(name, "-")
	if base == "index" {
		base += "-tool"
	}
	return base
}
