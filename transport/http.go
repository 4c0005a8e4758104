package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Events an HTTP transport reports through [HTTPOptions].OnEvent; with
// OnEvent set to a [Trace]'s Note they land in the trace.
const (
	// EventTransportChosen: which transport [Auto] settled on; detail is
	// "streamable-http" or "sse".
	EventTransportChosen = "transport chosen"
	// EventSessionID: the server assigned a session (Mcp-Session-Id). The
	// detail is the ID's length, never the ID itself.
	EventSessionID = "session id received"
	// EventProtocolVersion: the client set the MCP-Protocol-Version header
	// to send from now on ([ProtocolVersionSetter]); detail is the version.
	EventProtocolVersion = "protocol version header"
	// EventRedirect: a same-origin 307 or 308 redirect was followed; detail
	// reads "307 → URL". Other redirects are refused ([RedirectError]).
	EventRedirect = "redirect"
	// EventReconnecting: an event stream ended early and is being resumed;
	// detail says which stream, the Last-Event-ID and the delay.
	EventReconnecting = "reconnecting"
	// EventGetStreamOpened: the GET event stream is open (again); detail
	// is the Last-Event-ID sent, if any.
	EventGetStreamOpened = "get stream opened"
	// EventGetStreamUnsupported: the server offers no GET event stream;
	// detail is the HTTP status.
	EventGetStreamUnsupported = "get stream unsupported"
	// EventGetStreamEnded: the GET event stream ended for good; detail is
	// the reason.
	EventGetStreamEnded = "get stream ended"
	// EventSessionExpired: a request carrying the session ID got 404; the
	// connection forgot the session and Write returned a
	// [*SessionExpiredError]. Detail is the method that got the 404.
	EventSessionExpired = "session expired"
	// EventFallback: [Auto]'s Streamable HTTP attempt was refused with the
	// status in detail; the legacy SSE transport is tried next.
	EventFallback = "falling back to sse"
	// EventDeleteFailed: the DELETE that ends the session failed; detail is
	// the status or error. Servers may refuse it, so this is no error.
	EventDeleteFailed = "session delete failed"
)

// DefaultCloseTimeout bounds the DELETE an HTTP connection sends on Close.
const DefaultCloseTimeout = 2 * time.Second

// DefaultRetry is how long to wait before resuming an event stream whose
// server gave no retry field.
const DefaultRetry = time.Second

// DefaultMaxReconnects is how many times in a row a stream is resumed
// without progress before giving up.
const DefaultMaxReconnects = 5

// HTTPOptions configure the HTTP transports ([StreamableHTTP], [SSE],
// [Auto]). The zero value is not usable: URL is required.
type HTTPOptions struct {
	// URL is the MCP endpoint (Streamable HTTP) or the SSE endpoint
	// (legacy HTTP+SSE), http or https.
	URL string
	// Header holds extra headers sent with every request, such as
	// Authorization. They are sent to the origin of URL only (see
	// [RedirectError]), and their values never appear in errors, events or
	// warnings: they are added to Redactor.
	Header http.Header
	// Client sends the requests. Nil means a client made by
	// [NewHTTPClient] with TLSConfig; a caller-supplied client must have no
	// overall Timeout, because event streams are long-lived. The transport
	// uses a copy whose CheckRedirect enforces the redirect policy of
	// [RedirectError] before the client's own; the client itself is not
	// modified.
	Client *http.Client
	// TLSConfig is used when Client is nil (for a custom CA or
	// InsecureSkipVerify). Nil means the system roots.
	TLSConfig *tls.Config
	// OnEvent, if set, is told about things that are not messages (see the
	// Event constants). It may be called from any goroutine and must not
	// block; [Trace.Note] fits.
	OnEvent func(event string, detail any)
	// OnViolation is told of each server misbehaviour that does not stop
	// the session ([ViolationHTTP]: a non-JSON event, a body where none
	// belongs) and of each message skipped for its size that answered no
	// pending request ([ViolationTooLarge]). It may be called from any
	// goroutine and must not block. Nil ignores them.
	OnViolation func(Violation)

	// MaxMessageSize limits one message: a JSON response body or one SSE
	// event. Zero means [DefaultMaxMessageSize]. A message over it is
	// discarded without being buffered and reported as a
	// [*MessageTooLargeError]: wrapped in a [*RequestError] when it was (or
	// may have been) the answer to a pending request, else as a warning.
	MaxMessageSize int64
	// Redactor hides secrets in everything the transport reports (errors,
	// body excerpts, events, warnings). The transport adds the values of
	// Header to it (and, for "Bearer TOKEN", the token alone), so the caller
	// can use the same Redactor for its own output and traces. Nil means a
	// Redactor of the transport's own with the values of Header only.
	Redactor *Redactor

	// Retry overrides [DefaultRetry], for tests.
	Retry time.Duration
	// MaxReconnects overrides [DefaultMaxReconnects].
	MaxReconnects int
	// CloseTimeout overrides [DefaultCloseTimeout].
	CloseTimeout time.Duration
}

