package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/transport"
)

// Sender defaults: a batch is sent when it holds DefaultBatchSpans spans or
// DefaultBatchDelay after its first, whichever comes first; the queue holds
// DefaultQueueSpans spans; a POST gets DefaultPostTimeout.
const (
	DefaultBatchSpans  = 512
	DefaultBatchDelay  = time.Second
	DefaultQueueSpans  = 4096
	DefaultPostTimeout = 5 * time.Second
)

// SenderOptions configure a [Sender].
type SenderOptions struct {
	// Endpoint is the collector's URL; one without a path gets
	// /v1/traces, as OTLP/HTTP exporters do.
	Endpoint string
	// Headers are 'Name: value' headers sent with each POST. Their values
	// never appear in what the sender writes.
	Headers []string
	// Info names the program in the spans' resource and scope.
	Info Info
	// Warn receives the sender's warning and summary lines.
	Warn io.Writer
	// Client makes the POSTs; nil is a client of Go's default transport.
	Client *http.Client
	// BatchSpans, BatchDelay, QueueSpans and Timeout default to the
	// Default* constants.
	BatchSpans int
	BatchDelay time.Duration
	QueueSpans int
	Timeout    time.Duration
}

// Sender sends spans to an OTLP/HTTP collector as OTLP/JSON from a
// goroutine of its own, in batches, through a bounded queue: queuing a
// span never waits, and when the queue is full the span is dropped and
// counted. A collector that is down, slow or failing costs spans, never
// traffic: the first failure is said once on Warn, and [Sender.Close]
// says how many spans were sent and dropped.
type Sender struct {
	opts     SenderOptions
	endpoint string // the URL POSTed to
	shown    string // the URL as warnings show it
	header   http.Header
	red      *transport.Redactor

	mu     sync.Mutex // guards closed and sends on queue
	closed bool
	queue  chan queued

	ctx     context.Context // cancelled when Close runs out of time
	cancel  context.CancelFunc
	done    chan struct{}
	sent    atomic.Int64
	dropped atomic.Int64
	warned  bool // only the sender's goroutine reads and writes it
}

// queued is a span with the resource it belongs to.
type queued struct {
	span    OTLPSpan
	session string
	server  string
}

// NewSender checks the options and starts the sender's goroutine.
func NewSender(o SenderOptions) (*Sender, error) {
	u, err := url.Parse(o.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: want an http:// or https:// URL, e.g. http://127.0.0.1:4318", transport.RedactURL(o.Endpoint))
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	s := &Sender{opts: o, endpoint: u.String(), shown: transport.RedactURL(u.String()), header: http.Header{}, red: transport.NewRedactor(transport.URLSecrets(u.String())...)}
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("OTLP header %q: want 'Name: value'", s.red.String(name))
		}
		s.header.Add(name, value)
		if value != "" {
			s.red.Add(value)
		}
	}
	if s.opts.Client == nil {
		s.opts.Client = &http.Client{}
	}
	if s.opts.Warn == nil {
		s.opts.Warn = io.Discard
	}
	if s.opts.BatchSpans <= 0 {
		s.opts.BatchSpans = DefaultBatchSpans
	}
	if s.opts.BatchDelay <= 0 {
		s.opts.BatchDelay = DefaultBatchDelay
	}
	if s.opts.QueueSpans <= 0 {
		s.opts.QueueSpans = DefaultQueueSpans
	}
	if s.opts.Timeout <= 0 {
		s.opts.Timeout = DefaultPostTimeout
	}
	s.queue = make(chan queued, s.opts.QueueSpans)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.done = make(chan struct{})
	go s.run()
	return s, nil
}

// Endpoint is the URL the sender POSTs to, as warnings show it.
func (s *Sender) Endpoint() string { return s.shown }

// add queues a span, or drops and counts it when the queue is full or the
// sender closed.
func (s *Sender) add(q queued) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.dropped.Add(1)
		return
	}
	select {
	case s.queue <- q:
	default:
		s.dropped.Add(1)
	}
}

// Counts returns how many spans were sent and dropped so far.
func (s *Sender) Counts() (sent, dropped int64) { return s.sent.Load(), s.dropped.Load() }

// Close sends what is queued, giving up when ctx ends (the spans not sent
// then are dropped), and writes the summary line on Warn.
func (s *Sender) Close(ctx context.Context) {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-ctx.Done():
		s.cancel()
		<-s.done
	}
	s.cancel()
	sent, dropped := s.Counts()
	fmt.Fprintf(s.opts.Warn, "otlp: %d spans sent, %d dropped\n", sent, dropped)
}

func (s *Sender) run() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		first, ok := <-s.queue
		if !ok {
			return
		}
		batch := []queued{first}
		timer.Reset(s.opts.BatchDelay)
	fill:
		for len(batch) < s.opts.BatchSpans {
			select {
			case q, ok := <-s.queue:
				if !ok {
					break fill
				}
				batch = append(batch, q)
			case <-timer.C:
				break fill
			}
		}
		timer.Stop()
		s.post(batch)
	}
}

