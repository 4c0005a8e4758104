package proxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMessages(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"blank", " \r\n", nil},
		{"one message, trimmed", " {\"id\":1}\r\n", []string{`{"id":1}`}},
		{"a batch", `[{"id":1}, {"id":2}]`, []string{`{"id":1}`, `{"id":2}`}},
		{"an empty batch", `[]`, nil},
		{"not an array after all", `[{"id":1}`, []string{`[{"id":1}`}},
		{"not JSON", "hello", []string{"hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for m := range Messages([]byte(tt.data)) {
				got = append(got, string(m))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Messages(%q) (-want +got):\n%s", tt.data, diff)
			}
		})
	}
}

func TestMessagesStopsWhenTold(t *testing.T) {
	n := 0
	for range Messages([]byte(`[{"id":1},{"id":2},{"id":3}]`)) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("yielded %d messages after the loop stopped at the first", n)
	}
}
