package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// privateFileMode is the mode of files mcpctl creates that may hold what a
// session carried (traces, recordings, a server's stderr): only their
// owner can read them, as with the token store and the audit trail.
const privateFileMode = 0o600

// createPrivate creates or truncates name for writing with mode 0600. An
// existing regular file readable by others is narrowed to its owner too:
// truncating it is replacing its content with the session's. Devices and
// pipes (/dev/stdout, a fifo) are left as they are.
func createPrivate(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, privateFileMode)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
		// Not ours to change, perhaps (another user's file we may write):
		// the content is still written, as asked.
		_ = f.Chmod(fi.Mode().Perm() &^ 0o077)
	}
	return f, nil
}

// sinkFile is a file the user asked mcpctl to write as a side product of
// a command (--trace FILE, --record FILE, --server-stderr FILE). Its first
// failure to write is reported once on stderr, naming the flag and the
// file, and nothing more is written after it, so that the file ends where
// it went wrong rather than having a hole. The command itself goes on: the
// writers of these files (a trace, the server's stderr copier) do not stop
// a session for them. Safe for concurrent use.
type sinkFile struct {
	file *os.File
	flag string // "--trace", for the report
	what string // "the trace is incomplete", for the report
	warn io.Writer

	mu     sync.Mutex
	err    error // the first failure
	closed bool
}

// openSink creates name (see [createPrivate]) as the sink of flag; what
// says what a failure means for the user.
func (f *Factory) openSink(flag, name, what string) (*sinkFile, error) {
	file, err := createPrivate(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s file: %w", flag, err)
	}
	return &sinkFile{file: file, flag: flag, what: what, warn: f.IOStreams.ErrOut}, nil
}

// Write writes p, or returns the first failure again without writing.
func (s *sinkFile) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.closed {
		// A late entry (a goroutine still winding down) is not a failure
		// of the file.
		return 0, os.ErrClosed
	}
	n, err := s.file.Write(p)
	if err != nil {
		s.fail(err)
	}
	return n, err
}

// Close closes the file, reporting a failure to do so (data the system
// had not yet written) unless a write failure was reported already. It
// returns nil: the failure is reported, and the command's result stands.
func (s *sinkFile) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.file.Close(); err != nil && s.err == nil {
		s.fail(err)
	}
	return nil
}

// fail records and reports the first failure. The caller holds s.mu.
func (s *sinkFile) fail(err error) {
	s.err = err
	// The path error repeats the file name the message starts with.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	fmt.Fprintf(s.warn, "mcpctl: %s %s: write failed: %v (%s)\n", s.flag, s.file.Name(), err, s.what)
}
