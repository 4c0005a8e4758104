package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chunkReader returns data in reads whose sizes cycle through sizes
// (each taken modulo 16), including empty reads, never two in a row.
type chunkReader struct {
	data      []byte
	sizes     []byte
	i         int
	lastEmpty bool
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(r.sizes) > 0 {
		n = int(r.sizes[r.i%len(r.sizes)] % 16)
		r.i++
	}
	if n == 0 && r.lastEmpty {
		n = 1
	}
	r.lastEmpty = n == 0
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// FuzzStdioLines feeds arbitrary streams, cut into arbitrary reads, through
// the stdio line reader and compares what it returns with the lines the
// stream holds: every line at most the limit is returned exactly, every
// longer one is one *MessageTooLargeError, and the stream ends with io.EOF.
//
//	go test -run='^$' -fuzz=FuzzStdioLines -fuzztime=5s ./transport/
func FuzzStdioLines(f *testing.F) {
	f.Add([]byte("{}\n[1,2]\n"), []byte{3}, uint16(0), uint8(16))
	f.Add([]byte("a\n\nb"), []byte{0, 1, 2}, uint16(1), uint8(1))
	f.Add([]byte("0123456789abcdef0123\nshort\n0123456789\n"), []byte{5, 15}, uint16(10), uint8(4))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"`+"\xff"+`"}}`+"\r\n"), []byte{7}, uint16(100), uint8(8))
	f.Add([]byte("[[[[[[[[[[\n\"\\\"[\"\n"), []byte{1}, uint16(0), uint8(2))
	f.Fuzz(func(t *testing.T, data, sizes []byte, limit uint16, bufSize uint8) {
		l := testLineReader(&chunkReader{data: data, sizes: sizes}, int64(limit), int(bufSize%64)+1)
		var want []string
		segs := bytes.Split(data, []byte("\n"))
		if len(segs[len(segs)-1]) == 0 {
			segs = segs[:len(segs)-1] // data ended with a newline, or was empty
		}
		max := int(limit)
		if limit == 0 {
			max = int(DefaultMaxMessageSize)
		}
		for _, s := range segs {
			if len(s) > max {
				want = append(want, "ERR too large")
			} else {
				want = append(want, string(s))
			}
		}
		var got []string
		for range len(segs) + 2 {
			line, err := l.Next()
			var tooLarge *MessageTooLargeError
			if errors.As(err, &tooLarge) {
				if tooLarge.Limit != int64(max) {
					t.Fatalf("error names limit %d, want %d", tooLarge.Limit, max)
				}
				got = append(got, "ERR too large")
				continue
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			if len(line) != cap(line) {
				t.Fatalf("line of %d bytes has capacity %d, want an exactly sized slice", len(line), cap(line))
			}
			checkLine(line, func(Violation) {}) // must not panic, whatever the line
			got = append(got, string(line))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("lines of %q (limit %d, buffer %d) (-want +got):\n%s", data, limit, int(bufSize%64)+1, diff)
		}
		if _, err := l.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("next after the end = %v, want io.EOF", err)
		}
	})
}
