package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// minSecretLen is the shortest value a [Redactor] hides: replacing every
// "a" or "1" in a message would make it unreadable and protect nothing.
const minSecretLen = 4

// Redacted replaces a secret wherever mcpctl prints or traces text.
const Redacted = "[redacted]"

// Redactor replaces secret values (tokens, header values, signing keys,
// environment values given with -e) in text that mcpctl prints or traces.
// It is the one redactor for every such path: HTTP error bodies, JSON-RPC
// error messages, log notifications, traces. The zero value and a nil
// *Redactor redact nothing; methods are safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first, so a secret containing another is replaced whole
}

// NewRedactor returns a Redactor hiding secrets.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add registers more secrets. Values shorter than four bytes are ignored.
// Each secret is also hidden in the forms JSON encoders write it in inside
// a string (quotes, backslashes and control characters escaped; <, > and &
// escaped as Go does; non-ASCII escaped as Python does by default; "/"
// escaped as PHP does), since server-supplied text is often JSON that
// quotes it.
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecretLen {
			continue
		}
		for _, form := range jsonForms(s) {
			if !slices.Contains(r.secrets, form) {
				r.secrets = append(r.secrets, form)
			}
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// jsonForms returns s and the distinct forms it takes inside a JSON string
// as common encoders write it.
func jsonForms(s string) []string {
	forms := []string{s}
	add := func(f string) {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	html, _ := json.Marshal(s) // Go's default: <, > and & escaped too
	add(unquote(html))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // JavaScript's JSON.stringify and most others
	if enc.Encode(s) == nil {
		plain := unquote(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		add(plain)
		add(asciiEscaped(plain)) // Python's json.dumps with ensure_ascii
		// PHP's json_encode escapes "/" too, which base64 tokens hold.
		if strings.Contains(plain, "/") {
			add(strings.ReplaceAll(plain, "/", `\/`))
			add(strings.ReplaceAll(asciiEscaped(plain), "/", `\/`))
		}
	}
	return forms
}

// unquote strips the quotes json.Marshal put around a string.
func unquote(b []byte) string {
	if len(b) < 2 {
		return ""
	}
	return string(b[1 : len(b)-1])
}

// asciiEscaped writes every non-ASCII character of s as \uXXXX (a UTF-16
// surrogate pair above U+FFFF), with lower-case hex digits as Python does.
func asciiEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// Empty reports whether there is nothing to redact.
func (r *Redactor) Empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets) == 0
}

// String returns s with every secret replaced by [Redacted].
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
	}
	return s
}

// Bytes returns b with every secret replaced by [Redacted]. When there is
// nothing to replace it returns b itself, not a copy; it never modifies b.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		if bytes.Contains(b, []byte(secret)) {
			b = bytes.ReplaceAll(b, []byte(secret), []byte(Redacted))
		}
	}
	return b
}

// URLMask replaces the parts of a URL that may be credentials when
// [RedactURL] shows it.
const URLMask = "****"

// secretParamWords are the parts of a query parameter's name (lower case,
// without '-', '_' and '.') that make its value a credential: api_key,
// X-Api-Key, apiKey, access_token, client_secret, sig, code, …. A name
// containing one is enough: hiding a harmless value costs a little
// readability, showing a key costs the key.
var secretParamWords = [...]string{"key", "token", "secret", "pass", "pwd", "auth", "sig", "code", "cred", "jwt", "bearer", "cookie", "private"}

// SecretParam reports whether a URL query parameter named name may carry a
// credential, whose value [URLSecrets] then returns. The name is compared
// without case and without '-', '_' and '.', and may be percent-encoded.
func SecretParam(name string) bool {
	if u, err := url.QueryUnescape(name); err == nil {
		name = u
	}
	norm := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
	for _, w := range secretParamWords {
		if strings.Contains(norm, w) {
			return true
		}
	}
	return false
}

// RedactURL is the one rule by which mcpctl shows a URL, wherever it
// prints or records one (errors, -v, traces, recordings, the audit trail,
// mcpctl servers): the user information (a password, or a token given as
// the user name) becomes [URLMask], and so do every query value and the
// fragment; parameter names stay, so that api_key=**** still says what
// was given. Every value, not only those [SecretParam] recognises: a key
// may be passed as ?k= or ?sk=, and a shown URL loses little by it. It
// works on the text, so that the rest, ${…} references and odd escapes
// included, stays as written, and s need not parse.
func RedactURL(s string) string {
	prefix, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, rest = s[:i+3], s[i+3:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		rest = URLMask + rest[at:]
	}
	frag := ""
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		rest, frag = rest[:h], "#"+URLMask
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return prefix + rest + frag
	}
	parts := strings.Split(rest[q+1:], "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + URLMask
		} else if p != "" {
			parts[i] = URLMask
		}
	}
	return prefix + rest[:q+1] + strings.Join(parts, "&") + frag
}

// URLSecrets returns the credentials of s that can reach a server and so
// come back in its answers or in network errors: the user information
// (whole, and the password alone), the values of the query parameters
// [SecretParam] recognises, and query items without a name, each as
// written and decoded. Add them to a [Redactor] to hide them in any text,
// not only where the URL is shown whole ([RedactURL]). Other values are
// left out: hiding every "default" or "2" a URL carries would hide them
// in every message.
func URLSecrets(s string) []string {
	var out []string
	add := func(v string) {
		forms := []string{v}
		if d, err := url.QueryUnescape(v); err == nil {
			forms = append(forms, d)
		}
		if d, err := url.PathUnescape(v); err == nil {
			forms = append(forms, d)
		}
		for _, f := range forms {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	rest := s
	if i := strings.Index(s, "://"); i >= 0 {
		rest = s[i+3:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		info := rest[:at]
		add(info)
		if _, pw, ok := strings.Cut(info, ":"); ok {
			add(pw)
		}
	}
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		rest = rest[:h]
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return out
	}
	for _, p := range strings.Split(rest[q+1:], "&") {
		if k, v, ok := strings.Cut(p, "="); ok {
			if SecretParam(k) && v != "" {
				add(v)
			}
		} else if p != "" {
			add(p)
		}
	}
	return out
}
