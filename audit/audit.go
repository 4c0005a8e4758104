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
// key's holder can. Removing lines at the end does not show in the chain
// alone, so each record also carries its sequence number ("seq", its line
// number) and the trail's [Head] (the record count and the last hash) is
// kept beside it, in [HeadPath], rewritten under the same lock as each
// append. [VerifyFile] checks the trail against that head, or against one
// stored elsewhere: records cut from the end, an emptied trail and a
// removed trail whose head is left all show. Trails written before heads
// (no "seq") still verify, with [Report.Unanchored] set; the first record
// appended to one gives it a head, counting its lines. A trail that is not
// a regular file (a pipe, a device) has nowhere to keep a head, and gets
// neither head nor sequence numbers.
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
	"hash"
	"io"
	"io/fs"
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
	// Host names the host that made the request behind the proxy (its
	// clientInfo), "" for mcpctl's own requests.
	Host string `json:"host,omitempty"`
	// Subject is the subject of the host's token, when known.
	Subject string `json:"subject,omitempty"`
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
	// Seq is the record's number in the trail, from 1: its line number.
	// Append sets it; 0 (absent) in trails written before sequence numbers.
	Seq int64 `json:"seq,omitempty"`
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
	path     string
	key      []byte
	anchored bool // the trail is a regular file, with a head beside it

	mu  sync.Mutex // orders the appends of one process
	err *AppendError
	// f is the trail, kept open between records: a proxy appends one per
	// call. It is reopened when the path names another file (the trail
	// was moved or removed), and after Close.
	f  *os.File
	id fs.FileInfo // f's status when it was opened
	// head is the trail's head file, kept open between records as f is,
	// and reopened when its path names another file.
	head headFile
	// last is the head this Writer left the trail with, and size the
	// trail's size then; known is false until it has one, and after the
	// file was reopened. While the trail is as this Writer left it, no
	// other process has appended, and its head need not be read again.
	last  Head
	size  int64
	known bool
	// seal and tail are reused from record to record; tail has room for
	// one byte more than a line's tail, to see a trail that grew.
	seal sealer
	tail [tailLen + 1]byte
}

// AppendError is a record the trail did not take. The request it records
// may have gone to the server all the same: Sent says so.
type AppendError struct {
	// Path is the trail's file.
	Path string
	// Method and Name say what the record was of.
	Method, Name string
	// Sent says the request went to the server.
	Sent bool
	// Err is why the record was not written.
	Err error
}

func (e *AppendError) Error() string {
	what := "was not sent, and"
	if e.Sent {
		what = "was sent but"
	}
	err := e.Err
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == e.Path {
		err = pe.Err // the path is named already
	}
	return fmt.Sprintf("audit trail %s: the %s of %q %s is not recorded: %v", e.Path, e.Method, e.Name, what, err)
}

func (e *AppendError) Unwrap() error { return e.Err }

// Open returns a Writer appending to the file at path, creating it (mode
// 0600) if need be. A non-nil key makes the chain an HMAC chain. Open
// fails when the file cannot be opened for appending, its last line is
// damaged, or it does not match its head (records removed), so that a
// command can refuse to run unaudited. A new trail, or one written before
// heads, gets its head here.
func Open(path string, key []byte) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the audit file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening the audit file: %w", err)
	}
	w := &Writer{path: path, key: key, anchored: st.Mode().IsRegular()}
	w.head.path = HeadPath(path)
	w.seal.key = key
	unlock, err := filelock.File(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the audit file %s: %w", path, err)
	}
	_, err = w.tip(f)
	unlock()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit file %s: %w", path, err)
	}
	w.f, w.id = f, st
	return w, nil
}

// Close closes the trail's file. A later Append opens it again.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	herr := w.head.close()
	if w.f == nil {
		return herr
	}
	err := w.f.Close()
	w.f, w.id, w.known = nil, nil, false
	if err == nil {
		err = herr
	}
	return err
}

// Append writes e as the file's next line, chained to the last one, and
// then the trail's new head. It fills e's Seq, Chain, Prev and Hash. A
// failure is an [*AppendError]; the Writer keeps the first (see
// [Writer.Err]) and goes on trying with later records.
func (w *Writer) Append(e *Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.append(e); err != nil {
		ae := &AppendError{Path: w.path, Method: e.Method, Name: e.Name, Sent: e.Sent, Err: err}
		if w.err == nil {
			w.err = ae
		}
		return ae
	}
	return nil
}

// Err returns the first record this Writer failed to write, as an
// [*AppendError], or nil. A command whose trail missed a record has not
// done its job, even if every request succeeded: it should end in
// failure, naming the file.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return nil
	}
	return w.err
}

func (w *Writer) append(e *Entry) error {
	f, unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	// The tip is read afresh under the lock each time: another process may
	// have appended since this one's last record.
	h, size, err := w.tipAt(f)
	w.known = false
	if err != nil {
		return err
	}
	e.Seq, e.Chain, e.Prev, e.Hash = 0, ChainSHA256, h.Hash, ""
	if w.anchored {
		e.Seq = int64(h.Count) + 1
	}
	if w.key != nil {
		e.Chain = ChainHMACSHA256
	}
	line, err := w.seal.seal(e)
	if err != nil {
		return err
	}
	// One write of the whole line, under the lock: no other writer's bytes
	// can come between.
	if _, err := f.Write(line); err != nil {
		return err
	}
	if !w.anchored {
		return nil
	}
	next := Head{Count: h.Count + 1, Hash: e.Hash}
	if err := w.head.write(next); err != nil {
		return err
	}
	w.last, w.size, w.known = next, size+int64(len(line)), true
	return nil
}

