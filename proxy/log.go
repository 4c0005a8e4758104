package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
	"github.com/mcpctl/mcpctl/transport"
)

// Log is the [Observer] that writes a session log: every frame and event as
// a trace entry, the NDJSON of `--trace` and `--record`, so that
// `mcpctl mock` replays a proxied session and the tools that read traces
// read it. Frames from the host are recorded as sent (the host is the
// client) and frames from the server as received. Secrets known to the
// redactor and the values at the redacted paths are hidden; the frames
// relayed are never changed.
type Log struct {
	trace *transport.Trace
	buf   *bufio.Writer
	red   *transport.Redactor
	paths []RedactPath
	now   func() time.Time // time.Now; tests set it
	// at is the time of the frame or event being written: an entry says
	// when its frame crossed the proxy, not when the log got to it, so
	// that whatever else saw the frame (a live OTLP stream) agrees with
	// the log on its time.
	at time.Time
}

// NewLog returns a Log writing to w through a buffer that the [Tap]
// flushes within [DefaultFlushDelay] of an entry and at Close (see
// [Flusher]). Write errors are w's to report (the session goes on without
// its log).
func NewLog(w io.Writer, r *transport.Redactor, paths []RedactPath) *Log {
	buf := bufio.NewWriterSize(w, 64<<10)
	l := &Log{buf: buf, red: r, paths: paths, now: time.Now}
	l.trace = &transport.Trace{W: buf, Redactor: r, Now: l.stamp}
	return l
}

// stamp is the time of the entry being written.
func (l *Log) stamp() time.Time {
	if !l.at.IsZero() {
		return l.at
	}
	return l.now()
}

// Flush writes what is buffered.
func (l *Log) Flush() { l.buf.Flush() }

// Frame records f. A frame larger than the tap keeps is recorded as an
// event giving its size.
func (l *Log) Frame(f Frame) {
	l.at = f.Time
	defer func() { l.at = time.Time{} }()
	if f.Truncated() {
		l.trace.Note("frame-too-large", map[string]any{"direction": f.Dir.String(), "size": f.Size})
		return
	}
	dir := transport.DirectionRecv
	if f.Dir == HostToServer {
		dir = transport.DirectionSend
	}
	msg := redactPaths(f.Data, l.paths)
	if !l.entry(dir, f.Session, msg) {
		l.trace.SessionMessage(dir, f.Session, msg)
	}
}

// entry writes the entry of a message straight into the buffer, as
// [transport.Trace] writes it, when the message is valid JSON on one line
// after redaction and the session needs no escaping, which is every frame
// of a well-behaved session; it reports false, having written nothing,
// for the rest, which the trace then writes. The log's goroutine shares
// the machine with the relay, so the common case copies the frame into the
// buffer and nowhere else.
func (l *Log) entry(dir, session string, msg []byte) bool {
	msg = l.red.Bytes(msg)
	if bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0 || !plainString(session) || !json.Valid(msg) {
		return false
	}
	b := l.buf.AvailableBuffer()
	b = append(b, `{"time":"`...)
	b = l.stamp().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","direction":"`...)
	b = append(b, dir...)
	b = append(b, '"')
	if session != "" {
		b = append(b, `,"session":"`...)
		b = append(b, session...)
		b = append(b, '"')
	}
	b = append(b, `,"message":`...)
	l.buf.Write(b)
	l.buf.Write(msg)
	l.buf.WriteString("}\n")
	return true
}

// plainString reports whether s is written in JSON as it is, between
// quotes: printable ASCII without quotes or backslashes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Event records e.
func (l *Log) Event(e Event) {
	l.at = e.Time
	l.trace.Note(e.Name, e.Detail)
	l.at = time.Time{}
}

// Redact returns msg as a session log records it: the values at paths
// hidden, then the secrets r knows. It returns msg itself when there is
// nothing to hide; it never modifies msg.
func Redact(msg []byte, r *transport.Redactor, paths []RedactPath) []byte {
	return r.Bytes(redactPaths(msg, paths))
}

// RedactPath is a path into a JSON-RPC message whose value a session log
// hides, written as `--redact-path` takes it: `$.params.arguments.password`,
// with `*` standing for any member or element (`$.result.content[*].text`
// and `$.result.content.*.text` are the same path).
type RedactPath []string

