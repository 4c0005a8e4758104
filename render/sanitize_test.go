package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/client"
)

// Escape sequences a hostile server might send.
const (
	osc52     = "\x1b]52;c;ZXZpbA==\x07" // write "evil" to the clipboard
	osc0      = "\x1b]0;pwned\x07"       // set the window title
	clear2J   = "\x1b[2J"                // clear the screen
	csi8bit   = "\x9b31m"                // CSI as one raw byte (invalid UTF-8)
	csiC1     = "\u009b31m"              // CSI as the C1 character U+009B
	overwrite = "rm -rf /\rls -l   "     // CR hides the first command
	bidi      = "user\u202eexe.txt"      // right-to-left override
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"lines\nand\ttabs\r\nkept", "lines\nand\ttabs\r\nkept"},
		{"日本語 🎉 \uFFFD é", "日本語 🎉 \uFFFD é"},
		{osc52, "^[]52;c;ZXZpbA==^G"},
		{osc0, "^[]0;pwned^G"},
		{clear2J, "^[[2J"},
		{csi8bit, `\x9b31m`},
		{csiC1, `\u009b31m`},
		{overwrite, "rm -rf /^Mls -l   "},
		{"ends in CR\r", "ends in CR^M"},
		{"\r\r\n", "^M\r\n"},
		{bidi, `user\u202eexe.txt`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"\u2069\u206a", `\u2069` + "\u206a"},
		{"\x00\x01\x08\x0b\x0c\x1f\x7f", "^@^A^H^K^L^_^?"},
		{"\u0080\u009f\u00a0", `\u0080\u009f` + "\u00a0"},
		{"cut \xe2\x80", `cut \xe2\x80`},
		{"\xff\xfe", `\xff\xfe`},
		{"\xed\xa0\x80", `\xed\xa0\x80`}, // an encoded surrogate is not UTF-8
	}
	for _, tt := range tests {
		got := Sanitize(tt.in)
		if got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Sanitize(%q) = %q is not valid UTF-8", tt.in, got)
		}
		if again := Sanitize(got); again != got {
			t.Errorf("Sanitize is not idempotent on %q: %q", got, again)
		}
		var b bytes.Buffer
		bw := bufio.NewWriter(&b)
		if err := writeSanitized(bw, tt.in); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		if b.String() != tt.want {
			t.Errorf("writeSanitized(%q) = %q, want %q", tt.in, b.String(), tt.want)
		}
		if got := string(appendSanitized([]byte("x"), []byte(tt.in))); got != "x"+tt.want {
			t.Errorf("appendSanitized(%q) = %q", tt.in, got)
		}
	}
}

func TestSanitizeCleanDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("clean text, 日本語\n", 100)
	if n := testing.AllocsPerRun(10, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocated %v times", n)
	}
}

func TestUntrusted(t *testing.T) {
	const in = "a" + osc52
	tests := []struct {
		name             string
		p                Printer
		wantOut, wantErr string
	}{
		{name: "piped", wantOut: in, wantErr: in},
		{name: "stdout TTY", p: Printer{TTY: true}, wantOut: Sanitize(in), wantErr: in},
		{name: "stdout colour forced", p: Printer{Color: true}, wantOut: Sanitize(in), wantErr: in},
		{name: "stderr TTY", p: Printer{ErrTTY: true}, wantOut: in, wantErr: Sanitize(in)},
		{name: "stderr colour", p: Printer{ErrColor: true}, wantOut: in, wantErr: Sanitize(in)},
	}
	for _, tt := range tests {
		if got := tt.p.Untrusted(in); got != tt.wantOut {
			t.Errorf("%s: Untrusted = %q, want %q", tt.name, got, tt.wantOut)
		}
		if got := tt.p.UntrustedErr(in); got != tt.wantErr {
			t.Errorf("%s: UntrustedErr = %q, want %q", tt.name, got, tt.wantErr)
		}
	}
}

// nasty holds every kind of unsafe character; each test below puts it
// wherever a server can put text.
const nasty = "N" + osc52 + osc0 + clear2J + csi8bit + csiC1 + overwrite + bidi + "\x7f"

// assertSafe fails when out holds anything a terminal would act on.
// Colour is off in these tests, so no escape sequence is ours.
func assertSafe(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\x9b", "\u009b", "\u202e", "\x7f", "\r"} {
		if strings.Contains(strings.ReplaceAll(out, "\r\n", "\n"), bad) {
			t.Errorf("%s: output holds %q:\n%q", what, bad, out)
		}
	}
	if !utf8.ValidString(out) {
		t.Errorf("%s: output is not valid UTF-8: %q", what, out)
	}
}

