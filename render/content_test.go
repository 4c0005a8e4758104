package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
)

func ptr[T any](v T) *T { return &v }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestContent(t *testing.T) {
	png := "\x89PNG\r\n\x1a\nnot really"
	tests := []struct {
		name      string
		blocks    []client.Content
		want      string            // with DIR standing for the save directory
		wantFiles map[string]string // base name → contents
		wantErr   string
	}{
		{
			name: "text blocks get one trailing newline",
			blocks: []client.Content{
				{Type: "text", Text: "hello"},
				{Type: "text", Text: "with newline\n"},
				{Type: "text", Text: ""},
				{Type: "text", Text: "<b>&</b>"},
			},
			want: "hello\nwith newline\n\n<b>&</b>\n",
		},
		{
			name: "image and audio are saved by MIME type",
			blocks: []client.Content{
				{Type: "image", MIMEType: "image/png", Data: b64(png)},
				{Type: "text", Text: "between"},
				{Type: "audio", MIMEType: "audio/wav", Data: b64("RIFF")},
				{Type: "image", MIMEType: "image/svg+xml", Data: b64("<svg/>")},
				{Type: "audio", MIMEType: "audio/mpeg; rate=44100", Data: b64("ID3")},
				{Type: "image", Data: b64("?")},
			},
			want: "[image image/png, 18 bytes] saved to DIR/image-1.png\n" +
				"between\n" +
				"[audio audio/wav, 4 bytes] saved to DIR/audio-2.wav\n" +
				"[image image/svg+xml, 6 bytes] saved to DIR/image-3.svg\n" +
				"[audio audio/mpeg; rate=44100, 3 bytes] saved to DIR/audio-4.mp3\n" +
				"[image, 1 bytes] saved to DIR/image-5.bin\n",
			wantFiles: map[string]string{
				"image-1.png": png, "audio-2.wav": "RIFF", "image-3.svg": "<svg/>",
				"audio-4.mp3": "ID3", "image-5.bin": "?",
			},
		},
		{
			name: "lenient base64: line breaks, no padding, data URL",
			blocks: []client.Content{
				{Type: "image", MIMEType: "image/gif", Data: "R0lG\r\nODlh\n"},
				{Type: "image", MIMEType: "image/jpeg", Data: strings.TrimRight(b64("abcde"), "=")},
				{Type: "image", MIMEType: "image/webp", Data: "data:image/webp;base64," + b64("RIFFWEBP")},
			},
			want: "[image image/gif, 6 bytes] saved to DIR/image-1.gif\n" +
				"[image image/jpeg, 5 bytes] saved to DIR/image-2.jpg\n" +
				"[image image/webp, 8 bytes] saved to DIR/image-3.webp\n",
			wantFiles: map[string]string{"image-1.gif": "GIF89a", "image-2.jpg": "abcde", "image-3.webp": "RIFFWEBP"},
		},
		{
			name: "invalid base64 names the block and the others still print",
			blocks: []client.Content{
				{Type: "text", Text: "before"},
				{Type: "image", MIMEType: "image/png", Data: "not base64!"},
				{Type: "text", Text: "after"},
				{Type: "audio", MIMEType: "audio/ogg", Data: b64("OggS")},
			},
			want:      "before\nafter\n[audio audio/ogg, 4 bytes] saved to DIR/audio-2.ogg\n",
			wantFiles: map[string]string{"audio-2.ogg": "OggS"},
			wantErr:   "content[1]: image image/png: invalid base64: illegal base64 data at input byte 3",
		},
		{
			name: "resource links",
			blocks: []client.Content{
				{Type: "resource_link", URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Description: "A file\nwith lines"},
				{Type: "resource_link", URI: "test://x", Name: "x"},
				{Type: "resource_link", URI: "test://bare"},
			},
			want: "[resource link] file:///a.txt (a.txt, text/plain) - A file with lines\n" +
				"[resource link] test://x (x)\n" +
				"[resource link] test://bare\n",
		},
		{
			name: "embedded resources",
			blocks: []client.Content{
				{Type: "resource", Resource: &client.ResourceContents{URI: "test://t", MIMEType: "text/plain", Text: ptr("body")}},
				{Type: "resource", Resource: &client.ResourceContents{URI: "test://b", MIMEType: "application/pdf", Blob: ptr(b64("%PDF"))}},
				{Type: "resource", Resource: &client.ResourceContents{URI: "file:///x/data.parquet", Blob: ptr(b64("PAR1"))}},
				{Type: "resource", Resource: &client.ResourceContents{URI: "test://empty"}},
				{Type: "resource"},
			},
			want: "[resource] test://t (text/plain)\nbody\n" +
				"[resource] test://b (application/pdf, 4 bytes) saved to DIR/resource-1.pdf\n" +
				"[resource] file:///x/data.parquet (4 bytes) saved to DIR/resource-2.parquet\n" +
				"[resource] test://empty (no text or blob)\n" +
				"[resource] (missing resource)\n",
			wantFiles: map[string]string{"resource-1.pdf": "%PDF", "resource-2.parquet": "PAR1"},
		},
		{
			name: "unknown types print their JSON",
			blocks: []client.Content{
				{Type: "video", Raw: json.RawMessage(`{"type":"video","url":"x"}`)},
				{Type: "thing", Text: "t"},
			},
			want: "{\"type\":\"video\",\"url\":\"x\"}\n{\"type\":\"thing\",\"text\":\"t\"}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "nested", "out")
			var out bytes.Buffer
			p := &Printer{Out: &out}
			files, err := p.Content(tt.blocks, ContentOptions{SaveDir: dir})
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("error = %q, want %q", gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.want, "DIR", dir), out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			gotFiles := map[string]string{}
			for _, f := range files {
				if filepath.Dir(f) != dir {
					t.Errorf("file %s not in %s", f, dir)
				}
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				gotFiles[filepath.Base(f)] = string(b)
			}
			if tt.wantFiles == nil {
				tt.wantFiles = map[string]string{}
			}
			if diff := cmp.Diff(tt.wantFiles, gotFiles); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			// Nothing else is left in the directory, such as a half-written
			// file of an invalid block.
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(files) {
				t.Errorf("save directory has %d entries, want %d", len(entries), len(files))
			}
		})
	}
}

