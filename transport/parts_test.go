package transport

import (
	"bytes"
	"strings"
	"testing"
)

// TestPeekParts checks that a message given in parts is peeked as the
// same message joined, whether or not its id and method come first.
func TestPeekParts(t *testing.T) {
	big := `{"text":"` + strings.Repeat("x", 1<<10) + `"}`
	tests := [][][]byte{
		{[]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`), []byte(big), []byte(`}`)},
		{[]byte(`{"jsonrpc":"2.0","method":"notifications/x","params":`), []byte(big), []byte(`}`)},
		{[]byte(`{"params":`), []byte(big), []byte(`,"id":"a","method":"m"}`)},
		{[]byte(`[{"jsonrpc":"2.0","id":1,"method":"m"}`), []byte(`]`)},
		{[]byte(`not `), []byte(`json`)},
	}
	for _, parts := range tests {
		joined := bytes.Join(parts, nil)
		got, want := peekParts(parts), peekOutgoing(joined)
		if got.method != want.method || got.id != want.id || string(got.rawID) != string(want.rawID) || got.batch != want.batch {
			t.Errorf("peekParts(%.60s…) = %+v, want %+v", joined, got, want)
		}
	}
}