// NewHTTPClient returns the client the HTTP transports use by default:
// proxies from the environment, dial and TLS handshake timeouts of 10 s, no
// timeout on response headers or bodies (a tool may run long and a stream
// lives as long as the session), and tlsConfig (nil: system roots).
func NewHTTPClient(tlsConfig *tls.Config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = 10 * time.Second
	tr.ResponseHeaderTimeout = 0
	if tlsConfig != nil {
		tr.TLSClientConfig = tlsConfig.Clone()
	}
	return &http.Client{Transport: tr}
}

// NewHTTPTransport returns the transport for mode: "auto" (or ""), "http"
// (also "streamable-http"), or "sse". It is what `--transport` selects.
func NewHTTPTransport(mode string, opts HTTPOptions) (Transport, error) {
	switch mode {
	case "", "auto":
		return &Auto{Options: opts}, nil
	case "http", "streamable-http", "streamable":
		return &StreamableHTTP{Options: opts}, nil
	case "sse":
		return &SSE{Options: opts}, nil
	}
	return nil, fmt.Errorf("unknown HTTP transport %q (want auto, http or sse)", mode)
}

// HTTPError is an HTTP response with an unexpected status.
type HTTPError struct {
	// Status is the HTTP status code.
	Status int
	// Method and URL identify the request (the URL as [RedactURL] shows
	// it).
	Method string
	URL    string
	// BodyExcerpt is the start of the response body on one line: at most
	// 200 bytes, whitespace collapsed, HTML reduced to its text, secrets
	// from HTTPOptions.Header redacted.
	BodyExcerpt string
	// AuthScheme and WWWAuthenticate are the first challenge of a
	// WWW-Authenticate header (scheme, then auth-params by lower-case name,
	// quotes removed), for 401 and 403 answers. Nil when there was none.
	AuthScheme      string
	WWWAuthenticate map[string]string
	// RPCErrorCode is the code of the JSON-RPC error the body holds, when
	// it is one, whatever its id; 0 otherwise. Servers of 2026-07-28 send
	// their protocol errors (-32020, -32021, -32022) with status 400, and
	// a client detecting the era tells them from a legacy refusal by it.
	RPCErrorCode int

	wwwAuthRaw string // the header as received, one line, for Error
}

// Error reads like
// `POST http://127.0.0.1:3001/mcp: 500 Internal Server Error: "oops"`,
// with ` (WWW-Authenticate: Bearer realm="x", error="invalid_token")`
// appended when the server sent a challenge.
func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.BodyExcerpt != "" {
		fmt.Fprintf(&b, ": %q", e.BodyExcerpt)
	}
	switch {
	case e.wwwAuthRaw != "":
		fmt.Fprintf(&b, " (WWW-Authenticate: %s)", e.wwwAuthRaw)
	case e.AuthScheme != "" || len(e.WWWAuthenticate) > 0:
		keys := make([]string, 0, len(e.WWWAuthenticate))
		for k := range e.WWWAuthenticate {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%q", k, e.WWWAuthenticate[k])
		}
		fmt.Fprintf(&b, " (WWW-Authenticate: %s)", strings.TrimSpace(e.AuthScheme+" "+strings.Join(parts, ", ")))
	}
	return b.String()
}

