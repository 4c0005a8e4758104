package argfuzz

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/mcpctl/mcpctl/shell"
	"github.com/mcpctl/mcpctl/testrun"
)

// plainKey is an argument name that `mcpctl call` takes as written before
// = or := (a dot would address a nested field).
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// reproduce builds the `mcpctl call` line of f, shell-quoted: strings of a
// property declared a string as key=value, everything else as key:=json;
// --no-validate when the arguments break the inputSchema (call would
// refuse them), and the run's --timeout for a timeout.
func (r *runner) reproduce(f *Finding) string {
	words := []string{"mcpctl", "call", r.o.Tool.Name}
	var obj []string
	for _, k := range keys(f.Arguments) {
		v := f.Arguments[k]
		if !plainKey.MatchString(k) {
			obj = append(obj, k)
			continue
		}
		if s, ok := v.(string); ok && r.declaredString(k) && !strings.HasPrefix(s, "@") {
			words = append(words, k+"="+s)
			continue
		}
		raw, _ := json.Marshal(v)
		words = append(words, k+":="+string(raw))
	}
	if len(obj) > 0 {
		// Names call cannot take as key=value go in --args.
		rest := map[string]any{}
		for _, k := range obj {
			rest[k] = f.Arguments[k]
		}
		raw, _ := json.Marshal(rest)
		words = append(words, "--args", string(raw))
	}
	if !f.Valid {
		words = append(words, "--no-validate", "--allow-unknown")
	}
	if f.Kind == KindTimeout && r.o.Timeout > 0 {
		words = append(words, "--timeout", r.o.Timeout.String())
	}
	words = append(words, r.o.Server...)
	for i, w := range words {
		words[i] = shell.Quote(w)
	}
	return strings.Join(words, " ")
}

// declaredString reports whether the inputSchema declares property k a
// string and nothing else: key=value then keeps the text as a string.
func (r *runner) declaredString(k string) bool {
	n := r.gen.node(r.gen.root)
	_, props := properties(n)
	p := r.gen.node(props[k])
	if p == nil {
		return false
	}
	t, ok := p["type"].(string)
	return ok && t == "string"
}

// WriteText prints the report for a person.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "fuzzed %s: %d calls (%d valid, %d invalid cases; %d not sent, holding a known failure) in %.1fs, seed %d\n",
		rep.Tool, rep.Calls, rep.Valid, rep.Invalid, rep.Skipped, rep.Seconds, rep.Seed)
	switch len(rep.Findings) {
	case 0:
		b.WriteString("no findings\n")
	case 1:
		b.WriteString("1 finding:\n")
	default:
		fmt.Fprintf(&b, "%d findings:\n", len(rep.Findings))
	}
	for i, f := range rep.Findings {
		args, _ := json.Marshal(f.Arguments)
		fmt.Fprintf(&b, "\n%d. %s: %s\n   arguments: %s (seen %d×)\n   %s\n", i+1, f.Kind, f.Message, args, f.Occurrences, f.Reproduce)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the report as one JSON object.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteJUnit prints the report as JUnit XML, with the writer of mcpctl
// test: a testsuite for the tool, a failed testcase per finding, one
// passed testcase when there is none.
func (rep *Report) WriteJUnit(w io.Writer) error {
	fr := testrun.FileResult{Path: "fuzz " + rep.Tool, Duration: rep.Duration}
	for _, f := range rep.Findings {
		args, _ := json.Marshal(f.Arguments)
		fr.Tests = append(fr.Tests, testrun.TestResult{
			Name:    fmt.Sprintf("%s %s", f.Kind, args),
			Failure: fmt.Sprintf("%s\nreproduce: %s", f.Message, f.Reproduce),
		})
	}
	if len(rep.Findings) == 0 {
		fr.Tests = append(fr.Tests, testrun.TestResult{Name: fmt.Sprintf("%d calls, seed %d", rep.Calls, rep.Seed), Passed: true})
	}
	return testrun.WriteJUnit(w, []testrun.FileResult{fr})
}
