package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/approval"
	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/session"
)

// DefaultApprovalTimeout is how long a held call waits for a person
// before it is denied, unless --approval-timeout says otherwise.
const DefaultApprovalTimeout = 60 * time.Second

// approvalIDPrefix starts the ids of the requests the proxy sends the host
// itself (elicitation/create): a string no server's numeric or own ids
// can be, so the host's answers are told from answers meant for the server.
const approvalIDPrefix = "mcpctl-approval-"

var markApprovalID = []byte(`"` + approvalIDPrefix)

// modernVersion is the revision assumed for a host that sent no
// initialize and names none in its request's _meta.
const modernVersion = "2026-07-28"

// hostAsk is what a [Conn] knows for asking its host's user: what the
// host declared in initialize, the questions in flight and the
// input-required results it gave. Guarded by the Conn's mu.
type hostAsk struct {
	version string // the protocolVersion the host's initialize asked for
	elicit  bool   // the host declared the elicitation capability
	seq     int64
	asks    map[string]chan json.RawMessage // our request id → the host's answer
	issued  map[string]bool                 // queue ids of input-required results given
	// waiting counts the questions in flight, so that the host's lines
	// are searched for an answer only while one is awaited.
	waiting atomic.Int32
}

// declared reports whether a capability's value declares it (an object,
// even empty).
func declared(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && string(v) != "null" && string(v) != "false"
}

// heldCall is what the approver needs to know of a governed call that
// only its host session knows: how to reach the host, whether and how
// the host can be asked, and the host's answer when the call is a retry
// of one the proxy answered with an input-required result.
type heldCall struct {
	conn     *Conn
	legacy   bool
	version  string
	elicit   bool
	progress json.RawMessage // the request's progressToken, if any
	// related is the id of the host's request: over HTTP, what the proxy
	// sends the host about the call goes on that request's stream.
	related json.RawMessage
	retry   *approval.Retry
	// inputRequired, set by the approver, is the result the host gets in
	// place of a refusal: the question for its user.
	inputRequired json.RawMessage
}

// heldOf returns what the host session of c knows of it, nil when c did
// not come through a Conn.
func (g *Governor) heldOf(c *session.Call) *heldCall {
	if v, ok := g.held.Load(c); ok {
		return v.(*heldCall)
	}
	return nil
}

// modernMeta are the members of a modern request's _meta that say the
// revision and the host's capabilities.
type modernMeta struct {
	Meta modernMetaFields `json:"_meta"`
}

// modernMetaFields are those members.
type modernMetaFields struct {
	Version      string `json:"io.modelcontextprotocol/protocolVersion"`
	Capabilities struct {
		Elicitation json.RawMessage `json:"elicitation"`
	} `json:"io.modelcontextprotocol/clientCapabilities"`
}

// heldCall reads what the approver may need of a governed request. A
// tools/call that answers one of the proxy's input-required results is
// checked here: its requestState must be one this session was given, for
// the same tool and arguments; the line returned is then the call as the
// host first sent it (requestState and inputResponses removed). refused
// is the reason to refuse it, when it cannot be matched.
func (c *Conn) heldCall(req *request, line []byte, legacy bool) (h *heldCall, out []byte, refused string) {
	m := &req.message
	c.mu.Lock()
	h = &heldCall{conn: c, legacy: legacy, version: c.ask.version, elicit: c.ask.elicit}
	c.mu.Unlock()
	meta := req.p.Meta.modernMetaFields
	if req.pErr == nil {
		// FromHost read the params whole: their _meta is in req.p.
		if t := bytes.TrimSpace(req.p.Meta.ProgressToken); len(t) > 0 && string(t) != "null" {
			h.progress = t
		}
	} else {
		h.progress, _ = approval.ProgressToken(m.Params)
		var mm modernMeta
		_ = json.Unmarshal(m.Params, &mm)
		meta = mm.Meta
	}
	h.related = m.ID
	if !legacy {
		h.version, h.elicit = meta.Version, declared(meta.Capabilities.Elicitation)
		if h.version == "" {
			h.version = modernVersion
		}
	}
	if m.Method != "tools/call" || !bytes.Contains(m.Params, []byte(`"requestState"`)) {
		return h, line, ""
	}
	r, ok, err := approval.ParseRetry(m.Params)
	if !ok {
		return h, line, ""
	}
	if err != nil {
		return h, line, "the retry cannot be matched: " + err.Error()
	}
	p := &req.p
	c.mu.Lock()
	issued := c.ask.issued[r.ID]
	c.mu.Unlock()
	if !issued {
		return h, line, fmt.Sprintf("the retry names held call %s, which this proxy session did not ask about", r.ID)
	}
	if !r.Matches(p.Name, p.Arguments) {
		return h, line, fmt.Sprintf("the retry of held call %s changed the tool or its arguments; call it afresh to be asked again", r.ID)
	}
	params, err := approval.StripRetry(m.Params)
	if err == nil {
		out, err = replaceParams(line, params)
	}
	if err != nil {
		return h, line, "the retry cannot be read: " + err.Error()
	}
	c.mu.Lock()
	delete(c.ask.issued, r.ID)
	c.mu.Unlock()
	h.retry = &r
	return h, out, ""
}