// ConnectError is a request that got no HTTP response at all: refused,
// unresolvable host, TLS failure, reset. Err is the cause; errors.Is sees
// through it (for example to syscall.ECONNREFUSED).
type ConnectError struct {
	// URL is the URL being reached, as [RedactURL] shows it.
	URL string
	// Err is the underlying network error.
	Err error
}

// Error reads like `connecting to http://127.0.0.1:1/mcp: connection refused`.
func (e *ConnectError) Error() string {
	return "connecting to " + e.URL + ": " + describeNetError(e.Err)
}

// Unwrap returns the cause.
func (e *ConnectError) Unwrap() error { return e.Err }

// describeNetError shortens the common network failures to what a user
// needs; others keep Go's text without the url.Error prefix (which repeats
// the URL).
func describeNetError(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by peer"
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "no such host " + dnsErr.Name
	case errors.As(err, &certErr):
		return "TLS certificate not trusted: " + certErr.Err.Error()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// httpBase is what the HTTP connections share: the client, the headers and
// the reporting hooks. It is immutable after newHTTPBase.
type httpBase struct {
	opts     HTTPOptions
	client   *http.Client // a copy of the caller's, with the redirect policy
	ownsHTTP bool         // client made here: close its idle connections at the end
	url      *url.URL
	redactor *Redactor
	maxMsg   int64 // the message size limit in effect
}

func newHTTPBase(opts HTTPOptions) (*httpBase, error) {
	if opts.URL == "" {
		return nil, errors.New("no URL given")
	}
	u, err := url.Parse(opts.URL)
	if err != nil {
		// url.Error repeats the URL as given, credentials and all.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("bad URL %q: %w", RedactURL(opts.URL), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("bad URL %q: the scheme must be http or https", redactURL(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("bad URL %q: no host", redactURL(u))
	}
	b := &httpBase{opts: opts, url: u, redactor: opts.Redactor, maxMsg: opts.MaxMessageSize}
	if b.redactor == nil {
		b.redactor = NewRedactor()
	}
	if b.maxMsg <= 0 {
		b.maxMsg = DefaultMaxMessageSize
	}
	client := opts.Client
	if client == nil {
		client = NewHTTPClient(opts.TLSConfig)
		b.ownsHTTP = true
	}
	b.client = b.withRedirectPolicy(client)
	if b.opts.Retry <= 0 {
		b.opts.Retry = DefaultRetry
	}
	if b.opts.MaxReconnects <= 0 {
		b.opts.MaxReconnects = DefaultMaxReconnects
	}
	if b.opts.CloseTimeout <= 0 {
		b.opts.CloseTimeout = DefaultCloseTimeout
	}
	for _, vs := range opts.Header {
		for _, v := range vs {
			// The Redactor ignores values too short to be secrets.
			b.redactor.Add(v)
			// "Bearer abc": the token alone is just as secret.
			if _, tok, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				b.redactor.Add(tok)
			}
		}
	}
	return b, nil
}

// redact replaces every secret in s.
func (b *httpBase) redact(s []byte) []byte { return b.redactor.Bytes(s) }

// urlString is u for messages: without its credentials or any secret.
func (b *httpBase) urlString(u *url.URL) string { return b.redactor.String(redactURL(u)) }

