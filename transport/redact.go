package transport

import (
	"bytes"
	"sort"
	"strings"
	"sync"
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
		dup := false
		for _, have := range r.secrets {
			dup = dup || have == s
		}
		if !dup {
			r.secrets = append(r.secrets, s)
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
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