// replaceParams returns the message line with params set to params.
func replaceParams(line []byte, params json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	m["params"] = params
	return json.Marshal(m)
}

// hostAnswer takes the host's answer to a question the proxy asked it,
// reporting whether line was one.
func (c *Conn) hostAnswer(line []byte) bool {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		return false
	}
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return false
	}
	c.mu.Lock()
	ch, ok := c.ask.asks[id]
	if ok {
		delete(c.ask.asks, id)
		c.ask.waiting.Add(-1)
	}
	c.mu.Unlock()
	if !ok {
		return false
	}
	if m.Error != nil {
		ch <- nil
	} else {
		ch <- m.Result
	}
	return true
}

// askHost sends the host an elicitation/create request with params and
// returns the channel its answer comes on (a nil answer for an error),
// and the request's id.
func (c *Conn) askHost(params, related json.RawMessage) (string, chan json.RawMessage, error) {
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.ask.seq++
	id := approvalIDPrefix + strconv.FormatInt(c.ask.seq, 10)
	if c.ask.asks == nil {
		c.ask.asks = map[string]chan json.RawMessage{}
	}
	c.ask.asks[id] = ch
	c.ask.waiting.Add(1)
	c.mu.Unlock()
	out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": params})
	if err == nil {
		err = c.toHostAbout(related, out)
	}
	if err != nil {
		c.forget(id)
		return "", nil, err
	}
	return id, ch, nil
}

func (c *Conn) forget(id string) {
	c.mu.Lock()
	if _, ok := c.ask.asks[id]; ok {
		delete(c.ask.asks, id)
		c.ask.waiting.Add(-1)
	}
	c.mu.Unlock()
}

// toHostAbout writes a message of the proxy's own about the host's
// request related: on that request's stream when the outbox has streams
// per request (HTTP), else as toHost does.
func (c *Conn) toHostAbout(related json.RawMessage, out []byte) error {
	c.tapFrame(ServerToHost, out)
	if ro, ok := c.out.(RelatedOutbox); ok && len(related) > 0 {
		return ro.ToHostRelated(related, out)
	}
	return c.out.ToHost(out)
}

// QueueApprover is the proxy's [Approver]: each call that needs approval
// is held in the approval queue, where `mcpctl proxy approvals|approve|deny`
// decide it from any terminal; when the host declared elicitation its user
// is asked as well (elicitation/create in the legacy era, an
// input-required result in the 2026-07-28 era), and the first answer
// wins. A call no one decides within Timeout is denied.
type QueueApprover struct {
	// Store is the approval queue.
	Store approval.Store
	// Timeout is how long a call waits; DefaultApprovalTimeout when zero.
	Timeout time.Duration
	// Every is how often a host that asked for progress is told the call
	// still waits (approval.Heartbeat when zero).
	Every time.Duration
	// SessionID names the proxy session in the queue.
	SessionID string
}

func (a *QueueApprover) timeout() time.Duration {
	if a.Timeout > 0 {
		return a.Timeout
	}
	return DefaultApprovalTimeout
}

