package transport

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedactor(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"nothing to hide", nil, "Bearer abcdef", "Bearer abcdef"},
		{"one secret", []string{"abcdef"}, "Authorization: Bearer abcdef", "Authorization: Bearer [redacted]"},
		{"every occurrence", []string{"abcdef"}, "abcdef and abcdef", "[redacted] and [redacted]"},
		{"short values ignored", []string{"abc", "1", ""}, "abc 1", "abc 1"},
		{"surrounding space trimmed", []string{"  tok-123  "}, "x tok-123 y", "x [redacted] y"},
		{"longest first", []string{"secret", "secret-and-more"}, "secret-and-more secret", "[redacted] [redacted]"},
		{"quote escaped in JSON", []string{`pa"ss`}, `{"error":"bad pa\"ss"}`, `{"error":"bad [redacted]"}`},
		{"backslash escaped in JSON", []string{`C:\key`}, `{"path":"C:\\key"}`, `{"path":"[redacted]"}`},
		{"newline escaped in JSON", []string{"line1\nline2"}, `{"m":"line1\nline2"}`, `{"m":"[redacted]"}`},
		{"HTML escaped as Go does", []string{"a<b>&c"}, `{"m":"a\u003cb\u003e\u0026c"}`, `{"m":"[redacted]"}`},
		{"non-ASCII as is", []string{"pässwörd"}, `{"m":"pässwörd"}`, `{"m":"[redacted]"}`},
		{"non-ASCII escaped as Python does", []string{"pässwörd"}, `{"m":"p\u00e4ssw\u00f6rd"}`, `{"m":"[redacted]"}`},
		{"astral plane escaped as a surrogate pair", []string{"key🔑key"}, `{"m":"key\ud83d\udd11key"}`, `{"m":"[redacted]"}`},
		{"raw form too", []string{`pa"ss`}, `pa"ss`, `[redacted]`},
		{"slash escaped as PHP does", []string{"ab/cd+ef=="}, `{"m":"ab\/cd+ef=="}`, `{"m":"[redacted]"}`},
		{"slash and non-ASCII escaped as PHP does", []string{"ä/b-key"}, `{"m":"\u00e4\/b-key"}`, `{"m":"[redacted]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRedactor(tt.secrets...)
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := string(r.Bytes([]byte(tt.in))); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestRedactorJSONRoundTrip checks the escaped forms against encoding/json
// itself: a secret marshalled inside a message must not survive.
func TestRedactorJSONRoundTrip(t *testing.T) {
	secrets := []string{`tab	"quote" \back`, "<script>&amp;", "ünïcödé-tøkén", "ctrl\x01\x1f-key"}
	r := NewRedactor(secrets...)
	for _, s := range secrets {
		msg, err := json.Marshal(map[string]string{"error": "rejected " + s})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(r.Bytes(msg)); got != `{"error":"rejected [redacted]"}` {
			t.Errorf("Bytes(%s) = %s", msg, got)
		}
	}
}

func TestRedactorNilAndEmpty(t *testing.T) {
	var r *Redactor
	r.Add("ignored-secret")
	if !r.Empty() || r.String("ignored-secret") != "ignored-secret" {
		t.Error("a nil Redactor must redact nothing and report Empty")
	}
	b := []byte("data")
	if got := r.Bytes(b); &got[0] != &b[0] {
		t.Error("nil Redactor.Bytes copied its argument")
	}
	var zero Redactor
	if !zero.Empty() {
		t.Error("zero Redactor is not Empty")
	}
	zero.Add("abc") // too short
	if !zero.Empty() {
		t.Error("Redactor with only a short value is not Empty")
	}
	zero.Add("abcd")
	if zero.Empty() {
		t.Error("Redactor with a secret is Empty")
	}
}

func TestRedactorBytesNoCopy(t *testing.T) {
	r := NewRedactor("secret-value")
	b := []byte(`{"clean":true}`)
	if got := r.Bytes(b); &got[0] != &b[0] {
		t.Error("Bytes copied a message with nothing to redact")
	}
	in := []byte(`{"t":"secret-value"}`)
	orig := string(in)
	if got := string(r.Bytes(in)); got != `{"t":"[redacted]"}` || string(in) != orig {
		t.Errorf("Bytes = %s and modified its argument to %s", got, in)
	}
}

func TestRedactorDuplicates(t *testing.T) {
	r := NewRedactor("same-secret", "same-secret")
	r.Add("same-secret")
	if diff := cmp.Diff([]string{"same-secret"}, r.secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
}

func TestRedactorConcurrent(t *testing.T) {
	r := NewRedactor()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			s := "secret-" + strings.Repeat("x", i)
			r.Add(s)
			if got := r.String("a " + s + " b"); strings.Contains(got, s) {
				t.Errorf("String leaked %s: %s", s, got)
			}
		})
	}
	wg.Wait()
}

func TestSecretParam(t *testing.T) {
	secret := []string{"key", "api_key", "apikey", "apiKey", "X-Api-Key", "API-KEY", "token", "access_token", "accessToken",
		"secret", "client_secret", "password", "passwd", "pwd", "auth", "Authorization", "sig", "signature", "code",
		"credential", "jwt", "api%5Fkey"}
	plain := []string{"", "page", "cursor", "x", "mode", "lang", "version", "sessionId"}
	for _, name := range secret {
		if !SecretParam(name) {
			t.Errorf("SecretParam(%q) = false, want true", name)
		}
	}
	for _, name := range plain {
		if SecretParam(name) {
			t.Errorf("SecretParam(%q) = true, want false", name)
		}
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:pass@example.com/mcp", "https://****@example.com/mcp"},
		{"https://ghp_token@example.com/mcp", "https://****@example.com/mcp"},
		{"https://example.com/mcp?token=abc&x=1", "https://example.com/mcp?token=****&x=****"},
		{"http://127.0.0.1:1/mcp?api_key=s3cr3t-v4lue&page=2", "http://127.0.0.1:1/mcp?api_key=****&page=****"},
		{"http://h/mcp?X-Api-Key=v&apiKey=w&Signature=z", "http://h/mcp?X-Api-Key=****&apiKey=****&Signature=****"},
		{"https://example.com/mcp?abc#frag", "https://example.com/mcp?****#****"},
		{"https://example.com/mcp#access_token=abc", "https://example.com/mcp#****"},
		{"http://${HOST}/mcp/${env:PATH_PART}", "http://${HOST}/mcp/${env:PATH_PART}"},
		{"http://a@b/c@d", "http://****@b/c@d"},
		{"http://h/mcp?key=", "http://h/mcp?key=****"},
		{"not a url?secret=x", "not a url?secret=****"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestURLSecrets(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"https://example.com/mcp?page=2", nil},
		{"https://user:pa%40ss@example.com/mcp", []string{"user:pa%40ss", "user:pa@ss", "pa%40ss", "pa@ss"}},
		{"http://h/mcp?api_key=a+b%2Fc&x=1#code=frag", []string{"a+b%2Fc", "a b/c", "a+b/c"}},
		{"http://h/mcp?opaque", []string{"opaque"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, URLSecrets(tt.in)); diff != "" {
			t.Errorf("URLSecrets(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	// What RedactURL hides, the Redactor hides in any text.
	r := NewRedactor(URLSecrets("http://127.0.0.1:1/mcp?api_key=s3cr3t-v4lue")...)
	if got := r.String(`Get "http://127.0.0.1:1/mcp?api_key=s3cr3t-v4lue": refused`); strings.Contains(got, "s3cr3t") {
		t.Errorf("the key is still there: %s", got)
	}
}
