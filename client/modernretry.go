package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/mcpctl/mcpctl/transport"
)

// MaxReissues is how many times a modern request whose response stream
// broke before its answer is sent again, each time with a new id: once, so
// a request is sent at most twice. The 2026-07-28 revision has no
// resumption — the server takes a broken stream for a cancellation — and
// says the client re-issues a lost request as a new one
// (changelog, SEP-2575). Requests that must not be repeated blindly are
// not sent again; see [LostRequestError].
const MaxReissues = 1

// EventRequestReissued is the event [Options.OnEvent] receives when a
// modern request is sent again after its response stream broke; the
// detail names the method and the attempt.
const EventRequestReissued = "request reissued"

// EventCapabilityDeclared is the event [Options.OnEvent] receives when a
// modern request is sent again declaring a client capability the server
// said it needs (-32021) and mcpctl can answer; the detail names it.
const EventCapabilityDeclared = "capability declared"

// EventToolsRelisted is the event [Options.OnEvent] receives when a
// tools/call refused for its headers (-32020) is sent again after listing
// the tools for their current x-mcp-header annotations.
const EventToolsRelisted = "tools listed again"

// modernRetry deals with the errors of a modern request that another
// attempt may cure, each kind at most once, and returns the final outcome:
//
//   - -32022, an unsupported protocol version: [Client.renegotiate].
//   - -32020, headers that do not match the body: for tools/call, the tools
//     are listed again and the Mcp-Param-* headers recomputed from their
//     x-mcp-header annotations (streamable-http, "Client Behavior"); the
//     other headers mcpctl derives from the body itself, so for other
//     methods (or a second mismatch) a [*HeaderMismatchError].
//   - -32021, a missing client capability: declared for this request when
//     mcpctl has an answer for it ([Options.Handlers]), else a
//     [*MissingCapabilityError] naming it and the flag that provides it.
//   - [transport.ErrResponseLost], a broken response stream: the request
//     is sent again with a new id, at most [MaxReissues] times, unless it
//     must not be repeated blindly ([LostRequestError]).
//
// ro is the request's own; what a retry changes in it (the headers, the
// capabilities declared) holds for this request's later attempts here.
func (c *Client) modernRetry(ctx context.Context, method string, params wireParams, ro requestOptions, err error) (json.RawMessage, error) {
	var raw json.RawMessage
	var versionTried, headersTried, capsTried bool
	reissues := 0
	for err != nil {
		var rpc *RPCError
		errors.As(err, &rpc)
		code := 0
		if rpc != nil {
			code = rpc.Code
		}
		switch {
		case code == CodeUnsupportedProtocolVersion && !versionTried:
			versionTried = true
			var retry bool
			if retry, err = c.renegotiate(err); !retry {
				return nil, err
			}
		case code == CodeHeaderMismatch:
			if method != "tools/call" || headersTried {
				return nil, &HeaderMismatchError{Method: method, Relisted: headersTried, Err: rpc}
			}
			headersTried = true
			var rerr error
			if ro.header, rerr = c.refreshParamHeaders(ctx, params.joined()); rerr != nil {
				return nil, fmt.Errorf("%w; listing the tools again for their x-mcp-header annotations failed: %w", &HeaderMismatchError{Method: method, Err: rpc}, rerr)
			}
			c.event(EventToolsRelisted, "tools/call was refused for its headers (-32020); sending it again with headers from the tools as listed now")
		case code == CodeMissingClientCapability:
			missing, declare := c.missingCapabilities(rpc, ro.declare)
			if capsTried || len(declare) == 0 {
				return nil, &MissingCapabilityError{Method: method, Missing: missing, Err: rpc}
			}
			capsTried = true
			ro.declare = withDeclared(ro.declare, declare)
			c.event(EventCapabilityDeclared, fmt.Sprintf("%s needs the client capability %s; sending it again declaring it", method, strings.Join(sortedKeys(declare), ", ")))
		case errors.Is(err, transport.ErrResponseLost):
			if reissues >= MaxReissues {
				return nil, &LostRequestError{Method: method, Sent: reissues + 1, Err: err}
			}
			if why := c.replayRisk(ctx, method, params.joined()); why != "" {
				return nil, &LostRequestError{Method: method, Sent: reissues + 1, NotSent: why, Err: err}
			}
			reissues++
			c.event(EventRequestReissued, fmt.Sprintf("%s: the response stream broke before the answer; sending it again with a new id (%d of %d)", method, reissues, MaxReissues))
		default:
			return nil, err
		}
		raw, _, err = c.roundTrip(ctx, method, params, true, ro)
	}
	return raw, nil
}

