package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// appendOutcome appends the JSON line of one outcome to dst. The result is
// the server's bytes, compacted only if they span lines. redact, if set,
// cleans the error's message.
func appendOutcome(dst []byte, line int, tool string, o *outcome, redact func(string) string) []byte {
	dst = append(dst, `{"line":`...)
	dst = strconv.AppendInt(dst, int64(line), 10)
	if tool != "" {
		dst = append(dst, `,"tool":`...)
		dst = appendJSONString(dst, tool)
	}
	if o.result != nil {
		dst = append(dst, `,"result":`...)
		if bytes.ContainsAny(o.result, "\r\n") {
			var buf bytes.Buffer
			if err := json.Compact(&buf, o.result); err == nil {
				dst = append(dst, buf.Bytes()...)
			} else {
				dst = append(dst, "null"...)
			}
		} else {
			dst = append(dst, o.result...)
		}
	}
	if o.err != nil {
		msg := o.err.Error()
		if redact != nil {
			msg = redact(msg)
		}
		dst = append(dst, `,"error":`...)
		dst = appendJSONString(dst, oneLine(msg))
	}
	if o.code != exitOK {
		dst = append(dst, `,"exit":`...)
		dst = strconv.AppendInt(dst, int64(o.code), 10)
	}
	return append(dst, "}\n"...)
}

// oneLine joins the lines of a message (a list of schema violations) with
// "; ".
func oneLine(msg string) string {
	if !strings.ContainsAny(msg, "\r\n") {
		return msg
	}
	parts := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	msg = strings.Join(parts, "; ")
	return strings.ReplaceAll(msg, ":; ", ": ")
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced, and nothing else
// escaped (encoding/json would also escape <, > and &).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// writer writes result lines. On a terminal each line is flushed as it is
// written; to a pipe or a file lines are buffered and flushed at most
// [flushEvery] after the first one waiting, so a reader of the pipe sees
// each result soon, without a write per line when results come quickly.
type writer struct {
	tty bool

	mu      sync.Mutex
	w       *bufio.Writer
	scratch []byte
	armed   bool  // a flush is scheduled
	err     error // of a scheduled flush
}

// flushEvery is how long a buffered result line may wait.
const flushEvery = 50 * time.Millisecond

func newWriter(w io.Writer, tty bool) *writer {
	return &writer{w: bufio.NewWriterSize(w, 64*1024), tty: tty}
}

// buf returns a scratch buffer to build a line in, valid until the next
// writeLine. Only the goroutine that calls writeLine may use it.
func (bw *writer) buf() []byte { return bw.scratch[:0] }

func (bw *writer) writeLine(line []byte) error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	bw.scratch = line
	if bw.err != nil {
		return bw.err
	}
	if _, err := bw.w.Write(line); err != nil {
		return err
	}
	if bw.tty {
		return bw.w.Flush()
	}
	if !bw.armed {
		bw.armed = true
		time.AfterFunc(flushEvery, bw.scheduled)
	}
	return nil
}

// scheduled is the flush writeLine schedules.
func (bw *writer) scheduled() {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	bw.armed = false
	if err := bw.w.Flush(); err != nil && bw.err == nil {
		bw.err = err
	}
}

// Flush writes what is buffered.
func (bw *writer) Flush() error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if bw.err != nil {
		return bw.err
	}
	return bw.w.Flush()
}
