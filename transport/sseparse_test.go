package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// smallSpill is a spill length that sends short data lines straight into
// the event's data, so that the tests and the fuzzer go that way too.
const smallSpill = len("data: ") + 2

// parseAll returns every event of input and the reader's final state;
// spill is the reader's spill (0: the default).
func parseAll(t testing.TB, r io.Reader, seed string, spill int) ([]sseEvent, *sseReader) {
	t.Helper()
	p := newSSEReader(r, seed)
	if spill > 0 {
		p.spill = spill
	}
	var evs []sseEvent
	for {
		ev, err := p.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Next: %v", err)
			}
			return evs, p
		}
		evs = append(evs, ev)
	}
}

func TestSSEParse(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		seed      string
		want      []sseEvent
		wantID    string
		wantRetry time.Duration
	}{
		{
			name: "message",
			in:   "event: message\ndata: {\"a\":1}\n\n",
			want: []sseEvent{{Type: "message", Data: []byte(`{"a":1}`)}},
		},
		{
			name: "default type and no space after colon",
			in:   "data:x\n\n",
			want: []sseEvent{{Data: []byte("x")}},
		},
		{
			name: "only one leading space is removed",
			in:   "data:  two\n\n",
			want: []sseEvent{{Data: []byte(" two")}},
		},
		{
			name: "multi-line data joined with LF",
			in:   "data: a\ndata: b\ndata:\ndata: c\n\n",
			want: []sseEvent{{Data: []byte("a\nb\n\nc")}},
		},
		{
			name:   "CRLF endings",
			in:     "id: 1\r\ndata: a\r\n\r\ndata: b\r\n\r\n",
			want:   []sseEvent{{Data: []byte("a"), ID: "1"}, {Data: []byte("b"), ID: "1"}},
			wantID: "1",
		},
		{
			name: "CR endings",
			in:   "data: a\rdata: b\r\rdata: c\r\r",
			want: []sseEvent{{Data: []byte("a\nb")}, {Data: []byte("c")}},
		},
		{
			name: "mixed endings",
			in:   "data: a\r\ndata: b\rdata: c\n\r\n",
			want: []sseEvent{{Data: []byte("a\nb\nc")}},
		},
		{
			name: "comments ignored",
			in:   ": ping\n:\ndata: x\n: more\n\n",
			want: []sseEvent{{Data: []byte("x")}},
		},
		{
			name:      "empty data is not dispatched but id and retry count",
			in:        "id: prime-1\nretry: 500\ndata:\n\n",
			want:      nil,
			wantID:    "prime-1",
			wantRetry: 500 * time.Millisecond,
		},
		{
			name:   "event with no data field at all is not dispatched",
			in:     "event: endpoint\nid: 7\n\n",
			wantID: "7",
		},
		{
			name: "event type does not leak into the next event",
			in:   "event: endpoint\n\ndata: x\n\n",
			want: []sseEvent{{Data: []byte("x")}},
		},
		{
			name:   "empty id resets",
			in:     "id: 1\ndata: a\n\nid\ndata: b\n\n",
			want:   []sseEvent{{Data: []byte("a"), ID: "1"}, {Data: []byte("b")}},
			wantID: "",
		},
		{
			name:   "id with NUL is ignored",
			in:     "id: a\x00b\ndata: x\n\n",
			seed:   "old",
			want:   []sseEvent{{Data: []byte("x"), ID: "old"}},
			wantID: "old",
		},
		{
			name:   "seeded id carries over",
			in:     "data: x\n\n",
			seed:   "e-4",
			want:   []sseEvent{{Data: []byte("x"), ID: "e-4"}},
			wantID: "e-4",
		},
		{
			name:      "retry must be digits only",
			in:        "retry: 100\nretry: 2x\nretry: -5\nretry: 1.5\nretry:\ndata: x\n\n",
			want:      []sseEvent{{Data: []byte("x")}},
			wantRetry: 100 * time.Millisecond,
		},
		{
			name: "unknown fields and lines without colon ignored",
			in:   "foo: bar\ngarbage\ndata\n\ndata: y\n\n",
			// "data" alone is a data field with an empty value: an
			// empty event, not dispatched.
			want: []sseEvent{{Data: []byte("y")}},
		},
		{
			name:   "incomplete event at EOF is discarded, its id too",
			in:     "data: a\n\nid: 9\ndata: b\n",
			want:   []sseEvent{{Data: []byte("a")}},
			wantID: "",
		},
		{
			name: "unterminated last line is discarded",
			in:   "data: a\n\ndata: b",
			want: []sseEvent{{Data: []byte("a")}},
		},
		{
			name: "byte order mark",
			in:   "\xEF\xBB\xBFdata: x\n\n",
			want: []sseEvent{{Data: []byte("x")}},
		},
		{
			name: "colon in value kept",
			in:   "data: http://x:1/y\n\n",
			want: []sseEvent{{Data: []byte("http://x:1/y")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every chunking must give the same result: whole, and one
			// byte per read (which splits CRLF pairs and the BOM); and so
			// must reading data lines into the event's data directly.
			for _, spill := range []int{0, smallSpill} {
				for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
					got, p := parseAll(t, r, tt.seed, spill)
					if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })); diff != "" {
						t.Errorf("events (-want +got):\n%s", diff)
					}
					if p.lastID != tt.wantID {
						t.Errorf("last event ID = %q, want %q", p.lastID, tt.wantID)
					}
					if p.retry != tt.wantRetry {
						t.Errorf("retry = %v, want %v", p.retry, tt.wantRetry)
					}
				}
			}
		})
	}
}