func (c *Client) event(name, detail string) {
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(name, detail)
	}
}

// replayRisk says why a modern request whose stream broke must not be sent
// again blindly, or "" when it may be. The server took the broken stream
// for a cancellation, but what the request did before it is done:
//   - subscriptions/listen is a stream, not an answer: whoever listens
//     opens it again.
//   - tools/call may change the world (a tool's destructiveHint defaults
//     to true): it is repeated only for a tool annotated readOnlyHint or
//     idempotentHint ("calling the tool repeatedly with the same arguments
//     will have no additional effect"), as the server lists it now, and
//     never when it created a task (params.task), which would be created
//     twice.
//
// Everything else (lists, reads, prompts, completion, ping, discover,
// task polling) reads or is harmless to repeat.
func (c *Client) replayRisk(ctx context.Context, method string, params json.RawMessage) string {
	switch method {
	case "subscriptions/listen":
		return "a subscription is opened again by whoever listens"
	case "tools/call":
	default:
		return ""
	}
	var p struct {
		Name string          `json:"name"`
		Task json.RawMessage `json:"task"`
	}
	_ = json.Unmarshal(params, &p)
	if len(p.Task) > 0 && string(p.Task) != "null" {
		return "it created a task, which would be created twice"
	}
	tools, err := listAll[Tool](ctx, c, "tools/list", "tools", nil)
	if err != nil {
		return fmt.Sprintf("the tool %q may have run in part, and listing the tools for its annotations failed (%v)", p.Name, err)
	}
	for _, t := range tools {
		if t.Name != p.Name {
			continue
		}
		if a := t.Annotations; a != nil && (isTrue(a.ReadOnlyHint) || isTrue(a.IdempotentHint)) {
			return ""
		}
		break
	}
	return fmt.Sprintf("the tool %q is not annotated read-only or idempotent, so it may have run in part; run the command again if repeating it is safe", p.Name)
}