// TestContentUnsaved: with no folder, binary content is measured, not
// written anywhere, and each block is reported to Unsaved.
func TestContentUnsaved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	p := &Printer{Out: &out}
	unsaved := 0
	blocks := []client.Content{
		{Type: "image", MIMEType: "image/png", Data: b64("one")},
		{Type: "resource", Resource: &client.ResourceContents{URI: "file:///b.bin", Blob: ptr(b64("blob!"))}},
		{Type: "text", Text: "hi"},
	}
	files, err := p.Content(blocks, ContentOptions{Unsaved: func() { unsaved++ }})
	if err != nil || len(files) != 0 {
		t.Fatalf("Content = %v, %v", files, err)
	}
	want := "[image image/png, 3 bytes] (not saved)\n[resource] file:///b.bin (5 bytes) (not saved)\nhi\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if unsaved != 2 {
		t.Errorf("Unsaved called %d times, want 2", unsaved)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("files were written: %v", entries)
	}
}

// TestContentCacheDir: the cache folder is created private, its files are
// named after the run, and a write prunes it to the newest CacheMaxFiles
// files younger than CacheMaxAge.
func TestContentCacheDir(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "mcpctl", "blobs")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := filepath.Join(cache, "old.png")
	if err := os.WriteFile(old, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(old, now, now.Add(-CacheMaxAge-time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i := range CacheMaxFiles {
		name := filepath.Join(cache, fmt.Sprintf("f%03d.bin", i))
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		// f000 is the oldest, f099 the newest, all within the week.
		at := now.Add(-time.Duration(CacheMaxFiles-i) * time.Minute)
		if err := os.Chtimes(name, at, at); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	p := &Printer{Out: &out}
	files, err := p.Content([]client.Content{
		{Type: "image", MIMEType: "image/png", Data: b64("one")},
		{Type: "image", MIMEType: "image/png", Data: b64("two")},
	}, ContentOptions{CacheDir: cache})
	if err != nil || len(files) != 2 {
		t.Fatalf("Content = %v, %v", files, err)
	}
	for _, f := range files {
		if filepath.Dir(f) != cache || !strings.HasSuffix(f, ".png") || !strings.Contains(out.String(), "saved to "+f) {
			t.Errorf("file %s: not in %s, or not named in %q", f, cache, out.String())
		}
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != CacheMaxFiles {
		t.Errorf("%d files in the cache, want %d", len(entries), CacheMaxFiles)
	}
	for _, gone := range []string{old, filepath.Join(cache, "f000.bin"), filepath.Join(cache, "f001.bin")} {
		if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was kept (%v)", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "f002.bin")); err != nil {
		t.Errorf("f002.bin was removed: %v", err)
	}
}

// TestContentSaveDirNoClobber: a save directory's files are never
// replaced; each call takes the next free names and says which.
func TestContentSaveDirNoClobber(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "image-2.png"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks := []client.Content{
		{Type: "image", MIMEType: "image/png", Data: b64("one")},
		{Type: "image", MIMEType: "image/png", Data: b64("two")},
	}
	tests := []struct {
		name  string
		want  []string
		lines string
	}{
		{"first run skips the user's file", []string{"image-1.png", "image-3.png"}, "saved to DIR/image-1.png\n[image image/png, 3 bytes] saved to DIR/image-3.png\n"},
		{"second run keeps the first's", []string{"image-4.png", "image-5.png"}, "saved to DIR/image-4.png\n[image image/png, 3 bytes] saved to DIR/image-5.png\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &Printer{Out: &out}
			files, err := p.Content(blocks, ContentOptions{SaveDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, filepath.Base(f))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if text := strings.ReplaceAll(out.String(), dir, "DIR"); !strings.HasSuffix(text, tc.lines) {
				t.Errorf("output %q does not end with %q", text, tc.lines)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "image-2.png")); string(b) != "mine" {
		t.Errorf("image-2.png = %q: the user's file was replaced", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "image-1.png")); string(b) != "one" {
		t.Errorf("image-1.png = %q, want the first run's", b)
	}
}

func TestContentBare(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true}
	blocks := []client.Content{{Type: "resource", Resource: &client.ResourceContents{URI: "test://t", MIMEType: "text/plain", Text: ptr("exact")}}}
	if _, err := p.Content(blocks, ContentOptions{Bare: true}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "exact\n" {
		t.Errorf("got %q, want only the text", out.String())
	}
}

func TestContentColor(t *testing.T) {
	blocks := []client.Content{
		{Type: "text", Text: "plain text"},
		{Type: "resource_link", URI: "test://x", Name: "x"},
	}
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		p := &Printer{Out: &out, TTY: true, Color: color}
		if _, err := p.Content(blocks, ContentOptions{}); err != nil {
			t.Fatal(err)
		}
		want := "plain text\n[resource link] test://x (x)\n"
		if color {
			want = "plain text\n\x1b[2m[resource link]\x1b[0m test://x (x)\n"
		}
		if out.String() != want {
			t.Errorf("color=%v: got %q, want %q", color, out.String(), want)
		}
	}
}

func TestMessages(t *testing.T) {
	msgs := []client.PromptMessage{
		{Role: "user", Content: client.Content{Type: "text", Text: "What is in this image?"}},
		{Role: "user", Content: client.Content{Type: "image", MIMEType: "image/png", Data: b64("png")}},
		{Role: "assistant", Content: client.Content{Type: "text", Text: "A cat.\n"}},
		{Role: "user", Content: client.Content{Type: "audio", MIMEType: "audio/wav", Data: "!!"}},
	}
	tests := []struct {
		name string
		p    Printer
		want string
	}{
		{
			name: "plain",
			want: "[user]\nWhat is in this image?\n" +
				"[user]\n[image image/png, 3 bytes] saved to DIR/image-1.png\n" +
				"[assistant]\nA cat.\n" +
				"[user]\n",
		},
		{
			name: "tty",
			p:    Printer{TTY: true},
			want: "── user ──\nWhat is in this image?\n" +
				"\n── user ──\n[image image/png, 3 bytes] saved to DIR/image-1.png\n" +
				"\n── assistant ──\nA cat.\n" +
				"\n── user ──\n",
		},
		{
			name: "tty colour",
			p:    Printer{TTY: true, Color: true},
			want: "\x1b[1;35m── user ──\x1b[0m\nWhat is in this image?\n" +
				"\n\x1b[1;35m── user ──\x1b[0m\n\x1b[2m[image image/png, 3 bytes]\x1b[0m saved to DIR/image-1.png\n" +
				"\n\x1b[1;35m── assistant ──\x1b[0m\nA cat.\n" +
				"\n\x1b[1;35m── user ──\x1b[0m\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			p := tt.p
			p.Out = &out
			err := p.Messages(msgs, ContentOptions{SaveDir: dir})
			if err == nil || !strings.HasPrefix(err.Error(), "messages[3].content: audio audio/wav: invalid base64") {
				t.Errorf("error = %v, want one naming messages[3].content", err)
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.want, "DIR", dir), out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestStructured(t *testing.T) {
	raw := json.RawMessage(`{"b":1,"a":"<x>"}`)
	tests := []struct {
		name string
		p    Printer
		raw  json.RawMessage
		want string
	}{
		{name: "plain", raw: raw, want: "{\n  \"b\": 1,\n  \"a\": \"<x>\"\n}\n"},
		{name: "tty", p: Printer{TTY: true}, raw: raw, want: "structuredContent:\n{\n  \"b\": 1,\n  \"a\": \"<x>\"\n}\n"},
		{name: "empty", p: Printer{TTY: true}, raw: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := tt.p
			p.Out = &out
			if err := p.Structured(tt.raw); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var out bytes.Buffer
	if err := (&Printer{Out: &out, TTY: true, Color: true}).Structured(raw); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "\x1b[2mstructuredContent:\x1b[0m\n") {
		t.Errorf("label not dim: %q", out.String())
	}
}

func TestExtFor(t *testing.T) {
	tests := []struct{ mime, uri, want string }{
		{"image/png", "", ".png"},
		{"IMAGE/JPEG", "", ".jpg"},
		{"audio/x-wav", "", ".wav"},
		{"audio/ogg", "", ".ogg"},
		{"application/x-unknown", "", ".bin"},
		{"", "file:///tmp/report.CSV", ".csv"},
		{"", "https://h/x.tar.gz?sig=1", ".gz"},
		{"", "test://no-extension", ".bin"},
		{"", "file:///weird.ext-with-dash", ".bin"},
		{"application/pdf", "file:///x.txt", ".pdf"},
	}
	for _, tt := range tests {
		if got := extFor(tt.mime, tt.uri); got != tt.want {
			t.Errorf("extFor(%q, %q) = %q, want %q", tt.mime, tt.uri, got, tt.want)
		}
	}
}

// writeCounter counts the bytes written to it without keeping them. It has
// no WriteString method, so it takes writeString's slower path.
type writeCounter struct{ n int }

func (w *writeCounter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// TestContentLargeTextNotCopied checks that a large text block reaches the
// writer without being copied: allocations stay far below its size.
func TestContentLargeTextNotCopied(t *testing.T) {
	text := strings.Repeat("0123456789abcdef", 1<<20) // 16 MiB
	blocks := []client.Content{{Type: "text", Text: text}}
	var w writeCounter
	p := &Printer{Out: &w}
	var m1, m2 runtimeMem
	m1.read()
	if _, err := p.Content(blocks, ContentOptions{}); err != nil {
		t.Fatal(err)
	}
	m2.read()
	if grew := m2.totalAlloc - m1.totalAlloc; grew > uint64(len(text))/4 {
		t.Errorf("writing a %d-byte text allocated %d bytes", len(text), grew)
	}
	if w.n != len(text)+1 {
		t.Errorf("wrote %d bytes, want %d", w.n, len(text)+1)
	}
}

type runtimeMem struct{ totalAlloc uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.totalAlloc = s.TotalAlloc
}

// TestContentLargeTextNotCopiedOnTTY is TestContentLargeTextNotCopied for
// the sanitising path, with something to sanitise every 16 MiB / 64.
func TestContentLargeTextNotCopiedOnTTY(t *testing.T) {
	text := strings.Repeat(strings.Repeat("0123456789abcdef", 1<<14)+"\x1b[2J", 64)
	blocks := []client.Content{{Type: "text", Text: text}}
	var w writeCounter
	p := &Printer{Out: &w, TTY: true}
	var m1, m2 runtimeMem
	m1.read()
	if _, err := p.Content(blocks, ContentOptions{}); err != nil {
		t.Fatal(err)
	}
	m2.read()
	if grew := m2.totalAlloc - m1.totalAlloc; grew > uint64(len(text))/4 {
		t.Errorf("writing a %d-byte text allocated %d bytes", len(text), grew)
	}
	if want := len(text) + 64 + 1; w.n != want {
		t.Errorf("wrote %d bytes, want %d", w.n, want)
	}
}

// TestContentTextRaw covers text blocks the client left undecoded (Text
// empty, TextRaw set): they print as their decoded text would, piped and
// on a terminal.
func TestContentTextRaw(t *testing.T) {
	tests := []struct {
		name    string
		raw     string // the JSON string literal
		tty     bool
		want    string
		wantErr string
	}{
		{name: "plain", raw: `"hello"`, want: "hello\n"},
		{name: "escapes decoded", raw: `"a\"b\\c\n\tdé\u00e9\ud83d\ude00"`, want: "a\"b\\c\n\tdéé😀\n"},
		{name: "ends in newline", raw: `"line\n"`, want: "line\n"},
		{name: "empty", raw: `""`, want: "\n"},
		{name: "piped is byte-exact", raw: `"\u001b[2J\u007f"`, want: "\x1b[2J\x7f\n"},
		{name: "sanitised on a terminal", raw: `"\u001b[2Jok\r\n"`, tty: true, want: Sanitize("\x1b[2Jok\r\n")},
		{name: "invalid escape is the block's error", raw: `"ok \x"`, want: "ok ", wantErr: `content[0]: decoding a JSON string: invalid escape`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &Printer{Out: &out, TTY: tt.tty}
			_, err := p.Content([]client.Content{{Type: "text", TextRaw: json.RawMessage(tt.raw)}}, ContentOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output = %q, want %q", out.String(), tt.want)
			}
			if tt.wantErr != "" {
				return
			}
			// The same as the decoded text printed.
			var text string
			if err := json.Unmarshal([]byte(tt.raw), &text); err != nil {
				t.Fatal(err)
			}
			var decoded bytes.Buffer
			dp := &Printer{Out: &decoded, TTY: tt.tty}
			if _, err := dp.Content([]client.Content{{Type: "text", Text: text}}, ContentOptions{}); err != nil {
				t.Fatal(err)
			}
			if out.String() != decoded.String() {
				t.Errorf("from TextRaw %q, from Text %q", out.String(), decoded.String())
			}
		})
	}
}

// TestContentLargeTextRawNotCopied: a large undecoded text is printed from
// its JSON without a decoded copy.
func TestContentLargeTextRawNotCopied(t *testing.T) {
	raw := []byte(`"` + strings.Repeat(`0123456789abcde\n`, 1<<20) + `"`) // 17 MiB of JSON
	blocks := []client.Content{{Type: "text", TextRaw: raw}}
	for _, tty := range []bool{false, true} {
		var w writeCounter
		p := &Printer{Out: &w, TTY: tty}
		var m1, m2 runtimeMem
		m1.read()
		if _, err := p.Content(blocks, ContentOptions{}); err != nil {
			t.Fatal(err)
		}
		m2.read()
		if grew := m2.totalAlloc - m1.totalAlloc; grew > uint64(len(raw))/4 {
			t.Errorf("TTY %v: writing a %d-byte text allocated %d bytes", tty, len(raw), grew)
		}
		if want := 16 << 20; w.n != want {
			t.Errorf("TTY %v: wrote %d bytes, want %d", tty, w.n, want)
		}
	}
}

// TestContentEmpty: no content is said on a terminal, and is nothing piped.
func TestContentEmpty(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var out bytes.Buffer
		p := &Printer{Out: &out, TTY: tty}
		if _, err := p.ToolResult(nil, nil, ContentOptions{}); err != nil {
			t.Fatal(err)
		}
		want := ""
		if tty {
			want = "(no content)\n"
		}
		if out.String() != want {
			t.Errorf("TTY %v: %q, want %q", tty, out.String(), want)
		}
	}
}

func TestToolResult(t *testing.T) {
	text := func(s string) client.Content { return client.Content{Type: "text", Text: s} }
	prio := 0.8
	tests := []struct {
		name       string
		content    []client.Content
		structured json.RawMessage
		want       string
	}{
		{"content only", []client.Content{text("hi")}, nil, "hi\n"},
		{"structured only", nil, json.RawMessage(`{"a":1}`), "{\n  \"a\": 1\n}\n"},
		{"text restates it", []client.Content{text(`{"b": [1, 2], "a": 1}`)}, json.RawMessage(`{"a":1,"b":[1,2]}`), "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ]\n}\n"},
		{"text differs", []client.Content{text("5")}, json.RawMessage(`{"sum":5}`), "content:\n5\nstructuredContent:\n{\n  \"sum\": 5\n}\n"},
		{"numbers as written", []client.Content{text(`{"a":1.0}`)}, json.RawMessage(`{"a":1}`), "content:\n{\"a\":1.0}\nstructuredContent:\n{\n  \"a\": 1\n}\n"},
		{"two blocks", []client.Content{text(`{"a":1}`), text("more")}, json.RawMessage(`{"a":1}`), "content:\n{\"a\":1}\nmore\nstructuredContent:\n{\n  \"a\": 1\n}\n"},
		{"null structured", []client.Content{text("x")}, json.RawMessage(`null`), "x\n"},
		{"only string field", []client.Content{text("line 1\nline 2\n")}, json.RawMessage(`{"content":"line 1\nline 2\n"}`), "line 1\nline 2\n"},
		{"only string field, newline aside", []client.Content{text("file\n")}, json.RawMessage(`{"content":"file"}`), "file\n"},
		{"two fields", []client.Content{text("file")}, json.RawMessage(`{"content":"file","size":4}`), "content:\nfile\nstructuredContent:\n{\n  \"content\": \"file\",\n  \"size\": 4\n}\n"},
		{"string field differs", []client.Content{text("file")}, json.RawMessage(`{"content":"other"}`), "content:\nfile\nstructuredContent:\n{\n  \"content\": \"other\"\n}\n"},
		{"no content", nil, nil, ""},
		{"annotations shown", []client.Content{{Type: "text", Text: "for you", Annotations: &client.ContentAnnotations{Audience: []string{"user", "assistant"}, Priority: &prio, LastModified: "2025-01-12T15:00:58Z"}}}, nil,
			"[annotations] audience user,assistant; priority 0.8; lastModified 2025-01-12T15:00:58Z\nfor you\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &Printer{Out: &out}
			var notes []string
			if _, err := p.ToolResult(tt.content, tt.structured, ContentOptions{SaveDir: t.TempDir(), Note: func(s string) { notes = append(notes, s) }}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// A copy left out is noted, once; nothing else is.
			omitted := strings.Contains(tt.name, "restates") || strings.HasPrefix(tt.name, "only string field")
			if omitted && len(notes) != 1 || !omitted && len(notes) != 0 {
				t.Errorf("notes %q", notes)
			}
		})
	}
}

// TestContentInvalidUTF8 checks that a text block's invalid UTF-8 is
// written byte for byte when piped and as \xNN on a terminal, each block
// reported once to OnInvalidText, and that valid text is not reported.
func TestContentInvalidUTF8(t *testing.T) {
	for _, tt := range []struct {
		name      string
		text      string // the block's JSON text member, quotes included
		tty       bool
		want      string
		wantCalls int
	}{
		{"piped", "\"a\xff\\u00e9\xfeb\"", false, "a\xffé\xfeb\n", 1},
		{"terminal", "\"a\xff\\u00e9\xfeb\"", true, `a\xffé\xfeb` + "\n", 1},
		{"valid", `"a\u00e9b"`, false, "aéb\n", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c client.Content
			if err := json.Unmarshal([]byte(`{"type":"text","text":`+tt.text+`}`), &c); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			calls := 0
			p := &Printer{Out: &out, TTY: tt.tty, OnInvalidText: func() { calls++ }}
			if _, err := p.Content([]client.Content{c}, ContentOptions{}); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("Content wrote %q, want %q", out.String(), tt.want)
			}
			if calls != tt.wantCalls {
				t.Errorf("OnInvalidText called %d times, want %d", calls, tt.wantCalls)
			}
		})
	}
}

// TestContentSaveDirPrivate: a save directory mcpctl creates and the files
// it saves there are its owner's alone, since they hold what a session
// carried.
func TestContentSaveDirPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes on Windows")
	}
	dir := filepath.Join(t.TempDir(), "new", "saved")
	p := &Printer{Out: io.Discard}
	files, err := p.Content([]client.Content{{Type: "image", MIMEType: "image/png", Data: b64("one")}}, ContentOptions{SaveDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, files[0]: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// The umask may only take permissions away.
		if got := fi.Mode().Perm(); got&^want != 0 || got&0o077 != 0 {
			t.Errorf("%s has mode %#o, want %#o", path, got, want)
		}
	}
}
