package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadWhole reads lines shorter and longer than the relay's buffer,
// and a last line without its ending, each whole and unchanged.
func TestReadWhole(t *testing.T) {
	long := strings.Repeat("x", 3*relayBuffer+5) + "\n"
	input := "short\n" + long + "tail"
	br := bufio.NewReaderSize(strings.NewReader(input), relayBuffer)
	var got []string
	for {
		line, err := readWhole(br)
		if len(line) > 0 {
			got = append(got, string(line))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"short\n", long, "tail"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal([]byte(got[i]), []byte(want[i])) {
			t.Errorf("line %d: got %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}