// tipAt is [Writer.tip], and the trail's size, skipping the head's
// reading when the trail is as this Writer left it: the same size, ending
// in the record it wrote last. The last line is read all the same: the
// size alone would not show that line rewritten in place.
func (w *Writer) tipAt(f *os.File) (Head, int64, error) {
	if w.known && w.asLeft(f) {
		return w.last, w.size, nil
	}
	st, err := f.Stat()
	if err != nil {
		return Head{}, 0, err
	}
	h, err := w.tip(f)
	return h, st.Size(), err
}

// leftTail reports whether tail, the bytes read from where the line this
// Writer wrote last begins its hash to the end of the trail, is what that
// line left: its hash, and then nothing.
func (w *Writer) leftTail(tail []byte) bool {
	return len(tail) == tailLen &&
		string(tail[:len(hashPrefix)]) == hashPrefix &&
		string(tail[len(hashPrefix):len(hashPrefix)+64]) == w.last.Hash &&
		string(tail[len(hashPrefix)+64:]) == "\"}\n"
}

// lock returns the trail's file, open and locked, and its unlocking. The
// file kept open is used while the path still names it; otherwise (the
// trail was moved, removed or replaced) the path is opened afresh, as each
// record did when the file was opened per record.
func (w *Writer) lock() (*os.File, func(), error) {
	for range 2 {
		if w.f == nil {
			f, err := os.OpenFile(w.path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
			if err != nil {
				return nil, nil, fmt.Errorf("opening the audit file: %w", err)
			}
			st, err := f.Stat()
			if err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("opening the audit file: %w", err)
			}
			w.f, w.id = f, st
		}
		unlock, err := filelock.File(w.f)
		if err != nil {
			return nil, nil, fmt.Errorf("locking the audit file: %w", err)
		}
		// Checked under the lock: a process that replaces the trail holds
		// it too.
		if w.current() {
			return w.f, unlock, nil
		}
		unlock()
		w.f.Close()
		w.f, w.id, w.known = nil, nil, false
	}
	return nil, nil, fmt.Errorf("opening the audit file: %s keeps being replaced", w.path)
}

// current reports whether the trail's path still names the open file. The
// open file's identity is the one it had when opened: no other file can
// take it while this one is held open.
func (w *Writer) current() bool {
	named, err := os.Stat(w.path)
	return err == nil && os.SameFile(w.id, named)
}

// tip returns the trail's head as the file shows it, read under the lock
// and checked against the head kept beside it; a trail without one (new,
// or written before heads) gets it now. An unanchored trail's has the
// last hash only.
func (w *Writer) tip(f *os.File) (Head, error) {
	prev, err := lastHash(f)
	if err != nil || !w.anchored {
		return Head{Hash: prev}, err
	}
	headPath := w.head.path
	h, ok, err := readHead(headPath)
	switch {
	case err != nil:
		return Head{}, err
	case ok && prev == "" && h.Count > 0:
		return Head{}, fmt.Errorf("the trail is empty but its head %s says %d records: they were removed (check with mcpctl audit verify); nothing is appended to it", headPath, h.Count)
	case ok && h.Hash != prev:
		return Head{}, fmt.Errorf("the trail's last record is not the one its head %s names: records were removed or added behind mcpctl's back (check with mcpctl audit verify); nothing is appended to it", headPath)
	case ok:
		return h, nil
	}
	if prev != "" {
		last, err := lastLine(f)
		if err != nil {
			return Head{}, err
		}
		if seq, err := lineSeq(last); err != nil || seq != 0 {
			return Head{}, fmt.Errorf("the trail's head %s is missing (check with mcpctl audit verify); nothing is appended to it", headPath)
		}
		// Written before heads: its head counts its lines.
		if h.Count, err = countLines(f); err != nil {
			return Head{}, err
		}
		h.Hash = prev
	}
	return h, w.head.write(h)
}

// seal encodes e as a line ending in its hash and a newline, and sets
// e.Hash.
func seal(e *Entry, key []byte) ([]byte, error) {
	s := sealer{key: key}
	line, err := s.seal(e)
	return bytes.Clone(line), err
}

// sealer encodes and hashes lines, keeping its buffers, encoder and MAC
// from one line to the next.
type sealer struct {
	key []byte
	buf bytes.Buffer
	enc *json.Encoder
	mac hash.Hash
	sum [sha256.Size]byte
	hex [2 * sha256.Size]byte
}

// seal is the package's seal with the sealer's key. The line it returns
// is valid until the next call.
func (s *sealer) seal(e *Entry) ([]byte, error) {
	if s.enc == nil {
		s.enc = json.NewEncoder(&s.buf)
		s.enc.SetEscapeHTML(false)
	}
	s.buf.Reset()
	if err := s.enc.Encode(e); err != nil {
		return nil, fmt.Errorf("encoding an audit line: %w", err)
	}
	// The encoding ends in "}\n": the body is what comes before the brace.
	body := bytes.TrimSuffix(s.buf.Bytes(), []byte("}\n"))
	var sum []byte
	if s.key == nil {
		s.sum = sha256.Sum256(body)
		sum = s.sum[:]
	} else {
		if s.mac == nil {
			s.mac = hmac.New(sha256.New, s.key)
		}
		s.mac.Reset()
		s.mac.Write(body)
		sum = s.mac.Sum(s.sum[:0])
	}
	hex.Encode(s.hex[:], sum)
	e.Hash = string(s.hex[:])
	s.buf.Truncate(len(body))
	s.buf.WriteString(hashPrefix)
	s.buf.Write(s.hex[:])
	s.buf.WriteString("\"}\n")
	return s.buf.Bytes(), nil
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
