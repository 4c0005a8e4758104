package testrun

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// TextOptions control [WriteText].
type TextOptions struct {
	// TTY draws ✓ and ✗ (coloured when Color) with timings; otherwise
	// each test is a plain tab-separated line: PASS|FAIL|SKIP, file,
	// test, milliseconds.
	TTY   bool
	Color bool
}

// WriteText writes the summary a person reads: one line per test, each
// failure's explanation under it, and the totals.
func WriteText(w io.Writer, results []FileResult, o TextOptions) error {
	var b strings.Builder
	mark := func(ok bool) string {
		s := "✓"
		code := "32"
		if !ok {
			s, code = "✗", "31"
		}
		if o.Color {
			return "\x1b[" + code + "m" + s + "\x1b[0m"
		}
		return s
	}
	for _, f := range results {
		if o.TTY {
			fmt.Fprintf(&b, "%s\n", f.Path)
		}
		if f.Err != nil {
			if o.TTY {
				fmt.Fprintf(&b, "  %s could not run: %s\n", mark(false), f.Error)
			} else {
				fmt.Fprintf(&b, "ERROR\t%s\t\t\n%s\n", f.Path, indent(f.Error))
			}
			continue
		}
		for _, t := range f.Tests {
			switch {
			case o.TTY && t.Skipped:
				fmt.Fprintf(&b, "  - %s (skipped)\n", t.Name)
			case o.TTY:
				fmt.Fprintf(&b, "  %s %s (%s)\n", mark(t.Passed), t.Name, timing(t))
			default:
				word := "PASS"
				if t.Skipped {
					word = "SKIP"
				} else if !t.Passed {
					word = "FAIL"
				}
				fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", word, f.Path, t.Name, timing(t))
			}
			if !t.Passed && !t.Skipped {
				fmt.Fprintf(&b, "%s\n", indent(indent(t.Failure)))
			}
		}
	}
	s := Summarize(results)
	fmt.Fprintf(&b, "%d passed, %d failed", s.Passed, s.Failed)
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", s.Skipped)
	}
	if s.Broken > 0 {
		fmt.Fprintf(&b, ", %d %s could not run", s.Broken, plural(s.Broken, "file", "files"))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func timing(t TestResult) string {
	if t.Skipped {
		return ""
	}
	s := fmt.Sprintf("%gms", t.MS)
	if t.P50MS > 0 || t.P95MS > 0 {
		s += fmt.Sprintf(", p50 %gms, p95 %gms over %d runs", t.P50MS, t.P95MS, len(t.Durations))
	}
	return s
}

// JSONReport is what -o json prints.
type JSONReport struct {
	Files   []FileResult `json:"files"`
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Skipped int          `json:"skipped"`
	Broken  int          `json:"broken"`
}

// WriteJSON writes the results as one JSON document.
func WriteJSON(w io.Writer, results []FileResult) error {
	s := Summarize(results)
	files := results
	if files == nil {
		files = []FileResult{}
	}
	for i := range files {
		if files[i].Tests == nil {
			files[i].Tests = []TestResult{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(JSONReport{Files: files, Passed: s.Passed, Failed: s.Failed, Skipped: s.Skipped, Broken: s.Broken})
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	// SystemErr lists the protocol violations seen outside every test.
	SystemErr string `xml:"system-err,omitempty"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *struct{}     `xml:"skipped,omitempty"`
	// SystemErr lists the protocol violations seen while the test ran.
	SystemErr string `xml:"system-err,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the results as JUnit XML: a testsuite per file, a
// testcase per test, a failure with the message for each failed test and
// an error testcase for a file that could not run. Protocol violations are
// listed in the system-err of the testcase they were seen in, or of the
// testsuite when seen outside every test; under --strict they are failures
// too (of the test, or of the [SessionTest] testcase).
func WriteJUnit(w io.Writer, results []FileResult) error {
	var doc junitSuites
	for _, f := range results {
		s := junitSuite{Name: f.Path, Time: seconds(f.Duration), SystemErr: strings.Join(f.Violations, "\n")}
		if f.Err != nil {
			s.Tests, s.Errors = 1, 1
			s.Cases = append(s.Cases, junitCase{Name: "(server)", Classname: f.Path, Time: seconds(f.Duration),
				Error: &junitMessage{Message: firstLine(f.Error), Type: "error", Text: f.Error}})
		}
		for _, t := range f.Tests {
			c := junitCase{Name: t.Name, Classname: f.Path, SystemErr: strings.Join(t.Violations, "\n")}
			if len(t.Durations) > 0 {
				c.Time = seconds(t.Durations[0])
			} else {
				c.Time = seconds(0)
			}
			s.Tests++
			switch {
			case t.Skipped:
				c.Skipped = &struct{}{}
				s.Skipped++
			case !t.Passed:
				typ := "failure"
				if t.Name == SessionTest {
					typ = "protocol violation"
				}
				c.Failure = &junitMessage{Message: firstLine(t.Failure), Type: typ, Text: t.Failure}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// WriteMarkdown writes the summary GitHub Actions shows for a job
// ($GITHUB_STEP_SUMMARY): totals, a table of tests, and each failure.
func WriteMarkdown(w io.Writer, results []FileResult) error {
	var b strings.Builder
	s := Summarize(results)
	icon := "✅"
	if s.Failed > 0 || s.Broken > 0 {
		icon = "❌"
	}
	fmt.Fprintf(&b, "### %s mcpctl test: %d passed, %d failed", icon, s.Passed, s.Failed)
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", s.Skipped)
	}
	if s.Broken > 0 {
		fmt.Fprintf(&b, ", %d %s could not run", s.Broken, plural(s.Broken, "file", "files"))
	}
	b.WriteString("\n\n| | file | test | time |\n|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	var failures []string
	for _, f := range results {
		if f.Err != nil {
			fmt.Fprintf(&b, "| ❌ | %s | (could not run) | |\n", cell(f.Path))
			failures = append(failures, fmt.Sprintf("**%s**\n\n```\n%s\n```\n", cell(f.Path), f.Error))
			continue
		}
		for _, t := range f.Tests {
			mark := "✅"
			switch {
			case t.Skipped:
				mark = "⏭️"
			case !t.Passed:
				mark = "❌"
				failures = append(failures, fmt.Sprintf("**%s: %s**\n\n```\n%s\n```\n", cell(f.Path), cell(t.Name), t.Failure))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mark, cell(f.Path), cell(t.Name), cell(timing(t)))
		}
	}
	if len(failures) > 0 {
		b.WriteString("\n#### Failures\n\n" + strings.Join(failures, "\n"))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
