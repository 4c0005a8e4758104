package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
)

// RefuseStyle is how a refused tools/call is answered to the host.
type RefuseStyle string

// The refusal styles: a tool result with isError (the default, which a
// model reads and can act on), or a JSON-RPC error.
const (
	RefuseToolResult RefuseStyle = "result"
	RefuseJSONRPC    RefuseStyle = "jsonrpc"
)

// Outbox is where a governor sends what it decided: a line (one JSON-RPC
// message, without its line ending) to the server or to the host. Each
// call writes one whole message; implementations must serialise writers,
// since held calls write from goroutines of their own.
type Outbox interface {
	ToServer(msg []byte) error
	ToHost(msg []byte) error
}

// Approver asks a person whether a held call may go on: a queue another
// terminal answers, or the host's user through elicitation. Approve may
// hold the call until ctx ends; many calls may wait at once.
type Approver interface {
	Approve(ctx context.Context, r *ApprovalRequest) (Approval, error)
}

// ApprovalRequest is a call that waits for a person's approval.
type ApprovalRequest struct {
	// Call is the call: server, tool, arguments, host and identity.
	Call *session.Call
	// Rule is the policy rule that requires approval, Entry the policy
	// entry it comes from ("annotations" for a destructive tool).
	Rule  policy.Rule
	Entry string
	// held is what the host session knows of the call (govern_approve.go),
	// nil when it did not come through a [Conn].
	held *heldCall
}

// Approval is a person's answer.
type Approval struct {
	Approved bool
	// By names who answered ("host user", "alice@tty"), Reason says why
	// a call was denied; both may be empty.
	By, Reason string
}

// ToolFilter hides tools from the host: a tool any Deny glob matches, or
// one no Allow glob matches when Allow is not empty, is left out of
// tools/list answers and its calls are refused.
type ToolFilter struct {
	Allow, Deny []string
}

// Hides reports whether f hides tool, and the flag that does.
func (f ToolFilter) Hides(tool string) (bool, string) {
	for _, g := range f.Deny {
		if globMatch(g, tool) {
			return true, fmt.Sprintf("--deny %q", g)
		}
	}
	if len(f.Allow) == 0 {
		return false, ""
	}
	for _, g := range f.Allow {
		if globMatch(g, tool) {
			return false, ""
		}
	}
	return true, "no --allow glob"
}

func (f ToolFilter) empty() bool { return len(f.Allow) == 0 && len(f.Deny) == 0 }

func globMatch(glob, name string) bool {
	if glob == name {
		return true
	}
	m, _ := path.Match(glob, name)
	return m
}

// Policy returns the policy stage that refuses the calls f hides and
// passes the others to next (nil: allowed).
func (f ToolFilter) Policy(next session.Policy) session.Policy {
	return &filterPolicy{f: f, next: next}
}

type filterPolicy struct {
	f    ToolFilter
	next session.Policy
}

func (p *filterPolicy) Decide(ctx context.Context, c *session.Call) (session.Decision, error) {
	if c.Method == "tools/call" {
		if hidden, by := p.f.Hides(c.Name); hidden {
			return session.Decision{Allowed: false, By: "refused: filter", Rule: by},
				&policy.Refusal{Tool: c.Name, Rule: "filter", Reason: "the proxy hides this tool (" + by + ")"}
		}
	}
	if p.next == nil {
		return session.Decision{Allowed: true}, nil
	}
	return p.next.Decide(ctx, c)
}

// Immediate implements [session.ImmediatePolicy]: a call the filter
// hides is refused, which is not immediate (the refusal is written to the
// host); one it lets through is immediate when the next stage says so.
func (p *filterPolicy) Immediate(c *session.Call) bool {
	if c.Method == "tools/call" {
		if hidden, _ := p.f.Hides(c.Name); hidden {
			return false
		}
	}
	if p.next == nil {
		return true
	}
	ip, ok := p.next.(session.ImmediatePolicy)
	return ok && ip.Immediate(c)
}