// refreshParamHeaders lists the tools again and returns the Mcp-Param-*
// headers of the tools/call in params as the tool's x-mcp-header
// annotations say now (to replace those computed before; empty, not nil,
// when there are none).
func (c *Client) refreshParamHeaders(ctx context.Context, params json.RawMessage) (http.Header, error) {
	if _, err := c.ListAll(ctx, "tools/list", "tools"); err != nil {
		return nil, err
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	hs, err := c.paramHeaders(ctx, p.Name)
	if err != nil {
		return nil, err
	}
	h := ParamHeaderValues(hs, p.Arguments)
	if h == nil {
		h = http.Header{}
	}
	return h, nil
}

// answerMethods are the server requests (MRTR input requests in the modern
// era) that answer each client capability: mcpctl can declare the
// capability when it has a handler for the method.
var answerMethods = map[string]string{
	"elicitation": "elicitation/create",
	"sampling":    "sampling/createMessage",
	"roots":       "roots/list",
}

// missingCapabilities reads the requiredCapabilities of a -32021 error and
// returns those mcpctl did not declare for this request, as dotted names
// ("elicitation", "elicitation.url"), and what to declare when mcpctl can
// answer all of them: each is a capability not declared at all whose
// requests an [Options.Handlers] entry answers (elicitation in form mode
// only, as [Elicitation] answers). declare is nil when one of them cannot
// be answered. extra are the capabilities the request declared beyond
// [Options.Capabilities].
func (c *Client) missingCapabilities(rpc *RPCError, extra map[string]any) (missing []string, declare map[string]any) {
	unanswerable := false
	var data struct {
		Required map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	_ = json.Unmarshal(rpc.Data, &data)
	declared := map[string]json.RawMessage{}
	if b, err := json.Marshal(c.opts.Capabilities); err == nil {
		_ = json.Unmarshal(b, &declared)
	}
	for k, v := range extra {
		declared[k], _ = json.Marshal(v)
	}
	declare = map[string]any{}
	for _, name := range sortedKeys(data.Required) {
		var sub map[string]json.RawMessage
		_ = json.Unmarshal(data.Required[name], &sub)
		have, ok := declared[name]
		if !ok {
			if len(sub) == 0 {
				missing = append(missing, name)
			}
			for _, k := range sortedKeys(sub) {
				missing = append(missing, name+"."+k)
			}
			switch {
			case c.opts.Handlers[answerMethods[name]] == nil,
				name == "elicitation" && slices.ContainsFunc(sortedKeys(sub), func(k string) bool { return k != "form" }):
				unanswerable = true
			case name == "elicitation":
				declare[name] = map[string]any{"form": map[string]any{}}
			case len(sub) > 0:
				declare[name] = sub
			default:
				declare[name] = map[string]any{}
			}
			continue
		}
		var haveSub map[string]json.RawMessage
		_ = json.Unmarshal(have, &haveSub)
		for _, k := range sortedKeys(sub) {
			if _, ok := haveSub[k]; !ok {
				missing = append(missing, name+"."+k)
				unanswerable = true // declared already, in another shape
			}
		}
	}
	if unanswerable {
		return missing, nil
	}
	return missing, declare
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// withDeclared returns the capabilities of declared and caps together, in
// a new map (the request's earlier attempts keep theirs).
func withDeclared(declared, caps map[string]any) map[string]any {
	all := make(map[string]any, len(declared)+len(caps))
	for k, v := range declared {
		all[k] = v
	}
	for k, v := range caps {
		all[k] = v
	}
	return all
}

// withRequestMeta is withMeta plus extra, the capabilities this request
// declares beyond [Options.Capabilities] ([requestOptions.declare]).
func (c *Client) withRequestMeta(params json.RawMessage, extra map[string]any) (json.RawMessage, error) {
	params, err := c.withMeta(params)
	if err != nil || len(extra) == 0 {
		return params, err
	}
	return editCapabilities(params, func(caps map[string]json.RawMessage) error {
		for k, v := range extra {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			caps[k] = b
		}
		return nil
	})
}

// editCapabilities lets edit change the clientCapabilities in the _meta of
// a modern request's params (built by withMeta), keeping every other
// member's bytes.
func editCapabilities(params json.RawMessage, edit func(caps map[string]json.RawMessage) error) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, fmt.Errorf("params are not a JSON object: %w", err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(fields["_meta"], &meta); err != nil || meta == nil {
		return nil, fmt.Errorf("params._meta is not a JSON object")
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(meta[metaClientCapabilities], &caps)
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	if err := edit(caps); err != nil {
		return nil, err
	}
	var err error
	if meta[metaClientCapabilities], err = marshalObject(caps); err != nil {
		return nil, err
	}
	if fields["_meta"], err = marshalObject(meta); err != nil {
		return nil, err
	}
	return marshalObject(fields)
}

// HeaderMismatchError reports a modern request the server refused with
// -32020 (HeaderMismatch): the HTTP headers mirrored from the body do not
// match it, or one is missing. mcpctl computes them from the very body it
// sends, so the cause is usually between the two: a proxy that rewrites
// or drops Mcp-* headers, or a server that decodes them wrongly. It
// unwraps to the server's *RPCError (exit status 3).
type HeaderMismatchError struct {
	Method string
	// Relisted says the request was sent again after listing the tools
	// for their current x-mcp-header annotations, and refused again.
	Relisted bool
	Err      *RPCError
}

// Error reads like `tools/call: the server says the request's HTTP headers
// do not match its body, even after listing the tools again for their
// x-mcp-header annotations (server error -32020: …); mcpctl derives the
// Mcp-* headers from the body, so a proxy in between may be changing them`.
func (e *HeaderMismatchError) Error() string {
	again := ""
	if e.Relisted {
		again = ", even after listing the tools again for their x-mcp-header annotations"
	}
	return fmt.Sprintf("%s: the server says the request's HTTP headers do not match its body%s (%v); mcpctl derives MCP-Protocol-Version and the Mcp-* headers from the body, so a proxy in between may be changing them",
		e.Method, again, e.Err)
}

// Unwrap returns the server's error.
func (e *HeaderMismatchError) Unwrap() error { return e.Err }

// MissingCapabilityError reports a modern request the server refused with
// -32021 (MissingRequiredClientCapability) for capabilities mcpctl did not
// declare and cannot in this command. It unwraps to the server's
// *RPCError (exit status 3).
type MissingCapabilityError struct {
	Method string
	// Missing names the required capabilities not declared, dotted for a
	// sub-capability: "elicitation", "elicitation.url".
	Missing []string
	Err     *RPCError
}

// capabilityHints says, per capability, what provides it in mcpctl.
var capabilityHints = map[string]string{
	"elicitation":      "give --elicit accept-defaults, decline, cancel or @answers.json to answer it",
	"elicitation.form": "give --elicit accept-defaults, decline, cancel or @answers.json to answer it",
	"elicitation.url":  "mcpctl declares URL-mode elicitation only at a terminal outside CI, where it can ask before opening a browser",
	"roots":            "give --root DIR to answer it",
	"sampling":         "give --sample @FILE, exec:CMD or decline (or run at a terminal) to answer it",
}

// Error reads like `tools/call: the server needs the client capability
// "elicitation", which mcpctl declares only when it can answer it: give
// --elicit accept-defaults, decline, cancel or @answers.json to answer it
// (server error -32021: …)`.
func (e *MissingCapabilityError) Error() string {
	if len(e.Missing) == 0 {
		return fmt.Sprintf("%s: the server says it needs a client capability mcpctl did not declare, but names none mcpctl lacks (%v)", e.Method, e.Err)
	}
	names := make([]string, len(e.Missing))
	var hints []string
	for i, m := range e.Missing {
		names[i] = fmt.Sprintf("%q", m)
		h, ok := capabilityHints[m]
		if !ok {
			h = fmt.Sprintf("no option of mcpctl provides %s yet", m)
		}
		if !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	noun := "capability"
	if len(names) > 1 {
		noun = "capabilities"
	}
	return fmt.Sprintf("%s: the server needs the client %s %s, which mcpctl declares only when it can answer it: %s (%v)",
		e.Method, noun, strings.Join(names, ", "), strings.Join(hints, "; "), e.Err)
}

// Unwrap returns the server's error.
func (e *MissingCapabilityError) Unwrap() error { return e.Err }

// LostRequestError reports a modern request whose response stream ended or
// broke before its answer ([transport.ErrResponseLost]) and that was not
// sent again: because it was sent [MaxReissues] more times already, or
// because it must not be repeated blindly (NotSent says why).
type LostRequestError struct {
	Method string
	// Sent is how many times the request was sent.
	Sent int
	// NotSent, when set, says why the request was not sent again.
	NotSent string
	// Err is the transport's error for the last attempt.
	Err error
}

// Error reads like `tools/call: the response stream broke before the
// answer and the request was not sent again: the tool "x" is not annotated
// read-only or idempotent, …; POST …: unexpected EOF`.
func (e *LostRequestError) Error() string {
	if e.NotSent != "" {
		return fmt.Sprintf("%s: the response stream broke before the answer and the request was not sent again: %s (%v)", e.Method, e.NotSent, e.Err)
	}
	return fmt.Sprintf("%s: the response stream broke before the answer %d times in a row (%v)", e.Method, e.Sent, e.Err)
}

// Unwrap returns the transport's error.
func (e *LostRequestError) Unwrap() error { return e.Err }

func isTrue(b *bool) bool { return b != nil && *b }