// ParseRedactPath parses a path: `$` followed by `.name`, `[N]`, `[*]` or
// `.*` steps.
func ParseRedactPath(s string) (RedactPath, error) {
	rest, ok := strings.CutPrefix(s, "$")
	if !ok {
		return nil, fmt.Errorf("redact path %q: it must start with $ (as in $.params.arguments.password)", s)
	}
	var p RedactPath
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("redact path %q: empty member name", s)
			}
			p, rest = append(p, rest[:end]), rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("redact path %q: [ without ]", s)
			}
			step := strings.Trim(rest[1:end], `'"`)
			if step != "*" {
				if _, err := strconv.Atoi(step); err != nil && rest[1] != '\'' && rest[1] != '"' {
					return nil, fmt.Errorf("redact path %q: [%s] is neither an index, * nor a quoted name", s, rest[1:end])
				}
			}
			p, rest = append(p, step), rest[end+1:]
		default:
			return nil, fmt.Errorf("redact path %q: unexpected %q after the path so far", s, rest[:1])
		}
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("redact path %q names the whole message", s)
	}
	return p, nil
}

// String writes the path back as it is parsed.
func (p RedactPath) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, step := range p {
		b.WriteByte('.')
		b.WriteString(step)
	}
	return b.String()
}

// redactPaths returns msg with the value at each path replaced by
// [transport.Redacted], in the message or in each message of a batch. A
// message no path matches is returned as it is; one that matches is
// encoded anew (its members in sorted order), and so is one with a member
// given twice, since the copy the decoding dropped is one a server may
// read. A message that starts as JSON but cannot be read whole (NaN, two
// values on a line) is recorded as [transport.Redacted] alone: a lenient
// server may read the path's value in it where the log cannot find it.
func redactPaths(msg []byte, paths []RedactPath) []byte {
	if len(paths) == 0 {
		return msg
	}
	start := jsonscan.Space(msg, 0)
	if start >= len(msg) || msg[start] != '{' && msg[start] != '[' {
		return msg
	}
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	v, twice, err := decodeTree(dec)
	if err != nil || jsonscan.Space(msg, int(dec.InputOffset())) < len(msg) {
		return unreadableRedacted
	}
	msgs := []any{v}
	if batch, ok := v.([]any); ok {
		msgs = batch
	}
	changed := false
	for _, m := range msgs {
		for _, p := range paths {
			if redactAt(m, p) {
				changed = true
			}
		}
	}
	if !changed && !twice {
		return msg
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return unreadableRedacted
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// unreadableRedacted is what the log records of a message it cannot read
// while values are to be hidden in it.
var unreadableRedacted = []byte(`"` + transport.Redacted + `"`)

// decodeTree decodes one JSON value as dec.Decode into an any would,
// reporting also whether an object in it gives a member twice.
func decodeTree(dec *json.Decoder) (v any, twice bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, false, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, false, nil
	}
	switch d {
	case '{':
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, false, err
			}
			k, _ := kt.(string)
			child, t, err := decodeTree(dec)
			if err != nil {
				return nil, false, err
			}
			if _, seen := obj[k]; seen {
				twice = true
			}
			obj[k], twice = child, twice || t
		}
		_, err = dec.Token()
		return obj, twice, err
	case '[':
		arr := []any{}
		for dec.More() {
			child, t, err := decodeTree(dec)
			if err != nil {
				return nil, false, err
			}
			arr, twice = append(arr, child), twice || t
		}
		_, err = dec.Token()
		return arr, twice, err
	}
	return nil, false, fmt.Errorf("unexpected %v", d)
}

// redactAt replaces the values at p under v, reporting whether any was.
func redactAt(v any, p RedactPath) bool {
	if len(p) == 0 {
		return false
	}
	step, last := p[0], len(p) == 1
	hit := false
	switch c := v.(type) {
	case map[string]any:
		for k, child := range c {
			// Any case: encoding/json reads "Password" as the member
			// password of a Go server's arguments.
			if step != "*" && !strings.EqualFold(step, k) {
				continue
			}
			if last {
				c[k] = transport.Redacted
				hit = true
			} else if redactAt(child, p[1:]) {
				hit = true
			}
		}
	case []any:
		for i, child := range c {
			if step != "*" && step != strconv.Itoa(i) {
				continue
			}
			if last {
				c[i] = transport.Redacted
				hit = true
			} else if redactAt(child, p[1:]) {
				hit = true
			}
		}
	}
	return hit
}