// Governor enforces the origin design on the requests a host sends
// through the proxy: each tools/call (and, when GovernReads is set,
// resources/read and prompts/get) runs through the session pipeline —
// policy, signing, the server's answer, result checks, signature
// verification, audit — and what the host gets back follows from it. It
// is transport-agnostic: messages in, messages out through an [Outbox],
// one [Conn] per host session.
type Governor struct {
	// Pipeline runs each governed request's stages; its policy stage
	// should include Filter's ([ToolFilter.Policy]).
	Pipeline *session.Pipeline
	// Server names the server in the audit trail and keys the rate
	// limits, so proxies of one server share them.
	Server string
	// Filter hides tools from tools/list answers.
	Filter ToolFilter
	// RefuseAs is how refused tool calls are answered; "" is
	// RefuseToolResult.
	RefuseAs RefuseStyle
	// GovernReads passes resources/read and prompts/get through the
	// pipeline too (the audit records them); otherwise they are relayed.
	GovernReads bool
	// Approver asks a person for approval; nil when no one can be asked.
	// Wire it with [Governor.AskHook].
	Approver Approver
	// Tap is told of each decision (an event "govern"); nil tells no one.
	Tap *Tap
	// Pins pins the tools the server lists and flags changed ones; nil
	// pins nothing (govern_pin.go).
	Pins *PinGuard

	held sync.Map // *session.Call → *heldCall, while the call is governed
}

// AskHook is the approval hook of the policy stage
// ([session.PolicyGate.AskContext]) that asks g.Approver.
func (g *Governor) AskHook() func(ctx context.Context, c *session.Call, rule policy.Rule, entry string) (bool, string, string, error) {
	return func(ctx context.Context, c *session.Call, rule policy.Rule, entry string) (bool, string, string, error) {
		if g.Approver == nil {
			return false, "", "no one can approve it here", nil
		}
		a, err := g.Approver.Approve(ctx, &ApprovalRequest{Call: c, Rule: rule, Entry: entry, held: g.heldOf(c)})
		return a.Approved, a.By, a.Reason, err
	}
}

// Conn is one host session as the governor sees it: the host's
// clientInfo, the tools the server listed to it, and the calls waiting
// for the server's answer. Its methods are safe for concurrent use.
type Conn struct {
	g   *Governor
	out Outbox

	mu      sync.Mutex
	host    string
	legacy  bool                    // the host sent initialize, and no error came back
	initID  string                  // the id of the host's initialize until its answer
	tools   map[string]*client.Tool // from the server's tools/list answers
	waiting map[string]*waiter      // governed calls' ids → their answer
	lists   map[string]bool         // tools/list request ids
	hold    map[string]*heldCancel  // held calls, by id
	ask     hostAsk                 // asking the host's user (govern_approve.go)
	// inline runs a governed call's rest (result checks, verification,
	// audit, the host's answer) in FromServer, on the goroutine that reads
	// the server, rather than on a goroutine of its own: the shim's
	// choice, whose host writes do not wait on the server's reader.
	inline bool
	// lines is set when messages are lines of a stream (stdio), which
	// some readers also end at a carriage return.
	lines bool
}

// Conn starts governing a host session whose messages go to out.
func (g *Governor) Conn(out Outbox) *Conn {
	return &Conn{g: g, out: out, tools: map[string]*client.Tool{}, waiting: map[string]*waiter{}, lists: map[string]bool{}, hold: map[string]*heldCancel{}}
}