// Approve implements [Approver].
func (a *QueueApprover) Approve(ctx context.Context, r *ApprovalRequest) (Approval, error) {
	h := r.held
	if h != nil && h.retry != nil {
		return a.retried(h.retry)
	}
	c := r.Call
	// No one is asked about arguments a server could read otherwise than
	// the person is shown them.
	var twice *approval.TwiceGivenError
	if err := approval.CheckArguments(c.Args); errors.As(err, &twice) {
		return Approval{Reason: twice.Error() + "; call it with each member once"}, nil
	}
	var schema json.RawMessage
	if c.Tool != nil {
		schema = c.Tool.InputSchema
	}
	masked := audit.MaskArgs(c.Args, schema, r.Rule.SensitiveArguments)
	rule := "requires_approval"
	if r.Entry == "annotations" {
		rule = "destructive"
	}
	id, err := a.Store.Hold(approval.Request{
		Server: c.Server, Tool: c.Name, Arguments: masked,
		Host: hostOf(c.Host), SessionID: a.SessionID, Rule: rule,
	})
	if err != nil {
		return Approval{}, err
	}
	prompt := approval.Prompt{ID: id, Server: c.Server, Tool: c.Name, Arguments: masked}
	if h != nil && !h.legacy && h.elicit {
		if res, err := approval.InputRequired(h.version, prompt, c.Args); err == nil {
			h.conn.mu.Lock()
			if h.conn.ask.issued == nil {
				h.conn.ask.issued = map[string]bool{}
			}
			h.conn.ask.issued[id] = true
			h.conn.mu.Unlock()
			h.inputRequired = res
			// The call stays in the queue until the host retries or the
			// timeout ends it, so a terminal can decide it meanwhile.
			go func() { _, _ = a.Store.Wait(context.WithoutCancel(ctx), id, a.timeout()) }()
			return Approval{Reason: "the host's user is asked first (input required); its retry carries the answer"}, nil
		}
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if h != nil && h.legacy && h.elicit {
		version := h.version
		if version < "2025-06-18" {
			version = "2025-06-18"
		}
		if params, err := approval.ElicitParams(version, prompt); err == nil {
			go a.elicit(ctx, h, id, params)
		}
	}
	if h != nil && h.progress != nil {
		go a.progress(ctx, h, id)
	}
	v, err := a.Store.Wait(ctx, id, a.timeout())
	return Approval{Approved: v.Approved, By: v.By, Reason: v.Reason}, err
}

// elicit asks the host's user about held call id and records the answer
// in the queue, where a decision made first at a terminal wins; when the
// call ends before the host answers, the question is withdrawn.
func (a *QueueApprover) elicit(ctx context.Context, h *heldCall, id string, params json.RawMessage) {
	c := h.conn
	reqID, ch, err := c.askHost(params, h.related)
	if err != nil {
		return
	}
	select {
	case res := <-ch:
		v := approval.Verdict{By: approval.ByHost, Reason: "the host answered the approval question with an error"}
		if res != nil {
			v = approval.ParseElicitResult(res)
		}
		_, _ = a.Store.Decide(id, v)
	case <-ctx.Done():
		c.forget(reqID)
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": reqID, "reason": "the call was decided or ended"}})
		_ = c.toHostAbout(h.related, out)
	}
}

// progress tells the host every a.Every that call id still waits, while
// ctx lasts.
func (a *QueueApprover) progress(ctx context.Context, h *heldCall, id string) {
	every := a.Every
	if every <= 0 {
		every = approval.Heartbeat
	}
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			waited := now.Sub(start).Seconds()
			left := max(a.timeout().Seconds()-waited, 0)
			out, err := approval.Progress(h.progress, waited, a.timeout().Seconds(), approval.WaitingMessage(id, left))
			if err != nil {
				return
			}
			_ = h.conn.toHostAbout(h.related, out)
		}
	}
}

// retried decides a held call with the answer the host's retry carried,
// unless someone at a terminal decided it first.
func (a *QueueApprover) retried(r *approval.Retry) (Approval, error) {
	v := r.Verdict
	_, err := a.Store.Decide(r.ID, v)
	var fe *approval.FinishedError
	switch {
	case errors.As(err, &fe) && fe.Entry.Verdict != nil:
		v = *fe.Entry.Verdict
	case err != nil:
		return Approval{}, err
	}
	return Approval{Approved: v.Approved, By: v.By, Reason: v.Reason}, nil
}

// hostOf reads a host's "name version" back into the queue's form.
func hostOf(s string) approval.Host {
	i := strings.LastIndex(s, " ")
	if i <= 0 {
		return approval.Host{Name: s}
	}
	return approval.Host{Name: s[:i], Version: s[i+1:]}
}
