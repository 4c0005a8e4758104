package cmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStdoutNoiseWriter checks that the stdio transport's warnings still
// reach the warner, and reach lint as the bare description of each line.
func TestStdoutNoiseWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   []string
	}{
		{"one line", []string{"mcpctl: protocol violation: server wrote a line to stdout that is not JSON-RPC (ignored): \"hi\"\n"},
			[]string{`server wrote a line to stdout that is not JSON-RPC: "hi"`}},
		{"two writes", []string{"mcpctl: protocol violation: a\n", "mcpctl: protocol violation: b\n"}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warned bytes.Buffer
			var got []string
			w := stdoutNoiseWriter(&warned, func(s string) { got = append(got, s) })
			var all string
			for _, s := range tc.writes {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
				all += s
			}
			if warned.String() != all {
				t.Errorf("warned %q, want %q", warned.String(), all)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("noise (-want +got):\n%s", diff)
			}
		})
	}
	var warned bytes.Buffer
	if w := stdoutNoiseWriter(&warned, nil); w != &warned {
		t.Error("without a noise function the warner's writer is used as is")
	}
}
