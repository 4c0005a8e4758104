package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// pattern is n bytes that differ from one position to the next, so that a
// chunk joined in the wrong place shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>12)
	}
	return b
}

func TestReadLimited(t *testing.T) {
	const limit = 3*firstChunk + 10
	tests := []struct {
		name         string
		body         int   // bytes the body holds
		size         int64 // announced; -1 unknown
		limit        int64
		short        bool // the body ends before size
		wantTooLarge bool
		wantErr      error
	}{
		{name: "empty, size unknown", body: 0, size: -1, limit: limit},
		{name: "empty, size known", body: 0, size: 0, limit: limit},
		{name: "small, size unknown", body: 100, size: -1, limit: limit},
		{name: "exactly one chunk", body: firstChunk, size: -1, limit: limit},
		{name: "one chunk and a byte", body: firstChunk + 1, size: -1, limit: limit},
		{name: "several chunks, at the limit", body: limit, size: -1, limit: limit},
		{name: "a byte over the limit, size unknown", body: limit + 1, size: -1, limit: limit, wantTooLarge: true},
		{name: "far over the limit, size unknown", body: 10 * limit, size: -1, limit: limit, wantTooLarge: true},
		{name: "size known", body: 2*firstChunk + 3, size: 2*firstChunk + 3, limit: limit},
		{name: "size known, at the limit", body: limit, size: limit, limit: limit},
		{name: "size known, over the limit, refused unread", body: limit + 1, size: limit + 1, limit: limit, wantTooLarge: true},
		{name: "size known, body short", body: 10, size: 20, limit: limit, short: true, wantErr: io.ErrUnexpectedEOF},
		{name: "size known, body empty", body: 0, size: 20, limit: limit, short: true, wantErr: io.ErrUnexpectedEOF},
		{name: "large, joined while memory is handed back", body: releaseAbove + releaseEvery + 5, size: -1, limit: DefaultMaxMessageSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := pattern(tt.body)
			// Reads of odd sizes, as a network gives them.
			r := &countingReader{r: iotest.HalfReader(bytes.NewReader(body))}
			data, tooLarge, err := readLimited(r, tt.size, tt.limit)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if tooLarge != tt.wantTooLarge {
				t.Fatalf("tooLarge = %v, want %v", tooLarge, tt.wantTooLarge)
			}
			switch {
			case tooLarge:
				if data != nil {
					t.Errorf("got %d bytes with tooLarge", len(data))
				}
				if r.n > tt.limit+1 {
					t.Errorf("read %d bytes of a body over the limit %d, want at most limit+1", r.n, tt.limit)
				}
			case tt.short:
				if !bytes.Equal(data, body) {
					t.Errorf("got %d bytes of a short body, want its %d", len(data), len(body))
				}
			default:
				if !bytes.Equal(data, body) {
					t.Errorf("got %d bytes that differ from the %d-byte body", len(data), len(body))
				}
				if len(data) > firstChunk && cap(data) != len(data) {
					t.Errorf("cap %d for %d bytes, want the exact size", cap(data), len(data))
				}
			}
		})
	}
}

func TestReadLimitedError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(bytes.NewReader(pattern(3*firstChunk)), iotest.ErrReader(boom))
	if _, tooLarge, err := readLimited(r, -1, 1<<20); !errors.Is(err, boom) || tooLarge {
		t.Errorf("readLimited = tooLarge %v, %v; want %v", tooLarge, err, boom)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