// message is the part of a JSON-RPC message the governor reads.
type message struct {
	ID     json.RawMessage  `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *client.RPCError `json:"error,omitempty"`
}

// reply is a server's answer to a governed request, decoded once.
type reply struct {
	line []byte
	m    message
	err  error // why the line is not a JSON-RPC answer
}

var (
	markInitialize = []byte(`"initialize"`)
	markToolsList  = []byte(`"tools/list"`)
	markToolsCall  = []byte(`"tools/call"`)
	markRead       = []byte(`"resources/read"`)
	markPrompt     = []byte(`"prompts/get"`)
	markCancelled  = []byte(`"notifications/cancelled"`)
)

// FromHost takes a line the host sent (without its line ending). It
// returns nil when the caller is to forward the line unchanged, at once;
// otherwise the line is the governor's, and the caller runs the function
// returned on a goroutine of its own: it decides, and forwards or refuses
// the request, through the Outbox; once the server answers, the rest
// (result checks, verification, audit, what the host gets) runs from
// FromServer. who is the identity the request came with (a
// bearer token at the HTTP proxy), nil for the connection's own.
//
// Only lines that may be governed are parsed: a cheap byte check passes
// every other line on untouched.
func (c *Conn) FromHost(ctx context.Context, line []byte, who *session.Identity) func() {
	run, done := c.take(ctx, line, who)
	if done {
		return func() {}
	}
	return run
}

// take is [Conn.FromHost] for a caller that lets the governor forward a
// call itself when it can without waiting: done reports that the line
// was dealt with before take returned (the call forwarded, or the
// host's answer to a question taken), and run is then nil. On an inline
// Conn (the shim's), a call the pipeline lets through at once
// ([session.Pipeline.Immediate]) is decided and forwarded on the
// caller's goroutine, which costs no goroutine and no hand-off; one that
// may wait (for a person, a rate-limit slot, the host) still runs on a
// goroutine of its own, so it holds up no other frame.
func (c *Conn) take(ctx context.Context, line []byte, who *session.Identity) (run func(), done bool) {
	if c.ask.waiting.Load() > 0 && bytes.Contains(line, markApprovalID) && c.hostAnswer(line) {
		return nil, true
	}
	if !c.g.mayGovern(line) {
		c.observeHost(line)
		return nil, false
	}
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		run := c.batch(ctx, trimmed, who)
		if run == nil {
			c.refuseLine(&lineRefusal{code: client.CodeParseError, reason: "the batch is not valid JSON"})
			return nil, true
		}
		return run, false
	}
	if c.lines && bytes.IndexByte(line, '\r') >= 0 {
		// JSON takes a carriage return for a space; a server reading
		// lines as Python's text streams or Node's readline do ends a
		// line there, and could read a call the governor did not.
		c.refuseLine(&lineRefusal{code: client.CodeInvalidRequest, reason: "a carriage return inside a line, where some servers end a line"})
		return nil, true
	}
	r, err := c.g.readRequest(line)
	if err != nil {
		c.refuseLine(err)
		return nil, true
	}
	if !c.g.governs(r.Method) {
		c.observe(&r.message)
		return nil, false
	}
	if c.inline && c.immediate(r, who) {
		c.governNow(ctx, line, r, who)
		return nil, true
	}
	return func() { c.govern(ctx, line, r, who) }, false
}

// immediate reports whether r can be governed on the caller's goroutine:
// the pipeline lets it through at once, and it is no retry of a held call
// (whose matching is the approver's).
func (c *Conn) immediate(r *request, who *session.Identity) bool {
	if r.pErr != nil || bytes.Contains(r.Params, []byte(`"requestState"`)) {
		return false
	}
	name := r.p.Name
	if r.Method == "resources/read" {
		name = r.p.URI
	}
	c.mu.Lock()
	tool := c.tools[name]
	c.mu.Unlock()
	call := &session.Call{Method: r.Method, Name: name, Server: c.g.Server, Identity: who}
	if r.Method == "tools/call" {
		call.Tool = tool
	}
	return c.g.Pipeline.Immediate(call)
}

// governs reports whether requests of method are governed.
func (g *Governor) governs(method string) bool {
	switch method {
	case "tools/call":
		return true
	case "resources/read", "prompts/get":
		return g.GovernReads
	}
	return false
}

// observeHost notes what the governor needs from lines it relays: the
// host's clientInfo, the ids of tools/list requests (whose answers it
// reads), and cancellations of held calls.
func (c *Conn) observeHost(line []byte) {
	init := bytes.Contains(line, markInitialize)
	list := bytes.Contains(line, markToolsList)
	cancel := bytes.Contains(line, markCancelled)
	if !init && !list && !cancel {
		return
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	c.observe(&m)
}

// observe is [Conn.observeHost] for a message already read.
func (c *Conn) observe(m *message) {
	switch m.Method {
	case "initialize":
		var p struct {
			ClientInfo      struct{ Name, Version string } `json:"clientInfo"`
			ProtocolVersion string                         `json:"protocolVersion"`
			Capabilities    struct {
				Elicitation json.RawMessage `json:"elicitation"`
			} `json:"capabilities"`
		}
		_ = json.Unmarshal(m.Params, &p)
		c.mu.Lock()
		c.legacy = true
		if len(m.ID) > 0 {
			c.initID = idKey(m.ID)
		}
		c.host = strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
		c.ask.version, c.ask.elicit = p.ProtocolVersion, declared(p.Capabilities.Elicitation)
		c.mu.Unlock()
	case "tools/list":
		if len(m.ID) > 0 {
			c.mu.Lock()
			c.lists[idKey(m.ID)] = true
			c.mu.Unlock()
		}
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && len(p.RequestID) > 0 {
			c.mu.Lock()
			stop := c.hold[idKey(p.RequestID)]
			c.mu.Unlock()
			if stop != nil {
				stop.cancel()
			}
		}
	}
}

// batch splits a JSON-RPC batch that holds a governed request: its other
// messages go on to the server one by one, and each governed one is
// governed as if sent alone, so the host gets each answer on its own
// rather than in one array.
func (c *Conn) batch(ctx context.Context, line []byte, who *session.Identity) func() {
	var items []json.RawMessage
	if json.Unmarshal(line, &items) != nil {
		return nil
	}
	return func() {
		var wg sync.WaitGroup
		for _, it := range items {
			it := bytes.TrimSpace(it)
			if run := c.FromHost(ctx, it, who); run != nil {
				wg.Add(1)
				go func() { defer wg.Done(); run() }()
				continue
			}
			_ = c.out.ToServer(it)
		}
		wg.Wait()
	}
}

// FromServer takes a line the server sent. It returns true when the line
// is the governor's (the answer of a governed call, or a tools/list answer
// to filter or read): the governor then writes what the host gets, and
// the caller writes nothing. Otherwise the caller relays the line as is.
// A governed call's answer is checked, recorded and written to the host
// before FromServer returns on an inline Conn (the shim's), and on a
// goroutine of its own otherwise.
func (c *Conn) FromServer(line []byte) bool {
	c.mu.Lock()
	idle := len(c.waiting) == 0 && len(c.lists) == 0 && c.initID == ""
	c.mu.Unlock()
	if idle {
		return false
	}
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return c.serverBatch(t)
	}
	// The whole answer is decoded here, once: a governed call's stages
	// read it from this decoding.
	a := &reply{line: line}
	a.err = json.Unmarshal(line, &a.m)
	why := serverAmbiguity(line, a.err)
	if why == "" && c.lines && bytes.IndexByte(line, '\r') >= 0 {
		why = "a carriage return inside the server's line, where some hosts end a line"
	}
	if why != "" {
		// The host might read it as an answer the governor did not see:
		// it goes no further; a call the governor reads it as answering
		// fails.
		c.noteServerLine(line, why)
		if len(a.m.ID) > 0 {
			a.err = errors.New(why)
			c.mu.Lock()
			w, waiting := c.waiting[idKey(a.m.ID)]
			delete(c.waiting, idKey(a.m.ID))
			c.mu.Unlock()
			if waiting {
				w.deliver(a)
			}
		}
		return true
	}
	if len(a.m.ID) == 0 {
		return false
	}
	key := idKey(a.m.ID)
	c.mu.Lock()
	if key == c.initID {
		// A host that tries both eras (initialize beside a 2026-07-28
		// request) is in the legacy era only if the server accepted it.
		c.initID = ""
		if a.m.Error != nil {
			c.legacy, c.ask.version, c.ask.elicit = false, "", false
		}
	}
	w, waiting := c.waiting[key]
	if waiting {
		delete(c.waiting, key)
	}
	list := c.lists[key]
	delete(c.lists, key)
	c.mu.Unlock()
	switch {
	case waiting:
		w.deliver(a)
		return true
	case list:
		out := c.toolsList(line)
		if out == nil {
			return false
		}
		c.tapFrame(ServerToHost, out)
		_ = c.out.ToHost(out)
		return true
	}
	return false
}

// toolsList reads a tools/list answer into the tool book and returns it
// with the hidden tools left out, or nil when it is to be relayed as is.
func (c *Conn) toolsList(line []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m["result"] == nil {
		return nil
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return nil
	}
	var tools []client.Tool
	if json.Unmarshal(res["tools"], &tools) != nil {
		return nil
	}
	c.mu.Lock()
	for i := range tools {
		c.tools[tools[i].Name] = &tools[i]
	}
	c.mu.Unlock()
	unpinned := c.pinTools(tools)
	if c.g.Filter.empty() && len(unpinned) == 0 {
		return nil
	}
	kept := make([]json.RawMessage, 0, len(tools))
	var hidden []string
	for _, t := range tools {
		if h, _ := c.g.Filter.Hides(t.Name); h || unpinned[t.Name] {
			hidden = append(hidden, t.Name)
			continue
		}
		kept = append(kept, t.Raw)
	}
	if len(hidden) == 0 {
		return nil
	}
	c.note(map[string]any{"hidden": hidden})
	res["tools"], _ = json.Marshal(kept)
	m["result"], _ = json.Marshal(res)
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// Tool returns the server's listing of tool as this host last saw it, nil
// when it has not been listed.
func (c *Conn) Tool(name string) *client.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools[name]
}

// Host returns the host's clientInfo ("name version") from its
// initialize, "" before it.
func (c *Conn) Host() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.host
}

// heldCancel ends a governed call that waits (for approval, a rate-limit
// slot or its answer) when the host cancels it; a pointer, so that a call
// can tell its own entry from that of a later call with the same id.
type heldCancel struct{ cancel context.CancelFunc }

// waiter is a governed call waiting for its answer, in Conn.waiting. The
// answer (nil when the call was cancelled first) is delivered once, by
// whoever removes the waiter from the map; the call's rest runs once both
// the answer is there and the call has armed the waiter, which it does
// after sending: an answer may come before the send has returned.
type waiter struct {
	mu     sync.Mutex
	got    bool
	answer *reply
	rest   func(*reply)
	inline bool // run rest on the delivering goroutine
}

func (w *waiter) deliver(a *reply) {
	w.mu.Lock()
	w.got, w.answer = true, a
	rest := w.rest
	w.mu.Unlock()
	switch {
	case rest == nil:
	case w.inline:
		rest(a)
	default:
		go rest(a)
	}
}

func (w *waiter) arm(rest func(*reply)) {
	w.mu.Lock()
	w.rest = rest
	got, a := w.got, w.answer
	w.mu.Unlock()
	if got {
		rest(a)
	}
}

// govern runs one governed request through the pipeline and answers the
// host: the held path, for a call that may wait (for a person, a
// rate-limit slot, the host) before it is sent. It has a context of its
// own, which the host's cancellation and the session's end cancel, and
// which stops the call's wait for its answer. It returns once the request
// is sent; the rest (the answer's checks, the audit record, the host's
// answer) runs when the answer comes, on the goroutine that brings it
// when the Conn is inline, or on one of its own.
func (c *Conn) govern(parent context.Context, line []byte, r *request, who *session.Identity) {
	gc := c.newGoverned(parent, line, r, who)
	ctx, cancel := context.WithCancel(parent)
	gc.enter(cancel)
	finish := gc.start(ctx)
	if finish == nil {
		cancel()
		gc.leave()
		return
	}
	stopWatch := context.AfterFunc(ctx, gc.stopWaiting)
	gc.answerTo.arm(func(a *reply) {
		defer func() {
			stopWatch()
			cancel()
			gc.leave()
		}()
		gc.finish(finish, a, ctx.Err())
	})
}

// governNow is [Conn.govern] for a call the pipeline lets through at once
// ([Conn.immediate]) on the relay's goroutine: nothing before the send
// waits on a context, so the call gets none of its own; the host's
// cancellation stops its wait for the answer directly, and the session's
// end leaves it unanswered (the host is gone).
func (c *Conn) governNow(parent context.Context, line []byte, r *request, who *session.Identity) {
	gc := c.newGoverned(parent, line, r, who)
	var ended atomic.Bool // the call was cancelled or is done
	gc.enter(func() {
		if !ended.Swap(true) {
			gc.stopWaiting()
		}
	})
	finish := gc.start(parent)
	if finish == nil {
		ended.Store(true)
		gc.leave()
		return
	}
	gc.answerTo.arm(func(a *reply) {
		defer func() {
			ended.Store(true)
			gc.leave()
		}()
		gc.finish(finish, a, context.Canceled)
	})
}

// governed is one governed request from the host, what [Conn.govern] and
// [Conn.governNow] share.
type governed struct {
	c      *Conn
	parent context.Context // the host session's
	r      *request
	who    *session.Identity
	name   string // the tool, prompt or resource
	key    string // the request's id, as c's maps hold it
	line   []byte // what goes to the server, once signed

	// Set by enter.
	mine   *heldCancel
	call   *session.Call
	legacy bool

	// Set by start.
	held       *heldCall
	spliceable bool // the signature may be spliced into line's params
	sent       bool

	// answerTo is what the call waits on once sent; guarded by c.mu.
	answerTo *waiter
}

func (c *Conn) newGoverned(parent context.Context, line []byte, r *request, who *session.Identity) *governed {
	name := r.p.Name
	if r.Method == "resources/read" {
		name = r.p.URI
	}
	return &governed{c: c, parent: parent, r: r, who: who, name: name, key: idKey(r.ID), line: line}
}

// enter makes the call one the host can cancel (cancel ends it) and
// reads what the session knows of its host and tool.
func (gc *governed) enter(cancel context.CancelFunc) {
	c := gc.c
	gc.mine = &heldCancel{cancel: cancel}
	c.mu.Lock()
	c.hold[gc.key] = gc.mine
	host, legacy, tool := c.host, c.legacy, c.tools[gc.name]
	c.mu.Unlock()
	gc.legacy = legacy
	gc.call = &session.Call{Method: gc.r.Method, Name: gc.name, Args: gc.r.p.Arguments, Server: c.g.Server, Host: host, Identity: gc.who}
	if gc.r.Method == "tools/call" {
		gc.call.Tool = tool
	}
}

// start runs the pipeline up to the send. It returns the pipeline's
// finish once the request is sent; nil when it was not, and the host has
// been answered.
func (gc *governed) start(ctx context.Context) func(session.Sent, error) error {
	c := gc.c
	orig := gc.line
	held, line, refused := c.heldCall(gc.r, gc.line, gc.legacy)
	if refused != "" {
		c.noteCall(governNote{Method: gc.r.Method, Name: gc.name, Refused: refused})
		c.refuse(&gc.r.message, refused, nil, gc.legacy)
		return nil
	}
	gc.held, gc.line = held, line
	// The signature is spliced into the params as FromHost read them,
	// unless a retry's line replaced them.
	gc.spliceable = len(line) == len(orig) && (len(line) == 0 || &line[0] == &orig[0])
	c.g.held.Store(gc.call, held)
	finish, err := c.g.Pipeline.Start(ctx, gc.call, gc.send)
	if finish == nil {
		gc.answer(nil, err)
		return nil
	}
	return finish
}

// send is the pipeline's send: the line, signed when sign is set, goes to
// the server, and the call waits for its answer.
func (gc *governed) send(_ context.Context, sign session.SignFunc) error {
	c := gc.c
	out := gc.line
	if sign != nil {
		sig, err := sign(gc.name, gc.r.p.Arguments)
		if err != nil {
			return err
		}
		if out, err = signedLine(gc.line, gc.r.Params, gc.spliceable, sig); err != nil {
			return err
		}
	}
	w := &waiter{inline: c.inline}
	c.mu.Lock()
	c.waiting[gc.key] = w
	gc.answerTo = w
	c.mu.Unlock()
	if err := c.out.ToServer(out); err != nil {
		return err
	}
	gc.sent = true
	return nil
}

// stopWaiting ends the call's wait for its answer: the answer, should it
// come, is relayed as it came, as any answer the governor does not wait
// for.
func (gc *governed) stopWaiting() {
	c := gc.c
	c.mu.Lock()
	w := gc.answerTo
	mineStill := w != nil && c.waiting[gc.key] == w
	if mineStill {
		delete(c.waiting, gc.key)
	}
	c.mu.Unlock()
	if mineStill {
		w.deliver(nil)
	}
}

// finish ends a sent call with its answer a, or, when a is nil (the call
// stopped waiting), with the error why, and answers the host.
func (gc *governed) finish(finish func(session.Sent, error) error, a *reply, why error) {
	if a == nil {
		gc.answer(nil, finish(session.Sent{}, why))
		return
	}
	s, err := decodeAnswer(gc.r.Method, a, gc.c.g.Pipeline.ReadsResult(gc.call))
	gc.answer(a.line, finish(s, err))
}

// leave forgets the call. A host may reuse the id for its next call as
// soon as it has this call's answer: only this call's own entries are
// removed.
func (gc *governed) leave() {
	c := gc.c
	c.g.held.Delete(gc.call)
	c.mu.Lock()
	if c.hold[gc.key] == gc.mine {
		delete(c.hold, gc.key)
	}
	if w, ok := c.waiting[gc.key]; ok && w == gc.answerTo {
		delete(c.waiting, gc.key)
	}
	c.mu.Unlock()
}

// answer tells the host how the request ended: answer is the server's
// (nil when none came), err what the pipeline returned.
func (gc *governed) answer(answer []byte, err error) {
	c, m := gc.c, &gc.r.message
	note := governNote{Method: m.Method, Name: gc.name, Sent: gc.sent}
	var (
		refusal *policy.Refusal
		verr    *signing.VerifyError
	)
	switch {
	case !gc.sent && gc.held.inputRequired != nil:
		note.InputRequired = true
		c.noteCall(note)
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": gc.held.inputRequired})
		c.tapFrame(ServerToHost, out)
		_ = c.out.ToHost(out)
	case !gc.sent:
		if gc.parent.Err() != nil {
			return
		}
		msg := "not sent: " + errString(err)
		if errors.As(err, &refusal) {
			msg = refusalSentence(refusal)
			note.Rule = refusal.Rule
		}
		note.Refused = msg
		c.noteCall(note)
		c.refuse(m, msg, refusal, gc.legacy)
	case answer == nil:
		// The host went away, or cancelled the call: nothing to answer.
	case errors.As(err, &verr):
		msg := "signature check failed: " + verr.Error()
		note.Signature = msg
		c.noteCall(note)
		out := toolError(m.ID, msg, gc.legacy)
		c.tapFrame(ServerToHost, out)
		_ = c.out.ToHost(out)
	default:
		if err != nil {
			note.Error = errString(err)
		}
		c.noteCall(note)
		c.tapFrame(ServerToHost, answer)
		_ = c.out.ToHost(answer)
	}
}

// governNote is the detail of the "govern" event about one governed
// request. Its members are in the order of their names, as encoding/json
// writes a map's: session logs written when it was a map read the same.
type governNote struct {
	Error         string `json:"error,omitempty"`
	InputRequired bool   `json:"input_required,omitempty"`
	Method        string `json:"method"`
	Name          string `json:"name"`
	Refused       string `json:"refused,omitempty"`
	Rule          string `json:"rule,omitempty"`
	Sent          bool   `json:"sent"`
	Signature     string `json:"signature,omitempty"`
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// refusalSentence is the one sentence the host reads for a refusal:
// "refused by policy: database_query: it needs approval, and it was
// declined".
func refusalSentence(r *policy.Refusal) string {
	return fmt.Sprintf("refused by policy: %s: %s", r.Tool, r.Reason)
}

// refuse answers a request that was not sent.
func (c *Conn) refuse(m *message, msg string, r *policy.Refusal, legacy bool) {
	var out []byte
	if m.Method == "tools/call" && c.g.RefuseAs != RefuseJSONRPC {
		out = toolError(m.ID, msg, legacy)
	} else {
		data := map[string]string{}
		if r != nil {
			data["rule"] = r.Rule
			if r.Entry != "" {
				data["entry"] = r.Entry
			}
		}
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID,
			"error": map[string]any{"code": client.CodeRefused, "message": msg, "data": data}})
	}
	c.tapFrame(ServerToHost, out)
	_ = c.out.ToHost(out)
}

// toolError is a tools/call answer with isError and one text block; in
// the 2026-07-28 era (no initialize) a result carries resultType.
func toolError(id json.RawMessage, msg string, legacy bool) []byte {
	res := map[string]any{"content": []any{map[string]string{"type": "text", "text": msg}}, "isError": true}
	if !legacy {
		res["resultType"] = "complete"
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
	return out
}

// decodeAnswer reads the server's answer for the pipeline, from the
// message FromServer decoded. A tools/call result is decoded again, as a
// CallToolResult, only when a stage reads it (readsResult, see
// [session.Pipeline.ReadsResult]): an allowed call that nothing checks
// after the send costs the answer's path one decoding, not two (the
// result's shape is still checked, by [Checks] on the tap's goroutine).
func decodeAnswer(method string, ans *reply, readsResult bool) (session.Sent, error) {
	if ans.err != nil {
		return session.Sent{}, fmt.Errorf("the server's answer is not JSON: %w", ans.err)
	}
	a := &ans.m
	if a.Error != nil {
		return session.Sent{}, a.Error
	}
	s := session.Sent{Result: a.Result}
	if method == "tools/call" && readsResult {
		var r client.CallToolResult
		if err := json.Unmarshal(a.Result, &r); err != nil {
			return s, fmt.Errorf("the server's tools/call result cannot be read: %w", err)
		}
		r.Raw = a.Result
		s.Tool = &r
	}
	return s, nil
}

// signedLine is the request line with params._meta.signature set to sig.
// When params (the line's params as decoded, the same bytes) have no
// _meta, the signature is spliced into the line's bytes as a new _meta
// member, leaving the rest of the message as the host wrote it;
// otherwise, or when params cannot be found in the line once, the message
// is decoded and re-encoded ([withSignature]). The signature covers the
// tool and arguments, not the params' bytes.
func signedLine(line, params []byte, spliceable bool, sig any) ([]byte, error) {
	if !spliceable || len(params) < 2 || params[0] != '{' || bytes.Contains(params, markMeta) ||
		bytes.Contains(params, []byte(`\u`)) || bytes.Count(line, params) != 1 {
		return withSignature(line, sig)
	}
	enc, err := json.Marshal(sig)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(line, params) + 1 // just after the params' brace
	out := make([]byte, 0, len(line)+len(enc)+len(`"_meta":{"signature":},`))
	out = append(out, line[:at]...)
	out = append(out, `"_meta":{"signature":`...)
	out = append(out, enc...)
	out = append(out, '}')
	if len(bytes.TrimSpace(params[1:len(params)-1])) > 0 {
		out = append(out, ',')
	}
	return append(out, line[at:]...), nil
}

// markMeta is the _meta member's name; params that name it anywhere (in
// their arguments too) are re-encoded rather than spliced, to be sure the
// signature is the only _meta.
var markMeta = []byte(`"_meta"`)

// withSignature returns the request line with params._meta.signature set
// to sig, the rest of the message kept.
func withSignature(line []byte, sig any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	params := map[string]json.RawMessage{}
	if len(m["params"]) > 0 {
		if err := json.Unmarshal(m["params"], &params); err != nil {
			return nil, err
		}
	}
	meta := map[string]json.RawMessage{}
	if len(params["_meta"]) > 0 && string(params["_meta"]) != "null" {
		if err := json.Unmarshal(params["_meta"], &meta); err != nil {
			return nil, err
		}
	}
	var err error
	if meta["signature"], err = json.Marshal(sig); err != nil {
		return nil, err
	}
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	if m["params"], err = json.Marshal(params); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

func (c *Conn) tapFrame(dir Direction, data []byte) {
	if c.g.Tap == nil || data == nil {
		return
	}
	c.g.Tap.Send(outboxFrame(c.out, frameOf(dir, data, int64(len(data)))))
}

func (c *Conn) note(detail map[string]any) {
	if c.g.Tap != nil {
		c.g.Tap.Note("govern", detail)
	}
}

// noteCall tells the tap how a governed request went.
func (c *Conn) noteCall(n governNote) {
	if c.g.Tap != nil {
		c.g.Tap.Note("govern", n)
	}
}

// TokenIdentity is the identity a host's JWT bearer token presents: its
// scope/scp claims and its subject. With a key the token must be an
// HS256 token signed with it and valid now (as mcpctl sign jwt makes
// them); without one its claims are read unchecked.
func TokenIdentity(token string, key []byte, from string) (*session.Identity, error) {
	_, claims, _, err := signing.InspectJWT(token, key)
	if err != nil {
		return nil, fmt.Errorf("the %s: %w", from, err)
	}
	scopes, _ := policy.JWTScopes(token)
	id := &session.Identity{Scopes: scopes, From: from}
	if sub, ok := claims["sub"].(string); ok {
		id.Subject = sub
	}
	return id, nil
}
