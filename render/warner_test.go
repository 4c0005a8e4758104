package render

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWarner(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		warns [][2]string // kind, message
		want  string      // after the warnings, then after Flush
		flush string
	}{
		{
			name:  "under the limit nothing is summarised",
			warns: [][2]string{{"a", "one"}, {"a", "two"}},
			want:  "one\ntwo\n",
		},
		{
			name:  "over the default limit",
			warns: [][2]string{{"a", "1"}, {"a", "2"}, {"a", "3"}, {"a", "4"}, {"a", "5"}, {"a", "6"}, {"a", "7"}},
			want:  "1\n2\n3\n4\n5\n",
			flush: "mcpctl: … and 2 more like this (a)\n",
		},
		{
			name:  "kinds are counted apart, summaries in order of first sight",
			limit: 1,
			warns: [][2]string{{"b", "b1"}, {"a", "a1"}, {"a", "a2"}, {"b", "b2"}, {"b", "b3"}, {"c", "c1"}},
			want:  "b1\na1\nc1\n",
			flush: "mcpctl: … and 2 more like this (b)\nmcpctl: … and 1 more like this (a)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &Warner{Out: &out, Limit: tt.limit}
			for _, kw := range tt.warns {
				w.Warn(kw[0], kw[1])
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("before Flush (-want +got):\n%s", diff)
			}
			out.Reset()
			w.Flush()
			if diff := cmp.Diff(tt.flush, out.String()); diff != "" {
				t.Errorf("Flush (-want +got):\n%s", diff)
			}
			out.Reset()
			w.Flush()
			if out.Len() != 0 {
				t.Errorf("second Flush wrote %q", out.String())
			}
		})
	}
}

// TestWarnerFlood is the flood of defect 9: 12,288 identical warnings from
// several goroutines.
func TestWarnerFlood(t *testing.T) {
	var out bytes.Buffer
	w := &Warner{Out: &syncWriter{w: &out}}
	const kind = "protocol violation: sending the answer to roots/list"
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 12288 / 8 {
				w.Warn(kind, fmt.Sprintf("mcpctl: %s: connection closed (%d/%d)", kind, g, i))
			}
		}()
	}
	wg.Wait()
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != DefaultWarnLimit+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), DefaultWarnLimit+1, out.String())
	}
	if want := "mcpctl: … and 12,283 more like this (" + kind + ")"; lines[DefaultWarnLimit] != want {
		t.Errorf("summary %q, want %q", lines[DefaultWarnLimit], want)
	}
}

func TestWarnerTerminalAndNil(t *testing.T) {
	var out bytes.Buffer
	w := &Warner{Out: &out, Terminal: true, Limit: 1}
	w.Warn(osc0, "server says "+osc52)
	w.Warn(osc0, "again")
	w.Flush()
	want := "server says ^[]52;c;ZXZpbA==^G\nmcpctl: … and 1 more like this (^[]0;pwned^G)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	var discard Warner
	discard.Warn("k", "m")
	discard.Flush()
}

func TestWarnerWriter(t *testing.T) {
	var out bytes.Buffer
	w := &Warner{Out: &out, Limit: 2}
	ww := w.Writer("not JSON-RPC")
	for _, s := range []string{"line 1\nline", " 2\n", "line 3\nline 4\n", "unfinished"} {
		if n, err := ww.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	w.Flush()
	want := "line 1\nline 2\nmcpctl: … and 2 more like this (not JSON-RPC)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestGroupThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12287: "12,287", 1234567: "1,234,567", -45678: "-45,678"} {
		if got := groupThousands(n); got != want {
			t.Errorf("groupThousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// syncWriter serialises writes, as os.Stderr does.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
