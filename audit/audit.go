// Package audit keeps mcpctl's audit trail: a JSON Lines file with one line
// per attempted tools/call, resources/read and prompts/get, each line
// chained to the one before it so that a change to any line shows.
//
// Every line ends with its own hash: SHA-256 (or, with a key, HMAC-SHA256)
// of the line's bytes up to the hash field, which include the previous
// line's hash ("prev"). A changed byte anywhere in a line breaks that
// line's hash; a removed or reordered line breaks the next line's prev.
// Without a key anyone can recompute a consistent chain after rewriting
// the file; with one ([Writer] and [Verify] given the same key) only the
// key's holder can. Removing lines at the end is not detectable from the
// file alone.
//
// [Writer.Append] is safe across goroutines and across processes: it
// appends under an exclusive lock on the file (flock on Unix), reading the
// last line's hash under the same lock, so concurrent mcpctl processes
// writing one file keep one valid chain.
package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/internal/filelock"
)

// Chain algorithms, as a line's "chain" field names them.
const (
	ChainSHA256     = "sha256"
	ChainHMACSHA256 = "hmac-sha256"
)

// Masked replaces the value of an argument the trail must not keep.
const Masked = "****"

// Entry is one line of the trail: one attempted request.
type Entry struct {
	// Time is when the request was attempted.
	Time time.Time `json:"time"`
	// Server names the server as mcpctl's messages do.
	Server string `json:"server,omitempty"`
	// Method is "tools/call", "resources/read" or "prompts/get".
	Method string `json:"method"`
	// Name is the tool's or prompt's name, or the resource's URI.
	Name string `json:"name"`
	// Args are the arguments as sent, with secret values masked.
	Args json.RawMessage `json:"args,omitempty"`
	// Decision is what the policy decided; Allowed with an empty By when
	// no policy was in force.
	Decision Decision `json:"decision"`
	// Signed says the request carried a signature.
	Signed bool `json:"signed,omitempty"`
	// Signature is the verdict on the result's signature when it was
	// checked (--verify-key): "verified" or "failed: <why>".
	Signature string `json:"signature,omitempty"`
	// Sent says the request went to the server (a refusal was not sent).
	Sent bool `json:"sent"`
	// Result is the digest of the result's JSON ("sha256:…"), "" when
	// there was none.
	Result string `json:"result,omitempty"`
	// IsError is a tool result's isError.
	IsError bool `json:"isError,omitempty"`
	// Error is the error the request ended with, nil when none.
	Error *Error `json:"error,omitempty"`
	// DurationMS is the time from sending to the answer, in milliseconds.
	DurationMS float64 `json:"durationMs,omitempty"`
	// Chain is the line's hash algorithm, [ChainSHA256] or
	// [ChainHMACSHA256]; Append sets it.
	Chain string `json:"chain"`
	// Prev is the previous line's hash, "" on the first line; Append sets
	// it.
	Prev string `json:"prev"`
	// Hash is the line's own hash; Append sets it. It must stay the last
	// field: it covers the bytes before it.
	Hash string `json:"hash,omitempty"`
}

// Decision is a policy's decision on a request.
type Decision struct {
	Allowed bool `json:"allowed"`
	// By says who decided ("tty-approved", "--approve", "refused:
	// rate_limit"…), "" when no policy was in force.
	By string `json:"by,omitempty"`
	// Rule is the policy entry that applied.
	Rule        string `json:"rule,omitempty"`
	Sensitivity string `json:"sensitivity,omitempty"`
}

// Error is the error a request ended with: a JSON-RPC error's code and
// message, or the message of any other failure (Code zero).
type Error struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message"`
}

// Digest is the digest of a result as the trail records it.
func Digest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// hashPrefix precedes a line's hash; the hash covers the bytes before it.
const hashPrefix = `,"hash":"`

// lineHash is the hash of a line's body (its bytes before hashPrefix).
func lineHash(body, key []byte) string {
	if key == nil {
		sum := sha256.Sum256(body)
		return hex.EncodeToString(sum[:])
	}
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Writer appends entries to an audit file.
type Writer struct {
	path string
	key  []byte
	mu   sync.Mutex // orders the appends of one process
}

// Open returns a Writer appending to the file at path, creating it (mode
// 0600) if need be. A non-nil key makes the chain an HMAC chain. Open
// fails when the file cannot be opened for appending or its last line is
// damaged, so that a command can refuse to run unaudited.
func Open(path string, key []byte) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the audit file: %w", err)
	}
	defer f.Close()
	unlock, err := filelock.File(f)
	if err != nil {
		return nil, fmt.Errorf("locking the audit file %s: %w", path, err)
	}
	defer unlock()
	if _, err := lastHash(f); err != nil {
		return nil, fmt.Errorf("audit file %s: %w", path, err)
	}
	return &Writer{path: path, key: key}, nil
}

// Append writes e as the file's next line, chained to the last one. It
// fills e's Chain, Prev and Hash.
func (w *Writer) Append(e *Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("opening the audit file: %w", err)
	}
	defer f.Close()
	unlock, err := filelock.File(f)
	if err != nil {
		return fmt.Errorf("locking the audit file %s: %w", w.path, err)
	}
	defer unlock()
	prev, err := lastHash(f)
	if err != nil {
		return fmt.Errorf("audit file %s: %w", w.path, err)
	}
	e.Chain, e.Prev, e.Hash = ChainSHA256, prev, ""
	if w.key != nil {
		e.Chain = ChainHMACSHA256
	}
	line, err := seal(e, w.key)
	if err != nil {
		return err
	}
	// One write of the whole line, under the lock: no other writer's bytes
	// can come between.
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("writing the audit file %s: %w", w.path, err)
	}
	return nil
}

// seal encodes e as a line ending in its hash and a newline, and sets
// e.Hash.
func seal(e *Entry, key []byte) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("encoding an audit line: %w", err)
	}
	// The encoding ends in "}\n": the body is what comes before the brace.
	body := bytes.TrimSuffix(buf.Bytes(), []byte("}\n"))
	e.Hash = lineHash(body, key)
	line := append(body, hashPrefix...)
	line = append(line, e.Hash...)
	return append(line, "\"}\n"...), nil
}

// tailLen is how many bytes at the end of a file hold the last line's hash
// and what follows it: `","hash":"` + 64 hex digits + `"}` + "\n".
const tailLen = len(hashPrefix) + 64 + 3

// lastHash reads the hash of the file's last line, "" for an empty file.
func lastHash(f *os.File) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.Size() == 0 {
		return "", nil
	}
	if st.Size() < int64(tailLen) {
		return "", errTornTail
	}
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, st.Size()-int64(tailLen)); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	h, ok := hashOf(bytes.TrimSuffix(tail, []byte("\n")))
	if !ok || tail[len(tail)-1] != '\n' {
		return "", errTornTail
	}
	return h, nil
}

var errTornTail = errors.New("the last line is not a complete audit line (check the file with mcpctl audit verify); nothing more is appended to a damaged trail")

// hashOf returns the hash at the end of a line (without its newline).
func hashOf(line []byte) (string, bool) {
	if !bytes.HasSuffix(line, []byte(`"}`)) || len(line) < tailLen-1 {
		return "", false
	}
	h := line[len(line)-2-64 : len(line)-2]
	if !bytes.HasSuffix(line[:len(line)-2-64], []byte(hashPrefix)) {
		return "", false
	}
	if _, err := hex.DecodeString(string(h)); err != nil {
		return "", false
	}
	return string(h), true
}