// TestTerminalSafety prints server-supplied text through every path of
// render: on a TTY nothing reaches the terminal raw, piped everything is
// byte-exact.
func TestTerminalSafety(t *testing.T) {
	dir := t.TempDir()
	text := nasty
	outputs := []struct {
		name string
		// print prints through p; piped is whether the nasty bytes must
		// reach Out unchanged when not on a terminal.
		print func(p *Printer) error
		piped bool
	}{
		{"text block", func(p *Printer) error {
			_, err := p.Content([]client.Content{{Type: "text", Text: text}}, ContentOptions{SaveDir: dir})
			return err
		}, true},
		{"resource text, URI and MIME type", func(p *Printer) error {
			_, err := p.Content([]client.Content{{Type: "resource", Resource: &client.ResourceContents{URI: "file:///" + text, MIMEType: text, Text: &text}}}, ContentOptions{SaveDir: dir})
			return err
		}, true},
		{"resource blob line", func(p *Printer) error {
			blob := b64("x")
			_, err := p.Content([]client.Content{{Type: "resource", Resource: &client.ResourceContents{URI: "file:///" + text, MIMEType: text, Blob: &blob}}}, ContentOptions{SaveDir: dir})
			return err
		}, true},
		{"resource link", func(p *Printer) error {
			_, err := p.Content([]client.Content{{Type: "resource_link", URI: text, Name: text, MIMEType: text, Description: "d" + text}}, ContentOptions{SaveDir: dir})
			return err
		}, false}, // the description is flattened onto one line
		{"image MIME type", func(p *Printer) error {
			_, err := p.Content([]client.Content{{Type: "image", MIMEType: text, Data: b64("x")}}, ContentOptions{SaveDir: dir})
			return err
		}, true},
		{"unknown block", func(p *Printer) error {
			_, err := p.Content([]client.Content{{Type: "x", Raw: json.RawMessage(`{"type":"x","v":"` + "\u009b\u202e\x7f" + `"}`)}}, ContentOptions{SaveDir: dir})
			return err
		}, false},
		{"prompt role and text", func(p *Printer) error {
			return p.Messages([]client.PromptMessage{{Role: text, Content: client.Content{Type: "text", Text: text}}}, ContentOptions{SaveDir: dir})
		}, true},
		{"table cells", func(p *Printer) error {
			return p.Table([]string{"NAME", "TITLE", "DESCRIPTION"}, [][]string{{text, text, text}}, "")
		}, false}, // cells are flattened onto one line
		{"fields", func(p *Printer) error { return p.Fields([][2]string{{"Name", text}}) }, false},
		{"heading", func(p *Printer) error { _, err := p.Out.Write([]byte(p.Heading(text))); return err }, true},
		{"structuredContent", func(p *Printer) error {
			return p.Structured(json.RawMessage(`{"s":"` + "\u009b\u202e\x7f" + `","esc":"\u001b]0;t\u0007"}`))
		}, false},
		{"TextJSON", func(p *Printer) error {
			raw, _ := json.Marshal(strings.ToValidUTF8(text, "?"))
			return p.TextJSON(raw)
		}, false},
	}
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := o.print(&Printer{Out: &out, ErrOut: &errOut, TTY: true, Width: 1000}); err != nil {
				t.Fatal(err)
			}
			assertSafe(t, "TTY", out.String())
			assertSafe(t, "TTY stderr", errOut.String())
			if !strings.Contains(out.String(), "^[]52;c;ZXZpbA==^G") && !strings.Contains(out.String(), `\u009b`) && !strings.Contains(out.String(), `\u202e`) {
				t.Errorf("TTY output shows nothing of the escapes: %q", out.String())
			}
			if !o.piped {
				return
			}
			out.Reset()
			if err := o.print(&Printer{Out: &out, ErrOut: &errOut}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), nasty) {
				t.Errorf("piped output is not byte-exact:\n%q", out.String())
			}
		})
	}
}

func TestStderrWriterSanitizes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tty, color bool
		want       string
	}{
		{name: "piped", want: "a" + osc0 + "\n" + "日本" + "\r\n" + csi8bit},
		{name: "tty", tty: true, want: "a^[]0;pwned^G\n日本\r\n" + `\x9b31m`},
		{name: "colour", tty: true, color: true, want: faintOn + "a^[]0;pwned^G" + styleOff + "\n" + faintOn + "日本" + styleOff + "\r\n" + faintOn + `\x9b31m` + styleOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := StderrWriter(&out, tc.tty, tc.color)
			// "日" split across writes must not look like invalid UTF-8.
			for _, s := range []string{"a\x1b]0;pw", "ned\x07\n\xe6", "\x97\xa5本\r\n", csi8bit} {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got  %q\nwant %q", out.String(), tc.want)
			}
		})
	}
}

func TestStderrLinesSanitized(t *testing.T) {
	if got, want := ErrorLine("bad "+clear2J, true), "\x1b[1;31merror:\x1b[0m bad ^[[2J"; got != want {
		t.Errorf("ErrorLine = %q, want %q", got, want)
	}
	if got, want := ErrorLine("bad "+clear2J, false), "error: bad "+clear2J; got != want {
		t.Errorf("ErrorLine without colour = %q, want %q", got, want)
	}
	if got, want := Warning(osc0, true), "\x1b[1;33mwarning:\x1b[0m ^[]0;pwned^G"; got != want {
		t.Errorf("Warning = %q, want %q", got, want)
	}
	if got, want := Dim("log "+osc0, true), faintOn+"log ^[]0;pwned^G"+styleOff; got != want {
		t.Errorf("Dim = %q, want %q", got, want)
	}
	var errOut bytes.Buffer
	(&Printer{ErrOut: &errOut, ErrTTY: true}).Warning(osc52)
	if got, want := errOut.String(), "warning: ^[]52;c;ZXZpbA==^G\n"; got != want {
		t.Errorf("Printer.Warning on a TTY = %q, want %q", got, want)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{nasty, "plain", "a\r\nb", "\xe2\x80", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		if i, _ := nextUnsafe(got); i >= 0 {
			t.Fatalf("Sanitize(%q) = %q still holds an unsafe character at %d", s, got, i)
		}
		if Sanitize(got) != got {
			t.Fatalf("Sanitize is not idempotent on %q", got)
		}
		if i, _ := nextUnsafe(s); i < 0 && got != s {
			t.Fatalf("Sanitize changed clean %q to %q", s, got)
		}
	})
}