func TestSSEParseReadError(t *testing.T) {
	boom := errors.New("boom")
	p := newSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)), "")
	if ev, err := p.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("first Next = %q, %v", ev.Data, err)
	}
	if _, err := p.Next(); !errors.Is(err, boom) {
		t.Fatalf("second Next error = %v, want %v", err, boom)
	}
}

// parseLimited reads every event of input with a size limit, writing each
// as its data or "too big: HEAD" for a skipped one; spill is the
// reader's spill (0: the default).
func parseLimited(t testing.TB, r io.Reader, max int64, spill int) ([]string, *sseReader) {
	t.Helper()
	p := newSSEReader(r, "")
	p.max = max
	if spill > 0 {
		p.spill = spill
	}
	var out []string
	for {
		ev, err := p.Next()
		var big *eventTooLargeError
		switch {
		case errors.As(err, &big):
			out = append(out, "too big: "+string(big.Head))
		case errors.Is(err, io.EOF):
			return out, p
		case err != nil:
			t.Fatalf("Next: %v", err)
		default:
			out = append(out, string(ev.Data))
		}
	}
}

// TestSSEParseLimit: an event over the limit is reported once, with the
// start of its data, as soon as it goes over; the rest of it is skipped
// and the events after it are intact. Ids of skipped events still count.
func TestSSEParseLimit(t *testing.T) {
	long := strings.Repeat("x", sniffLen+100)
	tests := []struct {
		name   string
		in     string
		max    int64
		want   []string
		wantID string
	}{
		{"at the limit", "data: 12345678\n\n", 8, []string{"12345678"}, ""},
		{"one line over", "data: 123456789\n\ndata: ok\n\n", 8, []string{"too big: 123456789", "ok"}, ""},
		{"lines add up", "data: 1234\ndata: 5678\n\ndata: ok\n\n", 8, []string{"too big: 1234\n5678", "ok"}, ""},
		{"head is bounded", "data: " + long + long + "\n\ndata: ok\n\n", sniffLen + 10, []string{"too big: " + long[:sniffLen-len("data: ")], "ok"}, ""},
		{"head of a cut line", "data: " + long + "\n\ndata: ok\n\n", 64, []string{"too big: " + long[:64+len("data: \n")+1-len("data: ")], "ok"}, ""},
		{"id of a skipped event counts", "id: 7\ndata: 123456789\ndata: more\nid: 8\n\n", 8, []string{"too big: 123456789"}, "8"},
		{"long comment ignored", ": " + long + "\ndata: ok\n\n", 64, []string{"ok"}, ""},
		{"CRLF after a cut line", "data: 123456789\r\n\r\ndata: ok\r\n\r\n", 8, []string{"too big: 123456789", "ok"}, ""},
		{"no limit", "data: " + long + "\n\n", 0, []string{long}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, spill := range []int{0, smallSpill} {
				for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
					got, p := parseLimited(t, r, tt.max, spill)
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("spill %d: events (-want +got):\n%s", spill, diff)
					}
					if p.lastID != tt.wantID {
						t.Errorf("spill %d: last event ID = %q, want %q", spill, p.lastID, tt.wantID)
					}
				}
			}
		})
	}
}