// event reports name through OnEvent, with the secrets of string details
// (and of string values of map details) redacted.
func (b *httpBase) event(name string, detail any) {
	if b.opts.OnEvent == nil {
		return
	}
	switch d := detail.(type) {
	case string:
		detail = b.redactor.String(d)
	case map[string]any:
		for k, v := range d {
			if s, ok := v.(string); ok {
				d[k] = b.redactor.String(s)
			}
		}
	}
	b.opts.OnEvent(name, detail)
}

// warnf reports a [ViolationHTTP] to OnViolation, its detail redacted.
func (b *httpBase) warnf(format string, args ...any) {
	if b.opts.OnViolation != nil {
		b.opts.OnViolation(Violation{Kind: ViolationHTTP, Detail: b.redactor.String(collapseLine(fmt.Sprintf(format, args...)))})
	}
}

// warnLine reports a [ViolationTooLarge] to OnViolation, msg redacted.
func (b *httpBase) warnLine(msg string) {
	if b.opts.OnViolation != nil {
		b.opts.OnViolation(Violation{Kind: ViolationTooLarge, Detail: b.redactor.String(collapseLine(msg))})
	}
}

// collapseLine keeps a violation's detail on one line.
func collapseLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// closeIdle releases the idle connections of a client made here.
func (b *httpBase) closeIdle() {
	if b.ownsHTTP {
		b.client.CloseIdleConnections()
	}
}

// newRequest builds a request with the caller's extra headers. Ours are
// set after theirs: a user header cannot break the protocol headers. The
// body, when there is one, is the parts joined, read from where they lie.
func (b *httpBase) newRequest(ctx context.Context, method string, u *url.URL, body [][]byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if body != nil {
		getBody := func() (io.ReadCloser, error) {
			if len(body) == 1 {
				return io.NopCloser(bytes.NewReader(body[0])), nil
			}
			rs := make([]io.Reader, len(body))
			for i, p := range body {
				rs[i] = bytes.NewReader(p)
			}
			return io.NopCloser(io.MultiReader(rs...)), nil
		}
		req.ContentLength = int64(partsSize(body))
		req.GetBody = getBody // a redirect or retry sends it again
		req.Body, _ = getBody()
		if req.ContentLength == 0 {
			req.Body, req.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
		}
	}
	for k, vs := range b.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return req, nil
}

// do sends req, turning a failure without a response into a
// *ConnectError. ctx is the caller's: if it ends before the response
// headers arrive, the request is abandoned (cancel is called) and ctx.Err()
// returned. Otherwise the response body lives until cancel is called, which
// the caller must do when done with it.
func (b *httpBase) do(ctx context.Context, req *http.Request, cancel context.CancelFunc) (*http.Response, error) {
	stop := context.AfterFunc(ctx, cancel)
	resp, err := b.client.Do(req)
	if !stop() {
		// ctx ended while we waited.
		if resp != nil {
			resp.Body.Close()
		}
		cancel()
		return nil, endedWhile(ctx.Err(), err)
	}
	if err != nil {
		// The request's own context ends only through Close (or cancel,
		// which nobody has called yet): then there is nothing to report.
		ctxErr := req.Context().Err()
		cancel()
		if ctxErr != nil {
			return nil, ctxErr
		}
		if re, ok := redirectError(err); ok {
			return nil, re
		}
		return nil, &ConnectError{URL: b.urlString(req.URL), Err: err}
	}
	return resp, nil
}

// readLimited reads r whole if it holds at most limit bytes. Over the limit
// it stops after limit+1 bytes and reports tooLarge; the caller closes the
// body so the rest is never read. size is the length the body announced
// (Content-Length), or -1.
//
// A large body is read without the copies of io.ReadAll, whose slice grows
// by reallocation and leaves each old array to the GC, so its peak would
// be several times the body. A body of known size is read into a
// slice of exactly that size; one over the limit is refused unread. A body
// of unknown size is read in chunks of growing size, which are then joined
// into one slice of the exact size: it costs twice its size only while
// being joined.
func readLimited(r io.Reader, size, limit int64) (data []byte, tooLarge bool, err error) {
	if size > limit {
		return nil, true, nil
	}
	if size >= 0 {
		data = make([]byte, size)
		n, err := io.ReadFull(r, data)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // size > 0 and nothing came
		}
		return data[:n], false, err
	}
	return readChunked(io.LimitReader(r, limit+1), limit)
}