// post sends one batch, counting its spans sent or dropped.
func (s *Sender) post(batch []queued) {
	if s.ctx.Err() != nil {
		s.dropped.Add(int64(len(batch)))
		return
	}
	body, err := json.Marshal(s.traces(batch))
	if err != nil {
		s.dropped.Add(int64(len(batch)))
		s.warn(err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		s.dropped.Add(int64(len(batch)))
		s.warn(err.Error())
		return
	}
	for k, v := range s.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		s.dropped.Add(int64(len(batch)))
		if s.ctx.Err() == nil {
			s.warn(s.failure(err))
		}
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		s.dropped.Add(int64(len(batch)))
		s.warn("HTTP " + resp.Status)
		return
	}
	s.sent.Add(int64(len(batch)))
}

// traces groups a batch by session and server into one request.
func (s *Sender) traces(batch []queued) OTLPTraces {
	var t OTLPTraces
	index := map[[2]string]int{}
	var spans [][]OTLPSpan
	var keys [][2]string
	for _, q := range batch {
		k := [2]string{q.session, q.server}
		i, ok := index[k]
		if !ok {
			i = len(spans)
			index[k] = i
			spans = append(spans, nil)
			keys = append(keys, k)
		}
		spans[i] = append(spans[i], q.span)
	}
	for i, k := range keys {
		t.ResourceSpans = append(t.ResourceSpans, resourceSpans(s.opts.Info, k[0], k[1], spans[i]))
	}
	return t
}

// failure says in a few words why a POST failed.
func (s *Sender) failure(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Sprintf("no answer within %s", s.opts.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// warn says the first failure, once.
func (s *Sender) warn(what string) {
	if s.warned {
		return
	}
	s.warned = true
	fmt.Fprintln(s.opts.Warn, s.red.String(fmt.Sprintf("otlp: POST %s: %s; spans are dropped until it answers", s.shown, what)))
}

// Stream is the [proxy.Observer] that turns a proxied session's calls
// into spans as their answers pass, the same spans `mcpctl export -f otlp`
// makes of the session's log afterwards (ids and times included), and
// queues them on a [Sender]. It takes the place of the session's checks
// among the tap's observers and drives them: the checks pair each request
// with its answer, the stream keeps each request until then for its
// traceparent. Frames are redacted as the session log redacts them before
// anything looks at them, so spans carry nothing the log hides.
type Stream struct {
	sender *Sender
	name   string
	red    *transport.Redactor
	paths  []proxy.RedactPath
	c      *collector
	// flags are the flags raised about each pending call, by session and
	// id, until its span is made.
	flags map[string][]proxy.Flag
}

// Stream returns the observer of one session, named name as `mcpctl
// export` names it ("session ID" for a state-dir session, else its log
// file), whose checks are checks. It sets checks' OnCall and OnFlag,
// calling those already set first.
func (s *Sender) Stream(checks *proxy.Checks, name string, red *transport.Redactor, paths []proxy.RedactPath) *Stream {
	st := &Stream{sender: s, name: name, red: red, paths: paths, flags: map[string][]proxy.Flag{},
		c: &collector{checks: checks, live: true, requests: map[string][]json.RawMessage{}}}
	onCall, onFlag := checks.OnCall, checks.OnFlag
	checks.OnCall = func(pc proxy.Call) {
		if onCall != nil {
			onCall(pc)
		}
		st.call(pc)
	}
	checks.OnFlag = func(fl proxy.Flag) {
		if onFlag != nil {
			onFlag(fl)
		}
		// A response to no pending request belongs to no call.
		if fl.ID != "" && fl.Kind != proxy.FlagUnknownID {
			k := flagKey(fl.Session, fl.ID)
			st.flags[k] = append(st.flags[k], fl)
		}
	}
	return st
}

// Frame passes f, redacted, to the checks and keeps its requests.
func (st *Stream) Frame(f proxy.Frame) {
	if !f.Truncated() {
		// Whole, as the log records it: the log's reader sizes a frame by
		// what it holds.
		f.Data = proxy.Redact(f.Data, st.red, st.paths)
		f.Size = int64(len(f.Data))
	}
	st.c.Frame(f)
}

// Event passes e to the checks.
func (st *Stream) Event(e proxy.Event) { st.c.Event(e) }

// End queues the spans of the calls never answered, as the export shows
// them; call it after the checks' End.
func (st *Stream) End() {
	for _, pc := range st.c.checks.Summary().Calls {
		if pc.Pending {
			st.call(pc)
		}
	}
}

// call queues the span of call pc.
func (st *Stream) call(pc proxy.Call) {
	c := Call{Call: pc, Request: st.c.take(pc)}
	if !pc.Pending {
		c.End = pc.Start.Add(pc.Latency)
	}
	k := flagKey(pc.Session, pc.ID)
	for _, fl := range st.flags[k] {
		if fl.Method == "" || fl.Method == pc.Method {
			c.Flags = append(c.Flags, fl)
		}
	}
	delete(st.flags, k)
	checks := st.c.checks
	st.sender.add(queued{span: span(st.name, checks.Version(), pc.Seq(), c), session: st.name, server: serverName(checks.ServerInfo())})
}

func flagKey(session, id string) string { return session + "\x00" + id }