// TestSSEParseLimitMemory: a 64 MiB event against a 1 MiB limit is
// skipped without being held: the parser's buffers stay small.
func TestSSEParseLimitMemory(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: "), io.LimitReader(repeatReader('x'), 64<<20), strings.NewReader("\n\ndata: after\n\n"))
	p := newSSEReader(r, "")
	p.max = 1 << 20
	if _, err := p.Next(); err == nil {
		t.Fatal("no error for the big event")
	}
	if cap(p.line) > 2<<20 || p.data.held() > 2<<20 {
		t.Errorf("buffers of %d and %d bytes", cap(p.line), p.data.held())
	}
	ev, err := p.Next()
	if err != nil || string(ev.Data) != "after" {
		t.Fatalf("next event %q, %v", ev.Data, err)
	}
	if cap(p.line) > 2<<20 {
		t.Errorf("line buffer of %d bytes", cap(p.line))
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestSSEParseHuge checks that one 50 MB data line goes through whole: no
// line-length limit anywhere.
func TestSSEParseHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 150 MB")
	}
	const size = 50 << 20
	payload := bytes.Repeat([]byte("x"), size)
	var in bytes.Buffer
	in.WriteString("id: big\nevent: message\ndata: ")
	in.Write(payload)
	in.WriteString("\r\n\r\ndata: after\n\n")
	evs, p := parseAll(t, &in, "", 0)
	if len(evs) != 2 {
		t.Fatalf("got %d events, want 2", len(evs))
	}
	if len(evs[0].Data) != size || !bytes.Equal(evs[0].Data, payload) {
		t.Fatalf("big event has %d bytes, want %d", len(evs[0].Data), size)
	}
	if string(evs[1].Data) != "after" || p.lastID != "big" {
		t.Fatalf("second event %q, last id %q", evs[1].Data, p.lastID)
	}
}