// Chunk sizes of readChunked: the first is small for the usual small
// answer, each next one twice the last, up to maxChunk.
const (
	firstChunk = 16 << 10
	maxChunk   = 4 << 20
)

// readChunked reads r to its end, at most limit+1 bytes, as readLimited
// does for a body of unknown size.
func readChunked(r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	var (
		chunks [][]byte
		total  int64
		next   = firstChunk
	)
	for {
		buf := make([]byte, next)
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			chunks = append(chunks, buf[:n])
			total += int64(n)
		}
		if total > limit {
			return nil, true, nil
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			err = rerr
			break
		}
		next = min(2*next, maxChunk)
	}
	switch len(chunks) {
	case 0:
		return nil, false, err
	case 1:
		return chunks[0], false, err
	}
	return joinChunks(chunks, total), false, err
}

// joinChunks copies chunks, total bytes in all, into one slice of exactly
// that size, setting each element of chunks to nil once copied.
//
// Joining a large message hands each chunk's memory back to the system
// once copied (debug.FreeOSMemory), so that the message and its chunks
// are never held whole at once: a 100 MB body then peaks at its size
// plus releaseEvery, not twice its size. The collections are cheap: the
// chunks hold no pointers. The caller must hold no other reference to the
// chunks for their memory to go.
func joinChunks(chunks [][]byte, total int64) []byte {
	release := total >= releaseAbove
	var copied int
	data := make([]byte, 0, total)
	for i, c := range chunks {
		data = append(data, c...)
		chunks[i] = nil
		if copied += len(c); release && copied >= releaseEvery {
			debug.FreeOSMemory()
			copied = 0
		}
	}
	return data
}

// A body of at least releaseAbove bytes of unknown size is joined handing
// its chunks' memory back every releaseEvery bytes.
const (
	releaseAbove = 32 << 20
	releaseEvery = 8 << 20
)

// httpError reads the start of resp's body into an *HTTPError and closes
// the body.
func (b *httpBase) httpError(req *http.Request, resp *http.Response) *HTTPError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	resp.Body.Close()
	return b.httpErrorBody(req, resp, body)
}

// httpErrorBody is httpError for a body already read.
func (b *httpBase) httpErrorBody(req *http.Request, resp *http.Response, body []byte) *HTTPError {
	e := &HTTPError{
		Status:      resp.StatusCode,
		Method:      req.Method,
		URL:         b.urlString(req.URL),
		BodyExcerpt: excerpt(b.redact(body), isHTML(resp.Header.Get("Content-Type"), body)),
	}
	var rpc struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &rpc) == nil && rpc.Error != nil {
		e.RPCErrorCode = rpc.Error.Code
	}
	if h := resp.Header.Get("WWW-Authenticate"); h != "" {
		raw := string(b.redact([]byte(h)))
		e.AuthScheme, e.WWWAuthenticate = parseWWWAuthenticate(raw)
		e.wwwAuthRaw = truncateUTF8(collapseSpace(raw), 300)
	}
	return e
}

// inbound is what Read returns next: a message or an error.
type inbound struct {
	msg json.RawMessage
	err error
}

// inbox carries messages from the goroutines reading HTTP bodies to Read.
// It is a channel, so a client that stops reading holds the streams back
// rather than letting them fill memory.
type inbox struct {
	in   chan inbound
	done chan struct{} // closed by Close
}

func newInbox() inbox {
	return inbox{in: make(chan inbound, 64), done: make(chan struct{})}
}

// push queues it; false means the connection was closed.
func (q *inbox) push(it inbound) bool {
	select {
	case <-q.done:
		return false
	default:
	}
	select {
	case q.in <- it:
		return true
	case <-q.done:
		return false
	}
}

