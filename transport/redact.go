package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
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
// escaped as Go does; non-ASCII escaped as Python does by default), since
// server-supplied text is often JSON that quotes it.
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