// TestSSEParseLongLines: data lines longer than the spill length, read
// into the event's data as they arrive in chunks, give the same events as
// short ones, each in a slice of its exact size; cut short or over the
// limit, they give the same heads.
func TestSSEParseLongLines(t *testing.T) {
	a := strings.Repeat("a", defaultSpill+100) // just over the spill
	// Several chunks of each size, of bytes that differ from one position
	// to the next but hold no line end.
	b := strings.NewReplacer("\n", "N", "\r", "R").Replace(string(pattern(3*maxChunk + firstChunk + 7)))
	tests := []struct {
		name string
		in   string
		max  int64
		want []string
	}{
		{"one long line", "data: " + b + "\n\n", 0, []string{b}},
		{"no space after the colon", "data:" + b + "\r\n\r\n", 0, []string{b}},
		{"long lines between short ones", "data: x\ndata: " + a + "\ndata: " + b + "\ndata:\n\n", 0, []string{"x\n" + a + "\n" + b + "\n"}},
		{"events after a long one", "id: 1\ndata: " + b + "\r\rdata: y\r\r", 0, []string{b, "y"}},
		{"long event and comment lines", ": " + a + "\nevent: " + a + "\ndata: z\n\n", 0, []string{"z"}},
		{"long line under the limit", "data: " + a + "\n\n", int64(len(a)), []string{a}},
		{"long line cut", "data: " + b + "\n\ndata: ok\n\n", int64(len(a)), []string{"too big: " + b[:sniffLen-len("data: ")], "ok"}},
		{"long line cut after short ones", "data: x\ndata: " + b + "\n\ndata: ok\n\n", int64(len(a)), []string{"too big: x", "ok"}},
		{"long lines add up", "data: " + a + "\ndata: " + a + "\n\ndata: ok\n\n", int64(len(a)) + 10, []string{"too big: " + a[:sniffLen], "ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := []io.Reader{strings.NewReader(tt.in), iotest.HalfReader(strings.NewReader(tt.in))}
			if len(tt.in) < 1<<20 {
				readers = append(readers, iotest.OneByteReader(strings.NewReader(tt.in)))
			}
			for i, r := range readers {
				p := newSSEReader(r, "")
				p.max = tt.max
				var got []string
				for {
					ev, err := p.Next()
					var big *eventTooLargeError
					if errors.As(err, &big) {
						got = append(got, "too big: "+string(big.Head))
						continue
					}
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("reader %d: Next: %v", i, err)
					}
					if cap(ev.Data) != len(ev.Data) {
						t.Errorf("reader %d: event of %d bytes held in %d", i, len(ev.Data), cap(ev.Data))
					}
					got = append(got, string(ev.Data))
				}
				if len(got) != len(tt.want) {
					t.Fatalf("reader %d: %d events, want %d", i, len(got), len(tt.want))
				}
				for j := range got {
					if got[j] != tt.want[j] {
						t.Errorf("reader %d: event %d differs: %d bytes %.40q…, want %d bytes %.40q…", i, j, len(got[j]), got[j], len(tt.want[j]), tt.want[j])
					}
				}
				if held := p.data.held(); held > firstChunk {
					t.Errorf("reader %d: the parser holds %d bytes of data after the events", i, held)
				}
			}
		})
	}
}

// FuzzSSEParse checks that no input panics and that how the input is split
// into reads never changes the events.
func FuzzSSEParse(f *testing.F) {
	for _, seed := range []string{
		"data: x\n\n",
		"id: 1\r\nretry: 10\r\ndata:\r\n\r\n",
		"event: endpoint\rdata: /m?s=1\r\r",
		": c\ndata\ndata:\n\nid\x00\n\n",
		"\xEF\xBB\xBFdata: a\n\n\n\n",
		"retry: 99999999999999999999999\ndata: y\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, p1 := parseAll(t, bytes.NewReader(in), "s", 0)
		bytewise, p2 := parseAll(t, iotest.OneByteReader(bytes.NewReader(in)), "s", 0)
		// Data lines read into the event's data directly give the same
		// events.
		spilled, p3 := parseAll(t, iotest.OneByteReader(bytes.NewReader(in)), "s", smallSpill)
		if !cmp.Equal(whole, spilled, cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })) ||
			p1.lastID != p3.lastID || p1.retry != p3.retry {
			t.Fatalf("spilling long data lines changes the events: %q vs %q", whole, spilled)
		}
		if len(whole) != len(bytewise) {
			t.Fatalf("%d events whole, %d byte by byte", len(whole), len(bytewise))
		}
		for i := range whole {
			if whole[i].Type != bytewise[i].Type || whole[i].ID != bytewise[i].ID || !bytes.Equal(whole[i].Data, bytewise[i].Data) {
				t.Fatalf("event %d differs: %+v vs %+v", i, whole[i], bytewise[i])
			}
		}
		if p1.lastID != p2.lastID || p1.retry != p2.retry {
			t.Fatalf("state differs: %q/%v vs %q/%v", p1.lastID, p1.retry, p2.lastID, p2.retry)
		}
		// With a limit too, chunking changes nothing.
		lw, _ := parseLimited(t, bytes.NewReader(in), 16, 0)
		lb, _ := parseLimited(t, iotest.OneByteReader(bytes.NewReader(in)), 16, 0)
		if !cmp.Equal(lw, lb) {
			t.Fatalf("with a limit: %q whole, %q byte by byte", lw, lb)
		}
		ls, _ := parseLimited(t, bytes.NewReader(in), 16, smallSpill)
		if !cmp.Equal(lw, ls) {
			t.Fatalf("with a limit: %q, %q spilling long data lines", lw, ls)
		}
	})
}