func (q *inbox) read(ctx context.Context) (json.RawMessage, error) {
	select {
	case <-q.done:
		return nil, ErrClosed
	default:
	}
	select {
	case it := <-q.in:
		return it.msg, it.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-q.done:
		return nil, ErrClosed
	}
}

func (q *inbox) isClosed() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

// redactURL is u for messages, as [RedactURL] shows it.
func redactURL(u *url.URL) string { return RedactURL(u.String()) }

func mediaType(h string) string {
	mt, _, err := mime.ParseMediaType(h)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h))
	}
	return mt
}

func isHTML(contentType string, body []byte) bool {
	if mediaType(contentType) == "text/html" {
		return true
	}
	t := bytes.TrimSpace(body)
	return len(t) > 0 && t[0] == '<' && bytes.Contains(bytes.ToLower(t[:min(len(t), 512)]), []byte("<html"))
}

// The HTML patterns are compiled on first use, not at start-up: only an
// HTML error page needs them.
var (
	htmlDropRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)<(script|style|head)\b.*?</(script|style|head)\s*>|<!--.*?-->`)
	})
	htmlTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<[^>]*>`) })
)

// maxExcerpt bounds [HTTPError.BodyExcerpt].
const maxExcerpt = 200

// excerpt makes the start of a body fit on one line of an error message.
func excerpt(body []byte, htmlBody bool) string {
	s := string(body)
	if htmlBody {
		s = htmlDropRE().ReplaceAllString(s, " ")
		s = htmlTagRE().ReplaceAllString(s, " ")
		s = html.UnescapeString(s)
	}
	return truncateUTF8(collapseSpace(s), maxExcerpt)
}

// collapseSpace turns every run of white space (newlines included) into one
// space and drops invalid UTF-8 and control characters.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == 0x85 || r == 0xA0 {
			space = true
			continue
		}
		if r < 0x20 || r == 0x7f {
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary, marking the
// cut with "…".
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// parseWWWAuthenticate reads the first challenge of a WWW-Authenticate
// header (RFC 9110 §11.6.1): a scheme, then comma-separated auth-params
// name=token or name="quoted string". Parsing stops at anything else (a
// token68, or the next challenge's scheme).
func parseWWWAuthenticate(h string) (scheme string, params map[string]string) {
	scheme, s := readToken(strings.TrimSpace(h))
	if scheme == "" {
		return "", nil
	}
	params = map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t,")
		name, rest := readToken(s)
		rest = strings.TrimLeft(rest, " \t")
		if name == "" || !strings.HasPrefix(rest, "=") {
			return scheme, params
		}
		rest = strings.TrimLeft(rest[1:], " \t")
		var value string
		if strings.HasPrefix(rest, `"`) {
			value, rest = readQuoted(rest)
		} else {
			value, rest = readToken(rest)
			if value == "" {
				// "abc==": a token68, not a parameter.
				return scheme, params
			}
		}
		params[strings.ToLower(name)] = value
		s = rest
	}
}

func readToken(s string) (tok, rest string) {
	i := 0
	for i < len(s) && isTokenChar(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func isTokenChar(c byte) bool {
	if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~/", c) >= 0
}

func readQuoted(s string) (value, rest string) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), ""
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

// endedError is a context's end that came while a request was under way:
// its message is the context's, and it also unwraps to what the request
// was doing, so a caller can tell a silent server from, say, an
// authorization step that was waiting for the user (a RoundTripper's error
// with a TimeoutDetail method).
type endedError struct{ ctx, during error }

func (e *endedError) Error() string   { return e.ctx.Error() }
func (e *endedError) Unwrap() []error { return []error{e.ctx, e.during} }

// endedWhile is ctxErr, with during attached when there is one.
func endedWhile(ctxErr, during error) error {
	if during == nil {
		return ctxErr
	}
	return &endedError{ctx: ctxErr, during: during}
}
