package cmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// TestViolationReporter checks how each kind of violation reads as a
// warning, that a stdio server's stdout lines reach lint as the bare
// description of each line, and that every kind but a message skipped for
// its size reaches the observer (test --strict).
func TestViolationReporter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		v         transport.Violation
		warn      string
		noise     []string
		withNoise bool
		observed  []string
	}{
		{"stdout line", transport.Violation{Kind: transport.ViolationStdoutLine, Line: []byte("hi")},
			`mcpctl: protocol violation: server wrote a line to stdout that is not JSON-RPC (ignored): "hi"` + "\n",
			[]string{`server wrote a line to stdout that is not JSON-RPC: "hi"`}, true,
			[]string{`server wrote a line to stdout that is not JSON-RPC: "hi"`}},
		{"stdout line, no noise", transport.Violation{Kind: transport.ViolationStdoutLine, Line: []byte("a\nb")},
			`mcpctl: protocol violation: server wrote a line to stdout that is not JSON-RPC (ignored): "a\nb"` + "\n", nil, false,
			[]string{`server wrote a line to stdout that is not JSON-RPC: "a\nb"`}},
		{"http", transport.Violation{Kind: transport.ViolationHTTP, Detail: `ignoring an event of type "weird" on x`},
			`mcpctl: protocol violation: ignoring an event of type "weird" on x` + "\n", nil, true,
			[]string{`ignoring an event of type "weird" on x`}},
		{"too large", transport.Violation{Kind: transport.ViolationTooLarge, Detail: "skipped an event on x: too big"},
			"mcpctl: warning: skipped an event on x: too big\n", nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			var noise []string
			var noiseFunc func(string)
			if tc.withNoise {
				noiseFunc = func(s string) { noise = append(noise, s) }
			}
			var observed []string
			violationReporter(&render.Warner{Out: &out}, noiseFunc, func(s string) { observed = append(observed, s) })(tc.v)
			if out.String() != tc.warn {
				t.Errorf("warned %q, want %q", out.String(), tc.warn)
			}
			if diff := cmp.Diff(tc.noise, noise); diff != "" {
				t.Errorf("noise (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.observed, observed); diff != "" {
				t.Errorf("observed (-want +got):\n%s", diff)
			}
		})
	}
}
